"""The LimitRanger admission plugin for pods (plugin/pkg/admission/limitranger/admission.go).

Mutation (``PodMutateLimitFunc``, the mutating phase): every Container item's ``default``
becomes a missing limit and its ``defaultRequest`` a missing request, key by key, for the
containers and then the init containers (sidecars included; ephemeral containers never);
pod-level ``spec.resources`` is ignored. The names set are written to the
``kubernetes.io/limit-ranger`` annotation: ``LimitRanger plugin set: cpu, memory request for
container app; cpu limit for container app; ...`` (a later LimitRange that sets something
overwrites the annotation, as each ``Admit`` call writes it anew).

Validation (``PodValidateLimitFunc``, the validating phase, on the mutated pod): for each item,
``min``/``max``/``maxLimitRequestRatio`` per Container (every container and init container on
its own) or per Pod (the sidecar-aware sums, without overhead; with PodLevelResources on, the
pod-level cpu/memory replace the sums). Values are compared in milli units where they fit
(``requestLimitEnforcedValues``), as every release up to 1.37 does. The first LimitRange with
errors refuses the pod with all of that LimitRange's errors aggregated.

Go ranges over the item's maps, so the order inside ``[a, b]`` is random; we use item order,
containers then init containers, then min, max, ratio, each with sorted resource names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.k8s.apiserver import (
    ClusterVersion,
    LimitRange,
    LimitRangeItem,
    aggregate,
    go_float_f,
)
from designer.k8s.core import (
    Container,
    Pod,
    Quantity,
    ResourceMap,
    ResourceRequirements,
    add_into,
    container_resources,
    go_scaled_value,
    parse_resources,
)

ANNOTATION = "kubernetes.io/limit-ranger"
ANNOTATION_PREFIX = "LimitRanger plugin set: "
MAX_MILLI_VALUE = (2**63 - 1) // 1000  # resource.MaxMilliValue
POD_LEVEL_RESOURCES = ("cpu", "memory")  # the plugin's own isSupportedPodLevelResource

MSG_MIN_NO_REQUEST = "minimum {r} usage per {t} is {e}.  No request is specified"
MSG_MIN_REQUEST = "minimum {r} usage per {t} is {e}, but request is {v}"
MSG_MIN_LIMIT = "minimum {r} usage per {t} is {e}, but limit is {v}"
MSG_MAX_NO_LIMIT = "maximum {r} usage per {t} is {e}.  No limit is specified"
MSG_MAX_LIMIT = "maximum {r} usage per {t} is {e}, but limit is {v}"
MSG_MAX_REQUEST = "maximum {r} usage per {t} is {e}, but request is {v}"
MSG_RATIO_NO_REQUEST = (
    "{r} max limit to request ratio per {t} is {e}, but no request is specified or request is 0"
)
MSG_RATIO_NO_LIMIT = (
    "{r} max limit to request ratio per {t} is {e}, but no limit is specified or limit is 0"
)
MSG_RATIO = "{r} max limit to request ratio per {t} is {e}, but provided ratio is {v}"


@dataclass(frozen=True)
class Defaulted:
    """One value LimitRanger wrote into the pod."""

    field: str  # relative to the pod spec: "containers[0].resources.requests[cpu]"
    value: str
    source: str  # "LimitRange/<name>"
    container: str
    resource: str


@dataclass
class Mutation:
    pod: Pod
    defaulted: list[Defaulted] = field(default_factory=list)
    annotation: str | None = None


# --- which requests the plugin looks at --------------------------------------------------------


def handles(
    kind: str, operation: str, subresource: str = "", *, old_deleting: bool = False
) -> bool:
    """SupportsAttributes + runLimitFunc's guard: pods and PVCs on CREATE, a pod's
    ``resize`` UPDATE; never other subresources, a plain pod UPDATE, or an object whose stored
    version is being deleted."""
    if old_deleting:
        return False
    if subresource == "resize" and kind == "Pod" and operation == "UPDATE":
        return True
    if subresource:
        return False
    if kind == "Pod" and operation == "UPDATE":
        return False
    return kind in ("Pod", "PersistentVolumeClaim") and operation in ("CREATE", "UPDATE")


# --- mutation ---------------------------------------------------------------------------------


def default_requirements(lr: LimitRange) -> tuple[ResourceMap, ResourceMap]:
    """defaultContainerResourceRequirements: (requests, limits) from the Container items;
    with several Container items the later one wins for a name."""
    requests: ResourceMap = {}
    limits: ResourceMap = {}
    for item in lr.items:
        if item.type == "Container":
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def _copy_for_mutation(pod: Pod) -> Pod:
    """A copy in which every container's resources are new objects (the rest is shared)."""

    def container(c: Container) -> Container:
        r = c.resources or ResourceRequirements()
        res = r.model_copy(
            update={"requests": dict(r.requests or {}), "limits": dict(r.limits or {})}
        )
        return c.model_copy(update={"resources": res})

    spec = pod.spec
    new_spec = spec.model_copy(
        update={
            "containers": [container(c) for c in spec.containers],
            "init_containers": [container(c) for c in spec.init_containers]
            if spec.init_containers is not None
            else None,
        }
    )
    meta = pod.metadata.model_copy(
        update={"annotations": dict(pod.metadata.annotations) if pod.metadata.annotations else None}
    )
    return pod.model_copy(update={"spec": new_spec, "metadata": meta})


