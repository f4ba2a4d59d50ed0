"""Advice for a workload type: not errors (the API server accepts these pods) but choices
that cost users evictions, stalls or wasted capacity.

Rules are data: each ``AdviceRule`` says which workload traits it applies to (None: every
workload type; see workload_types.TRAITS), which resources' values it reads, a check that
returns the message params when the rule fires (or None), the message, and the reason behind
it. To add a rule, append one to ``RULES``; to have a new workload type get a rule, give it
the rule's trait.

A value that cannot be read as a quantity (``memory: 8GB``) is never taken for zero: the
rules that read that resource are withheld, and one piece of advice says so and names the
fields (the API server refuses the pod anyway; validation shows why).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    QuantityError,
    Unreadable,
    cached_property,
    gettext_noop,
    unreadable_quantities,
)
from designer.k8s.design.workload_types import workload_type
from designer.k8s.gpu import requested_gpus
from designer.k8s.kubelet import beyond_int64

GIB = 1024**3
ALL = None  # a rule for every workload type

# Data-loading rules of thumb for GPU pods (per GPU); below these the GPU waits on input.
MIN_CPUS_PER_GPU = 4
MIN_MEMORY_PER_GPU_GIB = 16


@dataclass(frozen=True)
class AdviceContext:
    pod: Pod
    workload: str | None
    qos_class: str | None
    requests: dict[str, Quantity]
    limits: dict[str, Quantity]
    gpu_count: int
    spec_path: str = "spec"

    @cached_property
    def shm(self) -> dict[str, Any] | None:
        """The /dev/shm emptyDir (several rules read it)."""
        return _shm_volume(self.pod)


CPU_MEMORY = frozenset({"cpu", "memory"})


@dataclass(frozen=True)
class AdviceRule:
    code: str
    traits: frozenset[str] | None  # fires for workload types with any of these traits
    check: Callable[[AdviceContext], dict[str, Any] | None]
    message: str
    reason: str
    # The resources whose values the check reads (the QoS class reads cpu and memory): with
    # one of them unreadable the rule is withheld rather than fed a zero.
    reads: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Advice:
    code: str
    message: Message
    reason: Message

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message.text, "reason": self.reason.text}


def _quantity(value: Any) -> Quantity | None:
    if value is None:  # not set (Quantity.from_json would read JSON null as 0)
        return None
    try:
        return Quantity.from_json(value)
    except (QuantityError, ValueError, TypeError):
        return None


def _fraction(q: Quantity | None) -> Fraction:
    """A quantity as a number; absent or astronomically large (1e999999999) values count as 0
    here: validation reports them, advice has nothing useful to add."""
    if q is None:
        return Fraction(0)
    try:
        return q.as_fraction()
    except OverflowError:
        return Fraction(0)


def _app_containers(pod: Pod) -> list[tuple[str, Container]]:
    return [(f"spec.containers[{i}]", c) for i, c in enumerate(pod.spec.containers)]


def _not_guaranteed(ctx: AdviceContext) -> dict[str, Any] | None:
    if ctx.qos_class and ctx.qos_class != "Guaranteed":
        return {"qos": ctx.qos_class}
    return None


def _inference_requests_differ(ctx: AdviceContext) -> dict[str, Any] | None:
    for _path, c in _app_containers(ctx.pod):
        for resource in ("cpu", "memory"):
            request = _quantity(c.requests.get(resource, c.limits.get(resource)))
            limit = _quantity(c.limits.get(resource))
            if request is None or limit is None or request != limit:
                return {"container": c.name or "", "resource": resource}
    return None


def _gpu_best_effort(ctx: AdviceContext) -> dict[str, Any] | None:
    if ctx.gpu_count > 0 and ctx.qos_class == "BestEffort":
        return {"gpus": ctx.gpu_count}
    return None


def _cpu_per_gpu(ctx: AdviceContext) -> dict[str, Any] | None:
    cpu = ctx.requests.get("cpu")
    if ctx.gpu_count <= 0:
        return None
    per_gpu = _fraction(cpu) / ctx.gpu_count
    if per_gpu < MIN_CPUS_PER_GPU:
        return {"per_gpu": _round(per_gpu), "minimum": MIN_CPUS_PER_GPU}
    return None


def _memory_per_gpu(ctx: AdviceContext) -> dict[str, Any] | None:
    memory = ctx.requests.get("memory")
    if ctx.gpu_count <= 0:
        return None
    per_gpu = _fraction(memory) / ctx.gpu_count / GIB
    if per_gpu < MIN_MEMORY_PER_GPU_GIB:
        return {"per_gpu": _round(per_gpu), "minimum": MIN_MEMORY_PER_GPU_GIB}
    return None


def _no_memory_headroom(ctx: AdviceContext) -> dict[str, Any] | None:
    for _path, c in _app_containers(ctx.pod):
        request = _quantity(c.requests.get("memory"))
        limit = _quantity(c.limits.get("memory"))
        if limit is not None and (request is None or request == limit):
            return {"container": c.name or ""}
    return None


def _batch_guaranteed(ctx: AdviceContext) -> dict[str, Any] | None:
    return {} if ctx.qos_class == "Guaranteed" else None


def _shm_volume(pod: Pod) -> dict[str, Any] | None:
    """The emptyDir of the memory-backed volume a container mounts at /dev/shm, if any."""
    mounted = {
        mount.get("name")
        for _rel, c in pod.spec.all_containers()
        for mount in (c.model_extra or {}).get("volumeMounts") or []
        if isinstance(mount, dict) and mount.get("mountPath") in ("/dev/shm", "/dev/shm/")
    }
    for volume in pod.spec.volumes or []:
        empty_dir = volume.get("emptyDir") if isinstance(volume, dict) else None
        if (
            isinstance(empty_dir, dict)
            and empty_dir.get("medium") == "Memory"
            and volume.get("name") in mounted
        ):
            return empty_dir
    return None


def _missing_shm(ctx: AdviceContext) -> dict[str, Any] | None:
    if ctx.gpu_count > 0 and ctx.shm is None:
        return {}
    return None


def _shm_size(ctx: AdviceContext) -> tuple[Quantity, Quantity] | None:
    """The /dev/shm sizeLimit and the pod's memory limit, when both are set."""
    empty_dir = ctx.shm
    if not empty_dir:
        return None
    size = _quantity(empty_dir.get("sizeLimit"))
    limit = ctx.limits.get("memory")
    if size is None or limit is None or size.sign() <= 0:
        return None
    return size, limit


