"""What the node does with a pod, in one view: its cgroups, oom_score_adj, CPU throttling risk and
eviction order under memory pressure.

The numbers are :func:`kubelet_values` (the same object ``POST /api/v1/fit`` answers with). A
value the kubelet would read from an unreadable quantity is not guessed: the parts that depend
on it say that they cannot be computed and name the field, the rest is still shown. A value
too large for the kubelet's int64 arithmetic is shown as the kubelet really computes it, and
flagged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    ResourceValue,
    Unreadable,
    gettext_noop,
    go_scaled_value,
    parse_quantity,
    pod_requests,
    unreadable_quantities,
    whole,
)
from designer.k8s.kubelet.cgroups import (
    HUGEPAGES_PREFIX,
    MILLI_CPU_TO_CPU,
    SHARES_PER_CPU,
    CgroupValues,
    ContainerCgroup,
    _values,
    hugepage_size_name,
)
from designer.k8s.kubelet.config import MICROSECOND, KubeletConfig, go_duration_string
from designer.k8s.kubelet.oom import _oom_reason
from designer.k8s.kubelet.qos import WHO_NAMED, QosResult, compute_qos_class, pod_qos
from designer.k8s.kubelet.values import ContainerValues, KubeletValues, kubelet_values

_MAX_INT64 = (1 << 63) - 1


@dataclass(frozen=True)
class NodeView:
    qos_class: str | None  # None: a value that decides it is unreadable
    pod: CgroupValues
    pod_cpu_weight_note: Message
    hugetlb: dict[str, int]  # e.g. {"2MB": 1073741824}: hugetlb.2MB.max; other sizes get 0
    containers: list[ContainerCgroup]
    throttling_risk: bool | None  # None: cannot be computed (throttling says why)
    throttling: Message
    eviction_order: Message
    memory_request: Quantity | None  # what eviction compares usage against
    node_memory_capacity: Quantity | None
    notes: list[Message] = field(default_factory=list)
    # The kubelet's raw values (the /api/v1/fit "kubelet" answer); None when a value they
    # depend on is unreadable.
    kubelet: KubeletValues | None = None
    config: KubeletConfig = field(default_factory=KubeletConfig)
    unreadable: tuple[Unreadable, ...] = ()  # the cpu/memory/hugepages values not readable
    cannot_compute: Message | None = None  # what cannot be shown, and why


CPU_WEIGHT_NOTE = gettext_noop(
    "The container runtime converts the CRI cpu shares to cpu.weight; which value the node "
    "shows depends on its runc/crun version."
)


POD_CPU_WEIGHT_NOTE = gettext_noop(
    "The kubelet writes the pod cgroup's cpu.weight itself with the linear conversion "
    "(getCPUWeight), whatever the container runtime."
)


NOTE_HUGETLB = gettext_noop(
    "The pod cgroup's hugetlb limit is set for each requested page size; every other page size "
    "is limited to 0."
)


NOTE_CANNOT_COMPUTE = gettext_noop(
    "Part of what the node does cannot be worked out: %(fields)s cannot be read as a quantity "
    "(the API server would reject the pod), so the values that depend on it are not shown."
)


NOTE_CUSTOM_PERIOD = gettext_noop(
    "cpuCFSQuotaPeriod is %(period)s: a kubelet accepts a period other than 100ms only with the "
    "alpha feature gate CustomCPUCFSQuotaPeriod, and then computes every CFS quota over that "
    "period."
)


NOTE_ABSURD_READ = gettext_noop(
    "%(field)s is %(value)s, more than the kubelet's 64-bit integers hold: Go's %(method)s() "
    "reads it as %(go_value)s, and the values shown are what the kubelet really writes from "
    "that. Use a realistic value."
)


NOTE_ABSURD_MATH = gettext_noop(
    "%(field)s is %(value)s: the kubelet's 64-bit arithmetic on it (%(what)s) wraps around, and "
    "the values shown are what the kubelet really writes. Use a realistic value."
)


THROTTLE_UNREADABLE = gettext_noop(
    "CPU throttling cannot be worked out: %(fields)s cannot be read as a quantity."
)


EVICTION_UNREADABLE = gettext_noop(
    "The eviction order cannot be worked out: %(fields)s cannot be read as a quantity."
)


OOM_UNREADABLE = gettext_noop(
    "oom_score_adj cannot be worked out: %(fields)s cannot be read as a quantity."
)


def _fields_text(items: list[Unreadable]) -> str:
    """Field paths with the values as written, for the sentences above (not translated)."""
    return ", ".join(f"{u.field} (“{u.value}”)" for u in items)


def _kubelet_resource(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith(HUGEPAGES_PREFIX)


def _raw_values(pod: Pod, spec_path: str) -> list[tuple[str, str, ResourceValue]]:
    """(field, resource, value) of every cpu/memory/hugepages value of the pod."""
    out = []
    for rel, c in pod.spec.all_containers():
        for kind, values in (("requests", c.requests), ("limits", c.limits)):
            for name, value in values.items():
                out.append((f"{spec_path}.{rel}.resources.{kind}[{name}]", name, value))
    res = pod.spec.resources
    if res is not None:
        for kind, values in (("requests", res.requests or {}), ("limits", res.limits or {})):
            for name, value in values.items():
                out.append((f"{spec_path}.resources.{kind}[{name}]", name, value))
    for name, value in (pod.spec.overhead or {}).items():
        out.append((f"{spec_path}.overhead[{name}]", name, value))
    return [x for x in out if _kubelet_resource(x[1])]


@dataclass(frozen=True)
class BeyondInt64:
    """A cpu/memory/hugepages value too large for the kubelet's int64 arithmetic: Go's
    ``Value()``/``MilliValue()`` cannot hold it (``go_value`` is what Go reads it as), or a
    product the kubelet computes from it wraps around (``overflowing`` names them)."""

    field: str
    resource: str
    value: str  # as written
    method: str  # "MilliValue" for cpu, "Value" otherwise
    go_value: int | None  # set when Go's read itself overflows
    overflowing: tuple[str, ...] = ()


def beyond_int64(pod: Pod, spec_path: str = "spec", period_us: int = 100000) -> list[BeyondInt64]:
    """The values of ``pod`` (containers, pod level, overhead) the kubelet cannot compute with
    as written: ``cpu: 1e999`` (MilliValue() overflows and reads 0), or a cpu limit whose
    quota (millicores x ``period_us``) or shares (millicores x 1024) pass int64."""
    out: list[BeyondInt64] = []
    for path, name, value in _raw_values(pod, spec_path):
        q = parse_quantity(value)
        if q is None or q.sign() <= 0:
            continue
        cpu = name == "cpu"
        method = "MilliValue" if cpu else "Value"
        shown = value if isinstance(value, str) else str(value)
        try:
            exact = q.milli_value() if cpu else q.value()
        except OverflowError:
            go_value = q.go_scaled_value(-3 if cpu else 0)
            out.append(BeyondInt64(path, name, shown, method, go_value))
            continue
        products = (
            [
                ("millicores x period", exact * period_us),
                ("millicores x 1024", exact * SHARES_PER_CPU),
            ]
            if cpu
            else [("1000 x bytes", exact * 1000)]
        )
        overflowing = tuple(what for what, product in products if product > _MAX_INT64)
        if overflowing:
            out.append(BeyondInt64(path, name, shown, method, None, overflowing))
    return out


def _absurd_notes(pod: Pod, spec_path: str, config: KubeletConfig) -> list[Message]:
    """Values the kubelet's int64 arithmetic cannot hold (cpu: 1e999), named and explained."""
    period = config.cpu_cfs_quota_period_us if config.custom_period else 100000
    notes: list[Message] = []
    for found in beyond_int64(pod, spec_path, period):
        if found.go_value is not None:
            params = {
                "field": found.field,
                "value": found.value,
                "method": found.method,
                "go_value": found.go_value,
            }
            notes.append(Message(NOTE_ABSURD_READ, params))
        else:
            params = {
                "field": found.field,
                "value": found.value,
                "what": ", ".join(found.overflowing),
            }
            notes.append(Message(NOTE_ABSURD_MATH, params))
    return notes


