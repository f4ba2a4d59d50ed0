"""What the kubelet and the container runtime apply on the node for a pod.

Everything is computed from the defaulted pod (the object the kubelet receives):

* pod cgroup: ``ResourceConfigForPod`` of pkg/kubelet/cm/helpers_linux.go (cpu.shares from
  the effective CPU request, CFS quota from the effective CPU limit, memory limit from the
  effective memory limit *with pod overhead*, hugetlb from hugepages requests), applied per
  QoS class: Guaranteed always bounded, Burstable bounded only for a resource every container
  (or the pod level) limits, BestEffort just cpu.shares = 2;
* container cgroups: ``generateLinuxContainerResources`` / ``calculateLinuxResources`` of
  pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, including the pod-level limit
  standing in for a container that sets none (KEP-2837);
* oom_score_adj: ``GetContainerOOMScoreAdjust`` of pkg/kubelet/qos/policy.go;
* eviction order under memory pressure: ``rankMemoryPressure`` of
  pkg/kubelet/eviction/helpers.go.

Kubelet defaults are assumed: ``cpuCFSQuota: true``, ``cpuCFSQuotaPeriod: 100ms``, the
``none`` CPU manager policy, MemoryQoS off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from designer.k8s.core import (
    Message,
    Pod,
    ResourceMap,
    gettext_noop,
    is_hugepages,
    is_pod_level_resources_set,
    milli,
    parse_quantity,
    parse_resources,
    pod_level_list,
    pod_limits,
    pod_requests,
    whole,
)
from designer.k8s.kubelet.qos import BURSTABLE, GUARANTEED

# pkg/kubelet/cm/helpers_linux.go: kernel bounds for cpu.shares and the CFS defaults.
MIN_SHARES = 2


MAX_SHARES = 262144


SHARES_PER_CPU = 1024


MILLI_CPU_TO_CPU = 1000


QUOTA_PERIOD = 100000  # µs, 100ms


MIN_QUOTA_PERIOD = 1000  # µs, 1ms: the smallest quota the kernel accepts


MIN_MILLI_CPU_LIMIT = 10  # MinQuotaPeriod * MilliCPUToCPU / QuotaPeriod


CPU_WEIGHT_LINEAR_LABEL = gettext_noop(
    "linear: 1 + ((shares - 2) * 9999) / 262142 (runc < 1.3.2, crun < 1.23, and the kubelet "
    "itself for the pod cgroup)"
)


CPU_WEIGHT_QUADRATIC_LABEL = gettext_noop(
    "quadratic-log: ceil(10^((l^2 + 125 l) / 612 - 7/34)) with l = log2(shares) (runc >= 1.3.2 "
    "/ opencontainers/cgroups >= v0.0.3, crun >= 1.23)"
)


def _go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """MilliCPUToShares (pkg/kubelet/cm/helpers_linux.go): clamped to [2, 262144]."""
    if milli_cpu == 0:
        # Docker maps 0 to "unset" (kernel default 1024); 2 really matches "no request".
        return MIN_SHARES
    shares = _go_div(milli_cpu * SHARES_PER_CPU, MILLI_CPU_TO_CPU)
    return max(MIN_SHARES, min(MAX_SHARES, shares))


def milli_cpu_to_quota(milli_cpu: int, period: int = QUOTA_PERIOD) -> int:
    """MilliCPUToQuota: CFS quota in µs per period; 0 = no limit; at least 1000 µs."""
    if milli_cpu == 0:
        return 0
    quota = _go_div(milli_cpu * period, MILLI_CPU_TO_CPU)
    return max(quota, MIN_QUOTA_PERIOD)


def cpu_weight_linear(shares: int) -> int:
    """cpu.shares to cgroup v2 cpu.weight, classic runc/libcontainer conversion.

    opencontainers/cgroups ConvertCPUSharesToCgroupV2Value before v0.0.3, and the kubelet's
    own getCPUWeight (pkg/kubelet/cm/cgroup_manager_linux.go) used for pod cgroups.
    """
    if shares == 0:
        return 0
    if shares >= MAX_SHARES:
        return 10000
    return 1 + _go_div((shares - 2) * 9999, 262142)


def cpu_weight_quadratic(shares: int) -> int:
    """cpu.shares to cpu.weight, opencontainers/cgroups >= v0.0.3 (runc >= 1.3.2, crun >= 1.23).

    A quadratic in log2(shares) that maps 2 -> 1, 1024 -> 100 (both defaults) and
    262144 -> 10000 (kubernetes#131216).
    """
    if shares == 0:
        return 0
    if shares <= 2:
        return 1
    if shares >= MAX_SHARES:
        return 10000
    lg = math.log2(shares)
    exponent = (lg * lg + 125 * lg) / 612.0 - 7.0 / 34.0
    return math.ceil(math.pow(10, exponent))


def cpu_max(quota: int | None, period: int = QUOTA_PERIOD) -> str:
    """The cgroup v2 cpu.max line runc/the kubelet write: "<quota|max> <period>"."""
    return f"{quota if quota and quota > 0 else 'max'} {period}"


def hugepage_size_name(page_size: int) -> str:
    """HugePageUnitSizeFromByteSize: 2097152 -> "2MB" (the hugetlb.<size>.max file name)."""
    units = ("B", "KB", "MB", "GB", "TB", "PB")
    idx = 0
    while page_size % 1024 == 0 and idx < len(units) - 1:
        page_size //= 1024
        idx += 1
    return f"{page_size}{units[idx]}"


@dataclass(frozen=True)
class CgroupValues:
    cpu_shares: int  # cgroup v1 cpu.shares
    cpu_weight_linear: int  # cgroup v2 cpu.weight, see CPU_WEIGHT_LINEAR_LABEL
    cpu_weight_quadratic: int  # cgroup v2 cpu.weight, see CPU_WEIGHT_QUADRATIC_LABEL
    cpu_quota: int | None  # cpu.cfs_quota_us; None = unlimited (-1 / "max")
    cpu_period: int  # cpu.cfs_period_us
    cpu_max: str  # cgroup v2 cpu.max
    memory_max_bytes: int | None  # None = unlimited
    memory_max: str  # cgroup v2 memory.max: bytes or "max"


@dataclass(frozen=True)
class ContainerCgroup:
    name: str | None
    field: str  # e.g. "spec.initContainers[0]"
    role: Literal["init", "sidecar", "app"]
    cgroup: CgroupValues
    cpu_weight_note: Message
    oom_score_adj: int | None  # None: Burstable and the node's memory capacity is unknown
    oom_reason: Message
    cpu_limit_source: Literal["container", "pod", "none"]
    memory_limit_source: Literal["container", "pod", "none"]


def _values(shares: int, quota: int | None, memory: int | None) -> CgroupValues:
    return CgroupValues(
        cpu_shares=shares,
        cpu_weight_linear=cpu_weight_linear(shares),
        cpu_weight_quadratic=cpu_weight_quadratic(shares),
        cpu_quota=quota if quota and quota > 0 else None,
        cpu_period=QUOTA_PERIOD,
        cpu_max=cpu_max(quota),
        memory_max_bytes=memory,
        memory_max=str(memory) if memory is not None else "max",
    )


def pod_cgroup(pod: Pod, qos_class: str) -> tuple[CgroupValues, dict[str, int]]:
    """ResourceConfigForPod(pod, enforceCPULimits=true, 100ms, enforceMemoryQoS=false)."""
    reqs = pod_requests(pod)
    declared = {"cpu": True, "memory": True}

    def container_fn(res: ResourceMap, _is_init: bool) -> None:
        for r in declared:
            if r not in res or res[r].is_zero():
                declared[r] = False

    limits = pod_limits(pod, container_fn=container_fn)
    if is_pod_level_resources_set(pod):
        pod_lim = parse_resources(pod_level_list(pod, "limits"))
        for r in declared:
            if r in pod_lim and not pod_lim[r].is_zero():
                declared[r] = True

    hugetlb: dict[int, int] = {}
    for name, q in reqs.items():
        if not is_hugepages(name):
            continue
        size = parse_quantity(name[len("hugepages-") :])
        if size is None:
            continue
        hugetlb[whole(size)] = hugetlb.get(whole(size), 0) + whole(q)
    named = {hugepage_size_name(size): v for size, v in sorted(hugetlb.items())}

    cpu_requests = milli(reqs["cpu"]) if "cpu" in reqs else 0
    cpu_limits = milli(limits["cpu"]) if "cpu" in limits else 0
    memory_limits = whole(limits["memory"]) if "memory" in limits else 0
    shares = milli_cpu_to_shares(cpu_requests)
    quota = milli_cpu_to_quota(cpu_limits)

    if qos_class == GUARANTEED:
        return _values(shares, quota, memory_limits), named
    if qos_class == BURSTABLE:
        return (
            _values(
                shares,
                quota if declared["cpu"] else None,
                memory_limits if declared["memory"] else None,
            ),
            named,
        )
    return _values(MIN_SHARES, None, None), named