def _shm_above_limit(ctx: AdviceContext) -> dict[str, Any] | None:
    sizes = _shm_size(ctx)
    if sizes is None or _fraction(sizes[0]) <= _fraction(sizes[1]):
        return None
    return {"shm": sizes[0].canonical(), "limit": sizes[1].canonical()}


def _shm_over_limit(ctx: AdviceContext) -> dict[str, Any] | None:
    sizes = _shm_size(ctx)
    if sizes is None:
        return None
    size, limit = _fraction(sizes[0]), _fraction(sizes[1])
    # Above the limit is the rule before (it says more); here: more than half of it.
    if size * 2 > limit and size <= limit:
        return {"shm": sizes[0].canonical(), "limit": sizes[1].canonical()}
    return None


def _memory_empty_dir_unbounded(ctx: AdviceContext) -> dict[str, Any] | None:
    for i, volume in enumerate(ctx.pod.spec.volumes or []):
        if not isinstance(volume, dict):
            continue
        empty_dir = volume.get("emptyDir")
        if not isinstance(empty_dir, dict) or empty_dir.get("medium") != "Memory":
            continue
        if empty_dir.get("sizeLimit") in (None, ""):
            name = volume.get("name")
            return {
                "volume": name if isinstance(name, str) else "",
                "field": f"{ctx.spec_path}.volumes[{i}].emptyDir",
            }
    return None


def _beyond_int64(ctx: AdviceContext) -> dict[str, Any] | None:
    found = beyond_int64(ctx.pod, ctx.spec_path)
    if not found:
        return None
    return {"fields": ", ".join(f"{f.field} ({f.value})" for f in found)}


def _gpu_without_toleration(ctx: AdviceContext) -> dict[str, Any] | None:
    if ctx.gpu_count <= 0:
        return None
    for t in ctx.pod.spec.tolerations or []:
        if t.get("operator") == "Exists" and t.get("key") in (None, "", "nvidia.com/gpu"):
            return None
        if t.get("key") == "nvidia.com/gpu":
            return None
    return {}


