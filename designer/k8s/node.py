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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from designer.k8s.defaults import pod_with_defaults
from designer.k8s.model import Container, Pod
from designer.k8s.qos import (
    BEST_EFFORT,
    BURSTABLE,
    GUARANTEED,
    WHO_NAMED,
    compute_qos_class,
    pod_qos,
)
from designer.k8s.quantity import Quantity
from designer.k8s.scheduling import (
    ResourceMap,
    aggregate_container_resources,
    is_hugepages,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    parse_quantity,
    parse_resources,
    pod_level_list,
    pod_limits,
    pod_requests,
)
from designer.k8s.text import Message, gettext_noop

# pkg/kubelet/cm/helpers_linux.go: kernel bounds for cpu.shares and the CFS defaults.
MIN_SHARES = 2
MAX_SHARES = 262144
SHARES_PER_CPU = 1024
MILLI_CPU_TO_CPU = 1000
QUOTA_PERIOD = 100000  # µs, 100ms
MIN_QUOTA_PERIOD = 1000  # µs, 1ms: the smallest quota the kernel accepts
MIN_MILLI_CPU_LIMIT = 10  # MinQuotaPeriod * MilliCPUToCPU / QuotaPeriod

# pkg/kubelet/qos/policy.go
GUARANTEED_OOM_SCORE_ADJ = -997
BEST_EFFORT_OOM_SCORE_ADJ = 1000
SYSTEM_NODE_CRITICAL = "system-node-critical"
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000  # pkg/apis/scheduling: SystemCriticalPriority

CPU_WEIGHT_LINEAR_LABEL = gettext_noop(
    "linear: 1 + ((shares - 2) * 9999) / 262142 (runc < 1.3.2, crun < 1.23, and the kubelet "
    "itself for the pod cgroup)"
)
CPU_WEIGHT_QUADRATIC_LABEL = gettext_noop(
    "quadratic-log: ceil(10^((l^2 + 125 l) / 612 - 7/34)) with l = log2(shares) (runc >= 1.3.2 "
    "/ opencontainers/cgroups >= v0.0.3, crun >= 1.23)"
)


# --- conversions (each a transcription of the Go function named) -----------------------------


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


def _int64(value: Callable[[], int], negative: bool = False) -> int:
    """Value()/MilliValue(), saturating where Go would silently overflow int64."""
    try:
        return value()
    except OverflowError:
        return -(2**63) if negative else 2**63 - 1


def milli(q: Quantity) -> int:
    """q.MilliValue() (rounded up, as Go does)."""
    return _int64(q.milli_value, q.sign() < 0)


def whole(q: Quantity) -> int:
    """q.Value() (rounded up, as Go does)."""
    return _int64(q.value, q.sign() < 0)


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


# --- results ---------------------------------------------------------------------------------


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
    cpu_weight_note: str
    oom_score_adj: int | None  # None: Burstable and the node's memory capacity is unknown
    oom_score_adj_reason: str
    cpu_limit_source: Literal["container", "pod", "none"]
    memory_limit_source: Literal["container", "pod", "none"]
    oom_score_adj_message: Message | None = None  # oom_score_adj_reason, translatable


@dataclass(frozen=True)
class NodeView:
    qos_class: str | None
    pod: CgroupValues
    pod_cpu_weight_note: str
    hugetlb: dict[str, int]  # e.g. {"2MB": 1073741824}: hugetlb.2MB.max; other sizes get 0
    containers: list[ContainerCgroup]
    throttling_risk: bool
    throttling_reason: str
    eviction_order: str
    memory_request: Quantity | None  # what eviction compares usage against
    node_memory_capacity: Quantity | None
    notes: list[str] = field(default_factory=list)
    # The texts above as Messages (gettext_noop templates) for the web layer to translate.
    throttling_message: Message | None = None
    eviction_order_message: Message | None = None
    note_messages: list[Message] = field(default_factory=list)


# --- pod cgroup ------------------------------------------------------------------------------


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


# --- containers ------------------------------------------------------------------------------


