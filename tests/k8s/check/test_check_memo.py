"""Pods that share a memo key share their report: the check with sharing says exactly what
the check without it says, pod by pod, whatever differs between the pods."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.k8s.check import check_texts
from designer.k8s.check import manifests as check_manifests

names = st.sampled_from(["web-1", "web-2", "Web", "a" * 254, "", "x\n", "web.2", "-x"])
namespaces = st.sampled_from([None, "default", "team-a", "Team", "a" * 64, "", 5])
label_values = st.sampled_from(["abc", "7d9f", "", "-bad", "a" * 64, "ok.1", 3, True, None])
label_keys = st.sampled_from(
    ["app", "pod-template-hash", "kueue.x-k8s.io/queue-name", "bad key", "x/y/z"]
)
images = st.sampled_from(["nginx:1", "nginx:2", "", " nginx", "nginx ", None, 7, True])
quantities = st.sampled_from(["1", "500m", "1Gi", "128m", "-1", "x", 1, 0.5, None, float("nan")])
container_names = st.sampled_from(["app", "side", "App", "", "web-1", "a" * 64, 7])
other_names = st.sampled_from(["app", "side", "main", "web-1", "c0", "App"])
_ABSENT = object()
node_names = st.sampled_from(["n1", "n2", "Node_1", "", None, _ABSENT])
dns_labels = st.sampled_from(["web-0", "web-1", "Web", "web.0", "", "a" * 64, 3])
pod_specific_annotations = st.sampled_from(
    [
        {"kubernetes.io/config.mirror": "abc"},
        {"controller.kubernetes.io/pod-deletion-cost": "10"},
        {"controller.kubernetes.io/pod-deletion-cost": "high"},
        {"kubernetes.io/config.mirror": "abc", "controller.kubernetes.io/pod-deletion-cost": "-1"},
    ]
)


shm_empty_dirs = st.sampled_from(
    [
        {"medium": "Memory"},
        {"medium": "Memory", "sizeLimit": "1Gi"},
        {"medium": "Memory", "sizeLimit": "64Gi"},
        {},
    ]
)

valid_names = st.sampled_from(["web-1", "web-2", "web.2"])
valid_label_values = st.sampled_from(["abc", "7d9f", "", "ok.1"])
valid_quantities = st.sampled_from(["1", "500m", "1Gi", "2Gi"])


@st.composite
def pods(draw: Any, valid: bool = False) -> dict[str, Any]:
    """A pod with odd values anywhere; ``valid``: one the API server accepts."""
    meta: dict[str, Any] = {"name": draw(valid_names if valid else names)}
    if draw(st.booleans()):
        meta["generateName"] = draw(
            st.sampled_from(["web-", "Web-", "", "a" * 300][: 1 if valid else 4])
        )
    ns = draw(st.sampled_from(["default", "team-a"]) if valid else namespaces)
    if ns is not None:
        meta["namespace"] = ns
    if draw(st.booleans()):
        meta["labels"] = draw(
            st.dictionaries(
                st.sampled_from(["app", "pod-template-hash", "kueue.x-k8s.io/queue-name"])
                if valid
                else label_keys,
                valid_label_values if valid else label_values,
                max_size=3,
            )
        )
    meta["uid"] = draw(st.sampled_from(["u1", "u2"]))
    if not valid and draw(st.booleans()):
        # Read with spec.nodeName and on their own (ValidatePodSpecificAnnotations).
        meta["annotations"] = draw(pod_specific_annotations)
    containers = []
    for _ in range(draw(st.integers(1, 2))):
        resources = {
            part: draw(
                st.dictionaries(
                    st.sampled_from(["cpu", "memory"]),
                    valid_quantities if valid else quantities,
                    max_size=2,
                )
            )
            for part in draw(st.sets(st.sampled_from(["requests", "limits"])))
        }
        container = {
            "name": draw(st.just(f"c{len(containers)}") if valid else container_names),
            "image": draw(st.sampled_from(["nginx:1", "nginx:2"]) if valid else images),
        }
        if resources:
            container["resources"] = resources
        containers.append(container)
    spec: dict[str, Any] = {"containers": containers}
    node = draw(st.sampled_from(["n1", "n2"]) if valid else node_names)
    if node is not _ABSENT:
        spec["nodeName"] = node
    for field in ("hostname", "subdomain"):
        if draw(st.booleans()):
            spec[field] = draw(st.sampled_from(["web-0", "web"]) if valid else dns_labels)
    if draw(st.booleans()):
        # Advice reads memory-backed emptyDirs and the /dev/shm mount (issue 16).
        spec["volumes"] = [
            {"name": "kube-api-access-a1", "projected": {"sources": []}},
            {"name": "dshm", "emptyDir": draw(shm_empty_dirs)},
        ]
        if draw(st.booleans()):
            containers[0]["volumeMounts"] = [
                {"name": "kube-api-access-a1", "mountPath": "/var/run/secrets/x"},
                {"name": "dshm", "mountPath": "/dev/shm"},
            ]
    if draw(st.booleans()):
        spec = dict(reversed(list(spec.items())))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def check_without_sharing(monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setattr(check_manifests, "memo_key", lambda workload: None)
        m.setattr(check_manifests, "canonical", lambda workload: None)
        return check_texts([("dump", text)])


@st.composite
def replicas(draw: Any) -> list[dict[str, Any]]:
    """Pods of one template that differ where pods of a ReplicaSet differ (and beyond: an
    invalid name, label value, namespace or image in some of them)."""
    base = draw(pods(valid=draw(st.booleans())))
    out = []
    for _ in range(draw(st.integers(2, 6))):
        pod = json.loads(json.dumps(base))
        meta = pod["metadata"]
        field = draw(
            st.sampled_from(
                [
                    "name",
                    "generateName",
                    "namespace",
                    "labels",
                    "image",
                    "volume",
                    "container",
                    "node",
                    "none",
                ]
            )
        )
        if field in ("name", "generateName"):
            meta[field] = draw(names)
        elif field == "namespace":
            meta["namespace"] = draw(namespaces)
        elif field == "labels":
            meta.setdefault("labels", {})[draw(label_keys)] = draw(label_values)
        elif field == "image":
            pod["spec"]["containers"][0]["image"] = draw(images)
        elif field == "volume" and pod["spec"].get("volumes"):
            # Each pod's token volume has its own name (its mounts follow it, or not); the
            # /dev/shm volume may differ too; a StatefulSet's pod mounts its own claim.
            token = draw(st.sampled_from(["kube-api-access-b2", "t", "kube-api-access-a1"]))
            pod["spec"]["volumes"][0]["name"] = token
            mounts = pod["spec"]["containers"][0].get("volumeMounts")
            if mounts and draw(st.booleans()):
                mounts[0]["name"] = token
            pod["spec"]["volumes"][1]["emptyDir"] = draw(shm_empty_dirs)
            claim = draw(st.sampled_from(["data-web-0", "data-web-1", "", None]))
            pod["spec"]["volumes"].append(
                {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
            )
            if mounts and draw(st.booleans()):
                path = draw(st.sampled_from(["/data", "/dev/shm"]))
                mounts.append(
                    {"name": draw(st.sampled_from(["data", "missing"])), "mountPath": path}
                )
        elif field == "node":
            # A pod not scheduled yet, or another node (a mirror pod must name one), and a
            # StatefulSet pod's own hostname.
            node = draw(node_names)
            pod["spec"].pop("nodeName", None)
            if node is not _ABSENT:
                pod["spec"]["nodeName"] = node
            if draw(st.booleans()):
                pod["spec"][draw(st.sampled_from(["hostname", "subdomain"]))] = draw(dns_labels)
        elif field == "container":
            # Another Deployment's pods: the same resources, other container names (some
            # invalid or repeated, or named elsewhere in the pod).
            for c in pod["spec"]["containers"]:
                c["name"] = draw(other_names if draw(st.booleans()) else container_names)
            if draw(st.booleans()):
                pod["metadata"]["annotations"] = {
                    "kubectl.kubernetes.io/default-container": draw(other_names)
                }
            if draw(st.booleans()):
                pod["spec"]["initContainers"] = [
                    {"name": draw(other_names), "image": "busybox", "restartPolicy": "Always"}
                ]
        out.append(pod)
    return out


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    items=st.lists(pods(), min_size=1, max_size=3) | replicas(),
    as_json=st.booleans(),
)
def test_sharing_reports_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, items: list[dict[str, Any]], as_json: bool
) -> None:
    dump = {"apiVersion": "v1", "kind": "List", "items": items}
    text = json.dumps(dump) if as_json else json.dumps(dump, indent=2).replace("NaN", ".nan")
    if not as_json:
        # The same dump as YAML (JSON is YAML; .nan is YAML's NaN).
        text = "# yaml\n" + text
    shared = check_texts([("dump", text)])
    alone = check_without_sharing(monkeypatch, text)
    assert json.dumps(shared, sort_keys=True) == json.dumps(alone, sort_keys=True)


def test_pods_that_differ_in_name_image_and_template_hash_share_one_report() -> None:
    def pod(i: int) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"web-{i}",
                "uid": str(i),
                "labels": {"app": "web", "pod-template-hash": f"h{i}"},
            },
            "spec": {"containers": [{"name": "app", "image": f"web:{i}"}], "nodeName": f"n{i}"},
        }

    from designer.k8s.check.memo import memo_key
    from designer.k8s.manifest import load

    workloads = load(json.dumps({"kind": "List", "items": [pod(i) for i in range(5)]}))[0]
    assert len({memo_key(w) for w in workloads}) == 1


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(pods(), min_size=1, max_size=3) | replicas())
def test_entries_built_from_a_shared_part_are_the_objects_own(items: list[dict[str, Any]]) -> None:
    """CheckedObject.as_dict shares what follows the object's own keys between the pods of
    one report: each entry is still, key for key and in order, what the object alone gives."""
    from designer.k8s.check import check_files

    dump = json.dumps({"apiVersion": "v1", "kind": "List", "items": items * 2})
    for o in check_files([("dump", dump)], share_names=True).objects:
        assert json.dumps(o.as_dict()) == json.dumps(o._entry())


def test_objects_built_without_init_have_every_field() -> None:
    """The finder and the check set a Workload's, a Site's and a CheckedObject's fields at
    once (check.manifests, manifest.finder): each has every field, as __init__ gives it."""
    from dataclasses import fields

    from designer.k8s.check import check_files
    from designer.k8s.manifest import Workload
    from designer.k8s.manifest.kinds import Site, _pod

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {}}
    site = _pod(pod)[0]
    assert set(site.__dict__) == {f.name for f in fields(Site)}
    assert Site(**site.__dict__) == site
    (o,) = check_files([("f", json.dumps(pod))], share_names=True).objects
    assert set(o.workload.__dict__) == {f.name for f in fields(Workload)}
    assert Workload(**o.workload.__dict__) == o.workload
    assert set(o.__dict__) == {f.name for f in fields(type(o))}


def test_an_entry_with_an_integer_past_64_bits_gets_its_container_names_back() -> None:
    """A quota's hard limit past 64 bits is in the entry's admission (orjson cannot write
    it): the stand-in container names are still replaced, string by string, and the entry
    is the one checked without sharing names."""
    import yaml

    from designer.k8s.check import check_files, check_texts

    docs = [
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "q"},
            "spec": {"hard": {"pods": str(2**64)}},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x"}]}}},
        },
    ]
    text = yaml.safe_dump_all(docs)
    shared = check_texts([("in.yaml", text)], kubernetes_version="1.31")
    own = check_files([("in.yaml", text)], kubernetes_version="1.31").as_dict()
    assert shared["objects"][0]["admission"] is not None
    assert shared["objects"] == own["objects"]


@pytest.mark.parametrize("indent", [None, 4])
def test_mirror_pods_with_and_without_a_node_do_not_share_a_report(indent: int | None) -> None:
    # A mirror pod must name its node (ValidatePodSpecificAnnotations): the key keeps
    # whether spec.nodeName is set, and nothing more of it.
    def pod(i: int, node: str | None) -> dict[str, Any]:
        spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
        if node is not None:
            spec["nodeName"] = node
        meta = {"name": f"p{i}", "annotations": {"kubernetes.io/config.mirror": "abc"}}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    items = [pod(0, "n1"), pod(1, None), pod(2, "n2"), pod(3, ""), pod(4, None)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=indent)
    fields = [[e["field"] for e in o["errors"]] for o in check_texts([("d", text)])["objects"]]
    mirror = ["metadata.annotations[kubernetes.io/config.mirror]"]
    assert fields == [[], mirror, [], mirror, mirror]


def test_pods_whose_token_volumes_are_named_after_them_share_one_report() -> None:
    # The service account token volume (kube-api-access-<random>) and a StatefulSet pod's
    # claim differ on every pod; a mount of a volume the pod lacks is reported with its name.
    def pod(i: int, mount: str | None = None) -> dict[str, Any]:
        token = f"kube-api-access-{i}x{i}"
        container = {
            "name": "app",
            "image": "web:1",
            "volumeMounts": [
                {"name": mount or token, "mountPath": "/var/run/secrets/kubernetes.io/sa"},
                {"name": "data", "mountPath": "/data"},
            ],
        }
        volumes = [
            {"name": token, "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
            {"name": "data", "persistentVolumeClaim": {"claimName": f"data-web-{i}"}},
        ]
        meta = {"name": f"web-{i}", "namespace": "default"}
        return {
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": meta,
            "spec": {"containers": [container], "volumes": volumes},
        }

    from designer.k8s.check.memo import memo_key
    from designer.k8s.manifest import load

    workloads = load(json.dumps({"kind": "List", "items": [pod(i) for i in range(5)]}))[0]
    assert len({memo_key(w) for w in workloads}) == 1
    items = [pod(0), pod(1), pod(2, mount="kube-api-access-gone"), pod(3)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)
    found = [[str(e["text"]) for e in o["errors"]] for o in check_texts([("d", text)])["objects"]]
    assert found == [[], [], ['Not found: "kube-api-access-gone"'], []]


def test_a_mount_is_looked_up_only_where_the_template_holds_all_the_volumes() -> None:
    # A Deployment's pods get the template's volumes only; a JobSet's controller adds its
    # volumeClaimPolicies' volumes (as a TrainingRuntime's does), so their mounts are not
    # looked up. The two templates are equal: the memo must not give one the other's report.
    template = {
        "metadata": {"labels": {"app": "a"}},
        "spec": {
            "containers": [
                {"name": "app", "image": "x", "volumeMounts": [{"name": "init", "mountPath": "/w"}]}
            ],
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "a"}}, "template": template},
    }
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "j"},
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": template}}}]},
    }
    for docs in ([deployment, jobset], [jobset, deployment]):
        text = "\n---\n".join(yaml.safe_dump(d) for d in docs)
        report = check_texts([("d", text)])
        found = {o["kind"]: [e["text"] for e in o["errors"]] for o in report["objects"]}
        assert found == {"Deployment": ['Not found: "init"'], "JobSet": []}


def test_a_token_volumes_stand_in_is_no_volumes_own_name() -> None:
    # The first pod's token volume stands in by position; the second pod really has two
    # volumes named alike (a Duplicate): they must not share a key.
    def pod(first: str) -> dict[str, Any]:
        spec = {
            "containers": [{"name": "app", "image": "x"}],
            "volumes": [
                {"name": first, "projected": {"sources": []}},
                {"name": "kube-api-access-0", "emptyDir": {}},
            ],
        }
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}

    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [pod("kube-api-access-xyz"), pod("kube-api-access-0")],
        }
    )
    found = [[e["text"] for e in o["errors"]] for o in check_texts([("d", text)])["objects"]]
    assert found == [[], ['Duplicate value: "kube-api-access-0"']]
