"""What the node does with a pod, in one view: its cgroups, oom_score_adj, CPU throttling risk and
eviction order under memory pressure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    gettext_noop,
    milli,
    parse_quantity,
    pod_requests,
    whole,
)
from designer.k8s.kubelet.cgroups import (
    MILLI_CPU_TO_CPU,
    MIN_MILLI_CPU_LIMIT,
    QUOTA_PERIOD,
    CgroupValues,
    ContainerCgroup,
    _values,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    pod_cgroup,
)
from designer.k8s.kubelet.oom import _is_node_critical, _limit_for, _oom_reason, oom_score_adj
from designer.k8s.kubelet.qos import (
    BURSTABLE,
    GUARANTEED,
    WHO_NAMED,
    QosResult,
    compute_qos_class,
    pod_qos,
)


@dataclass(frozen=True)
class NodeView:
    qos_class: str | None
    pod: CgroupValues
    pod_cpu_weight_note: Message
    hugetlb: dict[str, int]  # e.g. {"2MB": 1073741824}: hugetlb.2MB.max; other sizes get 0
    containers: list[ContainerCgroup]
    throttling_risk: bool
    throttling: Message
    eviction_order: Message
    memory_request: Quantity | None  # what eviction compares usage against
    node_memory_capacity: Quantity | None
    notes: list[Message] = field(default_factory=list)
    # The texts above as Messages (gettext_noop templates) for the web layer to translate.


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
        cpu_weight_note=Message(CPU_WEIGHT_NOTE, {}),
        oom_score_adj=adj,
        oom_reason=oom_reason,
        cpu_limit_source=cpu_src,  # type: ignore[arg-type]
        memory_limit_source=mem_src,  # type: ignore[arg-type]
    )


def node_view(
    pod: Pod,
    node_memory_capacity: Quantity | None = None,
    *,
    spec_path: str = "spec",
    default_pod_limits: bool = True,
    defaulted: Pod | None = None,
    qos: QosResult | None = None,
) -> NodeView:
    """What the kubelet applies for ``pod`` on a node with ``node_memory_capacity``.

    ``defaulted`` (the pod as the API server stores it, which is what the kubelet receives)
    and its ``qos`` are computed here unless given.
    """
    p = defaulted or pod_with_defaults(pod, default_pod_limits=default_pod_limits)
    notes: list[Message] = []
    if qos is None:
        qos = pod_qos(pod, spec_path, default_pod_limits=default_pod_limits, defaulted=p)
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
        pod_cpu_weight_note=Message(POD_CPU_WEIGHT_NOTE, {}),
        hugetlb=hugetlb,
        containers=containers,
        throttling_risk=risk,
        throttling=reason,
        eviction_order=eviction,
        memory_request=memory_request,
        node_memory_capacity=node_memory_capacity,
        notes=notes,
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