def _limit_for(pod: Pod, c: Container, res: str) -> tuple[Quantity | None, str]:
    """getCPULimit / getMemoryLimit: the pod-level limit stands in for a missing one."""
    own = parse_quantity(c.limits[res]) if res in c.limits else None
    if (own is None or own.is_zero()) and is_pod_level_resources_set(pod):
        pod_lim = parse_resources(pod_level_list(pod, "limits")).get(res)
        if pod_lim is not None and not pod_lim.is_zero():
            return pod_lim, "pod"
        return None, "none"
    if own is None or own.is_zero():
        return None, "none"
    return own, "container"


def _is_node_critical(pod: Pod) -> bool:
    """types.IsNodeCriticalPod: critical (priority >= 2e9, filled in by the Priority admission
    plugin from the class) and priorityClassName system-node-critical."""
    if pod.spec.priority_class_name != SYSTEM_NODE_CRITICAL:
        return False
    priority = (pod.spec.model_extra or {}).get("priority")
    return not isinstance(priority, int) or priority >= SYSTEM_CRITICAL_PRIORITY


def _is_sidecar(pod: Pod, c: Container) -> bool:
    """isSidecarContainer (policy.go): restartPolicy Always and listed as an init container."""
    return c.is_sidecar and any(i.name == c.name for i in pod.spec.init_list)


def _memory_request_value(c: Container) -> int:
    q = parse_quantity(c.requests["memory"]) if "memory" in c.requests else None
    return whole(q) if q is not None else 0


def _remaining_pod_mem_req_per_container(pod: Pod) -> int:
    """remainingPodMemReqPerContainer (pkg/kubelet/qos/helpers.go)."""
    pod_req = parse_resources(pod_level_list(pod, "requests")).get("memory")
    if pod_req is None or pod_req.is_zero():
        return 0
    n = len(pod.spec.containers) + len(pod.spec.init_list)
    if n == 0:  # not a valid pod; Go would divide by zero
        return 0
    aggr = aggregate_container_resources(pod, "requests").get("memory")
    remaining = whole(pod_req) - (whole(aggr) if aggr is not None else 0)
    return _go_div(remaining, n)


def oom_score_adj(
    pod: Pod, container: Container, memory_capacity: int, *, qos_class: str | None = None
) -> int:
    """GetContainerOOMScoreAdjust (pkg/kubelet/qos/policy.go) for a defaulted pod.

    ``memory_capacity`` is the node's memory capacity in bytes (cadvisor's MemoryCapacity),
    which must be positive. The 1.34 policy is modelled; the alpha KubeletOOMScoreAdjTieBreak
    nudge and DRA node-allocatable memory are not.
    """
    if memory_capacity <= 0:
        raise ValueError("memory_capacity must be a positive number of bytes")
    if _is_node_critical(pod):
        return GUARANTEED_OOM_SCORE_ADJ
    qos_class = qos_class or compute_qos_class(pod)
    if qos_class == GUARANTEED:
        return GUARANTEED_OOM_SCORE_ADJ
    if qos_class == BEST_EFFORT:
        return BEST_EFFORT_OOM_SCORE_ADJ

    # Burstable: 1000 - 1000 * request / capacity, so a container using more than it asked
    # for reaches 1000 and is the prime target.
    mem_req = _memory_request_value(container)
    remaining = 0
    pod_level = is_pod_level_requests_set(pod)
    if pod_level:
        # KEP-2837: the pod-level request not claimed by containers is shared equally.
        remaining = _remaining_pod_mem_req_per_container(pod)
        adj = 1000 - _go_div(1000 * (mem_req + remaining), memory_capacity)
    else:
        adj = 1000 - _go_div(1000 * mem_req, memory_capacity)

    if _is_sidecar(pod, container):
        # A sidecar never scores above the regular container with the smallest request.
        min_req = min((_memory_request_value(c) for c in pod.spec.containers), default=0)
        if pod_level:
            min_req += remaining
        min_adj = 1000 - _go_div(1000 * min_req, memory_capacity)
        adj = min(adj, min_adj)

    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ  # stay above Guaranteed (3)
    if adj == BEST_EFFORT_OOM_SCORE_ADJ:
        return adj - 1  # stay below BestEffort (999)
    return adj