def node_view(
    pod: Pod,
    node_memory_capacity: Quantity | None = None,
    *,
    spec_path: str = "spec",
    default_pod_limits: bool = True,
    defaulted: Pod | None = None,
    qos: QosResult | None = None,
    kubelet: KubeletConfig | None = None,
) -> NodeView:
    """What the kubelet applies for ``pod`` on a node with ``node_memory_capacity``, with the
    kubelet configuration ``kubelet`` (defaults: cpuCFSQuota true, 100ms).

    ``defaulted`` (the pod as the API server stores it, which is what the kubelet receives)
    and its ``qos`` are computed here unless given.
    """
    config = kubelet or KubeletConfig()
    p = defaulted or pod_with_defaults(pod, default_pod_limits=default_pod_limits)
    if qos is None:
        qos = pod_qos(pod, spec_path, default_pod_limits=default_pod_limits, defaulted=p)
    bad = unreadable_quantities(pod, spec_path, keep=_kubelet_resource)
    cpu_bad = [u for u in bad if u.resource == "cpu"]
    memory_bad = [u for u in bad if u.resource == "memory"]
    hugepages_bad = [u for u in bad if u.resource.startswith(HUGEPAGES_PREFIX)]
    # With an unreadable value the numbers are computed as if it were unset, and every part
    # that depends on it is withheld below. The cpu part of the pod cgroup does not depend on
    # the class: Guaranteed implies every cpu limit declared, BestEffort none and 0 shares.
    values = kubelet_values(
        p,
        whole(node_memory_capacity) if node_memory_capacity is not None else None,
        config,
        spec_path=spec_path,
        qos_class=qos.qos_class or compute_qos_class(p),
    )
    notes: list[Message] = []
    if bad:
        notes.append(Message(NOTE_CANNOT_COMPUTE, {"fields": _fields_text(bad)}))
    if config.custom_period:
        period_text = go_duration_string(config.cpu_cfs_quota_period_us * MICROSECOND)
        notes.append(Message(NOTE_CUSTOM_PERIOD, {"period": period_text}))
    notes.extend(_absurd_notes(pod, spec_path, config))

    pod_values = _values(
        values.pod.cpu_shares,
        values.pod.cpu_quota,
        values.pod.cpu_period,
        values.pod.memory_limit,
        cpu_known=not cpu_bad,
        memory_known=not memory_bad,
    )
    oom_unknown = qos.qos_class is None or bool(memory_bad)
    oom_fields = _fields_text(memory_bad or [u for u in bad if u.resource in ("cpu", "memory")])
    containers = [
        _container(
            c,
            container,
            cpu_known=not cpu_bad,
            memory_known=not memory_bad,
            oom_fields=oom_fields if oom_unknown else None,
            p=p,
            qos_class=values.qos_class,
        )
        for c, (_, container) in zip(values.containers, p.spec.all_containers(), strict=True)
    ]
    if cpu_bad:
        risk: bool | None = None
        reason = Message(THROTTLE_UNREADABLE, {"fields": _fields_text(cpu_bad)})
    else:
        risk, reason = _throttling(pod_values, containers, values.containers, config)
    memory_request = pod_requests(p).get("memory")
    if memory_bad:
        eviction = Message(EVICTION_UNREADABLE, {"fields": _fields_text(memory_bad)})
    else:
        eviction = _eviction_order(p, memory_request, values.pod.memory_limit)
    hugetlb = (
        {}
        if hugepages_bad
        else {hugepage_size_name(size): v for size, v in sorted(values.pod.hugetlb.items()) if size}
    )
    if hugetlb:
        notes.append(Message(NOTE_HUGETLB, {}))
    return NodeView(
        qos_class=qos.qos_class,
        pod=pod_values,
        pod_cpu_weight_note=Message(POD_CPU_WEIGHT_NOTE, {}),
        hugetlb=hugetlb,
        containers=containers,
        throttling_risk=risk,
        throttling=reason,
        eviction_order=eviction,
        memory_request=memory_request if not memory_bad else None,
        node_memory_capacity=node_memory_capacity,
        notes=notes,
        kubelet=None if bad else values,
        config=config,
        unreadable=tuple(bad),
        cannot_compute=notes[0] if bad else None,
    )


