"""Resource names and the sums everything downstream computes from them.

* Names: the predicates of pkg/apis/core/helper/helpers.go and pkg/apis/core/v1/helper
  (standard, native, extended, integer, hugepages, overcommit, pod-level support).
* Sums: ``PodRequests`` / ``PodLimits`` / ``AggregateContainerRequests`` /
  ``AggregateContainerLimits`` of k8s.io/component-helpers/resource/helpers.go (the code the
  scheduler's NodeResourcesFit plugin, the kubelet's admission and cgroup sizing, quota and the
  eviction manager all call), for a pod that has not started yet (no status, so the
  in-place-resize ``UseStatusResources`` branches never apply):

  * steady state = sum of the app containers + every restartable init container (native
    sidecar);
  * init phase *i* = init container *i*'s own value + the sidecars started before it (a
    sidecar's own phase is the running total of sidecars up to and including it);
  * effective = max(steady state, every init phase), resource by resource;
  * pod-level ``spec.resources`` (KEP-2837) replaces the result for the resources it supports
    (cpu, memory and ``hugepages-*``) and only for the names it sets;
  * ``spec.overhead`` is then added: to every request, and only to non-zero limits.

Values are :class:`Quantity`; zero entries stay in the result exactly as Go keeps them (a
container asking for ``cpu: 0`` yields ``cpu: 0``). Unparsable values are skipped (validation
reports them), so one bad field never hides the rest. The functions here take the pod as
given: pass the defaulted pod (apiserver.pod_with_defaults) to get what Kubernetes computes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from designer.k8s.core.model import Container, Pod, ResourceList, ResourceValue
from designer.k8s.core.names import is_qualified_name
from designer.k8s.core.quantity import Quantity, QuantityError

ResourceMap = dict[str, Quantity]
Kind = Literal["requests", "limits"]

HUGEPAGES_PREFIX = "hugepages-"
QUOTA_HUGEPAGES_PREFIX = "requests.hugepages-"
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_REQUESTS_PREFIX = "requests."


# helper.standardContainerResources (plus every ``hugepages-<size>``).
STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")

# helper.standardResources: what an unqualified name may be anywhere (plus hugepages).
STANDARD_RESOURCES = (
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
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
)

# helper.integerResources; extended resources (vendor.com/thing) are integers too.
INTEGER_RESOURCES = (
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
)

# component-helpers/resource: supportedPodLevelResources; hugepages-* via the prefix.
# SupportedPodLevelResources() lists the prefix itself, so the Unsupported message says
# "hugepages-" (sets.List sorts the names).
# component-helpers/resource: supportedPodLevelResources; hugepages-* via the prefix.
# SupportedPodLevelResources() lists the prefix itself, so the Unsupported message says
# "hugepages-" (sets.List sorts the names).
POD_LEVEL_RESOURCES = ("cpu", "memory")


# --- resource names (pkg/apis/core/v1/helper/helpers.go, component-helpers/resource) --------


def is_hugepages(name: str) -> bool:
    """IsHugePageResourceName: the ``hugepages-<size>`` prefix."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_native_resource(name: str) -> bool:
    """IsNativeResource: unprefixed, or in the ``*kubernetes.io/`` namespace."""
    return "/" not in name or DEFAULT_NAMESPACE_PREFIX in name


def is_overcommit_allowed(name: str) -> bool:
    """IsOvercommitAllowed: native and not hugepages (extended resources never overcommit)."""
    return is_native_resource(name) and not is_hugepages(name)