def mutate(pod: Pod, limit_ranges: list[LimitRange]) -> Mutation:
    """Every LimitRange's Admit, in order, on a copy of the (API-server-defaulted) pod."""
    out = Mutation(_copy_for_mutation(pod))
    for lr in limit_ranges:
        requests, limits = default_requirements(lr)
        if not requests and not limits:
            continue
        entries: list[str] = []
        lists = (
            ("containers", "container", out.pod.spec.containers),
            ("initContainers", "init container", out.pod.spec.init_list),
        )
        for list_name, label, containers in lists:
            for i, c in enumerate(containers):
                entries += _merge(c, requests, limits, f"{list_name}[{i}]", label, lr.ref, out)
        if entries:
            out.annotation = ANNOTATION_PREFIX + "; ".join(entries)
    if out.annotation is not None:
        annotations = dict(out.pod.metadata.annotations or {})
        annotations[ANNOTATION] = out.annotation
        out.pod.metadata.annotations = annotations
    return out


def _merge(
    c: Container,
    requests: ResourceMap,
    limits: ResourceMap,
    path: str,
    label: str,
    source: str,
    out: Mutation,
) -> list[str]:
    """mergeContainerResources: a default for every name the container does not set."""
    res = c.resources
    assert res is not None and res.requests is not None and res.limits is not None
    set_limits = sorted(n for n in limits if n not in res.limits)
    set_requests = sorted(n for n in requests if n not in res.requests)
    name = c.name or ""
    for kind, names, values, target in (
        ("limits", set_limits, limits, res.limits),
        ("requests", set_requests, requests, res.requests),
    ):
        for n in names:
            text = values[n].canonical()
            target[n] = text
            out.defaulted.append(Defaulted(f"{path}.resources.{kind}[{n}]", text, source, name, n))
    entries = []
    if set_requests:
        entries.append(", ".join(set_requests) + f" request for {label} {name}")
    if set_limits:
        entries.append(", ".join(set_limits) + f" limit for {label} {name}")
    return entries


# --- validation -------------------------------------------------------------------------------


