"""What the scheduler counts: a pod's effective requests and limits.

Mirrors ``PodRequests`` / ``PodLimits`` / ``AggregateContainerRequests`` /
``AggregateContainerLimits`` of k8s.io/component-helpers/resource/helpers.go (the code the
scheduler's NodeResourcesFit plugin, the kubelet's admission and cgroup sizing, quota and the
eviction manager all call), for a pod that has not started yet (no status, so the
in-place-resize ``UseStatusResources`` branches never apply):

* steady state = sum of the app containers + every restartable init container (native sidecar);
* init phase *i* = init container *i*'s own value + the sidecars started before it (a sidecar's
  own phase is the running total of sidecars up to and including it);
* effective = max(steady state, every init phase), resource by resource;
* pod-level ``spec.resources`` (KEP-2837) replaces the result for the resources it supports
  (cpu, memory and ``hugepages-*``) and only for the names it sets;
* ``spec.overhead`` is then added: to every request, and only to non-zero limits.

Values are :class:`Quantity`; zero entries stay in the result exactly as Go keeps them (a
container asking for ``cpu: 0`` yields ``cpu: 0``). Unparsable values are skipped (the
validation module reports them), so one bad field never hides the rest.

This module also holds the small resource-name helpers the sibling modules share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from designer.k8s.model import Container, Pod, ResourceList, ResourceValue
from designer.k8s.quantity import Quantity, QuantityError

ResourceMap = dict[str, Quantity]
Kind = Literal["requests", "limits"]

HUGEPAGES_PREFIX = "hugepages-"
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"

# pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest / DefaultMemoryRequest. Only the
# NodeResourcesFit *scoring* uses them (NonMissingContainerRequests), never the fit check.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


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


# --- public API ------------------------------------------------------------------------------


def _prepared(pod: Pod, apply_defaults: bool) -> Pod:
    if not apply_defaults:
        return pod
    from designer.k8s.defaults import pod_with_defaults  # defaults imports this module

    return pod_with_defaults(pod)


def effective_requests(pod: Pod, *, apply_defaults: bool = True) -> dict[str, Quantity]:
    """The requests the scheduler fits on a node (PodRequests, overhead included).

    By default the pod is first defaulted as the API server stores it (a limit without a
    request becomes the request, pod-level requests are derived); pass
    ``apply_defaults=False`` to evaluate a pod that is already defaulted or to mirror the
    Go function on a raw object.
    """
    return pod_requests(_prepared(pod, apply_defaults))


def effective_limits(pod: Pod, *, apply_defaults: bool = True) -> dict[str, Quantity]:
    """The pod's limits as PodLimits computes them (overhead added to non-zero limits).

    A resource is missing when no container (and no pod-level limit) bounds it; note that a
    pod whose containers are only partly limited still gets the sum of the limits that
    exist, which is what quota and the kubelet's cgroup code start from.
    """
    return pod_limits(_prepared(pod, apply_defaults))


def scoring_requests(pod: Pod, *, apply_defaults: bool = True) -> dict[str, Quantity]:
    """The requests NodeResourcesFit *scores* nodes with (not the fit check).

    pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
    calculatePodResourceRequest: a container that names no cpu (memory) request counts
    100m (200Mi) so that request-less pods still spread; an explicit ``0`` stays 0.
    """
    non_missing = {
        "cpu": Quantity.from_fraction(Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), "DecimalSI"),
        "memory": Quantity.from_fraction(Fraction(DEFAULT_MEMORY_REQUEST), "DecimalSI"),
    }
    return pod_requests(_prepared(pod, apply_defaults), non_missing=non_missing)


def resource_sort_key(name: str) -> tuple[int, str]:
    """cpu, memory first, then everything else alphabetically."""
    order = {"cpu": 0, "memory": 1}
    return (order.get(name, 2), name)


def format_resources(resources: Mapping[str, Quantity]) -> dict[str, str]:
    """Canonical strings (as ``kubectl get -o yaml`` prints them), cpu and memory first."""
    return {name: resources[name].canonical() for name in sorted(resources, key=resource_sort_key)}


@dataclass(frozen=True)
class RequestPhase:
    """One moment of the pod's life and what it needs then (for explaining a max)."""

    label: str  # English, e.g. 'init container "migrate" (spec.initContainers[0])'
    kind: Literal["init", "running"]
    containers: tuple[str, ...]  # field paths of the containers counted in this phase
    resources: dict[str, Quantity]


def request_phases(
    pod: Pod, *, kind: Kind = "requests", apply_defaults: bool = True, spec_path: str = "spec"
) -> list[RequestPhase]:
    """The init phases and the steady state whose per-resource max the pod asks for.

    Same arithmetic as :func:`aggregate_container_resources`, kept per phase so the UI can
    show why, say, a big init container sets the pod's CPU request. Pod-level resources
    and overhead are not part of the phases (they apply on top, see :func:`effective_requests`).
    """
    p = _prepared(pod, apply_defaults)
    phases: list[RequestPhase] = []
    sidecars: ResourceMap = {}
    sidecar_paths: list[str] = []
    for i, c in enumerate(p.spec.init_list):
        path = f"{spec_path}.initContainers[{i}]"
        res = container_resources(c, kind)
        if c.is_sidecar:
            add_into(sidecars, res)
            sidecar_paths.append(path)
            phases.append(
                RequestPhase(
                    f'sidecar "{c.name}" ({path}) starting, with the sidecars before it',
                    "init",
                    tuple(sidecar_paths),
                    dict(sidecars),
                )
            )
        else:
            phase = dict(res)
            add_into(phase, sidecars)
            phases.append(
                RequestPhase(
                    f'init container "{c.name}" ({path}) running'
                    + (", with the sidecars started before it" if sidecar_paths else ""),
                    "init",
                    (*sidecar_paths, path),
                    phase,
                )
            )
    running: ResourceMap = {}
    paths: list[str] = []
    for i, c in enumerate(p.spec.containers):
        add_into(running, container_resources(c, kind))
        paths.append(f"{spec_path}.containers[{i}]")
    add_into(running, sidecars)
    phases.append(
        RequestPhase(
            "app containers running" + (" with their sidecars" if sidecar_paths else ""),
            "running",
            (*paths, *sidecar_paths),
            running,
        )
    )
    return phases
