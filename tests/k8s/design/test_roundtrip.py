"""Keep the object it came from: open any pod template of the 38 examples, change one
container's resources, and get back the same object with only those resources changed."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.k8s.check import check_texts
from designer.k8s.core import Quantity
from designer.k8s.design import RoundTripError, patch_object, template_pod
from designer.k8s.manifest import dump_yaml_all, load
from tests.builders import differences

CRS = Path(__file__).parents[1] / "data" / "operators" / "crs"
FILES = sorted(p.name for p in CRS.glob("*.yaml"))


def templates() -> list[tuple[str, int, str]]:
    out = []
    for name in FILES:
        for w in load((CRS / name).read_bytes()).workloads:
            out.append((name, w.document, w.template))
    return out


def documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((CRS / name).read_text()) if d]


def document(name: str, index: int) -> dict[str, Any]:
    return documents(name)[index]


TEMPLATES = templates()


def test_every_example_template_is_covered() -> None:
    assert len(TEMPLATES) == 58
    assert len({name for name, _d, _t in TEMPLATES}) == 38


@pytest.mark.parametrize(("name", "index", "template"), TEMPLATES)
def test_an_unchanged_pod_gives_back_the_same_object(name: str, index: int, template: str) -> None:
    doc, context = document(name, index), documents(name)
    pod = template_pod(doc, template, context=context)
    patched = patch_object(doc, template, pod, context=context)
    assert patched.document == doc
    assert patched.diff == "" and patched.changed == []


@pytest.mark.parametrize(("name", "index", "template"), TEMPLATES)
def test_a_changed_cpu_limit_changes_only_that_containers_resources(
    name: str, index: int, template: str
) -> None:
    doc, context = document(name, index), documents(name)
    pod = template_pod(doc, template, context=context)
    containers = pod["spec"].get("containers") or []
    if not containers:
        pytest.skip("a template without containers has nothing to edit")
    edited = copy.deepcopy(pod)
    main = edited["spec"]["containers"][0]
    resources = main.setdefault("resources", {}) or {}
    main["resources"] = resources
    resources.setdefault("limits", {})["cpu"] = "7"
    resources.setdefault("requests", {})["cpu"] = "7"
    patched = patch_object(doc, template, edited, context=context)
    if doc["kind"] == "TrainJob" and template != "spec.trainer":
        # An initializer's container is the runtime's: another object.
        assert patched.document == doc
        assert patched.skipped[0].params["where"].startswith(("TrainingRuntime", "Cluster"))
        return
    (where,) = patched.changed
    diff_paths = differences(doc, patched.document)
    assert diff_paths and all(p.startswith(where) for p in diff_paths), diff_paths
    assert "cpu" in patched.diff and patched.diff.startswith("--- before.yaml")
    assert patched.document["kind"] == doc["kind"]
    assert at(patched.document, where)["limits"]["cpu"] == "7"

    # Read back: the same template, checked again, has the container's new CPU request.
    # (written as kubectl writes YAML: PyYAML leaves "y" bare, which go-yaml reads as a bool)
    def entry_of(changed: dict[str, Any]) -> dict[str, Any]:
        docs = [changed if i == index else d for i, d in enumerate(context)]
        report = check_texts([("f.yaml", dump_yaml_all(docs))])
        return next(
            o for o in report["objects"] if o["template"] == template and o["document"] == index
        )

    entry, before = entry_of(patched.document), entry_of(doc)
    # No new error (cifar10's float cpu is gone once the designer writes "7").
    assert all(e in before["errors"] for e in entry["errors"])
    assert Quantity.parse(entry["effectiveRequests"]["cpu"]).as_fraction() >= 7


def at(obj: Any, path: str) -> Any:
    for m in re.finditer(r"([^.\[]+)|\[(\d+)\]", path):
        obj = obj[int(m.group(2))] if m.group(2) is not None else obj[m.group(1)]
    return obj


def test_a_pytorchjob_worker_gpu_change_is_the_only_difference() -> None:
    doc = document("trainer__pytorch_job_mnist_nccl.yaml", 0)
    template = "spec.pytorchReplicaSpecs.Worker.template"
    pod = template_pod(doc, template)
    pod["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "2"}}
    patched = patch_object(doc, template, pod)
    assert differences(doc, patched.document) == [
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]
    assert (
        '-                nvidia.com/gpu: 1\n+                nvidia.com/gpu: "2"' in patched.diff
    )


def test_unchanged_quantities_keep_their_spelling_but_a_yaml_float_does_not() -> None:
    doc = document("kserve__cifar10.yaml", 0)
    doc["spec"]["predictor"]["tensorflow"]["resources"]["requests"]["memory"] = "5120Mi"
    pod = template_pod(doc, "spec.predictor")
    pod["spec"]["containers"][0]["resources"] = {
        # 0.1 in the file, a YAML float the CRD schema refuses (int-or-string): rewritten.
        "requests": {"cpu": "100m", "memory": "5Gi"},  # 5120Mi is the same quantity: kept
        "limits": {"memory": "12Gi"},
    }
    patched = patch_object(doc, "spec.predictor", pod)
    resources = patched.document["spec"]["predictor"]["tensorflow"]["resources"]
    assert resources == {
        "requests": {"cpu": "100m", "memory": "5120Mi"},
        "limits": {"memory": "12Gi"},
    }
    assert patched.changed == ["spec.predictor.tensorflow.resources"]


def test_a_trainjob_edit_goes_to_resources_per_node() -> None:
    doc = document("trainer__lammps-train-gpus.yaml", 0)
    pod = template_pod(doc, "spec.trainer")
    assert pod["spec"]["containers"][0]["name"] == "node"
    pod["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "4"}}
    patched = patch_object(doc, "spec.trainer", pod)
    assert patched.changed == ["spec.trainer.resourcesPerNode"]
    assert patched.document["spec"]["trainer"]["resourcesPerNode"] == {
        "limits": {"nvidia.com/gpu": "4"}
    }


def test_a_ray_head_opens_without_the_autoscaler_kuberay_adds() -> None:
    doc = document("kuberay__ray-cluster.autoscaler.yaml", 0)
    pod = template_pod(doc, "spec.headGroupSpec.template")
    assert [c["name"] for c in pod["spec"]["containers"]] == ["ray-head"]


def test_a_container_the_template_does_not_have_is_not_written() -> None:
    doc = document("gpu-operator__gpu-pod.yaml", 0)
    pod = template_pod(doc, "")
    pod["spec"]["containers"].append({"name": "extra", "resources": {"limits": {"cpu": "1"}}})
    patched = patch_object(doc, "", pod)
    assert patched.document == doc
    assert [m.params["name"] for m in patched.skipped] == ["extra"]


def test_an_unknown_template_path_is_a_clear_error() -> None:
    with pytest.raises(RoundTripError) as info:
        patch_object(document("gpu-operator__gpu-pod.yaml", 0), "spec.template", {})
    assert "no pod template at spec.template" in str(info.value)
