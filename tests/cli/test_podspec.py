"""``manage.py podspec check``: output shapes and exit codes users script against."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources:
      limits: {cpu: 8, memory: 64Gi, nvidia.com/gpu: 4}
"""
BAD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources:
      requests: {cpu: 2}
      limits: {cpu: 1}
"""


def podspec(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "podspec", "check", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_valid_pod_exits_0_and_prints_the_documented_json_shape(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(GOOD)
    result = podspec("--format", "json", str(path))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == []
    assert report["skipped"] == []
    (obj,) = report["objects"]
    assert obj == {
        "file": str(path),
        "document": 0,
        "path": "",
        "kind": "Pod",
        "name": "trainer",
        "namespace": None,
        "template": "",
        "replicas": 1,
        "replicasMin": None,
        "replicasMax": None,
        "replicasFrom": "",
        "role": "",
        "foundBy": "kind",
        "operator": "",
        "notes": [],
        "qosClass": "Guaranteed",
        "effectiveRequests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "4"},
        "effectiveLimits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "4"},
        "errors": [],
        "warnings": [],
        "qosReasons": obj["qosReasons"],
        # A bare Pod gets the advice for every workload type (here: no GPU toleration).
        "advice": [
            {
                "code": "gpu-without-toleration",
                "message": "GPUs requested without a toleration for the nvidia.com/gpu taint.",
                "reason": obj["advice"][0]["reason"],
            }
        ],
        "claims": [],
        "admission": None,
        "versionNotes": [],
    }
    assert obj["qosReasons"]
    assert report["draObjects"] == []


def test_pod_with_errors_exits_1_with_api_server_field_paths() -> None:
    result = podspec("--format", "json", "-", stdin=BAD)
    assert result.returncode == 1
    (obj,) = json.loads(result.stdout)["objects"]
    assert obj["file"] == "<stdin>"
    assert {
        "field": "spec.containers[0].resources.requests",
        "type": "FieldValueInvalid",
        "message": "must be less than or equal to cpu limit of 1",
        # What kubectl prints after the field (the Status cause's message).
        "text": 'Invalid value: "2": must be less than or equal to cpu limit of 1',
    } in obj["errors"]


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    result = podspec(str(tmp_path / "missing.yaml"))
    assert result.returncode == 2
    assert "missing.yaml" in result.stderr


def test_invalid_utf8_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"kind: Pod\nmetadata: {name: \xff\xfe}\n")
    result = podspec("--format", "json", str(path))
    assert result.returncode == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert "UTF-8" in error["message"]


def test_a_broken_document_is_reported_and_the_others_still_checked(tmp_path: Path) -> None:
    path = tmp_path / "multi.yaml"
    path.write_text(GOOD + "---\nkind: [broken\n---\n" + GOOD.replace("trainer", "second"))
    result = podspec("--format", "json", str(path))
    assert result.returncode == 1  # a document could not be read: not a clean bill of health
    report = json.loads(result.stdout)
    assert [o["name"] for o in report["objects"]] == ["trainer", "second"]
    assert [o["document"] for o in report["objects"]] == [0, 2]
    (error,) = report["errors"]
    assert error["document"] == 1 and error["file"] == str(path)
    assert "line 11" in error["message"]


def test_list_items_are_reported_with_their_path() -> None:
    items = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}},
            json.loads(
                json.dumps(
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {"name": "p", "namespace": "ml"},
                        "spec": {"containers": [{"name": "c", "image": "i"}]},
                    }
                )
            ),
        ],
    }
    result = podspec("--format", "json", "-", stdin=json.dumps(items))
    assert result.returncode == 0
    (obj,) = json.loads(result.stdout)["objects"]
    assert (obj["path"], obj["namespace"], obj["qosClass"]) == ("items[1]", "ml", "BestEffort")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_both_formats_name_every_workload(fmt: str) -> None:
    result = podspec("--format", fmt, "-", stdin=GOOD + "---\n" + BAD.replace("trainer", "other"))
    assert result.returncode == 1
    assert "trainer" in result.stdout and "other" in result.stdout


def podspec_render(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "podspec", "render", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_render_takes_the_same_design_json_as_the_api() -> None:
    from designer.k8s.design import preset_design

    design = preset_design("distributed")
    result = podspec_render("--format", "json", "-", stdin=design.model_dump_json())
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["kind"] == "IndexedJob"
    assert [d["kind"] for d in __import__("yaml").safe_load_all(answer["yaml"])] == [
        "Service",
        "Job",
    ]


def test_render_of_a_design_with_an_origin_prints_that_object_and_its_diff() -> None:
    import yaml

    crs = ROOT / "tests/k8s/data/operators/crs/trainer__pytorch_job_mnist_nccl.yaml"
    job = yaml.safe_load(crs.read_text())
    template = "spec.pytorchReplicaSpecs.Worker.template"
    body = json.dumps({"origin": {"object": job, "template": template}})
    result = podspec_render("-", stdin=body)
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout) == job
    answer = json.loads(podspec_render("--format", "json", "-", stdin=body).stdout)
    assert answer["origin"]["template"] == template and answer["origin"]["diff"] == ""


def test_render_exports_a_manifest_pod_as_the_chosen_kind() -> None:
    result = podspec_render("--kind", "Job", "-", stdin=GOOD)
    assert result.returncode == 0, result.stderr
    job = __import__("yaml").safe_load(result.stdout)
    assert job["kind"] == "Job"
    assert job["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "8",
        "memory": "64Gi",
        "nvidia.com/gpu": "4",
    }


def test_render_of_something_that_is_no_design_exits_2() -> None:
    result = podspec_render("-", stdin="just: text\n")
    assert result.returncode == 2
    assert "neither a design nor a manifest" in result.stderr


def test_a_file_with_no_readable_document_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("foo: [\n")
    result = podspec("--format", "json", str(path))
    assert result.returncode == 2
    assert json.loads(result.stdout)["errors"][0]["document"] == 0


def test_text_output_names_valueless_errors_as_the_api_server_does() -> None:
    result = podspec("-", stdin=GOOD.replace("    image: pytorch/pytorch\n", ""))
    assert result.returncode == 1
    assert "error: spec.containers[0].image: Required value" in result.stdout


def test_render_of_a_workload_keeps_its_name_and_namespace() -> None:
    cronjob = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: c, image: python, resources: {requests: {cpu: 1, memory: 1Gi}}}
"""
    result = podspec_render("--kind", "Job", "-", stdin=cronjob)
    assert result.returncode == 0, result.stderr
    job = __import__("yaml").safe_load(result.stdout)
    assert (job["metadata"]["name"], job["metadata"]["namespace"]) == ("nightly", "ml")