OOM_NODE_CRITICAL = gettext_noop("system-node-critical pods get -997, like Guaranteed ones.")
OOM_GUARANTEED = gettext_noop("Guaranteed pods get -997: the kernel kills them last.")
OOM_BEST_EFFORT = gettext_noop("BestEffort pods get 1000: the kernel kills them first.")
OOM_BURSTABLE = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]."
)
OOM_BURSTABLE_POD_LEVEL = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; the "
    "pod-level memory request not claimed by containers is shared equally."
)
OOM_BURSTABLE_SIDECAR = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; a "
    "sidecar is capped at the score of the app container with the smallest request."
)
OOM_BURSTABLE_POD_LEVEL_SIDECAR = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; the "
    "pod-level memory request not claimed by containers is shared equally; a sidecar is capped "
    "at the score of the app container with the smallest request."
)
OOM_NEEDS_CAPACITY = gettext_noop("%(formula)s Give the node's memory capacity to compute it.")


def _oom_reason(pod: Pod, c: Container, qos_class: str, adj: int | None) -> Message:
    if _is_node_critical(pod):
        return Message(OOM_NODE_CRITICAL, {})
    if qos_class == GUARANTEED:
        return Message(OOM_GUARANTEED, {})
    if qos_class == BEST_EFFORT:
        return Message(OOM_BEST_EFFORT, {})
    formula = {
        (False, False): OOM_BURSTABLE,
        (True, False): OOM_BURSTABLE_POD_LEVEL,
        (False, True): OOM_BURSTABLE_SIDECAR,
        (True, True): OOM_BURSTABLE_POD_LEVEL_SIDECAR,
    }[(is_pod_level_requests_set(pod), _is_sidecar(pod, c))]
    if adj is None:
        return Message(OOM_NEEDS_CAPACITY, {"formula": Message(formula, {})})
    return Message(formula, {})


CPU_WEIGHT_NOTE = gettext_noop(
    "The container runtime converts the CRI cpu shares to cpu.weight; which value the node "
    "shows depends on its runc/crun version."
)
POD_CPU_WEIGHT_NOTE = gettext_noop(
    "The kubelet writes the pod cgroup's cpu.weight itself with the linear conversion "
    "(getCPUWeight), whatever the container runtime."
)
NOTE_UNREADABLE = gettext_noop(
    "Some cpu or memory values cannot be read and were treated as unset; the API server would "
    "reject this pod."
)
NOTE_HUGETLB = gettext_noop(
    "The pod cgroup's hugetlb limit is set for each requested page size; every other page size "
    "is limited to 0."
)


def _container_cgroup(
    pod: Pod, c: Container, path: str, qos_class: str, capacity: int | None
) -> ContainerCgroup:
    cpu_limit, cpu_src = _limit_for(pod, c, "cpu")
    mem_limit, mem_src = _limit_for(pod, c, "memory")
    cpu_request = parse_quantity(c.requests["cpu"]) if "cpu" in c.requests else None
    # calculateLinuxResources: no request but a limit -> shares from the limit (the API
    # server normally already copied it); the limit may be the pod-level one.
    if cpu_request is None:
        shares = milli_cpu_to_shares(milli(cpu_limit) if cpu_limit else 0)
    else:
        shares = milli_cpu_to_shares(milli(cpu_request))
    quota = milli_cpu_to_quota(milli(cpu_limit)) if cpu_limit else 0
    memory = whole(mem_limit) if mem_limit is not None else None
    role: Literal["init", "sidecar", "app"] = (
        "app" if ".containers[" in path else ("sidecar" if c.is_sidecar else "init")
    )
    adj: int | None
    if capacity:
        adj = oom_score_adj(pod, c, capacity, qos_class=qos_class)
    elif qos_class == BURSTABLE and not _is_node_critical(pod):
        adj = None  # depends on the node's memory capacity
    else:
        adj = oom_score_adj(pod, c, 1, qos_class=qos_class)  # capacity does not matter
    oom_reason = _oom_reason(pod, c, qos_class, adj)
    return ContainerCgroup(
        name=c.name,
        field=path,
        role=role,
        cgroup=_values(shares, quota, memory),
        cpu_weight_note=CPU_WEIGHT_NOTE,
        oom_score_adj=adj,
        oom_score_adj_reason=oom_reason.text,
        cpu_limit_source=cpu_src,  # type: ignore[arg-type]
        memory_limit_source=mem_src,  # type: ignore[arg-type]
        oom_score_adj_message=oom_reason,
    )