def _container(
    c: ContainerValues,
    container: Container,
    *,
    cpu_known: bool,
    memory_known: bool,
    oom_fields: str | None,
    p: Pod,
    qos_class: str,
) -> ContainerCgroup:
    if oom_fields is not None:
        adj = None
        oom_reason = Message(OOM_UNREADABLE, {"fields": oom_fields})
    else:
        adj = c.oom_score_adj
        oom_reason = _oom_reason(p, container, qos_class, adj)
    return ContainerCgroup(
        name=c.name,
        field=c.field,
        role=c.role,
        cgroup=_values(
            c.cpu_shares,
            c.cpu_quota,
            c.cpu_period,
            c.memory_limit,
            cpu_known=cpu_known,
            memory_known=memory_known,
        ),
        cpu_weight_note=Message(CPU_WEIGHT_NOTE, {}),
        oom_score_adj=adj,
        oom_reason=oom_reason,
        cpu_limit_source=c.cpu_limit_source,
        memory_limit_source=c.memory_limit_source,
    )


def _cpu_text(quota: int, period: int) -> str:
    milli = quota * MILLI_CPU_TO_CPU // period
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


THROTTLE_NONE = gettext_noop(
    "No CPU limit: the containers can use idle CPU on the node without being throttled; "
    "cpu.weight only decides their share when CPUs are contended."
)