def test_a_wrongly_typed_field_is_reported_at_its_path_with_the_type_expected() -> None:
    manifest = GOOD.replace(
        "metadata: {name: trainer}", "metadata: {name: trainer, labels: {a: [1]}}"
    )
    result = podspec("--format", "json", "-", stdin=manifest)
    assert result.returncode == 1
    (obj,) = json.loads(result.stdout)["objects"]
    assert obj["errors"] == [
        {
            "field": "metadata.labels[a]",
            "type": "FieldValueTypeInvalid",
            "message": "must be of type string",
            "text": "Invalid value: array: must be of type string",
        }
    ]
    assert obj["qosClass"] == "Guaranteed"  # cpu and memory can still be read


def test_render_kind_pytorchjob_prints_a_pytorchjob_that_checks_clean(tmp_path: Path) -> None:
    design = tmp_path / "d.json"
    design.write_text('{"workload": "distributed", "export": {"workers": 3}}')
    result = subprocess.run(
        [sys.executable, "manage.py", "podspec", "render", "--kind", "PyTorchJob", str(design)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = tmp_path / "job.yaml"
    out.write_text(result.stdout)
    checked = podspec("--format", "json", str(out))
    assert checked.returncode == 0
    report = json.loads(checked.stdout)
    assert [(o["template"], o["replicas"]) for o in report["objects"]] == [
        ("spec.pytorchReplicaSpecs.Master.template", 1),
        ("spec.pytorchReplicaSpecs.Worker.template", 2),
    ]


# --- Dynamic Resource Allocation ------------------------------------------------------------

DRA_INPUT = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: %s}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: two-gpus}]
  containers:
  - name: main
    image: pytorch/pytorch
    resources: {claims: [{name: gpu}]}