# --- the view --------------------------------------------------------------------------------


def node_view(
    pod: Pod,
    node_memory_capacity: Quantity | None = None,
    *,
    spec_path: str = "spec",
    default_pod_limits: bool = True,
) -> NodeView:
    """What the kubelet applies for ``pod`` on a node with ``node_memory_capacity``."""
    p = pod_with_defaults(pod, default_pod_limits=default_pod_limits)
    notes: list[Message] = []
    qos = pod_qos(pod, spec_path, default_pod_limits=default_pod_limits)
    # The kubelet never sees an unreadable value (the API server rejects the pod); here such
    # values count as unset so the rest can still be shown.
    qos_class = compute_qos_class(p)
    if qos.qos_class is None:
        notes.append(Message(NOTE_UNREADABLE, {}))
    capacity = whole(node_memory_capacity) if node_memory_capacity is not None else None
    if capacity is not None and capacity <= 0:
        capacity = None

    pod_values, hugetlb = pod_cgroup(p, qos_class)
    containers = [
        _container_cgroup(p, c, path, qos_class, capacity)
        for path, c in ((f"{spec_path}.{rel}", c) for rel, c in p.spec.all_containers())
    ]
    risk, reason = _throttling(p, pod_values, containers)
    memory_request = pod_requests(p).get("memory")
    eviction = _eviction_order(p, qos_class, memory_request)
    if hugetlb:
        notes.append(Message(NOTE_HUGETLB, {}))
    return NodeView(
        qos_class=qos_class,
        pod=pod_values,
        pod_cpu_weight_note=POD_CPU_WEIGHT_NOTE,
        hugetlb=hugetlb,
        containers=containers,
        throttling_risk=risk,
        throttling_reason=reason.text,
        eviction_order=eviction.text,
        memory_request=memory_request,
        node_memory_capacity=node_memory_capacity,
        notes=[n.text for n in notes],
        throttling_message=reason,
        eviction_order_message=eviction,
        note_messages=notes,
    )


def _cpu_text(quota: int) -> str:
    milli = quota * MILLI_CPU_TO_CPU // QUOTA_PERIOD
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


THROTTLE_NONE = gettext_noop(
    "No CPU limit: the containers can use idle CPU on the node without being throttled; "
    "cpu.weight only decides their share when CPUs are contended."
)
THROTTLE_CONTAINER = gettext_noop(
    "%(who)s may use %(quota)sµs of CPU time per %(period)sµs period (%(cpu)s CPU, cpu.max "
    "%(cpu_max)s)"
)
THROTTLE_CONTAINER_POD_LIMIT = gettext_noop(
    "%(who)s may use %(quota)sµs of CPU time per %(period)sµs period (%(cpu)s CPU (the "
    "pod-level limit), cpu.max %(cpu_max)s)"
)
THROTTLE_POD = gettext_noop(
    "the pod as a whole may use %(quota)sµs per period (%(cpu)s CPU, pod cgroup cpu.max "
    "%(cpu_max)s)"
)
THROTTLE_SET = gettext_noop(
    "CPU limit set: %(parts)s. Once a cgroup has used its quota the kernel stops it until the "
    "next 100ms period, even if other CPUs are idle, which shows up as latency spikes. Limits "
    "below %(min)sm are raised to the 1ms minimum quota."
)


# Translators: two items of a list ("A; B"); longer lists nest it.
LIST_JOIN = gettext_noop("%(first)s; %(second)s")


