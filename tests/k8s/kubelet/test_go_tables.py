"""The kubelet's own Go test tables, transcribed as data (tests/k8s/kubelet/data/), every case run.

* resource_config_cases.json: pkg/kubelet/cm/helpers_linux_test.go (TestResourceConfigForPod,
  ...WithCustomCPUCFSQuotaPeriod, ...WithEnforceMemoryQoS, TestHugePageLimits, TestMilliCPUToQuota,
  TestMilliCPUToShares);
* oom_cases.json: pkg/kubelet/qos/policy_test.go (TestGetContainerOOMScoreAdjust, with the newer
  DRA cases, and TestGetContainerOOMScoreAdjustTieBreak with its gate off);
* kuberuntime_cases.json: pkg/kubelet/kuberuntime/kuberuntime_container_linux_test.go.

The JSON files are the research transcriptions (/work/research/kubelet/), which name the source
copy of each. Like the Go tests, the pods are *not* defaulted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.k8s.core import Pod, Quantity, parse_resources
from designer.k8s.kubelet import (
    KubeletConfig,
    calculate_linux_resources,
    compute_qos_class,
    container_hugepage_limits,
    container_linux_resources,
    hugepage_limits,
    milli_cpu_to_shares,
    oom_score_adj,
    pod_milli_cpu_to_quota,
    resource_config_for_pod,
)

DATA = Path(__file__).parent / "data"
RESOURCE_CONFIG = json.loads((DATA / "resource_config_cases.json").read_text())
OOM = json.loads((DATA / "oom_cases.json").read_text())
KUBERUNTIME = json.loads((DATA / "kuberuntime_cases.json").read_text())


def _pod(spec: dict[str, Any]) -> Pod:
    return Pod.model_validate(spec)


def _id(case: dict[str, Any]) -> str:
    return f"{case['test']}/{case['name']}"


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for case in cases:
        name = _id(case) + (f"/{case['container']}" if "container" in case else "")
        name += f"/{case['cgroupVersion']}" if "cgroupVersion" in case else ""
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def test_the_tables_hold_every_transcribed_case() -> None:
    assert len(RESOURCE_CONFIG["cases"]) == 49
    assert len(RESOURCE_CONFIG["scalarTests"]["TestMilliCPUToQuota"]) == 8
    assert len(RESOURCE_CONFIG["scalarTests"]["TestMilliCPUToShares"]) == 9
    assert len(OOM["cases"]) == 64
    assert len(KUBERUNTIME["cases"]) == 24


# --- helpers_linux_test.go ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", RESOURCE_CONFIG["scalarTests"]["TestMilliCPUToQuota"], ids=lambda c: str(c["input"])
)
def test_milli_cpu_to_quota_matches_kubernetes(case: dict[str, Any]) -> None:
    # The Go test runs with CustomCPUCFSQuotaPeriod off, so the period passed does not count.
    assert pod_milli_cpu_to_quota(case["input"], case["period"], False) == case["quota"]


@pytest.mark.parametrize(
    "case", RESOURCE_CONFIG["scalarTests"]["TestMilliCPUToShares"], ids=lambda c: c["name"]
)
def test_milli_cpu_to_shares_matches_kubernetes(case: dict[str, Any]) -> None:
    assert milli_cpu_to_shares(case["input"]) == case["expected"]


GO_FIELDS = {
    "CPUShares": "cpu_shares",
    "CPUQuota": "cpu_quota",
    "CPUPeriod": "cpu_period",
    "Memory": "memory",
    "Unified": "unified",
}


@pytest.mark.parametrize("case", RESOURCE_CONFIG["cases"], ids=_ids(RESOURCE_CONFIG["cases"]))
def test_resource_config_for_pod_matches_kubernetes(case: dict[str, Any]) -> None:
    pod = _pod(case["pod"])
    if not case["featureGates"]["PodLevelResources"]:
        # The engine always honours pod-level resources (on by default since 1.34); the
        # cases that run with the gate off have none, so the gate makes no difference.
        assert "resources" not in case["pod"]["spec"]
    config = resource_config_for_pod(
        pod,
        compute_qos_class(pod),
        enforce_cpu_limits=case["enforceCPULimits"],
        cpu_period=case["quotaPeriod"],
        custom_period=case["featureGates"]["CustomCPUCFSQuotaPeriod"],
        enforce_memory_qos=case["enforceMemoryQoS"],
    )
    for go_name in case["asserted"]:
        expected = case["expected"].get(go_name)
        if go_name == "HugetlbLimit":
            assert {str(k): v for k, v in config.hugetlb.items()} == expected
            requests = case["pod"]["spec"]["containers"][0]["resources"]["requests"]
            direct = hugepage_limits(parse_resources(requests))
            assert {str(k): v for k, v in direct.items()} == expected
            continue
        assert getattr(config, GO_FIELDS[go_name]) == expected, go_name


# --- qos/policy_test.go -----------------------------------------------------------------------


def _container(pod: Pod, name: str):  # noqa: ANN202 - a Container
    return next(c for _, c in pod.spec.all_containers() if c.name == name)


@pytest.mark.parametrize("case", OOM["cases"], ids=_ids(OOM["cases"]))
def test_oom_score_adj_matches_kubernetes(case: dict[str, Any]) -> None:
    pod = _pod(case["pod"])
    gates = case["featureGates"]
    if not gates["PodLevelResources"]:
        assert "resources" not in case["pod"]["spec"]
    adj = oom_score_adj(
        pod,
        _container(pod, case["container"]),
        case["memoryCapacity"],
        dra_node_allocatable=gates["DRANodeAllocatableResources"],
    )
    # With KubeletOOMScoreAdjTieBreak off (every case's low/high), the 1.34 formula holds.
    assert case["lowOOMScoreAdj"] <= adj <= case["highOOMScoreAdj"]
    if "referenceValue" in case:
        assert adj == case["referenceValue"]


def test_the_dra_memory_of_a_pod_counts_only_with_its_gate() -> None:
    case = next(c for c in OOM["cases"] if c["name"] == "burstable-pod-with-dra-enabled")
    pod = _pod(case["pod"])
    c1 = _container(pod, "c1")
    assert oom_score_adj(pod, c1, case["memoryCapacity"], dra_node_allocatable=True) == 738
    # 1.34, as the designer models by default: pod.status is not read (500Mi of 4 GB -> 869).
    assert oom_score_adj(pod, c1, case["memoryCapacity"]) == 869


# --- kuberuntime_container_linux_test.go -----------------------------------------------------

CRI_FIELDS = {
    "CpuPeriod": "cpu_period",
    "CpuQuota": "cpu_quota",
    "CpuShares": "cpu_shares",
    "MemoryLimitInBytes": "memory_limit_in_bytes",
}


def _config(case: dict[str, Any]) -> KubeletConfig:
    return KubeletConfig(
        cpu_cfs_quota=case["cpuCFSQuota"],
        cpu_cfs_quota_period_us=case["cpuCFSQuotaPeriodUs"],
        cgroup_v2=case.get("cgroupVersion", "v1") == "v2",
        single_process_oom_kill=case.get("singleProcessOOMKill", False),
    )


def _cases(test: str) -> list[dict[str, Any]]:
    return [c for c in KUBERUNTIME["cases"] if c["test"] == test]


CONFIG_RESOURCES = _cases("TestGenerateLinuxContainerConfigResources")
CALCULATE = _cases("TestCalculateLinuxResources")
GENERATE = _cases("TestGenerateLinuxContainerResources")
HUGEPAGES = _cases("TestGetHugepageLimitsFromResources")


@pytest.mark.parametrize("case", CONFIG_RESOURCES, ids=_ids(CONFIG_RESOURCES))
def test_container_cgroup_values_match_kubernetes(case: dict[str, Any]) -> None:
    pod = _pod(case["pod"])
    resources = container_linux_resources(pod, _container(pod, case["container"]), _config(case))
    for go_name in case["asserted"]:
        assert getattr(resources, CRI_FIELDS[go_name]) == case["expected"][go_name], go_name


@pytest.mark.parametrize("case", CALCULATE, ids=_ids(CALCULATE))
def test_calculate_linux_resources_matches_kubernetes(case: dict[str, Any]) -> None:
    def q(value: str | None) -> Quantity | None:
        return Quantity.parse(value) if value is not None else None

    resources = calculate_linux_resources(
        q(case["cpuReq"]), q(case["cpuLim"]), q(case["memLim"]), _config(case)
    )
    expected = case["expected"]
    for go_name, attr in CRI_FIELDS.items():
        assert getattr(resources, attr) == expected.get(go_name, 0), go_name
    assert resources.unified == expected.get("Unified")


@pytest.mark.parametrize("case", GENERATE, ids=_ids(GENERATE))
def test_generate_linux_container_resources_matches_kubernetes(case: dict[str, Any]) -> None:
    pod = _pod(case["pod"])
    container = _container(pod, case["container"])
    resources = container_linux_resources(pod, container, _config(case))
    expected = case["expected"]
    for go_name, attr in CRI_FIELDS.items():
        assert getattr(resources, attr) == expected.get(go_name, 0), go_name
    assert resources.unified == expected.get("Unified")
    assert oom_score_adj(pod, container, case["memoryCapacity"]) == expected["OomScoreAdj"]


@pytest.mark.parametrize("case", HUGEPAGES, ids=_ids(HUGEPAGES))
def test_container_hugepage_limits_match_kubernetes(case: dict[str, Any]) -> None:
    # The Go test's machine has exactly the page sizes the expected list names.
    sizes = [e["PageSize"] for e in case["expected"]]
    limits = container_hugepage_limits(case["resources"]["limits"], sizes)
    assert limits == {e["PageSize"]: e["Limit"] for e in case["expected"]}