"""


def test_check_prints_the_claims_and_the_template_it_links() -> None:
    result = podspec("-", stdin=DRA_INPUT % "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  claim gpu: ResourceClaimTemplate two-gpus, 2 device(s) of gpu.nvidia.com, for main"
        in (result.stdout)
    )
    assert (
        "ResourceClaimTemplate two-gpus (<stdin>#0): used by Pod trainer (claim gpu)"
        in result.stdout
    )
    assert result.stdout.rstrip().endswith(
        "1 resource.k8s.io object(s), 0 with errors (Kubernetes 1.35)"
    )


def test_a_template_with_errors_makes_check_exit_1() -> None:
    result = podspec("-", stdin=DRA_INPUT % "-1")
    assert result.returncode == 1
    assert (
        "  error: spec.spec.devices.requests[0].exactly.count: Invalid value: -1: "
        "must be greater than zero" in result.stdout
    )


def test_render_exports_a_dra_design_with_its_template() -> None:
    design = json.dumps(
        {"workload": "training", "gpu": {"mode": "dra", "device_class": "gpu.nvidia.com"}}
    )
    result = podspec_render("-", stdin=design)
    assert result.returncode == 0, result.stderr
    template, pod = yaml.safe_load_all(result.stdout)
    assert template["kind"] == "ResourceClaimTemplate" and pod["kind"] == "Pod"


# --- namespace policy and the Kubernetes version --------------------------------------------

POLICY = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: team}
  spec:
    limits:
    - type: Container
      default: {cpu: 500m, memory: 512Mi}
      defaultRequest: {cpu: 100m, memory: 256Mi}
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: compute, namespace: team}
  spec: {hard: {limits.cpu: "4"}}
  status: {hard: {limits.cpu: "4"}, used: {limits.cpu: "4"}}
"""
PLAIN_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: main, image: nginx}
"""


def test_policies_in_another_file_apply_to_the_namespace_option(tmp_path: Path) -> None:
    policy, pod = tmp_path / "policy.yaml", tmp_path / "pod.yaml"
    policy.write_text(POLICY)
    pod.write_text(PLAIN_POD)
    result = podspec("--format", "json", "--namespace", "team", str(policy), str(pod))
    assert result.returncode == 1  # admission refuses the pod
    report = json.loads(result.stdout)
    assert report["kubernetesVersion"] == "1.35"
    assert [p["applied"] for p in report["policies"]] == [True, True]
    (obj,) = report["objects"]
    admission = obj["admission"]
    assert admission["qosClass"] == "Burstable"
    (denial,) = admission["denials"]
    assert denial["apiServerMessage"] == (
        'pods "web" is forbidden: exceeded quota: compute, requested: limits.cpu=500m, '
        "used: limits.cpu=4, limited: limits.cpu=4"
    )


def test_text_output_shows_the_admitted_class_defaults_and_denials() -> None:
    result = podspec("-n", "team", "-", stdin=POLICY + "---\n" + PLAIN_POD)
    out = result.stdout
    assert (
        "admitted: QoS Burstable (written as BestEffort; admitted as Burstable because "
        "LimitRange/defaults sets cpu and memory)"
    ) in out
    assert (
        "defaulted: spec.containers[0].resources.limits[cpu]=500m (from LimitRange/defaults)" in out
    )
    assert "annotation: kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory" in out
    assert 'denied by ResourceQuota (ResourceQuota/compute): pods "web" is forbidden' in out
    assert "LimitRange team/defaults (<stdin>#0 items[0]): applied" in out
    assert out.rstrip().endswith("1 denied by admission (Kubernetes 1.35)")


def test_the_kubernetes_version_flag_changes_the_answer_and_refuses_unknown_releases() -> None:
    pod = PLAIN_POD.replace("spec:\n", "spec:\n  resources: {limits: {cpu: 1, memory: 1Gi}}\n")
    new = json.loads(podspec("--format", "json", "-", stdin=pod).stdout)["objects"][0]
    old = podspec("--format", "json", "--kubernetes-version", "1.33", "-", stdin=pod)
    old_obj = json.loads(old.stdout)["objects"][0]
    assert new["qosClass"] == "Guaranteed" and old_obj["qosClass"] == "BestEffort"
    assert old_obj["versionNotes"][0]["field"] == "spec.resources"
    refused = podspec("--kubernetes-version", "1.29", "-", stdin=pod)
    assert refused.returncode == 2 and "1.29" in refused.stderr


def test_an_invalid_limit_range_is_reported_and_exits_1() -> None:
    bad = POLICY.replace("default: {cpu: 500m, memory: 512Mi}", "default: {cpu: lots}")
    result = podspec("-n", "team", "-", stdin=bad)
    assert result.returncode == 1
    assert (
        'not applied: LimitRange "defaults" is invalid: spec.limits[0].default[cpu]'
        in result.stdout
    )


def test_jobs_change_nothing_in_the_report_and_json_is_the_api_document(tmp_path: Path) -> None:
    """--jobs N spreads slices of a dump over processes: the same bytes as --jobs 1, and
    the same document as POST /api/v1/analyze's check_texts, written as it comes."""
    import random

    import orjson

    from designer.k8s.check import check_texts
    from designer.k8s.manifest import dump_yaml

    rnd = random.Random(5)
    items = [
        yaml.safe_load(rnd.choice([GOOD, BAD]).replace("trainer", f"p-{i}")) for i in range(4500)
    ]
    dump = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}
    paths = []
    for name, text in (("dump.yaml", dump_yaml(dump)), ("dump.json", json.dumps(dump, indent=4))):
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    (tmp_path / "pod.yaml").write_text(GOOD)
    paths.append(tmp_path / "pod.yaml")
    files = [str(p) for p in paths]
    one = podspec("--format", "json", "--jobs", "1", *files)
    two = podspec("--format", "json", "--jobs", "2", *files)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    expected = check_texts([(f, Path(f).read_bytes()) for f in files])
    assert one.stdout == orjson.dumps(expected, option=orjson.OPT_INDENT_2).decode() + "\n"
    text_one = podspec("--jobs", "1", *files)
    text_two = podspec("--jobs", "2", *files)
    assert text_one.stdout == text_two.stdout
    assert text_one.stdout.count("QoS") == 2 * 4500 + 1
    from designer.management.commands.podspec import format_text

    assert text_one.stdout == format_text(expected) + "\n"
    assert podspec("--jobs", "0", files[-1]).returncode == 2