def _round(value: Fraction) -> str:
    return f"{float(value):.3g}"


RULES: tuple[AdviceRule, ...] = (
    AdviceRule(
        "training-not-guaranteed",
        frozenset({"evicting-loses-work"}),
        _not_guaranteed,
        gettext_noop("This training pod is %(qos)s, not Guaranteed."),
        gettext_noop(
            "Under node memory pressure the kubelet evicts BestEffort and then Burstable pods "
            "before Guaranteed ones; a long run loses everything since its last checkpoint. "
            "Set CPU and memory requests equal to limits in every container."
        ),
        CPU_MEMORY,
    ),
    AdviceRule(
        "inference-requests-differ",
        frozenset({"latency-sensitive"}),
        _inference_requests_differ,
        gettext_noop(
            "Container “%(container)s” does not set a %(resource)s limit equal to its request."
        ),
        gettext_noop(
            "Online inference wants predictable latency: requests equal to limits make the pod "
            "Guaranteed and keep it from being squeezed or evicted by its neighbours."
        ),
        CPU_MEMORY,
    ),
    AdviceRule(
        "gpu-best-effort",
        ALL,
        _gpu_best_effort,
        gettext_noop("This pod holds %(gpus)s GPU(s) but is BestEffort."),
        gettext_noop(
            "GPUs do not count for QoS: with no CPU or memory requests the pod is evicted first "
            "under pressure, and the GPUs it held sit idle until it is rescheduled."
        ),
        CPU_MEMORY,
    ),
    AdviceRule(
        "cpu-per-gpu",
        frozenset({"data-loading"}),
        _cpu_per_gpu,
        gettext_noop("Only %(per_gpu)s CPU per GPU requested (suggested: at least %(minimum)s)."),
        gettext_noop(
            "Data loading, decoding and augmentation run on the CPU; with too few cores per GPU "
            "the GPU waits for input and its utilisation drops."
        ),
        frozenset({"cpu"}),
    ),
    AdviceRule(
        "memory-per-gpu",
        frozenset({"data-loading"}),
        _memory_per_gpu,
        gettext_noop(
            "Only %(per_gpu)s GiB of memory per GPU requested "
            "(suggested: at least %(minimum)s GiB)."
        ),
        gettext_noop(
            "Data loader workers, pinned host buffers and checkpoints live in host memory; "
            "too little per GPU leads to OOM kills mid-epoch."
        ),
        frozenset({"memory"}),
    ),
    AdviceRule(
        "no-memory-headroom",
        frozenset({"retried"}),
        _no_memory_headroom,
        gettext_noop(
            "Container “%(container)s” has a memory limit with no headroom above its request."
        ),
        gettext_noop(
            "Memory is not compressible: a spiky job that crosses its limit is OOM-killed. Keep "
            "the request at typical use and the limit 20-30%% above the observed peak."
        ),
    ),
    AdviceRule(
        "batch-guaranteed",
        frozenset({"retried"}),
        _batch_guaranteed,
        gettext_noop("This batch pod is Guaranteed."),
        gettext_noop(
            "Guaranteed reserves its full size on the node even while idle; work that tolerates "
            "eviction and retries packs better as low Burstable."
        ),
        CPU_MEMORY,
    ),
    AdviceRule(
        "missing-shm",
        frozenset({"shared-memory"}),
        _missing_shm,
        gettext_noop("No memory-backed /dev/shm volume."),
        gettext_noop(
            "The container runtime gives /dev/shm only 64Mi by default; PyTorch DataLoader "
            "workers and NCCL fail with bus errors beyond it. Mount an emptyDir with "
            "medium: Memory at /dev/shm (its size counts against the memory limit)."
        ),
    ),
    AdviceRule(
        "shm-above-limit",
        ALL,
        _shm_above_limit,
        gettext_noop(
            "/dev/shm has a sizeLimit of %(shm)s, above the pod's %(limit)s memory limit."
        ),
        gettext_noop(
            "A memory-backed emptyDir can never hold more than the pod's memory limit (the "
            "kubelet sizes its tmpfs at the smaller of the two), and what is written there is "
            "charged to the container's memory: the container is OOM-killed at its limit long "
            "before /dev/shm is full. Keep the sizeLimit well below the memory limit, or raise "
            "the limit."
        ),
        frozenset({"memory"}),
    ),
    AdviceRule(
        "shm-over-half-limit",
        ALL,
        _shm_over_limit,
        gettext_noop("/dev/shm may grow to %(shm)s of the %(limit)s memory limit."),
        gettext_noop(
            "Pages written to a memory-backed emptyDir are charged to the container's memory "
            "cgroup: a full /dev/shm leaves little for the process itself before an OOM kill."
        ),
        frozenset({"memory"}),
    ),
    AdviceRule(
        "memory-emptydir-without-size-limit",
        ALL,
        _memory_empty_dir_unbounded,
        gettext_noop("The memory-backed emptyDir “%(volume)s” (%(field)s) has no sizeLimit."),
        gettext_noop(
            "Without a sizeLimit a tmpfs emptyDir may grow to the pod's memory limit, or with "
            "no limit to the node's allocatable memory, and every byte written there is memory "
            "the containers are charged for: set a sizeLimit below the memory limit."
        ),
    ),
    AdviceRule(
        "gpu-without-toleration",
        ALL,
        _gpu_without_toleration,
        gettext_noop("GPUs requested without a toleration for the nvidia.com/gpu taint."),
        gettext_noop(
            "GPU node pools are commonly tainted nvidia.com/gpu:NoSchedule so that only GPU "
            "pods land there; without the toleration this pod stays Pending on such clusters."
        ),
    ),
    AdviceRule(
        "beyond-int64",
        ALL,
        _beyond_int64,
        gettext_noop("Not a real amount: %(fields)s."),
        gettext_noop(
            "No node has that much. The kubelet computes cgroup values with 64-bit integers: a "
            "value this large is read as something else or wraps around, so what it writes "
            "(see “What the node does”) is not the limit that was meant. Use a realistic value."
        ),
    ),
)