def is_supported_pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and hugepages-* only."""
    return name in ("cpu", "memory") or is_hugepages(name)


def is_quota_hugepage_resource_name(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX) or name.startswith(QUOTA_HUGEPAGES_PREFIX)


def is_standard_resource_name(name: str) -> bool:
    return name in STANDARD_RESOURCES or is_quota_hugepage_resource_name(name)


def is_standard_container_resource_name(name: str) -> bool:
    return name in STANDARD_CONTAINER_RESOURCES or is_hugepages(name)


def is_extended_resource_name(name: str) -> bool:
    """Not native, not ``requests.``-prefixed, and a qualified name once so prefixed."""
    if is_native_resource(name) or name.startswith(DEFAULT_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_REQUESTS_PREFIX + name)


def is_integer_resource_name(name: str) -> bool:
    return name in INTEGER_RESOURCES or is_extended_resource_name(name)


def supported_pod_level_resources() -> list[str]:
    """sets.List(SupportedPodLevelResources()): sorted, the hugepages prefix included."""
    return sorted([*POD_LEVEL_RESOURCES, HUGEPAGES_PREFIX])


# --- parsing ---------------------------------------------------------------------------------


def parse_quantity(value: ResourceValue) -> Quantity | None:
    """The value as a Quantity, or None when it cannot be read (validation reports it)."""
    try:
        return Quantity.from_json(value)
    except (QuantityError, TypeError, ValueError):
        return None


def parse_resources(resources: Mapping[str, ResourceValue] | None) -> ResourceMap:
    """A ResourceList with its readable entries parsed; unreadable entries are left out."""
    out: ResourceMap = {}
    for name, value in (resources or {}).items():
        q = parse_quantity(value)
        if q is not None:
            out[name] = q
    return out


def unreadable_names(resources: Mapping[str, ResourceValue] | None) -> list[str]:
    """Names whose value cannot be read as a quantity."""
    return [n for n, v in (resources or {}).items() if parse_quantity(v) is None]


@dataclass(frozen=True)
class Unreadable:
    """A resource value that cannot be read as a quantity, with the field it sits at.

    The API server rejects such a pod, so no scheduler or kubelet ever computes with it;
    an answer that depends on it can only say that it cannot be computed.
    """

    field: str  # e.g. "spec.containers[0].resources.limits[memory]"
    resource: str
    value: str  # as written

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "resource": self.resource, "value": self.value}


def _shown(value: ResourceValue) -> str:
    return value if isinstance(value, str) else str(value)


def unreadable_quantities(
    pod: Pod,
    spec_path: str = "spec",
    *,
    keep: Callable[[str], bool] | None = None,
    as_requests: bool = False,
) -> list[Unreadable]:
    """The values of ``pod`` (containers, pod level, overhead) that are not quantities.

    ``keep`` limits the resource names looked at. With ``as_requests`` only the values a
    request is or defaults to are listed: a request, or the limit a missing request is
    copied from (SetDefaults_Pod), which is everything the scheduler's sums read.
    """
    out: list[Unreadable] = []

    def check(requests: ResourceList, limits: ResourceList, path: str) -> None:
        for kind, values in (("requests", requests), ("limits", limits)):
            for name, value in values.items():
                if keep is not None and not keep(name):
                    continue
                if as_requests and kind == "limits" and name in requests:
                    continue
                if parse_quantity(value) is None:
                    out.append(Unreadable(f"{path}.{kind}[{name}]", name, _shown(value)))

    for rel, c in pod.spec.all_containers():
        check(c.requests, c.limits, f"{spec_path}.{rel}.resources")
    res = pod.spec.resources
    if res is not None:
        check(res.requests or {}, res.limits or {}, f"{spec_path}.resources")
    for name, value in (pod.spec.overhead or {}).items():
        if (keep is None or keep(name)) and parse_quantity(value) is None:
            out.append(Unreadable(f"{spec_path}.overhead[{name}]", name, _shown(value)))
    return out


def container_resources(container: Container, kind: Kind) -> ResourceMap:
    return parse_resources(container.requests if kind == "requests" else container.limits)


def pod_level_list(pod: Pod, kind: Kind) -> ResourceList | None:
    res = pod.spec.resources
    if res is None:
        return None
    return res.requests if kind == "requests" else res.limits


# --- pod-level presence (component-helpers/resource/helpers.go) ------------------------------


def is_pod_level_requests_set(pod: Pod) -> bool:
    """IsPodLevelRequestsSet: spec.resources.requests names a supported resource."""
    return any(is_supported_pod_level_resource(n) for n in pod_level_list(pod, "requests") or {})


def is_pod_level_limits_set(pod: Pod) -> bool:
    """IsPodLevelLimitsSet: spec.resources.limits names a supported resource."""
    return any(is_supported_pod_level_resource(n) for n in pod_level_list(pod, "limits") or {})


def is_pod_level_resources_set(pod: Pod) -> bool:
    """IsPodLevelResourcesSet: either list names a supported resource (values don't matter)."""
    return is_pod_level_requests_set(pod) or is_pod_level_limits_set(pod)


# --- ResourceList arithmetic (addResourceList / maxResourceList) -----------------------------


def add(a: Quantity, b: Quantity) -> Quantity:
    """``a + b`` (Quantity.Add: ``a`` is the receiver, so its format wins when printing).

    A sum too long to hold (more than ten million digits, e.g. ``1e999999999 + 1``) keeps
    the larger term instead of raising: only hostile input gets there, and no answer
    should crash on it.
    """
    try:
        return a + b
    except OverflowError:
        return a if a >= b else b


def add_into(acc: ResourceMap, new: Mapping[str, Quantity]) -> None:
    """addResourceList: the running value is the receiver, so its format wins when printing."""
    for name, q in new.items():
        acc[name] = add(acc[name], q) if name in acc else q


def max_into(acc: ResourceMap, new: Mapping[str, Quantity]) -> None:
    """maxResourceList: take the new value only when strictly greater (or absent)."""
    for name, q in new.items():
        if name not in acc or q > acc[name]:
            acc[name] = q


ContainerFn = Callable[[ResourceMap, bool], None]


def aggregate_container_resources(
    pod: Pod,
    kind: Kind,
    *,
    non_missing: Mapping[str, Quantity] | None = None,
    container_fn: ContainerFn | None = None,
) -> ResourceMap:
    """AggregateContainerRequests / AggregateContainerLimits (sidecar-aware, KEP-753).

    ``non_missing`` mirrors PodResourcesOptions.NonMissingContainerRequests (requests only):
    a container that does not name the resource counts that value instead.
    ``container_fn`` mirrors PodResourcesOptions.ContainerFn: called with each app
    container's own list (``is_init=False``) and, for each init container, the list of its
    phase (own + earlier sidecars, or the running sidecar total for a sidecar).
    """
    result: ResourceMap = {}
    for c in pod.spec.containers:
        res = _with_non_missing(c, kind, non_missing)
        if container_fn is not None:
            container_fn(res, False)
        add_into(result, res)

    sidecars: ResourceMap = {}
    init_max: ResourceMap = {}
    for c in pod.spec.init_list:
        res = _with_non_missing(c, kind, non_missing)
        if c.is_sidecar:
            # A sidecar keeps running: it adds to the steady state and to every later phase.
            add_into(result, res)
            add_into(sidecars, res)
            phase = dict(sidecars)
        else:
            phase = dict(res)
            add_into(phase, sidecars)
        if container_fn is not None:
            container_fn(phase, True)
        max_into(init_max, phase)
    max_into(result, init_max)
    return result


def _with_non_missing(
    c: Container, kind: Kind, non_missing: Mapping[str, Quantity] | None
) -> ResourceMap:
    res = container_resources(c, kind)
    if kind == "requests" and non_missing:
        # applyNonMissing: keyed on presence in the manifest, not on the value.
        raw = c.requests
        for name, q in non_missing.items():
            if name not in raw:
                res[name] = q
    return res


def pod_requests(
    pod: Pod,
    *,
    exclude_overhead: bool = False,
    skip_pod_level: bool = False,
    non_missing: Mapping[str, Quantity] | None = None,
) -> ResourceMap:
    """PodRequests on the pod exactly as given (no defaulting)."""
    reqs = aggregate_container_resources(pod, "requests", non_missing=non_missing)
    if not skip_pod_level and is_pod_level_requests_set(pod):
        for name, q in parse_resources(pod_level_list(pod, "requests")).items():
            if is_supported_pod_level_resource(name):
                reqs[name] = q
    if not exclude_overhead and pod.spec.overhead is not None:
        add_into(reqs, parse_resources(pod.spec.overhead))
    return reqs


def pod_limits(
    pod: Pod,
    *,
    exclude_overhead: bool = False,
    skip_pod_level: bool = False,
    container_fn: ContainerFn | None = None,
) -> ResourceMap:
    """PodLimits on the pod exactly as given (no defaulting)."""
    limits = aggregate_container_resources(pod, "limits", container_fn=container_fn)
    if not skip_pod_level and is_pod_level_resources_set(pod):
        for name, q in parse_resources(pod_level_list(pod, "limits")).items():
            if is_supported_pod_level_resource(name):
                limits[name] = q
    if not exclude_overhead and pod.spec.overhead is not None:
        # Overhead only raises a limit that exists and is non-zero: no limit stays no limit.
        for name, q in parse_resources(pod.spec.overhead).items():
            if name in limits and not limits[name].is_zero():
                limits[name] = add(limits[name], q)
    return limits


# --- printing ---------------------------------------------------------------------------------


def resource_sort_key(name: str) -> tuple[int, str]:
    """cpu, memory first, then everything else alphabetically."""
    order = {"cpu": 0, "memory": 1}
    return (order.get(name, 2), name)


def format_resources(resources: Mapping[str, Quantity]) -> dict[str, str]:
    """Canonical strings (as ``kubectl get -o yaml`` prints them), cpu and memory first."""
    return {name: resources[name].canonical() for name in sorted(resources, key=resource_sort_key)}


# --- Go's int64 views of a quantity ------------------------------------------------------------


def go_scaled_value(q: Quantity, milli: bool = False) -> int:
    """Value() / MilliValue() exactly as Go computes them, silent int64 overflow included
    (see Quantity.go_scaled_value): the API server, the scheduler and the kubelet all compute
    with that number, so we do the same and never fail."""
    return q.go_scaled_value(-3 if milli else 0)


def _int64(value: Callable[[], int], negative: bool = False) -> int:
    """Value()/MilliValue(), saturating where Go would silently overflow int64."""
    try:
        return value()
    except OverflowError:
        return -(2**63) if negative else 2**63 - 1


def milli(q: Quantity) -> int:
    """q.MilliValue() (rounded up, as Go does), saturating at the int64 bounds."""
    return _int64(q.milli_value, q.sign() < 0)


def whole(q: Quantity) -> int:
    """q.Value() (rounded up, as Go does), saturating at the int64 bounds."""
    return _int64(q.value, q.sign() < 0)