@pytest.mark.parametrize("layout", ["yaml", "json"])
def test_a_dump_checked_whole_writes_the_same_report_for_any_jobs(
    tmp_path: Path, layout: str
) -> None:
    """A LimitRange as a dump's last item admits the pods of every slice before it: the
    input is then checked whole and the report written from that check, in slices, by this
    process (the workers' text is dropped), the same bytes for --jobs 1 and 2."""
    import orjson

    from designer.k8s.check import check_texts
    from designer.k8s.manifest import dump_yaml
    from designer.management.commands.podspec import format_text

    items = [yaml.safe_load(GOOD.replace("trainer", f"p-{i}")) for i in range(1200)]
    for item in items[::7]:
        item["spec"]["containers"][0]["resources"] = {}
    items.append(
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "defaults"},
            "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]},
        }
    )
    dump = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}
    text = dump_yaml(dump) if layout == "yaml" else json.dumps(dump, indent=4)
    path = tmp_path / f"dump.{layout}"
    path.write_text(text)
    expected = check_texts([(str(path), path.read_bytes())])
    assert sum(o["admission"]["defaulted"] != [] for o in expected["objects"]) == 172
    for jobs in ("1", "2"):
        out = podspec("--format", "json", "--jobs", jobs, str(path))
        assert out.stdout == orjson.dumps(expected, option=orjson.OPT_INDENT_2).decode() + "\n"
        assert podspec("--jobs", jobs, str(path)).stdout == format_text(expected) + "\n"


WRAPPERS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: My_Deploy}
spec:
  selector: {matchLabels: {app: a}}
  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: b}}
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: i
        resources: {requests: {cpu: 2}, limits: {cpu: 1}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  completions: -1
  template:
    spec:
      containers:
      - name: main
        image: i
---
apiVersion: batch/v1
kind: Job
metadata: {name: fine}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: main
        image: i
"""


def test_a_jobs_own_errors_are_reported() -> None:
    """A Deployment's and a Job's own errors (beyond their pod template's), where and as
    the API server says them, in its order: the object's metadata and spec, the template's
    pod, then the template's restart policy and the strategy."""
    result = podspec("-", stdin=WRAPPERS)
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("  error: ")]
    assert errors == [
        '  error: metadata.name: Invalid value: "My_Deploy": a lowercase RFC 1123 subdomain '
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'example.com', regex used for validation "
        "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        '  error: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: '
        "`selector` does not match template `labels`",
        '  error: spec.template.spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1",
        '  error: spec.template.spec.restartPolicy: Unsupported value: "Never": '
        'supported values: "Always"',
        "  error: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
        'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
        "  error: spec.completions: Invalid value: -1: must be greater than or equal to 0",
        '  error: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
        '"Never"',
    ]
    assert result.stdout.rstrip().endswith(
        "3 workload(s), 2 with errors, 0 without a pod template, 0 unreadable document(s) "
        "(Kubernetes 1.35)"
    )
    # The JSON entry holds them too, and the API the same document.
    report = json.loads(podspec("--format", "json", "-", stdin=WRAPPERS).stdout)
    deployment, job, fine = report["objects"]
    assert [e["field"] for e in job["errors"]] == [
        "spec.completions",
        "spec.template.spec.restartPolicy",
    ]
    assert fine["errors"] == []
