"""ResourceQuota for pods: the pod evaluator (pkg/quota/v1/evaluator/core/pods.go) and the
admission check (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).

* ``pod_usage`` (``PodUsageFunc``): ``count/pods`` always; for a pod that is not terminal,
  ``pods`` and ``podComputeUsageHelper`` of the pod's PodRequests/PodLimits (sidecar-aware,
  overhead included, pod-level cpu/memory/hugepages replacing the sums when PodLevelResources
  is on, ``max(spec, status)`` per container while InPlacePodVerticalScaling is on).
* ``matches`` / ``matching_scopes``: a quota applies when ``status.hard`` names a resource the
  pod evaluator tracks and every scope (``spec.scopes`` as Exists, AND the scopeSelector)
  matches; BestEffort uses the QoS class of the admitted pod.
* ``constraints``: "must specify" cpu/memory for every container and init container when a
  matching quota tracks them (skipped for pods with pod-level resources, gate on).
* ``check_request``: in quota order, "failed quota", "status unknown", then the first quota
  whose ``status.used + usage`` exceeds ``status.hard``: ``exceeded quota: q, requested:
  ..., used: ..., limited: ...`` (only the exceeded resources, sorted, ``k=v`` joined by ",").
* ``fits``: how many more pods like this one the matching quotas leave room for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from designer.k8s.apiserver import ClusterVersion, ResourceQuota, ScopeRequirement
from designer.k8s.core import (
    Container,
    Pod,
    Quantity,
    ResourceMap,
    ResourceRequirements,
    add,
    container_resources,
    is_extended_resource_name,
    is_pod_level_resources_set,
    parse_resources,
    pod_limits,
    pod_requests,
)
from designer.k8s.kubelet import BEST_EFFORT

COUNT_PODS = "count/pods"
# pods.go podResources and podResourcePrefixes.
POD_RESOURCES = frozenset(
    {
        COUNT_PODS,
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
    }
)
POD_RESOURCE_PREFIXES = ("hugepages-", "requests.hugepages-")
# The only resources "must specify" ever asks for ("do not add more resources to this list!").
VALIDATION_SET = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)
DRA_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"
ONE = Quantity.parse("1")


def _is_dra_extended(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource or the implicit DRA name."""
    return is_extended_resource_name(name) or (
        name.startswith(DRA_EXTENDED_PREFIX) and len(name) > len(DRA_EXTENDED_PREFIX)
    )


def compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceMap:
    """podComputeUsageHelper."""
    out: ResourceMap = {"pods": ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = requests[name]
            out[f"requests.{name}"] = requests[name]
        if name in limits:
            out[f"limits.{name}"] = limits[name]
    for name, q in requests.items():
        if name.startswith("hugepages-"):
            out[name] = q
            out[f"requests.{name}"] = q
        if _is_dra_extended(name):
            out[f"requests.{name}"] = q
    return out


def matching_resources(names: list[str] | tuple[str, ...] | set[str]) -> list[str]:
    """podEvaluator.MatchingResources: the names of a quota's hard list pods count against."""
    return sorted({n for n in names if _tracked(n)})


def _tracked(name: str) -> bool:
    if name in POD_RESOURCES or name.startswith(POD_RESOURCE_PREFIXES):
        return True
    # isExtendedResourceNameForQuota: extended resources only as "requests.<name>".
    return name.startswith("requests.") and _is_dra_extended(name[len("requests.") :])


# --- usage -----------------------------------------------------------------------------------


def _parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_quota_pod(
    metadata: Mapping[str, Any] | None,
    status: Mapping[str, Any] | None,
    now: datetime | None = None,
) -> bool:
    """QuotaV1Pod: not Failed/Succeeded, and not past its deletion grace period."""
    status = status or {}
    if status.get("phase") in ("Failed", "Succeeded"):
        return False
    meta = metadata or {}
    deleted = _parse_time(meta.get("deletionTimestamp"))
    grace = meta.get("deletionGracePeriodSeconds")
    if deleted is not None and isinstance(grace, int) and not isinstance(grace, bool):
        now = now or datetime.now(UTC)
        if deleted.tzinfo is None:
            deleted = deleted.replace(tzinfo=UTC)
        if now > deleted + timedelta(seconds=grace):
            return False
    return True


def _with_status_resources(pod: Pod, status: Mapping[str, Any]) -> Pod:
    """UseStatusResources: each container's requests and limits are max(spec, status)."""

    def statuses(key: str) -> dict[str, Mapping[str, Any]]:
        out = {}
        for cs in status.get(key) or []:
            if isinstance(cs, dict):
                out[str(cs.get("name") or "")] = cs
        return out

    def merged(c: Container, by_name: dict[str, Mapping[str, Any]]) -> Container:
        cs = by_name.get(c.name or "")
        resources = cs.get("resources") if cs else None
        if not isinstance(resources, dict):
            return c
        new = {}
        for kind in ("requests", "limits"):
            spec_values = container_resources(c, kind)  # type: ignore[arg-type]
            status_values = parse_resources(
                resources.get(kind) if isinstance(resources.get(kind), dict) else None
            )
            for n, q in status_values.items():
                if n not in spec_values or q > spec_values[n]:
                    spec_values[n] = q
            new[kind] = {n: q.canonical() for n, q in spec_values.items()} or None
        base = c.resources or ResourceRequirements()
        res = base.model_copy(update=new)
        return c.model_copy(update={"resources": res})

    apps, inits = statuses("containerStatuses"), statuses("initContainerStatuses")
    spec = pod.spec.model_copy(
        update={
            "containers": [merged(c, apps) for c in pod.spec.containers],
            "init_containers": [merged(c, inits) for c in pod.spec.init_containers]
            if pod.spec.init_containers is not None
            else None,
        }
    )
    return pod.model_copy(update={"spec": spec})


def pod_usage(
    pod: Pod,
    version: ClusterVersion,
    *,
    metadata: Mapping[str, Any] | None = None,
    status: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> ResourceMap:
    """PodUsageFunc on an admitted pod (``status``/``metadata`` for a live pod of a dump)."""
    usage: ResourceMap = {COUNT_PODS: ONE}
    if not is_quota_pod(metadata, status, now):
        return usage
    if status and version.in_place_resize:
        pod = _with_status_resources(pod, status)
    skip = not version.pod_level_resources
    usage.update(
        compute_usage(pod_requests(pod, skip_pod_level=skip), pod_limits(pod, skip_pod_level=skip))
    )
    return usage


# --- scopes ----------------------------------------------------------------------------------


def is_terminating(pod: Pod) -> bool:
    ads = (pod.spec.model_extra or {}).get("activeDeadlineSeconds")
    return isinstance(ads, int | float) and not isinstance(ads, bool) and ads >= 0


def _cross_namespace_terms(terms: Any, weighted: bool) -> bool:
    for term in terms if isinstance(terms, list) else []:
        if not isinstance(term, dict):
            continue
        t = term.get("podAffinityTerm") if weighted else term
        if isinstance(t, dict) and (t.get("namespaces") or t.get("namespaceSelector") is not None):
            return True
    return False


def uses_cross_namespace_pod_affinity(pod: Pod) -> bool:
    affinity = (pod.spec.model_extra or {}).get("affinity")
    if not isinstance(affinity, dict):
        return False
    for kind in ("podAffinity", "podAntiAffinity"):
        a = affinity.get(kind)
        if isinstance(a, dict) and (
            _cross_namespace_terms(a.get("requiredDuringSchedulingIgnoredDuringExecution"), False)
            or _cross_namespace_terms(
                a.get("preferredDuringSchedulingIgnoredDuringExecution"), True
            )
        ):
            return True
    return False


def _priority_class_matches(pod: Pod, req: ScopeRequirement) -> bool:
    """podMatchesSelector: a label selector on {"PriorityClass": name} (empty without one)."""
    name = pod.spec.priority_class_name or ""
    if req.operator == "Exists":
        return bool(name)
    has = bool(name)
    if req.operator == "In":
        return has and name in req.values
    if req.operator == "NotIn":
        return not has or name not in req.values
    if req.operator == "DoesNotExist":
        return not has
    return False


def scope_matches(req: ScopeRequirement, pod: Pod, qos_class: str | None) -> bool:
    """podMatchesScopeFunc."""
    scope = req.scope_name
    if scope == "Terminating":
        return is_terminating(pod)
    if scope == "NotTerminating":
        return not is_terminating(pod)
    if scope == "BestEffort":
        return qos_class == BEST_EFFORT
    if scope == "NotBestEffort":
        return qos_class != BEST_EFFORT
    if scope == "PriorityClass":
        return _priority_class_matches(pod, req)
    if scope == "CrossNamespacePodAffinity":
        return uses_cross_namespace_pod_affinity(pod)
    return False


def matching_scopes(
    pod: Pod, qos_class: str | None, selectors: list[ScopeRequirement]
) -> list[ScopeRequirement]:
    """podEvaluator.MatchingScopes."""
    return [s for s in selectors if scope_matches(s, pod, qos_class)]


def matches(quota: ResourceQuota, pod: Pod, qos_class: str | None) -> bool:
    """generic.Matches: a tracked resource in status.hard and every scope selector matches."""
    if not matching_resources(list(quota.status_hard or {})):
        return False
    return all(scope_matches(s, pod, qos_class) for s in quota.selectors())


# --- the admission check ---------------------------------------------------------------------


def handles(operation: str, subresource: str, old: Pod | None, new: Pod | None) -> bool:
    """podEvaluator.Handles: CREATE; an UPDATE that adds or removes activeDeadlineSeconds
    (so Terminating/NotTerminating usage moves); the ``resize`` subresource's UPDATE."""
    if subresource == "":
        if operation == "CREATE":
            return True
        if operation == "UPDATE" and old is not None and new is not None:
            return is_terminating(old) != is_terminating(new)
        return False
    return subresource == "resize" and operation == "UPDATE"


def constraints(required: list[str], pod: Pod, version: ClusterVersion) -> str | None:
    """podEvaluator.Constraints: ``must specify ...`` or None."""
    if version.pod_level_resources and is_pod_level_resources_set(pod):
        return None
    required_set = set(required) & VALIDATION_SET
    missing: dict[str, set[str]] = {}
    for c in [*pod.spec.containers, *pod.spec.init_list]:
        have = compute_usage(container_resources(c, "requests"), container_resources(c, "limits"))
        for name in required_set - set(have):
            missing.setdefault(name, set()).add(c.name or "")
    if not missing:
        return None
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return "must specify " + "; ".join(parts)


def pretty_print(values: Mapping[str, Quantity]) -> str:
    """prettyPrint: ``k=v`` sorted by name, joined by ","."""
    return ",".join(f"{k}={values[k].canonical()}" for k in sorted(values))


def mask(values: Mapping[str, Quantity], names: Any) -> ResourceMap:
    wanted = set(names)
    return {k: v for k, v in values.items() if k in wanted}


def add_lists(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceMap:
    """quota.Add: the first list is the receiver."""
    out: ResourceMap = {}
    for k, v in a.items():
        out[k] = add(v, b[k]) if k in b else v
    for k, v in b.items():
        if k not in a:
            out[k] = v
    return out


@dataclass(frozen=True)
class LimitedResource:
    """An AdmissionConfiguration ``limitedResources`` entry (cluster configuration)."""

    resource: str
    api_group: str = ""
    match_contains: tuple[str, ...] = ()
    match_scopes: tuple[ScopeRequirement, ...] = ()


@dataclass(frozen=True)
class QuotaDenial:
    source: str  # "ResourceQuota/<name>", or "" for a cluster-configuration refusal
    message: str
    forbidden: bool = True  # wrapped in admission.NewForbidden (one refusal is not)


@dataclass
class QuotaCheck:
    """What the quota admission says about one more pod."""

    matched: list[ResourceQuota] = field(default_factory=list)
    denials: list[QuotaDenial] = field(default_factory=list)
    usage: ResourceMap = field(default_factory=dict)
    # status.used the admission writes back, by quota name (when the pod is admitted).
    new_used: dict[str, ResourceMap] = field(default_factory=dict)


def check_request(
    pod: Pod,
    quotas: list[ResourceQuota],
    version: ClusterVersion,
    qos_class: str | None,
    *,
    limited: list[LimitedResource] | None = None,
    used: Mapping[str, Mapping[str, Quantity]] | None = None,
    stop_at_first: bool = True,
) -> QuotaCheck:
    """CheckRequest for a CREATE. ``used`` replaces a quota's status.used (by name), to ask
    about the n-th pod. With ``stop_at_first=False`` every failing quota is reported (the
    API server stops at the first)."""
    out = QuotaCheck()
    usage = pod_usage(pod, version)
    out.usage = usage
    pods_limited = [lr for lr in limited or [] if lr.resource == "pods" and lr.api_group == ""]
    limited_scopes: list[ScopeRequirement] = []
    for lr in pods_limited:
        limited_scopes += matching_scopes(pod, qos_class, list(lr.match_scopes))
    limited_names: set[str] = set()
    for lr in pods_limited:
        for k, v in usage.items():
            if v.sign() == 1 and any(m in k for m in lr.match_contains):
                limited_names.add(k)

    restricted_scopes: list[ScopeRequirement] = []
    restricted_names: set[str] = set()
    interesting: list[ResourceQuota] = []
    for q in quotas:
        restricted_scopes += matching_scopes(pod, qos_class, q.selectors())
        if not matches(q, pod, qos_class):
            continue
        restricted = matching_resources(list(q.status_hard or {}))
        error = constraints(restricted, pod, version)
        if error is not None:
            out.denials.append(QuotaDenial(q.ref, f"failed quota: {q.name}: {error}"))
            if stop_at_first:
                return out
            continue
        q_used = (used or {}).get(q.name, q.status_used or {})
        if any(name not in q_used for name in (q.status_hard or {}) if name in restricted):
            message = f"status unknown for quota: {q.name}, resources: {','.join(restricted)}"
            out.denials.append(QuotaDenial(q.ref, message))
            if stop_at_first:
                return out
            continue
        interesting.append(q)
        restricted_names.update(restricted)
    out.matched = interesting

    uncovered = sorted(limited_names - restricted_names)
    if uncovered:
        out.denials.append(QuotaDenial("", f"insufficient quota to consume: {','.join(uncovered)}"))
        if stop_at_first:
            return out
    covered = {s.scope_name for s in restricted_scopes}
    uncovered_scopes = [s for s in limited_scopes if s.scope_name not in covered]
    if uncovered_scopes:
        text = "[" + " ".join(s.go() for s in uncovered_scopes) + "]"
        out.denials.append(
            QuotaDenial("", f"insufficient quota to match these scopes: {text}", forbidden=False)
        )
        if stop_at_first:
            return out
    if not interesting:
        return out
    delta = {k: v for k, v in usage.items() if not v.is_zero()}
    if not delta:
        return out
    for q in interesting:
        hard = q.status_hard or {}
        q_used = (used or {}).get(q.name, q.status_used or {})
        requested = mask(delta, hard)
        new_usage = mask(add_lists(q_used, requested), requested)
        exceeded = sorted(k for k, v in hard.items() if k in new_usage and new_usage[k] > v)
        if exceeded:
            message = (
                f"exceeded quota: {q.name}, requested: {pretty_print(mask(requested, exceeded))}, "
                f"used: {pretty_print(mask(q_used, exceeded))}, "
                f"limited: {pretty_print(mask(hard, exceeded))}"
            )
            out.denials.append(QuotaDenial(q.ref, message))
            if stop_at_first:
                return out
            continue
        out.new_used[q.name] = add_lists(q_used, requested)
    return out


# --- how many more fit -----------------------------------------------------------------------


@dataclass(frozen=True)
class Room:
    fits: int | None  # None: no matching quota limits anything this pod uses
    bottleneck: str | None  # the quota resource that runs out first
    quota: str | None  # "ResourceQuota/<name>" holding it


def _fraction(q: Quantity) -> Fraction | None:
    try:
        return q.as_fraction()
    except OverflowError:
        return None


def room(usage: Mapping[str, Quantity], quotas: list[ResourceQuota]) -> Room:
    """How many more pods with ``usage`` the (matching, checked) quotas admit in a row."""
    best: tuple[int, str, str] | None = None
    for q in quotas:
        hard = q.status_hard or {}
        used = q.status_used or {}
        for name in sorted(hard):
            per_pod = usage.get(name)
            if per_pod is None or per_pod.sign() <= 0:
                continue
            h, u, p = (
                _fraction(hard[name]),
                _fraction(used.get(name, Quantity.parse("0"))),
                _fraction(per_pod),
            )
            if h is None or u is None or p is None or p <= 0:
                continue
            n = max(0, math.floor((h - u) / p))
            if best is None or n < best[0]:
                best = (n, name, q.ref)
    if best is None:
        return Room(None, None, None)
    return Room(*best)


def advanced_usage(
    quotas: list[ResourceQuota], usage: Mapping[str, Quantity], n: int
) -> dict[str, ResourceMap]:
    """status.used of each quota after ``n`` more pods with ``usage`` were admitted."""
    out: dict[str, ResourceMap] = {}
    for q in quotas:
        used = dict(q.status_used or {})
        hard = q.status_hard or {}
        for name, per_pod in usage.items():
            if name not in hard or per_pod.is_zero():
                continue
            p = _fraction(per_pod)
            if p is None:
                continue
            extra = Quantity.from_fraction(p * n, per_pod.format)
            used[name] = add(used[name], extra) if name in used else extra
        out[q.name] = used
    return out


# --- what a namespace's pods use (the quota controller's status) ------------------------------


def usage_stats(
    pods: list[tuple[Pod, Mapping[str, Any], Mapping[str, Any]]],
    quota: ResourceQuota,
    version: ClusterVersion,
    qos_of: Callable[[Pod], str | None],
    *,
    now: datetime | None = None,
) -> ResourceMap:
    """podEvaluator.UsageStats: the usage of the pods (pod, metadata, status) a quota's
    scopes select, for the resources it tracks (all of pods.go's keys when ``quota.hard``
    is empty, as the tests call it)."""
    total: ResourceMap = {}
    selectors = quota.selectors()
    for pod, meta, status in pods:
        qos = qos_of(pod)
        if not all(scope_matches(s, pod, qos) for s in selectors):
            continue
        for k, v in pod_usage(pod, version, metadata=meta, status=status, now=now).items():
            total[k] = add(total[k], v) if k in total else v
    if quota.hard:
        total = mask(total, matching_resources(list(quota.hard)))
    return total