def _joined(parts: list[Message]) -> Message:
    """Messages in a row ("A; B; C"), as one Message."""
    joined = parts[0]
    for part in parts[1:]:
        joined = Message(LIST_JOIN, {"first": joined, "second": part})
    return joined


def _throttling(
    pod: Pod, pod_values: CgroupValues, containers: list[ContainerCgroup]
) -> tuple[bool, Message]:
    capped = [c for c in containers if c.cgroup.cpu_quota is not None]
    if not capped and pod_values.cpu_quota is None:
        return False, Message(THROTTLE_NONE, {})
    parts = []
    for c in capped:
        who = (
            Message(WHO_NAMED, {"name": c.name, "path": c.field})
            if c.name
            else Message("%(path)s", {"path": c.field})
        )
        quota = c.cgroup.cpu_quota or 0
        parts.append(
            Message(
                THROTTLE_CONTAINER_POD_LIMIT if c.cpu_limit_source == "pod" else THROTTLE_CONTAINER,
                {
                    "who": who,
                    "quota": quota,
                    "period": QUOTA_PERIOD,
                    "cpu": _cpu_text(quota),
                    "cpu_max": c.cgroup.cpu_max,
                },
            )
        )
    if pod_values.cpu_quota is not None:
        parts.append(
            Message(
                THROTTLE_POD,
                {
                    "quota": pod_values.cpu_quota,
                    "cpu": _cpu_text(pod_values.cpu_quota),
                    "cpu_max": pod_values.cpu_max,
                },
            )
        )
    return True, Message(THROTTLE_SET, {"parts": _joined(parts), "min": MIN_MILLI_CPU_LIMIT})


PRIORITY_CLASS = gettext_noop('priority class "%(name)s"')
PRIORITY_VALUE = gettext_noop("priority %(priority)s")
PRIORITY_DEFAULT = gettext_noop(
    "the default priority (0 unless a globalDefault PriorityClass exists)"
)
EVICTION_RULE = gettext_noop(
    "Under node memory pressure the kubelet ranks pods for eviction "
    "(pkg/kubelet/eviction/helpers.go rankMemoryPressure): first the pods whose memory use "
    "exceeds their memory request, then lower priority before higher, then the largest use "
    "above the request first."
)
EVICTION_NO_REQUEST = gettext_noop(
    "This pod requests no memory, so any memory it uses exceeds its request: it is in the "
    "first group and, at %(priority)s, among the first evicted."
)
EVICTION_GUARANTEED = gettext_noop(
    "This pod requests %(memory)s of memory and its limit equals its request, so its use "
    "cannot exceed it: it is evicted only after the pods that exceed theirs, at %(priority)s."
)
# Translators: the rule, then what it means for this pod (two sentences).
EVICTION_ORDER = gettext_noop("%(rule)s %(own)s")
EVICTION_BURSTABLE = gettext_noop(
    "This pod requests %(memory)s of memory: while it uses less it is evicted only after every "
    "pod that exceeds its request; above it, it joins that first group, at %(priority)s."
)


def _priority_text(pod: Pod) -> Message:
    name = pod.spec.priority_class_name
    priority = (pod.spec.model_extra or {}).get("priority")
    if name:
        return Message(PRIORITY_CLASS, {"name": name})
    if isinstance(priority, int):
        return Message(PRIORITY_VALUE, {"priority": priority})
    return Message(PRIORITY_DEFAULT, {})


def _eviction_order(pod: Pod, qos_class: str, memory_request: Quantity | None) -> Message:
    priority = _priority_text(pod)
    if memory_request is None or memory_request.is_zero():
        own = Message(EVICTION_NO_REQUEST, {"priority": priority})
    elif qos_class == GUARANTEED:
        own = Message(
            EVICTION_GUARANTEED, {"memory": memory_request.canonical(), "priority": priority}
        )
    else:
        own = Message(
            EVICTION_BURSTABLE, {"memory": memory_request.canonical(), "priority": priority}
        )
    return Message(EVICTION_ORDER, {"rule": Message(EVICTION_RULE, {}), "own": own})