WITHHELD = gettext_noop(
    "Advice on %(resources)s is withheld: %(fields)s cannot be read as a quantity."
)
WITHHELD_REASON = gettext_noop(
    "A value that is not a quantity is never taken for zero; the API server refuses the pod "
    "until it is fixed (see Validation)."
)


def pod_advice(
    pod: Pod,
    workload: str | None,
    qos_class: str | None,
    requests: dict[str, Quantity],
    limits: dict[str, Quantity],
    *,
    claim_gpus: int = 0,
    spec_path: str = "spec",
    unreadable: list[Unreadable] | tuple[Unreadable, ...] | None = None,
) -> list[Advice]:
    """The advice rules that fire for this pod and workload type, in rule order; GPUs from
    DRA claims (``claim_gpus``) count like requested ones. ``workload`` None: the rules for
    every workload type only (a manifest whose kind says nothing of its workload type).

    A rule that reads a resource with an unreadable value is withheld; one piece of advice,
    first, names those fields (``unreadable``: core.unreadable_quantities of the pod, when
    the caller has them)."""
    gpu_count = int(requested_gpus(requests)) + claim_gpus
    ctx = AdviceContext(pod, workload, qos_class, requests, limits, gpu_count, spec_path)
    traits = workload_type(workload).traits if workload is not None else frozenset()
    if unreadable is None:
        unreadable = unreadable_quantities(pod, spec_path)
    bad = [u for u in unreadable if u.resource in CPU_MEMORY]
    bad_resources = {u.resource for u in bad}
    advice = []
    withheld = False
    for rule in RULES:
        if rule.traits is not None and not rule.traits & traits:
            continue
        if rule.reads & bad_resources:
            withheld = True
            continue
        params = rule.check(ctx)
        if params is None:
            continue
        advice.append(Advice(rule.code, Message(rule.message, params), Message(rule.reason, {})))
    if withheld:
        advice.insert(0, _withheld(bad))
    return advice


def _withheld(bad: list[Unreadable]) -> Advice:
    resources = " & ".join(sorted({u.resource for u in bad}))
    fields = ", ".join(f"{u.field} (“{u.value}”)" for u in bad)
    return Advice(
        "advice-withheld",
        Message(WITHHELD, {"resources": resources, "fields": fields}),
        Message(WITHHELD_REASON, {}),
    )
