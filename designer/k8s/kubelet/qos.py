"""The pod's QoS class, as the API server writes it to status.qosClass, and why.

The class is ``ComputePodQOS`` of pkg/apis/core/helper/qos/qos.go (1.34; the same rule as
pkg/apis/core/v1/helper/qos/qos.go, which the kubelet uses) evaluated on the *defaulted* pod,
because the API server defaults before it computes the status:

* only cpu and memory count (GPUs, ephemeral-storage, hugepages and other resources never
  change the class), and only values greater than zero (``0`` counts as unset);
* init containers and native sidecars count like app containers (ephemeral containers cannot
  set resources);
* when pod-level resources are set (spec.resources names cpu, memory or hugepages-*,
  ``PodLevelResourcesFixKubeletQOSClass``), they alone decide; container values are ignored;
* BestEffort: no cpu or memory request or limit anywhere; Guaranteed: every container (or the
  pod level) sets cpu and memory limits and the summed requests equal the summed limits;
  Burstable: everything else.

Alongside the class come structured reasons naming the container, its field path and the
resource, so the user can see what to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.k8s.apiserver import ClusterVersion, pod_with_defaults
from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    ResourceList,
    ResourceRequirements,
    add,
    gettext_noop,
    is_pod_level_limits_set,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    parse_quantity,
    parse_resources,
    plain,
)

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"

# pkg/apis/core/helper/qos/qos.go: supportedQoSComputeResources.
QOS_RESOURCES = ("cpu", "memory")

# Lower is evicted first (BestEffort pods have no memory request, so any use exceeds it).
EVICTION_RANK = {BEST_EFFORT: 1, BURSTABLE: 2, GUARANTEED: 3}

EVICTION_PRIORITY = {
    BEST_EFFORT: gettext_noop(
        "Evicted first: the pod requests no memory, so any memory it uses exceeds its request, "
        "which is the kubelet's first criterion under node memory pressure; its containers "
        "also get oom_score_adj 1000, so the kernel OOM killer picks them first."
    ),
    BURSTABLE: gettext_noop(
        "Evicted after BestEffort pods and before Guaranteed ones in practice: once its memory "
        "use exceeds its memory request it joins the first group the kubelet evicts under "
        "memory pressure; its containers get an oom_score_adj between 3 and 999 that falls "
        "as their memory request grows."
    ),
    GUARANTEED: gettext_noop(
        "Evicted last: every memory limit equals its request, so the pod's use cannot exceed "
        "its request; its containers get oom_score_adj -997, so the kernel OOM killer spares "
        "them until nothing else is left."
    ),
}


@dataclass(frozen=True)
class QosReason:
    """One reason for the class: a sentence (a Message the web layer translates; its
    ``text`` is the English the CLI and JSON API print) and what it is about."""

    code: str
    message: Message
    container: str | None = None
    field: str | None = None  # full path, e.g. "spec.containers[1].resources.limits[memory]"
    resource: str | None = None

    @property
    def text(self) -> str:
        return self.message.text


@dataclass(frozen=True)
class QosResult:
    qos_class: str | None  # None only when a cpu/memory value that decides is unreadable
    reasons: list[QosReason]
    eviction_rank: int  # 1 BestEffort (evicted first), 2 Burstable, 3 Guaranteed, 0 unknown
    eviction_priority: Message


# --- the class ------------------------------------------------------------------------------


def uses_pod_level(pod: Pod, *, require_pod_level_values: bool = True) -> bool:
    """Whether spec.resources decides the class (ComputePodQOS's first branch).

    With ``PodLevelResourcesFixKubeletQOSClass`` (kubernetes#135082, on by default in current
    releases) spec.resources must name a supported resource; before it, a mere
    ``resources: {}`` took this branch and made the pod BestEffort. Pass
    ``require_pod_level_values=False`` to model the unfixed behaviour.
    """
    if pod.spec.resources is None:
        return False
    return is_pod_level_resources_set(pod) or not require_pod_level_values


def _positive(resources: ResourceList | None) -> dict[str, Quantity]:
    """The cpu/memory entries greater than zero (processResourceList / getQOSResources)."""
    return {
        name: q
        for name, q in parse_resources(resources).items()
        if name in QOS_RESOURCES and q.sign() > 0
    }


def compute_qos_class(pod: Pod, *, require_pod_level_values: bool = True) -> str:
    """ComputePodQOS on a pod that is already defaulted; unreadable values count as unset."""
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    if uses_pod_level(pod, require_pod_level_values=require_pod_level_values):
        res = pod.spec.resources or ResourceRequirements()
        requests = _positive(res.requests)
        limits = _positive(res.limits)
        if res.limits and not all(r in limits for r in QOS_RESOURCES):
            guaranteed = False
    else:
        # Go walks app containers then init containers; the order only affects how a sum
        # would print, never the class.
        for _, c in pod.spec.all_containers():
            for name, q in _positive(c.requests).items():
                requests[name] = add(requests[name], q) if name in requests else q
            found = _positive(c.limits)
            for name, q in found.items():
                limits[name] = add(limits[name], q) if name in limits else q
            if not all(r in found for r in QOS_RESOURCES):
                guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed:
        for name, req in requests.items():
            if name not in limits or limits[name] != req:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


# --- reasons --------------------------------------------------------------------------------

QOS_UNKNOWN = gettext_noop(
    "Unknown: a cpu or memory value cannot be read, so the QoS class (and with it the "
    "eviction order) cannot be determined until it is fixed."
)
WHO_NAMED = gettext_noop('container "%(name)s" (%(path)s)')
WHO_UNNAMED = gettext_noop("the container at %(path)s")
WHO_POD_LEVEL = gettext_noop("Pod-level resources")
R_POD_LEVEL = gettext_noop(
    "Pod-level resources (%(path)s) are set, so they alone decide the QoS class; container "
    "requests and limits do not count for it."
)
R_UNREADABLE = gettext_noop(
    '%(who)s: %(resource)s %(kind)s "%(value)s" is not a valid quantity, so the QoS class '
    "cannot be determined."
)
R_REQUEST_DEFAULTED = gettext_noop(
    "%(who)s sets no %(resource)s request, so the API server sets it to the %(resource)s "
    "limit %(value)s."
)
R_POD_REQUEST_DEFAULTED = gettext_noop(
    "%(path)s sets no %(resource)s request, so the API server sets it to %(value)s from the "
    "pod-level limit or the containers' combined requests."
)
R_POD_LIMIT_DEFAULTED = gettext_noop(
    "%(path)s sets no %(resource)s limit, so the API server sets it to %(value)s from the "
    "containers' combined limits."
)
R_BEST_EFFORT_POD = gettext_noop(
    "%(path)s sets no cpu or memory request or limit greater than zero, so the pod is BestEffort."
)
R_BEST_EFFORT = gettext_noop(
    "No container sets a cpu or memory request or limit greater than zero, so the pod is "
    "BestEffort."
)
R_OTHERS_IGNORED = gettext_noop(
    "%(who)s sets %(resources)s, but only cpu and memory decide the QoS class."
)
R_ZERO_IGNORED = gettext_noop(
    "%(who)s sets %(resource)s %(kind)s %(value)s, and a value of zero counts as not set."
)
R_GUARANTEED_POD = gettext_noop(
    "%(path)s sets cpu and memory limits and each request equals its limit, so the pod is "
    "Guaranteed."
)
R_GUARANTEED_WITH_INIT = gettext_noop(
    "Every container, init containers and sidecars included, sets cpu and memory limits "
    "and each request equals its limit, so the pod is Guaranteed."
)
R_GUARANTEED_ONE = gettext_noop(
    "The container sets cpu and memory limits and each request equals its limit, so the "
    "pod is Guaranteed."
)
R_GUARANTEED_EVERY = gettext_noop(
    "Every container sets cpu and memory limits and each request equals its limit, so the "
    "pod is Guaranteed."
)
R_BURSTABLE_POD = gettext_noop(
    "%(path)s sets a cpu or memory request or limit, but not cpu and memory limits equal to "
    "their requests, so the pod is Burstable."
)
R_BURSTABLE = gettext_noop(
    "A container sets a cpu or memory request or limit, but not every container sets cpu and "
    "memory limits equal to its requests, so the pod is Burstable."
)
R_ZERO_LIMIT = gettext_noop("%(who)s sets %(resource)s limit %(value)s, which counts as no limit.")
R_NO_LIMIT = gettext_noop("%(who)s sets no %(resource)s limit.")
R_REQUEST_DIFFERS = gettext_noop(
    "%(who)s: %(resource)s request %(request)s differs from limit %(limit)s."
)
R_SUMS_DIFFER = gettext_noop("The summed cpu and memory requests differ from the summed limits.")
R_CLAIMS_IGNORED = gettext_noop(
    "The pod's resource claims (%(claims)s) get devices through Dynamic Resource Allocation; "
    "devices are not cpu or memory, so the claims do not change the QoS class."
)


def _who(c: Container, path: str) -> Message:
    """A reason's subject: the container, named by its name and field path."""
    if c.name:
        return Message(WHO_NAMED, {"name": c.name, "path": path})
    return Message(WHO_UNNAMED, {"path": path})


def _fmt(q: Quantity) -> str:
    return q.canonical()


def pod_qos(
    pod: Pod,
    spec_path: str = "spec",
    *,
    apply_defaults: bool = True,
    default_pod_limits: bool = True,
    require_pod_level_values: bool = True,
    defaulted: Pod | None = None,
    version: ClusterVersion | None = None,
) -> QosResult:
    """The QoS class Kubernetes gives ``pod`` and the reasons for it.

    ``spec_path`` prefixes every field path ("spec.template.spec" for a Deployment).
    ``apply_defaults=False`` evaluates the pod exactly as given (it must then already be
    defaulted for the answer to match the API server). Pass ``defaulted`` (the pod as the
    API server stores it) when it is at hand, so it is computed once. ``version`` answers
    for that release (it then decides ``default_pod_limits`` and
    ``require_pod_level_values``: 1.34/1.35 have kubernetes#135082).
    """
    if version is not None and version.version is not None:
        default_pod_limits = version.default_pod_limits
        require_pod_level_values = version.qos_requires_pod_level_values
    if defaulted is None:
        defaulted = (
            pod_with_defaults(pod, default_pod_limits=default_pod_limits, version=version)
            if apply_defaults
            else pod
        )
    pod_level = uses_pod_level(defaulted, require_pod_level_values=require_pod_level_values)

    unreadable = _unreadable_reasons(
        pod, defaulted, pod_level, spec_path, apply_defaults, default_pod_limits
    )
    if unreadable:
        return QosResult(None, unreadable, 0, Message(QOS_UNKNOWN, {}))

    qos_class = compute_qos_class(defaulted, require_pod_level_values=require_pod_level_values)
    reasons: list[QosReason] = []
    resources_path = f"{spec_path}.resources"
    if pod_level:
        reasons.append(
            QosReason(
                "pod_level_decides",
                Message(R_POD_LEVEL, {"path": resources_path}),
                field=resources_path,
            )
        )
    if apply_defaults:
        reasons.extend(_defaulted_reasons(pod, defaulted, spec_path))
    if qos_class == BEST_EFFORT:
        reasons.extend(_best_effort_reasons(defaulted, pod_level, spec_path))
    elif qos_class == GUARANTEED:
        reasons.extend(_guaranteed_reasons(defaulted, pod_level, spec_path))
    else:
        reasons.extend(_burstable_reasons(defaulted, pod_level, spec_path))
    reasons.extend(_claims_reasons(defaulted, spec_path))
    return QosResult(
        qos_class, reasons, EVICTION_RANK[qos_class], Message(EVICTION_PRIORITY[qos_class], {})
    )


def _claims_reasons(pod: Pod, spec_path: str) -> list[QosReason]:
    """ComputePodQOS reads requests and limits only: DRA claims never count."""
    names = [c.name for c in pod.spec.resource_claims or [] if c.name]
    if not names:
        return []
    claims = ", ".join(names)
    return [
        QosReason(
            "claims_ignored",
            Message(R_CLAIMS_IGNORED, {"claims": claims}),
            field=f"{spec_path}.resourceClaims",
        )
    ]


def _unreadable_reasons(
    raw: Pod,
    defaulted: Pod,
    pod_level: bool,
    spec_path: str,
    apply_defaults: bool,
    default_pod_limits: bool,
) -> list[QosReason]:
    """Unreadable cpu/memory values that the class depends on (None only where it matters)."""
    out: list[QosReason] = []

    def check(
        values: ResourceList | None, kind: str, who: Message, path: str, name: str | None
    ) -> None:
        for res in QOS_RESOURCES:
            if values and res in values and parse_quantity(values[res]) is None:
                params = {"who": who, "resource": res, "kind": kind[:-1], "value": str(values[res])}
                out.append(
                    QosReason(
                        "unreadable_quantity",
                        Message(R_UNREADABLE, params),
                        container=name,
                        field=f"{path}.{kind}[{res}]",
                        resource=res,
                    )
                )

    if pod_level:
        res = raw.spec.resources
        pod_who = Message(WHO_POD_LEVEL, {})
        if res is not None:
            check(res.requests, "requests", pod_who, f"{spec_path}.resources", None)
            check(res.limits, "limits", pod_who, f"{spec_path}.resources", None)
        if not apply_defaults:
            return out
        # Pod-level values the API server derives from the containers depend on them too.
        raw_req = (res.requests if res else None) or {}
        raw_lim = (res.limits if res else None) or {}
        derived_req = [r for r in QOS_RESOURCES if r not in raw_req and raw_lim]
        derived_lim = [
            r
            for r in QOS_RESOURCES
            if default_pod_limits
            and r not in raw_lim
            and not is_pod_level_limits_set(raw)
            and is_pod_level_requests_set(defaulted)
        ]
        for rel, c in raw.spec.all_containers():
            path = f"{spec_path}.{rel}.resources"
            who = _who(c, f"{spec_path}.{rel}")
            # A request defaulted from the limit comes from the limit too.
            req = {r: v for r, v in c.requests.items() if r in derived_req}
            lim = {r: v for r, v in c.limits.items() if r in derived_lim or r in derived_req}
            check(req, "requests", who, path, c.name)
            check(lim, "limits", who, path, c.name)
        return out

    for rel, c in raw.spec.all_containers():
        path = f"{spec_path}.{rel}.resources"
        who = _who(c, f"{spec_path}.{rel}")
        check(c.requests, "requests", who, path, c.name)
        check(c.limits, "limits", who, path, c.name)
    return out


def _defaulted_reasons(raw: Pod, defaulted: Pod, spec_path: str) -> list[QosReason]:
    """Requests the API server copies from limits (SetDefaults_Pod) for cpu and memory."""
    out: list[QosReason] = []
    for (rel, before), (_, after) in zip(
        raw.spec.all_containers(), defaulted.spec.all_containers(), strict=True
    ):
        for res in QOS_RESOURCES:
            if res in before.requests or res not in after.requests:
                continue
            q = parse_quantity(after.requests[res])
            if q is None:
                continue
            who = _who(before, f"{spec_path}.{rel}")
            out.append(
                QosReason(
                    "request_defaulted_from_limit",
                    Message(R_REQUEST_DEFAULTED, {"who": who, "resource": res, "value": _fmt(q)}),
                    container=before.name,
                    field=f"{spec_path}.{rel}.resources.requests[{res}]",
                    resource=res,
                )
            )
    raw_res, res_after = raw.spec.resources, defaulted.spec.resources
    if res_after is not None:
        path = f"{spec_path}.resources"
        for kind in ("requests", "limits"):
            before = (getattr(raw_res, kind) if raw_res else None) or {}
            after = getattr(res_after, kind) or {}
            for res in QOS_RESOURCES:
                if res in before or res not in after:
                    continue
                q = parse_quantity(after[res])
                if q is None:
                    continue
                template = R_POD_LIMIT_DEFAULTED if kind == "limits" else R_POD_REQUEST_DEFAULTED
                out.append(
                    QosReason(
                        f"pod_{kind[:-1]}_defaulted",
                        Message(template, {"path": path, "resource": res, "value": _fmt(q)}),
                        field=f"{path}.{kind}[{res}]",
                        resource=res,
                    )
                )
    return out


def _scopes(
    pod: Pod, pod_level: bool, spec_path: str
) -> list[tuple[str | None, Message, str, ResourceRequirements | None]]:
    """Whose values decide the class: (container name, subject, resources path, resources)."""
    if pod_level:
        path = f"{spec_path}.resources"
        return [(None, plain(path), path, pod.spec.resources)]
    return [
        (c.name, _who(c, f"{spec_path}.{rel}"), f"{spec_path}.{rel}.resources", c.resources)
        for rel, c in pod.spec.all_containers()
    ]


def _best_effort_reasons(pod: Pod, pod_level: bool, spec_path: str) -> list[QosReason]:
    path = f"{spec_path}.resources"
    out = [
        QosReason(
            "best_effort",
            Message(R_BEST_EFFORT_POD, {"path": path}) if pod_level else Message(R_BEST_EFFORT, {}),
        )
    ]
    for name, who, rpath, res in _scopes(pod, pod_level, spec_path):
        if res is None:
            continue
        others = sorted(
            {n for lst in (res.requests, res.limits) for n in (lst or {}) if n not in QOS_RESOURCES}
        )
        if others:
            out.append(
                QosReason(
                    "other_resources_ignored",
                    Message(R_OTHERS_IGNORED, {"who": who, "resources": ", ".join(others)}),
                    container=name,
                    field=rpath,
                )
            )
        for kind in ("requests", "limits"):
            for r in QOS_RESOURCES:
                q = parse_resources(getattr(res, kind)).get(r)
                if q is not None and q.sign() <= 0:
                    params = {"who": who, "resource": r, "kind": kind[:-1], "value": _fmt(q)}
                    out.append(
                        QosReason(
                            "zero_ignored",
                            Message(R_ZERO_IGNORED, params),
                            container=name,
                            field=f"{rpath}.{kind}[{r}]",
                            resource=r,
                        )
                    )
    return out


def _guaranteed_reasons(pod: Pod, pod_level: bool, spec_path: str) -> list[QosReason]:
    if pod_level:
        path = f"{spec_path}.resources"
        return [QosReason("guaranteed", Message(R_GUARANTEED_POD, {"path": path}), field=path)]
    n = len(pod.spec.containers) + len(pod.spec.init_list)
    if pod.spec.init_list:
        template = R_GUARANTEED_WITH_INIT
    else:
        template = R_GUARANTEED_ONE if n == 1 else R_GUARANTEED_EVERY
    return [QosReason("guaranteed", Message(template, {}))]


def _burstable_reasons(pod: Pod, pod_level: bool, spec_path: str) -> list[QosReason]:
    path = f"{spec_path}.resources"
    out = [
        QosReason(
            "burstable",
            Message(R_BURSTABLE_POD, {"path": path}) if pod_level else Message(R_BURSTABLE, {}),
        )
    ]
    found = False
    for name, who, rpath, res in _scopes(pod, pod_level, spec_path):
        requests = res.requests if res else None
        limits = res.limits if res else None
        req, lim = _positive(requests), _positive(limits)
        for r in QOS_RESOURCES:
            if r not in lim:
                written = parse_resources(limits).get(r)
                message = (
                    Message(R_ZERO_LIMIT, {"who": who, "resource": r, "value": _fmt(written)})
                    if written is not None
                    else Message(R_NO_LIMIT, {"who": who, "resource": r})
                )
                out.append(
                    QosReason(
                        "missing_limit",
                        message,
                        container=name,
                        field=f"{rpath}.limits[{r}]",
                        resource=r,
                    )
                )
                found = True
            elif r not in req or req[r] != lim[r]:
                request = _fmt(req[r]) if r in req else "0"
                params = {"who": who, "resource": r, "request": request, "limit": _fmt(lim[r])}
                out.append(
                    QosReason(
                        "request_differs",
                        Message(R_REQUEST_DIFFERS, params),
                        container=name,
                        field=f"{rpath}.requests[{r}]",
                        resource=r,
                    )
                )
                found = True
    if not found:  # only reachable for pods validation rejects (a request above its limit)
        out.append(QosReason("requests_differ_from_limits", Message(R_SUMS_DIFFER, {})))
    return out
