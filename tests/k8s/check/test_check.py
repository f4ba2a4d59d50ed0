"""check_files / check_texts: what ``podspec check`` and POST /api/v1/analyze answer."""

from __future__ import annotations

from designer.k8s.check import check_files, check_texts

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {cpu: "1", memory: 1Gi}
"""
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)
)


def test_every_document_is_reported_with_its_file_and_index() -> None:
    text = POD % "a" + "---\nkind: ConfigMap\nmetadata: {name: c}\n---\n" + POD % "b"
    result = check_files([("one.yaml", text), ("two.yaml", POD % "c")])
    assert [(o.file, o.workload.document, o.workload.name) for o in result.objects] == [
        ("one.yaml", 0, "a"),
        ("one.yaml", 2, "b"),
        ("two.yaml", 0, "c"),
    ]
    assert result.errors == []
    (first, *_rest) = result.as_dict()["objects"]
    assert first["qosClass"] == "Burstable"
    assert first["effectiveRequests"] == {"cpu": "500m", "memory": "1Gi"}
    assert first["effectiveLimits"] == {"cpu": "1", "memory": "1Gi"}


def test_a_broken_document_does_not_hide_the_others() -> None:
    text = POD % "a" + "---\nkind: Pod\nmetadata: {name: [\n---\n" + POD % "b"
    result = check_files([("f.yaml", text)])
    assert [o.workload.name for o in result.objects] == ["a", "b"]
    (error,) = result.errors
    assert error.document == 1 and error.file == "f.yaml" and not error.hostile
    assert error.message.startswith("line ")


def test_a_hostile_document_is_flagged_by_the_reader() -> None:
    result = check_files([("f.yaml", POD % "a" + "---\n" + BOMB)])
    (error,) = result.errors
    assert error.hostile and "excessive aliasing" in error.message
    assert [e.hostile for e in result.hostile] == [True]


def test_an_unreadable_file_is_one_error_without_a_document() -> None:
    result = check_files([("bin.yaml", b"\xff\xfe\x00k")])
    (error,) = result.errors
    assert error.document is None and "UTF-16" in error.message
    assert result.objects == []


def test_identical_pod_templates_share_one_report() -> None:
    text = "\n---\n".join(POD % name for name in ("a", "b", "c"))
    objects = check_files([("f.yaml", text)]).objects
    assert objects[0].report is objects[1].report is objects[2].report


def test_the_json_document_has_the_documented_shape() -> None:
    document = check_texts([("f.yaml", POD % "a")])
    assert set(document) == {
        "objects",
        "skipped",
        "errors",
        "draObjects",
        "policies",
        "kubernetesVersion",
    }
    assert set(document["objects"][0]) == {
        "file",
        "document",
        "path",
        "kind",
        "name",
        "namespace",
        "template",
        "replicas",
        "replicasMin",
        "replicasMax",
        "replicasFrom",
        "role",
        "foundBy",
        "operator",
        "notes",
        "qosClass",
        "effectiveRequests",
        "effectiveLimits",
        "errors",
        "warnings",
        "qosReasons",
        "advice",
        "claims",
        "admission",
        "versionNotes",
    }


GPU_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve}
spec:
  template:
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists}]
      containers:
      - name: main
        image: triton
        resources:
          limits: {nvidia.com/gpu: 1}
        volumeMounts: [{name: cache, mountPath: /cache}]
      volumes:
      - {name: cache, emptyDir: {medium: Memory}}
"""


def test_a_best_effort_gpu_deployment_gets_advice_for_its_workload_type() -> None:
    (obj,) = check_texts([("d.yaml", GPU_DEPLOYMENT)])["objects"]
    assert obj["qosClass"] == "BestEffort"
    by_code = {a["code"]: a for a in obj["advice"]}
    assert "gpu-best-effort" in by_code
    # A Deployment opens in the designer as online inference: its rules apply too.
    assert "inference-requests-differ" in by_code
    unbounded = by_code["memory-emptydir-without-size-limit"]["message"]
    assert "spec.template.spec.volumes[0].emptyDir" in unbounded
    assert set(by_code["gpu-best-effort"]) == {"code", "message", "reason"}


def test_pods_of_one_template_share_advice_only_when_their_memory_volumes_agree() -> None:
    pod = POD % "a" + "  volumes:\n  - {name: x, emptyDir: {medium: Memory}}\n"
    other = POD % "b" + "  volumes:\n  - {name: x, emptyDir: {medium: Memory, sizeLimit: 1Gi}}\n"
    first, second = check_texts([("p.yaml", pod + "---\n" + other)])["objects"]
    assert "memory-emptydir-without-size-limit" in [a["code"] for a in first["advice"]]
    assert "memory-emptydir-without-size-limit" not in [a["code"] for a in second["advice"]]


def test_templates_of_kinds_opened_as_other_workload_types_do_not_share_advice() -> None:
    template = (
        "  template:\n    spec:\n      containers:\n      - name: main\n        image: x\n"
        "        resources: {requests: {cpu: '1'}}\n"
    )
    text = (
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec:\n"
        + template
        + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
        + template
    )
    replica_set, deployment = check_texts([("f.yaml", text)])["objects"]
    assert "inference-requests-differ" not in [a["code"] for a in replica_set["advice"]]
    assert "inference-requests-differ" in [a["code"] for a in deployment["advice"]]
