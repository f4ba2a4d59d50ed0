"""Node fit with the GPUs as the device plugin advertises them, and with unreadable requests."""

from __future__ import annotations

from typing import Any

import pytest

from designer.k8s.core import Pod
from designer.k8s.gpu import SharingError, gpu_sharing, mig_model
from designer.k8s.scheduler import catalog_shapes, fit, node_from_capacity, node_from_catalog


def pod(limits: dict[str, str], requests: dict[str, str] | None = None, **spec: Any) -> Pod:
    resources = {"limits": limits, **({"requests": requests} if requests else {})}
    return Pod.model_validate(
        {
            "metadata": {"name": "p"},
            "spec": {
                "containers": [{"name": "main", "image": "i", "resources": resources}],
                **spec,
            },
        }
    )


TRAINER = pod({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "2"})


def test_catalog_shapes_carry_the_mig_model_of_their_gpus() -> None:
    for shape in catalog_shapes():
        if shape.mig_model is None:
            assert not shape.gpu_model.startswith(("A100", "H100")), shape.id
            continue
        model = mig_model(shape.mig_model)
        assert model.memory_gb == shape.gpu_memory_gb, shape.id
        assert shape.gpu_model.split()[0] in model.label, shape.id
    assert node_from_catalog("p5.48xlarge").shape.as_dict()["migModel"] == "h100-80gb"  # type: ignore[union-attr]


def test_the_issue_example_fits_11_pods_on_cpu_not_4_on_gpus() -> None:
    plain = fit(TRAINER, node_from_catalog("p5.48xlarge"))
    assert (plain.pods_per_node, plain.bottleneck) == (4, "nvidia.com/gpu")
    node = node_from_catalog(
        "p5.48xlarge", gpu_sharing=gpu_sharing("mig-single", profile="1g.10gb")
    )
    result = fit(TRAINER, node)
    assert (result.pods_per_node, result.bottleneck) == (11, "cpu")
    assert result.pods_by_resource["nvidia.com/gpu"] == 28
    assert node.allocatable["nvidia.com/gpu"] == node.capacity["nvidia.com/gpu"] == "56"
    assert "56 in all" in result.notes[0].text
    assert result.as_dict()["notes"][0] == result.notes[0].text


def test_a_custom_node_takes_its_mig_model_from_the_gpu_choice() -> None:
    capacity = {"cpu": "96", "memory": "1152Gi", "nvidia.com/gpu": "8"}
    sharing = gpu_sharing("mig-mixed", layout="all-balanced")
    node = node_from_capacity(capacity, "gke", gpu_sharing=sharing, gpu_model="A100 40GB")
    assert node.allocatable["nvidia.com/mig-1g.5gb"] == "16"
    assert "nvidia.com/gpu" not in node.allocatable
    with pytest.raises(SharingError):
        node_from_capacity(capacity, "gke", gpu_sharing=sharing)  # no model for MIG
    with pytest.raises(SharingError):
        node_from_capacity(
            {"cpu": "8", "memory": "8Gi"}, "gke", gpu_sharing=sharing, gpu_model="a100-40gb"
        )


def test_a_profile_the_layout_lacks_keeps_the_pod_pending_naming_what_is_there() -> None:
    node = node_from_catalog("p5.48xlarge", gpu_sharing=gpu_sharing("mig-mixed", profile="1g.10gb"))
    result = fit(pod({"cpu": "1", "memory": "1Gi", "nvidia.com/mig-3g.40gb": "1"}), node)
    assert result.pods_per_node == 0
    assert "nvidia.com/mig-1g.10gb" in result.pending_reasons[0].text


def test_mig_on_a_shape_without_mig_is_refused() -> None:
    with pytest.raises(SharingError) as info:
        node_from_catalog("g6.xlarge", gpu_sharing=gpu_sharing("mig-single", profile="1g.10gb"))
    assert info.value.part == "model"


def test_mps_refuses_more_than_one_replica_per_container() -> None:
    node = node_from_catalog("p5.48xlarge", gpu_sharing=gpu_sharing("mps", replicas=4))
    result = fit(TRAINER, node)
    assert result.pods_per_node == 11  # 32 replicas / 2, but cpu first
    assert any("only one replica" in n.text for n in result.notes)


def test_an_unreadable_request_is_not_taken_for_zero() -> None:
    # memory "8GB" used to count as no memory at all: 4 pods fitted on the GPUs.
    result = fit(
        pod({"cpu": "16", "memory": "8GB", "nvidia.com/gpu": "2"}), node_from_catalog("p5.48xlarge")
    )
    assert result.pods_per_node is None and result.bottleneck is None
    assert [u.field for u in result.unreadable] == ["spec.containers[0].resources.limits[memory]"]
    assert result.notes[0].text.startswith("How many pods fit cannot be worked out")
    assert result.stranded == {}
    assert result.as_dict()["cannotCompute"] == [
        {
            "field": "spec.containers[0].resources.limits[memory]",
            "resource": "memory",
            "value": "8GB",
        }
    ]


def test_an_unreadable_limit_behind_a_readable_request_does_not_matter_to_fit() -> None:
    result = fit(pod({"memory": "8GB"}, {"memory": "1Gi"}), node_from_catalog("p5.48xlarge"))
    assert result.unreadable == () and result.pods_per_node is not None


def test_a_pod_that_cannot_land_is_still_known_not_to_fit() -> None:
    result = fit(pod({"cpu": "1000", "memory": "8GB"}), node_from_catalog("p5.48xlarge"))
    assert result.pods_per_node == 0 and result.unreadable