THROTTLE_DISABLED = gettext_noop(
    "The kubelet runs with cpuCFSQuota: false, so CPU limits are not enforced (cpu.max max): "
    "the containers are never throttled; cpu.weight only decides their share when CPUs are "
    "contended."
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


THROTTLE_LIMITED = gettext_noop(
    "CPU limit set: %(parts)s. Once a cgroup has used its quota the kernel stops it until the "
    "next %(period)s period, even if other CPUs are idle, which shows up as latency spikes. "
    "Limits below %(min)sm are raised to the 1ms minimum quota."
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
    pod_values: CgroupValues,
    containers: list[ContainerCgroup],
    raw: tuple[ContainerValues, ...],
    config: KubeletConfig,
) -> tuple[bool, Message]:
    if not config.cpu_cfs_quota:
        return False, Message(THROTTLE_DISABLED, {})
    capped = [(c, r) for c, r in zip(containers, raw, strict=True) if c.cgroup.cpu_quota]
    if not capped and pod_values.cpu_quota is None:
        return False, Message(THROTTLE_NONE, {})
    parts = []
    for c, r in capped:
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
                    "period": r.cpu_period,
                    "cpu": _cpu_text(quota, r.cpu_period),
                    "cpu_max": c.cgroup.cpu_max,
                },
            )
        )
    if pod_values.cpu_quota is not None:
        # cm.MilliCPUToQuota used the period only with CustomCPUCFSQuotaPeriod on.
        quota_period = pod_values.cpu_period if config.custom_period else 100000
        parts.append(
            Message(
                THROTTLE_POD,
                {
                    "quota": pod_values.cpu_quota,
                    "cpu": _cpu_text(pod_values.cpu_quota, quota_period or 100000),
                    "cpu_max": pod_values.cpu_max,
                },
            )
        )
    period = config.cpu_cfs_quota_period_us if config.custom_period else 100000
    return True, Message(
        THROTTLE_LIMITED,
        {
            "parts": _joined(parts),
            "period": go_duration_string(period * MICROSECOND),
            # The smallest limit whose quota is not raised: milli * period / 1000 >= 1000.
            "min": math.ceil(1_000_000 / period),
        },
    )


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


def _eviction_order(pod: Pod, memory_request: Quantity | None, memory_limit: int | None) -> Message:
    """``memory_limit`` is the pod cgroup's (None: unbounded). When it equals the request,
    the pod's use cannot exceed its request (a Guaranteed pod, or a Burstable one whose
    memory limits equal its requests)."""
    priority = _priority_text(pod)
    if memory_request is None or memory_request.is_zero():
        own = Message(EVICTION_NO_REQUEST, {"priority": priority})
    elif memory_limit is not None and memory_limit == go_scaled_value(memory_request):
        own = Message(
            EVICTION_GUARANTEED, {"memory": memory_request.canonical(), "priority": priority}
        )
    else:
        own = Message(
            EVICTION_BURSTABLE, {"memory": memory_request.canonical(), "priority": priority}
        )
    return Message(EVICTION_ORDER, {"rule": Message(EVICTION_RULE, {}), "own": own})
