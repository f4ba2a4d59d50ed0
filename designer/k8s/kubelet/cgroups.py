"""What the kubelet and the container runtime apply on the node for a pod, as the Go code
computes it.

Everything is computed from the defaulted pod (the object the kubelet receives):

* pod cgroup: ``ResourceConfigForPod`` of pkg/kubelet/cm/helpers_linux.go (cpu.shares from
  the effective CPU request, CFS quota from the effective CPU limit, memory limit from the
  effective memory limit *with pod overhead*, hugetlb from hugepages requests), applied per
  QoS class: Guaranteed always bounded, Burstable bounded only for a resource every container
  (or the pod level) limits, BestEffort just cpu.shares = 2. Unset fields are ``None`` (Go's
  nil pointers); with ``cpuCFSQuota: false`` the quota is -1;
* container cgroups: ``generateLinuxContainerResources`` / ``calculateLinuxResources`` of
  pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, including the pod-level limit
  standing in for a container that sets none (KEP-2837). These are CRI fields, plain int64
  where 0 means "not set";
* the pod cgroup's cpu.weight on cgroup v2: the kubelet's own ``getCPUWeight``
  (pkg/kubelet/cm/cgroup_manager_linux.go).

Quantities are read with Go's ``Value()``/``MilliValue()`` and multiplied in int64, overflow
included, so an absurd value (``cpu: 1e999``) gives what a kubelet really writes.
The ``none`` CPU manager policy is assumed (no exclusive CPUs), and MemoryQoS off unless asked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    QuantityError,
    ResourceList,
    ResourceMap,
    gettext_noop,
    go_scaled_value,
    is_pod_level_resources_set,
    parse_quantity,
    parse_resources,
    pod_level_list,
    pod_limits,
    pod_requests,
)
from designer.k8s.kubelet.config import KubeletConfig
from designer.k8s.kubelet.qos import BURSTABLE, GUARANTEED

# pkg/kubelet/cm/helpers_linux.go: kernel bounds for cpu.shares and the CFS defaults.
MIN_SHARES = 2


MAX_SHARES = 262144


SHARES_PER_CPU = 1024


MILLI_CPU_TO_CPU = 1000


QUOTA_PERIOD = 100000  # µs, 100ms


MIN_QUOTA_PERIOD = 1000  # µs, 1ms: the smallest quota the kernel accepts


MIN_MILLI_CPU_LIMIT = 10  # MinQuotaPeriod * MilliCPUToCPU / QuotaPeriod


HUGEPAGES_PREFIX = "hugepages-"


CPU_WEIGHT_LINEAR_LABEL = gettext_noop(
    "linear: 1 + ((shares - 2) * 9999) / 262142 (runc < 1.3.2, crun < 1.23, and the kubelet "
    "itself for the pod cgroup)"
)


CPU_WEIGHT_QUADRATIC_LABEL = gettext_noop(
    "quadratic-log: ceil(10^((l^2 + 125 l) / 612 - 7/34)) with l = log2(shares) (runc >= 1.3.2 "
    "/ opencontainers/cgroups >= v0.0.3, crun >= 1.23)"
)


def _wrap64(x: int) -> int:
    """Go int64 arithmetic: the result modulo 2**64, signed."""
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x >= 1 << 63 else x


def _go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """MilliCPUToShares (pkg/kubelet/cm/helpers_linux.go): clamped to [2, 262144]."""
    if milli_cpu == 0:
        # Docker maps 0 to "unset" (kernel default 1024); 2 really matches "no request".
        return MIN_SHARES
    shares = _go_div(_wrap64(milli_cpu * SHARES_PER_CPU), MILLI_CPU_TO_CPU)
    return max(MIN_SHARES, min(MAX_SHARES, shares))


def milli_cpu_to_quota(milli_cpu: int, period: int = QUOTA_PERIOD) -> int:
    """milliCPUToQuota (pkg/kubelet/kuberuntime/helpers_linux.go): CFS quota in µs per
    ``period``; 0 = no limit; at least 1000 µs."""
    if milli_cpu == 0:
        return 0
    quota = _go_div(_wrap64(milli_cpu * period), MILLI_CPU_TO_CPU)
    return max(quota, MIN_QUOTA_PERIOD)


def pod_milli_cpu_to_quota(milli_cpu: int, period: int, custom_period: bool) -> int:
    """cm.MilliCPUToQuota: like milli_cpu_to_quota, but the period only counts when the
    CustomCPUCFSQuotaPeriod gate is on (otherwise 100ms, whatever the period passed)."""
    return milli_cpu_to_quota(milli_cpu, period if custom_period else QUOTA_PERIOD)


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


def cpu_max(quota: int | None, period: int | None = QUOTA_PERIOD) -> str:
    """The cgroup v2 cpu.max line: "<quota|max> <period>".

    runc writes "max" for a quota that is not positive (0 = unset, -1 = unlimited); with no
    period at all the kernel's 100ms stays.
    """
    return f"{quota if quota and quota > 0 else 'max'} {period or QUOTA_PERIOD}"


def hugepage_size_name(page_size: int) -> str:
    """HugePageUnitSizeFromByteSize: 2097152 -> "2MB" (the hugetlb.<size>.max file name)."""
    units = ("B", "KB", "MB", "GB", "TB", "PB")
    idx = 0
    while page_size % 1024 == 0 and idx < len(units) - 1:
        page_size //= 1024
        idx += 1
    return f"{page_size}{units[idx]}"


def _hugepage_unit_size(page_size: int) -> str | None:
    """HugePageUnitSizeFromByteSize with its error: None when the size is not a whole number
    of the largest unit that divides it (2MB = 2000000 bytes)."""
    units = ("B", "KB", "MB", "GB", "TB", "PB")
    idx = 0
    while page_size != 0 and page_size % 1024 == 0 and idx < len(units) - 1:
        page_size //= 1024
        idx += 1
    if page_size > 1024 and idx < len(units) - 1:
        return None
    return f"{page_size}{units[idx]}"


def _page_size(name: str) -> int | None:
    """HugePageSizeFromResourceName: the page size in bytes, None when it is not a quantity."""
    try:
        return go_scaled_value(Quantity.parse(name[len(HUGEPAGES_PREFIX) :]))
    except QuantityError:
        return None


def hugepage_limits(resources: ResourceMap) -> dict[int, int]:
    """HugePageLimits (cm/helpers_linux.go): page size in bytes -> bytes, summed per size.

    Go ignores the error of a page size that is not a quantity, so its amount is counted
    under page size 0.
    """
    out: dict[int, int] = {}
    for name, q in resources.items():
        if not name.startswith(HUGEPAGES_PREFIX):
            continue
        size = _page_size(name) or 0
        out[size] = _wrap64(out.get(size, 0) + go_scaled_value(q))
    return out


def container_hugepage_limits(limits: ResourceList, page_sizes: list[str]) -> dict[str, int]:
    """GetHugepageLimitsFromResources (kuberuntime/helpers_linux.go): every page size of the
    machine ("2MB", "1GB") gets a limit, 0 unless the container's limits name it; names whose
    size is not a quantity or not a whole unit (hugepages-2MB) are skipped."""
    wanted: dict[str, int] = {}
    for name, value in parse_resources(limits).items():
        if not name.startswith(HUGEPAGES_PREFIX):
            continue
        size = _page_size(name)
        unit = _hugepage_unit_size(size) if size is not None else None
        if unit is not None:
            wanted[unit] = go_scaled_value(value) & 0xFFFFFFFFFFFFFFFF  # uint64(amount.Value())
    return {size: wanted.get(size, 0) for size in page_sizes}


# --- the pod cgroup ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceConfig:
    """cm.ResourceConfig as ResourceConfigForPod returns it; None = a nil pointer."""

    cpu_shares: int
    cpu_quota: int | None
    cpu_period: int | None
    memory: int | None
    hugetlb: dict[int, int]  # page size in bytes -> limit in bytes
    unified: dict[str, str] | None = None  # memory.min with MemoryQoS


def resource_config_for_pod(
    pod: Pod,
    qos_class: str,
    *,
    enforce_cpu_limits: bool = True,
    cpu_period: int = QUOTA_PERIOD,
    custom_period: bool | None = None,
    enforce_memory_qos: bool = False,
) -> ResourceConfig:
    """ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS).

    ``cpu_period`` is in µs; ``custom_period`` is the CustomCPUCFSQuotaPeriod gate, on by
    default exactly when the period is not 100ms (a kubelet refuses such a period without it).
    """
    if custom_period is None:
        custom_period = cpu_period != QUOTA_PERIOD
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

    cpu_requests = go_scaled_value(reqs["cpu"], milli=True) if "cpu" in reqs else 0
    cpu_limits = go_scaled_value(limits["cpu"], milli=True) if "cpu" in limits else 0
    memory_limits = go_scaled_value(limits["memory"]) if "memory" in limits else 0
    shares = milli_cpu_to_shares(cpu_requests)
    quota = pod_milli_cpu_to_quota(cpu_limits, cpu_period, custom_period)
    if not enforce_cpu_limits:
        quota = -1  # "quota is not capped when cfs quota is disabled"

    unified = None
    if enforce_memory_qos:
        memory_min = go_scaled_value(reqs["memory"]) if "memory" in reqs else 0
        if memory_min > 0:
            unified = {"memory.min": str(memory_min)}
    hugetlb = hugepage_limits(reqs)
    if qos_class == GUARANTEED:
        return ResourceConfig(shares, quota, cpu_period, memory_limits, hugetlb, unified)
    if qos_class == BURSTABLE:
        return ResourceConfig(
            shares,
            quota if declared["cpu"] else None,
            cpu_period if declared["cpu"] else None,
            memory_limits if declared["memory"] else None,
            hugetlb,
            unified,
        )
    return ResourceConfig(MIN_SHARES, None, None, None, hugetlb, unified)


# --- container cgroups ------------------------------------------------------------------------


@dataclass(frozen=True)
class LinuxResources:
    """runtimeapi.LinuxContainerResources as calculateLinuxResources fills it (0 = not set)."""

    cpu_shares: int
    cpu_quota: int
    cpu_period: int
    memory_limit_in_bytes: int
    unified: dict[str, str] | None = None


def calculate_linux_resources(
    cpu_request: Quantity | None,
    cpu_limit: Quantity | None,
    memory_limit: Quantity | None,
    config: KubeletConfig | None = None,
) -> LinuxResources:
    """calculateLinuxResources: ``cpu_request`` None means the container has no cpu key in
    its requests (shares then come from the limit); a missing limit is the zero Quantity."""
    config = config or KubeletConfig()
    cpu_limit_milli = go_scaled_value(cpu_limit, milli=True) if cpu_limit is not None else 0
    if cpu_request is None:
        shares = milli_cpu_to_shares(cpu_limit_milli)
    else:
        shares = milli_cpu_to_shares(go_scaled_value(cpu_request, milli=True))
    memory = go_scaled_value(memory_limit) if memory_limit is not None else 0
    quota = period = 0
    if config.cpu_cfs_quota:
        period = config.cpu_cfs_quota_period_us if config.custom_period else QUOTA_PERIOD
        quota = milli_cpu_to_quota(cpu_limit_milli, period)
    unified = None
    if config.cgroup_v2 and not config.single_process_oom_kill:
        unified = {"memory.oom.group": "1"}
    return LinuxResources(shares, quota, period, memory, unified)


def limit_for(pod: Pod, c: Container, res: str) -> tuple[Quantity | None, str]:
    """getCPULimit / getMemoryLimit: the pod-level limit stands in for a missing one.

    Returns the limit (None for none) and where it comes from: "container", "pod", "none".
    """
    own = parse_quantity(c.limits[res]) if res in c.limits else None
    if (own is None or own.is_zero()) and is_pod_level_resources_set(pod):
        pod_lim = parse_resources(pod_level_list(pod, "limits")).get(res)
        if pod_lim is not None and not pod_lim.is_zero():
            return pod_lim, "pod"
        return None, "none"
    if own is None or own.is_zero():
        return None, "none"
    return own, "container"


def container_linux_resources(
    pod: Pod, c: Container, config: KubeletConfig | None = None
) -> LinuxResources:
    """generateLinuxContainerResources without oom_score_adj (see oom.py) for ``c`` of ``pod``."""
    cpu_request = parse_quantity(c.requests["cpu"]) if "cpu" in c.requests else None
    cpu_limit, _ = limit_for(pod, c, "cpu")
    memory_limit, _ = limit_for(pod, c, "memory")
    return calculate_linux_resources(cpu_request, cpu_limit, memory_limit, config)


# --- display values ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CgroupValues:
    """One cgroup's values as the node shows them. None: cannot be computed (a value it
    depends on is unreadable)."""

    cpu_shares: int | None  # cgroup v1 cpu.shares
    cpu_weight_linear: int | None  # cgroup v2 cpu.weight, see CPU_WEIGHT_LINEAR_LABEL
    cpu_weight_quadratic: int | None  # cgroup v2 cpu.weight, see CPU_WEIGHT_QUADRATIC_LABEL
    cpu_quota: int | None  # cpu.cfs_quota_us when bounded; None = unlimited or unknown
    cpu_period: int | None  # cpu.cfs_period_us
    cpu_max: str | None  # cgroup v2 cpu.max
    memory_max_bytes: int | None  # None = unlimited or unknown
    memory_max: str | None  # cgroup v2 memory.max: bytes or "max"


def _values(
    shares: int | None,
    quota: int | None,
    period: int | None,
    memory: int | None,
    *,
    cpu_known: bool = True,
    memory_known: bool = True,
) -> CgroupValues:
    """Display values from raw kubelet values: a quota or memory limit that is 0, -1 or None
    means no limit."""
    bounded = quota if quota is not None and quota > 0 else None
    mem = memory if memory is not None and memory > 0 else None
    cpu_ok = cpu_known and shares is not None
    return CgroupValues(
        cpu_shares=shares if cpu_ok else None,
        cpu_weight_linear=cpu_weight_linear(shares) if cpu_ok and shares is not None else None,
        cpu_weight_quadratic=cpu_weight_quadratic(shares)
        if cpu_ok and shares is not None
        else None,
        cpu_quota=bounded if cpu_ok else None,
        cpu_period=(period or QUOTA_PERIOD) if cpu_ok else None,
        cpu_max=cpu_max(quota, period) if cpu_ok else None,
        memory_max_bytes=mem if memory_known else None,
        memory_max=(str(mem) if mem is not None else "max") if memory_known else None,
    )


@dataclass(frozen=True)
class ContainerCgroup:
    name: str | None
    field: str  # e.g. "spec.initContainers[0]"
    role: Literal["init", "sidecar", "app"]
    cgroup: CgroupValues
    cpu_weight_note: Message
    oom_score_adj: int | None  # None: cannot be computed (oom_reason says why)
    oom_reason: Message
    cpu_limit_source: Literal["container", "pod", "none"]
    memory_limit_source: Literal["container", "pod", "none"]


def pod_cgroup(
    pod: Pod, qos_class: str, config: KubeletConfig | None = None
) -> tuple[CgroupValues, dict[str, int]]:
    """The pod cgroup's display values and its hugetlb limits by size name ("2MB")."""
    config = config or KubeletConfig()
    rc = resource_config_for_pod(
        pod,
        qos_class,
        enforce_cpu_limits=config.cpu_cfs_quota,
        cpu_period=config.cpu_cfs_quota_period_us,
    )
    named = {hugepage_size_name(size): v for size, v in sorted(rc.hugetlb.items()) if size > 0}
    return _values(rc.cpu_shares, rc.cpu_quota, rc.cpu_period, rc.memory), named
