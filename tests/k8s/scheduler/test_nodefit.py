"""Allocatable estimates, node parsing and pod fit (designer.k8s.nodefit).

Provider numbers are checked against what each provider publishes: GKE's node output on its
"plan node sizes" page (4 cores -> 3920m allocatable), EKS's nodeadm formula and a kubelet
config it writes (2 vCPUs -> kubeReserved cpu 70m), AKS's CPU table and its worked memory
examples. Toleration cases follow k8s.io/api/core/v1/toleration_test.go.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from designer.k8s.core import Pod, Quantity
from designer.k8s.scheduler import (
    NodeInfo,
    catalog_shape,
    catalog_shapes,
    estimate_allocatable,
    fit,
    node_from_capacity,
    node_from_catalog,
    node_from_manifest,
    tolerates,
)

GI = 1024**3
MI = 1024**2


def pod(
    requests: dict | None = None,
    limits: dict | None = None,
    *,
    init: list[dict] | None = None,
    **spec: Any,
) -> Pod:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    body: dict[str, Any] = {
        "containers": [{"name": "main", "image": "pytorch/pytorch", "resources": resources}],
        **spec,
    }
    if init:
        body["initContainers"] = init
    return Pod.model_validate({"spec": body})


def gpu_pod(cpu: str, memory: str = "16Gi", gpus: int = 1, **spec: Any) -> Pod:
    return pod(
        {"cpu": cpu, "memory": memory},
        {"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpus},
        **spec,
    )


def node(allocatable: dict[str, Any], **kw: Any) -> NodeInfo:
    return NodeInfo(name="n1", capacity=dict(allocatable), allocatable=dict(allocatable), **kw)


def mebibytes(text: str) -> float:
    return float(Quantity.parse(text).as_fraction()) / MI


# --- GKE ---------------------------------------------------------------------------------------


def test_gke_leaves_3920m_of_a_4_core_node_as_its_docs_show() -> None:
    est = estimate_allocatable({"cpu": "4", "memory": "16Gi"}, "gke")
    assert est.reserved["cpu"] == "80m"
    assert est.allocatable["cpu"] == "3920m"


def test_gke_reserves_70m_and_1_7_gib_on_a_2_vcpu_7_5_gib_machine() -> None:
    # n1-standard-2: 6% + 1% of a core; 25% of 4 GiB + 20% of 3.5 GiB = 1.7 GiB (1740.8Mi).
    est = estimate_allocatable({"cpu": 2, "memory": "7680Mi"}, "gke")
    assert est.reserved == {"cpu": "70m", "memory": "1741Mi"}
    assert est.eviction == {"memory": "100Mi"}
    assert est.allocatable == {"cpu": "1930m", "memory": "5839Mi", "pods": "110"}


def test_gke_keeps_about_140_gib_of_a_150_gib_machine() -> None:
    # 1 + 0.8 + 0.8 + 6.72 + 0.44 = 9.76 GiB reserved, plus the 100Mi eviction threshold.
    est = estimate_allocatable({"cpu": "32", "memory": "150Gi"}, "gke")
    assert est.reserved["memory"] == "9995Mi"
    assert mebibytes(est.allocatable["memory"]) / 1024 == pytest.approx(140.1423, abs=1e-3)
    assert est.reserved["cpu"] == "150m"  # 60 + 10 + 10 + 28 x 2.5


def test_gke_reserves_255mi_on_machines_below_1_gib() -> None:
    est = estimate_allocatable({"cpu": "1", "memory": "600Mi"}, "gke")
    assert est.reserved["memory"] == "255Mi"
    assert est.allocatable["memory"] == "245Mi"


# --- EKS ---------------------------------------------------------------------------------------


def test_eks_reserves_70m_on_2_vcpus_like_the_kubelet_config_nodeadm_writes() -> None:
    est = estimate_allocatable({"cpu": "2", "memory": "8Gi"}, "eks", max_pods=29)
    assert est.reserved["cpu"] == "70m"
    assert est.reserved["memory"] == "574Mi"  # 11 x 29 + 255


@pytest.mark.parametrize(
    ("cpus", "reserved"),
    [("1", "60m"), ("4", "80m"), ("5", "82m"), ("8", "90m"), ("96", "310m"), ("192", "550m")],
)
def test_eks_cpu_tiers_truncate_each_range_like_go(cpus: str, reserved: str) -> None:
    # 5 vCPUs: 0.25% of 1000m = 2.5m, truncated by nodeadm's integer division.
    assert estimate_allocatable({"cpu": cpus}, "eks", 110).reserved["cpu"] == reserved


def test_eks_memory_grows_with_max_pods_on_a_g5_xlarge() -> None:
    n = node_from_catalog("g5.xlarge")
    assert n.estimate is not None and n.estimate.max_pods == 58
    assert n.estimate.reserved == {"cpu": "80m", "memory": "893Mi"}
    assert n.allocatable == {
        "cpu": "3920m",
        "memory": "15391Mi",
        "nvidia.com/gpu": "1",
        "pods": "58",
    }
    assert "eni-max-pods.txt" in n.estimate.formula_lines[-2].text


def test_eks_without_an_eni_limit_falls_back_to_110_pods_and_says_so() -> None:
    est = estimate_allocatable({"cpu": "8", "memory": "32Gi"}, "eks")
    assert est.max_pods == 110
    assert est.reserved["memory"] == "1465Mi"
    assert any("falls back" in line.text for line in est.formula_lines)


# --- AKS ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cores", "reserved"),
    [(1, "60m"), (2, "100m"), (4, "140m"), (8, "180m"), (16, "260m"), (32, "420m"), (64, "740m")],
)
def test_aks_cpu_reservation_matches_the_published_table(cores: int, reserved: str) -> None:
    assert estimate_allocatable({"cpu": cores}, "aks").reserved["cpu"] == reserved


def test_aks_reserves_650_for_30_pods_on_an_8_gb_vm_like_its_example() -> None:
    # The page: 20 MB x 30 + 50 MB = 650 MB, plus the 100Mi eviction threshold.
    est = estimate_allocatable({"cpu": "2", "memory": "8Gi"}, "aks", max_pods=30)
    assert est.reserved["memory"] == "650Mi"
    assert est.eviction["memory"] == "100Mi"
    assert est.allocatable["memory"] == "7442Mi"


def test_aks_caps_the_memory_reservation_at_a_quarter_of_the_node() -> None:
    # The page's second example: 4 GB and 70 pods reserve 25% (less than 20 x 70 + 50).
    est = estimate_allocatable({"cpu": "2", "memory": "4Gi"}, "aks", max_pods=70)
    assert est.reserved["memory"] == "1Gi"
    assert "1450Mi" in est.formula_lines[2].text


def test_aks_defaults_to_30_pods() -> None:
    est = estimate_allocatable({"cpu": "4", "memory": "28Gi"}, "aks")
    assert est.max_pods == 30 and est.allocatable["pods"] == "30"


# --- estimate, general -------------------------------------------------------------------------


def test_gpus_and_other_resources_pass_through_unchanged() -> None:
    cap = {"cpu": "96", "memory": "1152Gi", "nvidia.com/gpu": "8", "ephemeral-storage": "8Ti"}
    est = estimate_allocatable(cap, "eks", 737)
    assert est.allocatable["nvidia.com/gpu"] == "8"
    assert est.allocatable["ephemeral-storage"] == "8Ti"
    assert "nvidia.com/gpu" in est.formula_lines[-1].text


def test_the_pods_capacity_is_used_as_max_pods() -> None:
    assert estimate_allocatable({"cpu": "4", "pods": 250}, "eks").max_pods == 250


def test_the_formula_is_explained_line_by_line_and_serialises() -> None:
    est = estimate_allocatable({"cpu": "4", "memory": "16Gi"}, "gke")
    text = [line.text for line in est.formula_lines]
    assert text[0].startswith("GKE reserves CPU")
    assert "6% of the first core" in text[0]
    assert text[1] == "Allocatable CPU = 4 - 80m = 3920m."
    assert "25% of the first 4 GiB" in text[2]
    assert any(t.startswith("Allocatable memory = 16Gi - ") for t in text)
    data = json.loads(json.dumps(est.as_dict()))
    assert data["source"].startswith("https://cloud.google.com/kubernetes-engine/")
    assert data["formulaDetails"][0]["template"].count("%%") == 4


@pytest.mark.parametrize(
    ("capacity", "provider", "match"),
    [
        ({"cpu": "4"}, "openshift", "unknown provider"),
        ({"memory": "16GB"}, "gke", r"capacity\[memory\]: '16GB'"),
        ({"memory": "1e999999999"}, "gke", "too large"),
        ({"cpu": "-4"}, "aks", "negative"),
        ({"cpu": "4"}, "eks", "max pods"),
    ],
)
def test_bad_capacities_are_refused_naming_the_value(
    capacity: dict, provider: str, match: str
) -> None:
    max_pods = 0 if provider == "eks" else None
    with pytest.raises(ValueError, match=match):
        estimate_allocatable(capacity, provider, max_pods)


# --- catalog -------------------------------------------------------------------------------------


def test_the_catalog_lists_gpu_shapes_of_all_three_clouds_with_sources() -> None:
    shapes = catalog_shapes()
    ids = [s.id for s in shapes]
    assert len(ids) == len(set(ids))
    assert {s.cloud for s in shapes} == {"aws", "gcp", "azure"}
    for s in shapes:
        assert s.source.startswith("https://")
        assert s.gpu_count >= 1 and s.vcpus >= 4
        assert Quantity.parse(s.memory).as_fraction() >= 16 * GI
    json.dumps([s.as_dict() for s in shapes])


@pytest.mark.parametrize(
    ("shape_id", "vcpus", "memory", "gpus", "model"),
    [
        ("p4d.24xlarge", 96, "1152Gi", 8, "A100 40GB"),
        ("p5.48xlarge", 192, "2048Gi", 8, "H100 80GB"),
        ("a3-highgpu-8g", 208, "1872Gi", 8, "H100 80GB"),
        ("g2-standard-4", 4, "16Gi", 1, "L4 24GB"),
        ("Standard_ND96isr_H100_v5", 96, "1900Gi", 8, "H100 80GB"),
        ("standard_nc4as_t4_v3", 4, "28Gi", 1, "T4 16GB"),
    ],
)
def test_catalog_shapes_carry_the_published_sizes(
    shape_id: str, vcpus: int, memory: str, gpus: int, model: str
) -> None:
    s = catalog_shape(shape_id)
    assert (s.vcpus, s.memory, s.gpu_count, s.gpu_model) == (vcpus, memory, gpus, model)


def test_a_catalog_node_uses_its_clouds_provider_unless_told_otherwise() -> None:
    n = node_from_catalog("a2-highgpu-8g")
    assert n.estimate is not None and n.estimate.provider == "gke"
    assert n.labels == {"node.kubernetes.io/instance-type": "a2-highgpu-8g"}
    assert node_from_catalog("a2-highgpu-8g", "aks").estimate.provider == "aks"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown node shape"):
        node_from_catalog("m5.large")


# --- node manifests -----------------------------------------------------------------------------

GKE_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "gke-pool-gpu-1",
        "labels": {
            "cloud.google.com/gke-accelerator": "nvidia-l4",
            "node.kubernetes.io/instance-type": "g2-standard-8",
        },
    },
    "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "8", "memory": "32880632Ki", "nvidia.com/gpu": "1", "pods": "110"},
        "allocatable": {
            "cpu": "7910m",
            "memory": "29130232Ki",
            "nvidia.com/gpu": "1",
            "pods": "110",
        },
    },
}


def test_a_pasted_node_is_used_as_it_is() -> None:
    n = node_from_manifest(GKE_NODE)
    assert n.name == "gke-pool-gpu-1"
    assert n.allocatable["memory"] == "29130232Ki"
    assert n.capacity["cpu"] == "8"
    assert n.labels["cloud.google.com/gke-accelerator"] == "nvidia-l4"
    assert n.taints[0]["effect"] == "NoSchedule"
    assert n.estimate is None
    json.dumps(n.as_dict())


def test_a_list_with_one_node_is_accepted_and_other_kinds_are_not() -> None:
    assert node_from_manifest({"kind": "List", "items": [GKE_NODE]}).name == "gke-pool-gpu-1"
    with pytest.raises(ValueError, match="holds 2 nodes"):
        node_from_manifest({"kind": "List", "items": [GKE_NODE, GKE_NODE]})
    with pytest.raises(ValueError, match="expected a Node"):
        node_from_manifest({"kind": "Pod", "status": {"allocatable": {"cpu": "1"}}})
    with pytest.raises(ValueError, match="status.allocatable is missing"):
        node_from_manifest({"kind": "Node", "metadata": {"name": "x"}})
    with pytest.raises(ValueError, match=r"status.allocatable\[cpu\]"):
        node_from_manifest({"kind": "Node", "status": {"allocatable": {"cpu": "lots"}}})


# --- fit: resources ------------------------------------------------------------------------------


def test_gpus_run_out_first_when_each_pod_needs_little_cpu() -> None:
    result = fit(gpu_pod("4"), node_from_catalog("p4d.24xlarge"))
    assert result.pods_per_node == 8
    assert result.bottleneck == "nvidia.com/gpu"
    assert result.stranded["nvidia.com/gpu"] == "0"
    assert result.stranded["cpu"] == "63690m"  # 95690m - 8 x 4


def test_two_gpus_stay_idle_when_cpu_runs_out_first() -> None:
    result = fit(gpu_pod("14", "64Gi"), node_from_catalog("p4d.24xlarge"))
    assert result.pods_per_node == 6  # 95690m // 14000m
    assert result.bottleneck == "cpu"
    assert result.stranded["nvidia.com/gpu"] == "2"
    assert result.stranded["cpu"] == "11690m"
    assert [n.text for n in result.notes] == [
        "2 nvidia.com/gpu left idle on each node: cpu runs out first."
    ]


def test_the_node_pod_limit_caps_small_pods() -> None:
    n = node_from_capacity({"cpu": "64", "memory": "256Gi"}, "gke", max_pods=10)
    result = fit(pod({"cpu": "100m", "memory": "128Mi"}), n)
    assert (result.pods_per_node, result.bottleneck) == (10, "pods")
    assert result.pods_by_resource["cpu"] > 10


def test_daemonset_overhead_comes_off_allocatable_first() -> None:
    n = node_from_catalog("p4d.24xlarge")
    assert fit(gpu_pod("16"), n).pods_per_node == 5
    result = fit(gpu_pod("16"), n, {"cpu": "16", "memory": "4Gi", "pods": 3})
    assert result.pods_per_node == 4  # 79690m // 16000m
    assert result.allocatable["cpu"] == "79690m"
    assert result.allocatable["pods"] == "734"
    assert result.stranded["nvidia.com/gpu"] == "4"


def test_a_pod_too_big_once_daemonsets_run_is_pending_and_says_why() -> None:
    n = node_from_catalog("g5.xlarge")
    result = fit(gpu_pod("3500m", "8Gi"), n, {"cpu": "500m"})
    assert result.pods_per_node == 0
    assert [r.code for r in result.pending_reasons] == ["insufficient"]
    assert result.pending_reasons[0].text == (
        "Insufficient cpu: the pod requests 3500m but the node has 3420m allocatable once its "
        "DaemonSets (500m) are counted."
    )


def test_pod_overhead_and_init_containers_count_as_the_scheduler_counts_them() -> None:
    n = node_from_catalog("p4d.24xlarge")
    with_overhead = gpu_pod("15500m", overhead={"cpu": "500m"})
    assert fit(with_overhead, n).requests["cpu"] == "16"
    assert fit(with_overhead, n).pods_per_node == 5
    big_init = pod(
        {"cpu": "1", "memory": "1Gi"},
        init=[{"name": "warm", "resources": {"requests": {"cpu": "30", "memory": "1Gi"}}}],
    )
    assert fit(big_init, n).pods_per_node == 3  # 95690m // 30000m


def test_a_pod_asking_for_more_gpus_than_the_node_has_is_pending() -> None:
    result = fit(gpu_pod("2", gpus=2), node_from_catalog("g5.xlarge"))
    assert result.pods_per_node == 0
    assert result.bottleneck == "nvidia.com/gpu"
    reason = result.pending_reasons[0]
    assert (reason.code, reason.resource) == ("insufficient", "nvidia.com/gpu")
    assert "requests 2 but the node has 1 allocatable" in reason.text


def test_a_node_without_the_device_plugin_keeps_a_gpu_pod_pending() -> None:
    n = node_from_capacity({"cpu": "8", "memory": "32Gi"}, "gke")
    result = fit(gpu_pod("2"), n)
    assert result.pods_per_node == 0
    reason = result.pending_reasons[0]
    assert reason.code == "device-plugin-missing"
    assert "no nvidia.com/gpu in its allocatable" in reason.text
    assert "NVIDIA device plugin" in reason.text
    assert "Insufficient nvidia.com/gpu" in reason.text


def test_a_node_sharing_its_gpus_under_another_name_is_pointed_out() -> None:
    n = node({"cpu": "8", "memory": "32Gi", "nvidia.com/gpu.shared": "4", "pods": "110"})
    reason = fit(gpu_pod("1", "4Gi"), n).pending_reasons[0]
    assert reason.code == "device-plugin-missing"
    assert "advertises nvidia.com/gpu.shared instead" in reason.text


def test_mig_slices_under_the_mixed_strategy_fit_like_any_extended_resource() -> None:
    n = node({"cpu": "96", "memory": "1Ti", "nvidia.com/mig-1g.10gb": "7", "pods": "110"})
    p = pod({"cpu": "2", "memory": "8Gi"}, {"nvidia.com/mig-1g.10gb": 1})
    result = fit(p, n)
    assert (result.pods_per_node, result.bottleneck) == (7, "nvidia.com/mig-1g.10gb")


def test_a_pod_that_requests_nothing_has_no_bottleneck() -> None:
    result = fit(pod(), node_from_catalog("g2-standard-4"))
    assert result.bottleneck is None
    assert result.pods_per_node == 110
    assert result.stranded["nvidia.com/gpu"] == "1"
    assert any("requests nothing" in n.text for n in result.notes)
    assert any("left unrequested" in n.text for n in result.notes)


def test_fit_serialises_to_the_documented_shape() -> None:
    data = json.loads(
        json.dumps(fit(gpu_pod("14", "64Gi"), node_from_catalog("p4d.24xlarge")).as_dict())
    )
    assert {"podsPerNode", "bottleneck", "allocatable", "stranded", "pendingReasons"} <= set(data)
    assert data["podsPerNode"] == 6 and data["bottleneck"] == "cpu"
    assert data["allocatable"]["memory"] == "1171186Mi"
    assert data["pendingReasons"] == []
    pending = fit(gpu_pod("2"), node_from_capacity({"cpu": "8"}, "gke")).as_dict()
    assert isinstance(pending["pendingReasons"][0], str)
    assert pending["pendingReasonDetails"][0]["params"]["resource"] == "nvidia.com/gpu"


def test_a_bad_daemonset_overhead_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"daemonset_overhead\[memory\]: '2GB'"):
        fit(pod(), node_from_catalog("g5.xlarge"), {"memory": "2GB"})


# --- fit: taints, selectors, affinity -------------------------------------------------------------

TAINT = {"key": "foo", "value": "bar", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [
        # toleration_test.go TestTolerationToleratesTaint
        (
            {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
            {**TAINT, "value": ""},
            True,
        ),
        ({"key": "foo", "operator": "Exists", "effect": "NoSchedule"}, TAINT, True),
        ({"operator": "Exists", "effect": "NoSchedule"}, TAINT, True),
        ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}, TAINT, True),
        ({"key": "foo", "operator": "Equal", "value": "baz", "effect": "NoSchedule"}, TAINT, False),
        ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoExecute"}, TAINT, False),
        # an empty effect matches every effect, an empty operator means Equal
        ({"key": "foo", "value": "bar"}, {**TAINT, "effect": "NoExecute"}, True),
        ({"key": "foo"}, TAINT, False),
        # an empty key with Exists tolerates every taint
        ({"operator": "Exists"}, {"key": "nvidia.com/gpu", "effect": "NoExecute"}, True),
        ({"key": "other", "operator": "Exists"}, TAINT, False),
        ({"key": "foo", "operator": "Gt", "value": "1"}, TAINT, False),
    ],
)
def test_tolerations_match_taints_exactly_like_kubernetes(
    toleration: dict, taint: dict, expected: bool
) -> None:
    assert tolerates(toleration, taint) is expected


GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def test_an_untolerated_gpu_taint_keeps_the_pod_pending() -> None:
    n = node_from_manifest(GKE_NODE)
    result = fit(gpu_pod("2", "8Gi"), n)
    assert result.pods_per_node == 0
    assert result.pods_per_node_by_resources == 1
    assert [r.code for r in result.pending_reasons] == ["untolerated-taint"]
    assert "nvidia.com/gpu=present:NoSchedule" in result.pending_reasons[0].text
    assert result.stranded["nvidia.com/gpu"] == "1"


def test_a_matching_toleration_lets_the_pod_in() -> None:
    tolerated = gpu_pod(
        "2",
        "8Gi",
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    )
    result = fit(tolerated, node_from_manifest(GKE_NODE))
    assert (result.pods_per_node, result.pending_reasons) == (1, ())


def test_prefer_no_schedule_taints_do_not_keep_a_pod_pending() -> None:
    n = node({"cpu": "8", "pods": "110"}, taints=({"key": "x", "effect": "PreferNoSchedule"},))
    assert fit(pod({"cpu": "1"}), n).pending_reasons == ()


def test_no_execute_taints_need_a_toleration_too() -> None:
    n = node(
        {"cpu": "8", "pods": "110"}, taints=({"key": "x", "value": "y", "effect": "NoExecute"},)
    )
    assert [r.code for r in fit(pod({"cpu": "1"}), n).pending_reasons] == ["untolerated-taint"]


def test_a_cordoned_node_takes_no_pods() -> None:
    n = node({"cpu": "8", "pods": "110"}, unschedulable=True)
    assert [r.code for r in fit(pod({"cpu": "1"}), n).pending_reasons] == ["unschedulable"]
    tolerant = pod(
        {"cpu": "1"},
        tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}],
    )
    assert fit(tolerant, n).pending_reasons == ()


@pytest.mark.parametrize(
    ("selector", "codes", "fragment"),
    [
        ({"cloud.google.com/gke-accelerator": "nvidia-l4"}, [], ""),
        (
            {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
            ["node-selector"],
            "the node's label is cloud.google.com/gke-accelerator=nvidia-l4",
        ),
        ({"pool": "training"}, ["node-selector"], "the node has no pool label"),
    ],
)
def test_a_node_selector_must_match_the_node_labels(
    selector: dict, codes: list[str], fragment: str
) -> None:
    tolerate_all = [{"operator": "Exists"}]
    result = fit(
        gpu_pod("1", "4Gi", nodeSelector=selector, tolerations=tolerate_all),
        node_from_manifest(GKE_NODE),
    )
    assert [r.code for r in result.pending_reasons] == codes
    if fragment:
        assert fragment in result.pending_reasons[0].text


def affinity(*terms: dict) -> dict:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


def expr(key: str, operator: str, *values: str) -> dict:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


LABELS = {"gpu": "a100", "gpu-count": "8", "zone": "a"}


@pytest.mark.parametrize(
    ("terms", "fits"),
    [
        ([{"matchExpressions": [expr("gpu", "In", "a100", "h100")]}], True),
        ([{"matchExpressions": [expr("gpu", "In", "h100")]}], False),
        ([{"matchExpressions": [expr("gpu", "NotIn", "t4")]}], True),
        ([{"matchExpressions": [expr("absent", "NotIn", "x")]}], True),
        ([{"matchExpressions": [expr("gpu", "Exists")]}], True),
        ([{"matchExpressions": [expr("gpu", "DoesNotExist")]}], False),
        ([{"matchExpressions": [expr("gpu-count", "Gt", "4")]}], True),
        ([{"matchExpressions": [expr("gpu-count", "Lt", "4")]}], False),
        ([{"matchExpressions": [expr("gpu", "Gt", "4")]}], False),  # not an integer label
        ([{"matchExpressions": [expr("gpu", "In", "a100"), expr("zone", "In", "b")]}], False),
        (  # terms are ORed
            [
                {"matchExpressions": [expr("zone", "In", "b")]},
                {"matchExpressions": [expr("zone", "In", "a")]},
            ],
            True,
        ),
        ([{}], False),  # an empty term matches nothing
        ([{"matchFields": [expr("metadata.name", "In", "n1")]}], True),
        ([{"matchFields": [expr("metadata.name", "NotIn", "n1")]}], False),
    ],
)
def test_required_node_affinity_is_evaluated_like_the_scheduler(terms: list, fits: bool) -> None:
    n = node({"cpu": "8", "pods": "110"}, labels=LABELS)
    result = fit(pod({"cpu": "1"}, affinity=affinity(*terms)), n)
    assert [r.code for r in result.pending_reasons] == ([] if fits else ["node-affinity"])