def _enforced_values(
    req: Quantity | None, lim: Quantity | None, enforced: Quantity
) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli values unless one of them would overflow."""
    r = go_scaled_value(req) if req is not None else 0
    lv = go_scaled_value(lim) if lim is not None else 0
    e = go_scaled_value(enforced)
    if r <= MAX_MILLI_VALUE and lv <= MAX_MILLI_VALUE and e <= MAX_MILLI_VALUE:
        r = go_scaled_value(req, milli=True) if req is not None else 0
        lv = go_scaled_value(lim, milli=True) if lim is not None else 0
        e = go_scaled_value(enforced, milli=True)
    return r, lv, e


def min_constraint(
    t: str, r: str, enforced: Quantity, requests: ResourceMap, limits: ResourceMap
) -> str | None:
    req, lim = requests.get(r), limits.get(r)
    rv, lv, ev = _enforced_values(req, lim, enforced)
    e = enforced.canonical()
    if req is None:
        return MSG_MIN_NO_REQUEST.format(r=r, t=t, e=e)
    if rv < ev:
        return MSG_MIN_REQUEST.format(r=r, t=t, e=e, v=req.canonical())
    if lim is not None and lv < ev:
        return MSG_MIN_LIMIT.format(r=r, t=t, e=e, v=lim.canonical())
    return None


def max_constraint(
    t: str, r: str, enforced: Quantity, requests: ResourceMap, limits: ResourceMap
) -> str | None:
    req, lim = requests.get(r), limits.get(r)
    rv, lv, ev = _enforced_values(req, lim, enforced)
    e = enforced.canonical()
    if lim is None:
        return MSG_MAX_NO_LIMIT.format(r=r, t=t, e=e)
    if lv > ev:
        return MSG_MAX_LIMIT.format(r=r, t=t, e=e, v=lim.canonical())
    if req is not None and rv > ev:
        return MSG_MAX_REQUEST.format(r=r, t=t, e=e, v=req.canonical())
    return None


def ratio_constraint(
    t: str, r: str, enforced: Quantity, requests: ResourceMap, limits: ResourceMap
) -> str | None:
    req, lim = requests.get(r), limits.get(r)
    rv, lv, _ = _enforced_values(req, lim, enforced)
    e = enforced.canonical()
    if req is None or rv == 0:
        return MSG_RATIO_NO_REQUEST.format(r=r, t=t, e=e)
    if lim is None or lv == 0:
        return MSG_RATIO_NO_LIMIT.format(r=r, t=t, e=e)
    observed = float(lv) / float(rv)
    display = observed
    maximum = float(go_scaled_value(enforced))
    if go_scaled_value(enforced) <= MAX_MILLI_VALUE:
        observed = observed * 1000
        maximum = float(go_scaled_value(enforced, milli=True))
    if observed > maximum:
        return MSG_RATIO.format(r=r, t=t, e=e, v=go_float_f(display))
    return None


CONSTRAINTS = (
    ("min", min_constraint),
    ("max", max_constraint),
    ("max_limit_request_ratio", ratio_constraint),
)


def _check(item: LimitRangeItem, t: str, requests: ResourceMap, limits: ResourceMap) -> list[str]:
    errs = []
    for attr, fn in CONSTRAINTS:
        values: ResourceMap = getattr(item, attr)
        for r in sorted(values):
            msg = fn(t, r, values[r], requests, limits)
            if msg is not None:
                errs.append(msg)
    return errs


def pod_aggregate(pod: Pod, kind: str, pod_level: bool) -> ResourceMap:
    """The plugin's podRequests/podLimits: sidecar-aware sums, no overhead, spec only; with
    PodLevelResources on and spec.resources set, its cpu/memory replace the sums."""
    total: ResourceMap = {}
    for c in pod.spec.containers:
        add_into(total, container_resources(c, kind))  # type: ignore[arg-type]
    sidecars: ResourceMap = {}
    init_max: ResourceMap = {}
    for c in pod.spec.init_list:
        res = container_resources(c, kind)  # type: ignore[arg-type]
        if c.is_sidecar:
            add_into(total, res)
            add_into(sidecars, res)
            phase = dict(sidecars)
        else:
            phase = dict(res)
            add_into(phase, sidecars)
        for n, q in phase.items():
            if n not in init_max or q > init_max[n]:
                init_max[n] = q
    for n, q in init_max.items():
        if n not in total or q > total[n]:
            total[n] = q
    if pod_level and pod.spec.resources is not None:
        values = pod.spec.resources.requests if kind == "requests" else pod.spec.resources.limits
        for n, q in parse_resources(values).items():
            if n in POD_LEVEL_RESOURCES:
                total[n] = q
    return total


def validate(pod: Pod, lr: LimitRange, version: ClusterVersion) -> list[str]:
    """PodValidateLimitFunc for one LimitRange: its error messages (possibly repeated)."""
    errs: list[str] = []
    for item in lr.items:
        if item.type == "Container":
            for c in [*pod.spec.containers, *pod.spec.init_list]:
                requests = container_resources(c, "requests")
                limits = container_resources(c, "limits")
                errs += _check(item, "Container", requests, limits)
        elif item.type == "Pod":
            pod_level = version.pod_level_resources
            requests = pod_aggregate(pod, "requests", pod_level)
            limits = pod_aggregate(pod, "limits", pod_level)
            errs += _check(item, "Pod", requests, limits)
    return errs


@dataclass(frozen=True)
class LimitRangerDenial:
    source: str  # "LimitRange/<name>"
    message: str  # the aggregated error, as the plugin returns it


def validate_all(
    pod: Pod, limit_ranges: list[LimitRange], version: ClusterVersion
) -> list[LimitRangerDenial]:
    """Every LimitRange that refuses the pod, in order; the API server reports the first."""
    out = []
    for lr in limit_ranges:
        message = aggregate(validate(pod, lr, version))
        if message is not None:
            out.append(LimitRangerDenial(lr.ref, message))
    return out
