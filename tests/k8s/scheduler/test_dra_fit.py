"""Node fit with DRA: which devices of pasted ResourceSlices match a pod's claims, and how many
such pods a node takes, on the 8x H100 and the A100 MIG fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.k8s.apiserver import pod_from_parts
from designer.k8s.core import Pod
from designer.k8s.dra import DraObjects, collect
from designer.k8s.scheduler import (
    NodeInfo,
    claims_fit,
    fit,
    node_from_capacity,
    with_claims,
)

DATA = Path(__file__).parents[1] / "data"
H100_NODE = "ip-10-0-180-136.ec2.internal"


def slices(name: str) -> list[Any]:
    return list(yaml.safe_load_all((DATA / name).read_text()))


def template(name: str, requests: list[dict[str, Any]], **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name},
        "spec": {"spec": {"devices": {"requests": requests, **devices}}},
    }


def exactly(name: str = "gpu", cls: str = "gpu.nvidia.com", **fields: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, **fields}}


def pod(claims: dict[str, str], kind: str = "resourceClaimTemplateName") -> Pod:
    spec = {
        "resourceClaims": [{"name": n, kind: obj} for n, obj in claims.items()],
        "containers": [
            {
                "name": "main",
                "image": "i",
                "resources": {
                    "requests": {"cpu": "1", "memory": "1Gi"},
                    "limits": {"cpu": "1", "memory": "1Gi"},
                    "claims": [{"name": n} for n in claims],
                },
            }
        ],
    }
    result, problems = pod_from_parts({"name": "p"}, spec)
    assert result is not None, problems
    return result


def objects(*extra: Any, slice_file: str = "resourceslice_h100x8.yaml") -> DraObjects:
    return collect([((0, ""), o) for o in [*slices(slice_file), *extra]])


def node(name: str | None = H100_NODE) -> NodeInfo:
    shape = node_from_capacity({"cpu": "192", "memory": "2Ti", "pods": "110"}, "eks")
    return NodeInfo(
        name, shape.capacity, shape.allocatable, origin="manifest" if name else "capacity"
    )


def pods_on_h100(requests: list[dict[str, Any]], **devices: Any) -> int | None:
    result = claims_fit(pod({"gpu": "t"}), node(), objects(template("t", requests, **devices)))
    assert result is not None and result.fit is not None
    return result.pods


def test_two_gpus_per_pod_fill_the_eight_gpu_node_with_four_pods() -> None:
    result = claims_fit(pod({"gpu": "t"}), node(), objects(template("t", [exactly(count=2)])))
    assert result is not None and result.fit is not None
    assert result.pods == 4
    assert len(result.devices) == 8
    first = result.fit.claims[0]
    assert first.devices == {
        "gpu": (
            "gpu.nvidia.com/ip-10-0-180-136.ec2.internal/gpu-0",
            "gpu.nvidia.com/ip-10-0-180-136.ec2.internal/gpu-1",
        )
    }
    assert first.matches[0].count == 2 and len(first.matches[0].matching) == 8


@pytest.mark.parametrize(
    ("selector", "pods"),
    [
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", 4),
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('100Gi')) >= 0", 0),
        ("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'", 4),
        ("device.attributes['gpu.nvidia.com'].productName.contains('A100')", 0),
    ],
)
def test_selectors_decide_which_gpus_count(selector: str, pods: int) -> None:
    assert pods_on_h100([exactly(count=2, selectors=[{"cel": {"expression": selector}}])]) == pods


def test_a_request_no_device_matches_says_so() -> None:
    selector = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('100Gi')) >= 0"
    request = exactly(count=1, selectors=[{"cel": {"expression": selector}}])
    result = claims_fit(pod({"gpu": "t"}), node(), objects(template("t", [request])))
    assert result is not None and result.fit is not None and result.fit.problem is not None
    assert result.fit.problem.text == (
        "Request gpu of claim gpu: no device on the node matches DeviceClass gpu.nvidia.com and "
        "the request's selectors."
    )


def test_allocation_mode_all_takes_the_whole_node() -> None:
    assert pods_on_h100([exactly(allocationMode="All")]) == 1


def test_nine_gpus_do_not_fit_on_eight() -> None:
    result = claims_fit(pod({"gpu": "t"}), node(), objects(template("t", [exactly(count=9)])))
    assert result is not None and result.fit is not None
    assert result.pods == 0
    assert result.fit.problem is not None
    assert "needs 9 device(s); 8 device(s) on the node match, 8 of them still free" in (
        result.fit.problem.text
    )


def test_gpus_on_one_pcie_root_come_in_pairs() -> None:
    same_root = {"constraints": [{"matchAttribute": "resource.kubernetes.io/pcieRoot"}]}
    assert pods_on_h100([exactly(count=2)], **same_root) == 4
    assert pods_on_h100([exactly(count=3)], **same_root) == 0


def test_distinct_attributes_need_different_values() -> None:
    distinct = {"constraints": [{"distinctAttribute": "resource.kubernetes.io/pcieRoot"}]}
    # Four roots: four GPUs on four roots fit once; a second pod finds the same four roots.
    assert pods_on_h100([exactly(count=4)], **distinct) == 2
    assert pods_on_h100([exactly(count=5)], **distinct) == 0


def test_two_requests_in_one_claim_share_the_node() -> None:
    requests = [exactly("a", count=3), exactly("b", count=1)]
    assert pods_on_h100(requests) == 2


def test_first_available_takes_the_preferred_alternative_first() -> None:
    mig = {
        "name": "mig",
        "firstAvailable": [
            {
                "name": "big",
                "deviceClassName": "mig.nvidia.com",
                "selectors": [
                    {
                        "cel": {
                            "expression": "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
                        }
                    }
                ],
            },
            {
                "name": "small",
                "deviceClassName": "mig.nvidia.com",
                "count": 2,
                "selectors": [
                    {
                        "cel": {
                            "expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"
                        }
                    }
                ],
            },
        ],
    }
    result = claims_fit(
        pod({"gpu": "t"}),
        node("gpu-node-1"),
        objects(template("t", [mig]), slice_file="resourceslice_a100_mig.yaml"),
    )
    assert result is not None and result.fit is not None
    # Two 3g.40gb devices, then three pairs of the seven 1g.10gb ones.
    assert result.pods == 5
    assert list(result.fit.claims[0].devices) == ["mig/big"]


def test_the_mig_class_does_not_match_whole_gpus() -> None:
    assert pods_on_h100([exactly(cls="mig.nvidia.com")]) == 0


def test_a_shared_resource_claim_does_not_bound_the_pods() -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared"},
        "spec": {"devices": {"requests": [exactly(count=8)]}},
    }
    result = claims_fit(pod({"gpu": "shared"}, "resourceClaimName"), node(), objects(claim))
    assert result is not None and result.fit is not None
    assert result.pods is None and result.fit.problem is None


def test_a_missing_template_is_named_and_allocates_nothing() -> None:
    result = claims_fit(pod({"gpu": "absent"}), node(), objects())
    assert result is not None
    assert result.fit is None
    assert [n.text for n in result.notes] == [
        "Pod claim gpu names ResourceClaimTemplate absent, which is not in the input: its "
        "devices cannot be matched. Paste it with the pod."
    ]


def test_an_unknown_device_class_fails_the_claim() -> None:
    result = claims_fit(
        pod({"gpu": "t"}), node(), objects(template("t", [exactly(cls="fpga.example.com")]))
    )
    assert result is not None and result.fit is not None
    assert result.pods == 0
    assert result.fit.problem is not None
    assert result.fit.problem.text.startswith("DeviceClass fpga.example.com is neither")


def test_a_device_class_in_the_input_wins_over_the_known_one() -> None:
    only_gpu_3 = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.nvidia.com"},
        "spec": {
            "selectors": [
                {
                    "cel": {
                        "expression": "device.attributes['resource.kubernetes.io'].pciBusID"
                        " == '0000:86:00.0'"
                    }
                }
            ]
        },
    }
    result = claims_fit(pod({"gpu": "t"}), node(), objects(template("t", [exactly()]), only_gpu_3))
    assert result is not None and result.pods == 1


def test_slices_of_another_node_are_not_used() -> None:
    result = claims_fit(pod({"gpu": "t"}), node("other"), objects(template("t", [exactly()])))
    assert result is not None and result.pods == 0
    assert "No ResourceSlice of the input is available on node other" in result.notes[-1].text


def test_a_nameless_node_uses_the_node_the_slices_describe() -> None:
    result = claims_fit(pod({"gpu": "t"}), node(None), objects(template("t", [exactly()])))
    assert result is not None and result.node == H100_NODE and result.pods == 8


def test_a_slice_for_all_nodes_or_by_selector_counts() -> None:
    network = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "nics"},
        "spec": {
            "driver": "nic.example.com",
            "pool": {"name": "rack-1", "generation": 1, "resourceSliceCount": 1},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["1"]}]}
                ]
            },
            "devices": [{"name": "nic-0"}, {"name": "nic-1"}],
        },
    }
    cls = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "nic"},
        "spec": {"selectors": [{"cel": {"expression": "device.driver == 'nic.example.com'"}}]},
    }
    inputs = collect([((0, ""), o) for o in (network, cls, template("t", [exactly(cls="nic")]))])
    in_rack = NodeInfo("n1", {}, {}, labels={"rack": "1"})
    elsewhere = NodeInfo("n2", {}, {}, labels={"rack": "2"})
    assert (r := claims_fit(pod({"n": "t"}), in_rack, inputs)) is not None and r.pods == 2
    assert (r := claims_fit(pod({"n": "t"}), elsewhere, inputs)) is not None and r.pods == 0


def test_partitionable_devices_share_their_counters() -> None:
    sliced = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "partitions"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": "n1",
            "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
            "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}],
            "devices": [
                {
                    "name": f"part-{i}",
                    "attributes": {"type": {"string": "mig"}},
                    "consumesCounters": [
                        {"counterSet": "gpu-0", "counters": {"memory": {"value": "30Gi"}}}
                    ],
                }
                for i in range(4)
            ],
        },
    }
    inputs = collect(
        [((0, ""), o) for o in (sliced, template("t", [exactly(cls="mig.nvidia.com")]))]
    )
    # Four partitions are published, but 80Gi of memory only makes two of 30Gi.
    result = claims_fit(pod({"g": "t"}), NodeInfo("n1", {}, {}), inputs)
    assert result is not None and result.pods == 2


def test_an_older_generation_of_a_pool_is_ignored() -> None:
    old, new = slices("resourceslice_a100_mig.yaml")[0], slices("resourceslice_a100_mig.yaml")[0]
    old = {
        **old,
        "metadata": {"name": "old"},
        "spec": {**old["spec"], "pool": {**old["spec"]["pool"], "generation": 2}},
    }
    inputs = collect(
        [((0, ""), o) for o in (old, new, template("t", [exactly(cls="mig.nvidia.com")]))]
    )
    result = claims_fit(pod({"g": "t"}), NodeInfo("gpu-node-1", {}, {}), inputs)
    assert result is not None and result.pods == 9 and len(result.devices) == 9


def test_the_smaller_count_wins_when_folded_into_node_fit() -> None:
    p = pod({"gpu": "t"})
    inputs = objects(template("t", [exactly(count=2)]))
    small = NodeInfo(H100_NODE, {}, {"cpu": "3", "memory": "64Gi", "pods": "110"})
    result = with_claims(fit(p, small), claims_fit(p, small, inputs))
    assert result.pods_per_node == 3 and result.bottleneck == "cpu"
    big = node()
    result = with_claims(fit(p, big), claims_fit(p, big, inputs))
    assert result.pods_per_node == 4 and result.bottleneck == "resourceClaims"
    assert result.as_dict()["claims"]["podsPerNode"] == 4
    assert any("not part of the node's allocatable" in n.text for n in result.notes)


def test_an_unallocatable_claim_keeps_the_pod_pending() -> None:
    p = pod({"gpu": "t"})
    inputs = objects(template("t", [exactly(count=9)]))
    result = with_claims(fit(p, node()), claims_fit(p, node(), inputs))
    assert result.pods_per_node == 0
    assert result.pending_reasons[-1].code == "dra-unallocatable"
    assert result.pending_reasons[-1].text.startswith(
        "The pod's resource claims cannot be allocated on this node: Request gpu of claim gpu "
        "needs 9 device(s)"
    )
