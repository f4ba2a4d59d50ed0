"""The API server's resource defaulting, applied to a copy of a Pod.

Kubernetes computes everything downstream (status.qosClass, scheduling, the kubelet's
cgroups) from the *defaulted* pod, so the engine does too. This mirrors, for resources only,
pkg/apis/core/v1/defaults.go:

* ``SetDefaults_Pod``: for every container and init container (sidecars included) whose
  ``resources.limits`` is set, each resource with a limit but no request gets request =
  limit. Every resource name, not just cpu/memory (an ``nvidia.com/gpu`` limit becomes a
  request too).
* Pod-level resources (KEP-2837, ``PodLevelResources`` beta and on by default since 1.34),
  run after the container defaults, in this order:

  - ``defaultHugePagePodLimits``: when spec.resources sets anything, a ``hugepages-*``
    limit missing at pod level (and not requested at pod level) defaults to the containers'
    aggregated hugepages limit;
  - ``defaultPodRequests``: only when spec.resources.limits is set. A missing cpu/memory
    request defaults to the containers' aggregated (sidecar-aware) requests when any
    container requests it; otherwise any missing supported request defaults to the
    pod-level limit;
  - ``defaultPodLimits`` (the fix for kubernetes#136120, feature gate
    PodLevelResourcesFixUpdateDefaulting, 1.36+): when pod-level requests are set and a
    cpu/memory pod-level limit is not, it defaults to the aggregated container limits if
    *every* container (init and sidecar included) sets that limit. 1.34/1.35 API servers do
    not do this; pass ``default_pod_limits=False`` to model them.

* ``SetDefaults_ResourceList``: every quantity is rounded *up* to milli precision
  (``0.0001`` CPU becomes ``1m``), after the above.

Values the API server would have to invent are written as canonical quantity strings;
values it copies (request = limit) are copied as written. Unparsable values are never copied
or rounded: validation reports them, and defaulting treats them as absent.
``restartPolicy`` and other non-resource defaults are out of scope.

``version`` (a versions.ClusterVersion) answers for one release: before 1.34 the
PodLevelResources gate is off, so the API server drops ``spec.resources``
(``dropDisabledPodLevelResources``, pkg/api/pod/util.go; with the gate off defaulting skips it
too, so dropping it first gives the same pod), and 1.34/1.35 do not default pod-level limits.
Without a version the newest behaviour is modelled (``default_pod_limits`` decides).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

from designer.k8s.core import (
    Container,
    Pod,
    Quantity,
    ResourceList,
    ResourceRequirements,
    ResourceValue,
    aggregate_container_resources,
    is_hugepages,
    is_overcommit_allowed,
    is_pod_level_limits_set,
    is_pod_level_requests_set,
    is_supported_pod_level_resource,
    parse_quantity,
)

if TYPE_CHECKING:
    from designer.k8s.apiserver.versions import ClusterVersion

__all__ = ["pod_with_defaults", "round_up_to_milli"]


def pod_with_defaults(
    pod: Pod, *, default_pod_limits: bool = True, version: ClusterVersion | None = None
) -> Pod:
    """A copy of ``pod`` with the API server's resource defaulting applied (read-only).

    Compute it once per pod and pass it down: validation, QoS, the scheduler's sums and the
    kubelet view all take the defaulted pod. ``version`` answers for that release (and then
    decides ``default_pod_limits``).
    """
    drop_pod_level = False
    if version is not None and version.version is not None:
        default_pod_limits = version.default_pod_limits
        drop_pod_level = not version.pod_level_resources
    return _pod_with_defaults(pod, default_pod_limits, drop_pod_level)


def _pod_with_defaults(pod: Pod, default_pod_limits: bool, drop_pod_level: bool = False) -> Pod:
    out = _copy_resources(pod)
    spec = out.spec
    if drop_pod_level:
        spec.resources = None
    # SetDefaults_Pod walks containers, then init containers; order does not matter here.
    for c in [*spec.containers, *spec.init_list]:
        _default_container_requests(c)

    # "Pod Requests default values must be applied after container-level default values
    # have been populated." (defaults.go)
    _default_hugepage_pod_limits(out)
    _default_pod_requests(out)
    if default_pod_limits:
        _default_pod_limits(out)

    # zz_generated.defaults.go runs SetDefaults_ResourceList on every list after SetDefaults_Pod.
    for c in [*spec.init_list, *spec.containers]:
        if c.resources is not None:
            c.resources.limits = _rounded(c.resources.limits)
            c.resources.requests = _rounded(c.resources.requests)
    if spec.resources is not None:
        spec.resources.limits = _rounded(spec.resources.limits)
        spec.resources.requests = _rounded(spec.resources.requests)
    spec.overhead = _rounded(spec.overhead)
    return out


def _copy_requirements(r: ResourceRequirements | None) -> ResourceRequirements | None:
    if r is None:
        return None
    return r.model_copy(
        update={
            "requests": dict(r.requests) if r.requests is not None else None,
            "limits": dict(r.limits) if r.limits is not None else None,
        }
    )


def _copy_resources(pod: Pod) -> Pod:
    """A copy of ``pod`` in which everything defaulting writes is new: the spec, every
    container, their resources and resource lists. The rest is shared, read-only (a deep
    copy of whole manifests made the check of a cluster dump several times slower)."""

    def container(c: Container) -> Container:
        return c.model_copy(update={"resources": _copy_requirements(c.resources)})

    spec = pod.spec
    new_spec = spec.model_copy(
        update={
            "containers": [container(c) for c in spec.containers],
            "init_containers": [container(c) for c in spec.init_containers]
            if spec.init_containers is not None
            else None,
            "resources": _copy_requirements(spec.resources),
            "overhead": dict(spec.overhead) if spec.overhead is not None else None,
        }
    )
    return pod.model_copy(update={"spec": new_spec})


def _default_container_requests(c: Container) -> None:
    """SetDefaults_Pod: request = limit for every resource with a limit and no request."""
    if c.resources is None or c.resources.limits is None:
        return
    requests = c.resources.requests
    for name, value in c.resources.limits.items():
        if requests is not None and name in requests:
            continue
        if parse_quantity(value) is None:
            continue  # an unreadable limit is reported by validation, not copied
        if requests is None:
            requests = {}
            c.resources.requests = requests
        requests[name] = value


def _default_hugepage_pod_limits(pod: Pod) -> None:
    """defaultHugePagePodLimits (defaults.go)."""
    res = pod.spec.resources
    if res is None or (not res.limits and not res.requests):
        return
    pod_limits: ResourceList = dict(res.limits or {})
    aggregated = aggregate_container_resources(pod, "limits")
    for name, q in aggregated.items():
        if not is_supported_pod_level_resource(name) or not is_hugepages(name):
            continue
        # No pod-level hugepages limit is defaulted when the pod requests that size.
        if res.requests and name in res.requests:
            continue
        if name not in pod_limits:
            pod_limits[name] = q.canonical()
    if pod_limits:
        res.limits = pod_limits


def _default_pod_requests(pod: Pod) -> None:
    """defaultPodRequests (defaults.go): only when pod-level limits are set."""
    res = pod.spec.resources
    if res is None or not res.limits:
        return
    pod_requests: ResourceList = dict(res.requests or {})
    aggregated = aggregate_container_resources(pod, "requests")
    # Containers request it: the pod asks for what its containers ask for.
    for name, q in aggregated.items():
        if (
            name not in pod_requests
            and is_supported_pod_level_resource(name)
            and is_overcommit_allowed(name)
        ):
            pod_requests[name] = q.canonical()
    # No container requests it: the pod-level request defaults to the pod-level limit.
    for name, value in res.limits.items():
        if (
            name not in pod_requests
            and is_supported_pod_level_resource(name)
            and parse_quantity(value) is not None
        ):
            pod_requests[name] = value
    if pod_requests:
        res.requests = pod_requests


def _default_pod_limits(pod: Pod) -> None:
    """defaultPodLimits: pod-level requests set, a limit unset, every container limits it."""
    if is_pod_level_limits_set(pod) or not is_pod_level_requests_set(pod):
        return
    res = pod.spec.resources
    if res is None:  # pragma: no cover - requests are set, so resources is not None
        res = pod.spec.resources = ResourceRequirements()
    pod_limits: ResourceList = dict(res.limits or {})
    aggregated = aggregate_container_resources(pod, "limits")
    for name, q in aggregated.items():
        if (
            name in pod_limits
            or not is_supported_pod_level_resource(name)
            or not is_overcommit_allowed(name)
            or not _all_containers_limit(pod, name)
        ):
            continue
        pod_limits[name] = q.canonical()
    if pod_limits:
        res.limits = pod_limits


def _all_containers_limit(pod: Pod, name: str) -> bool:
    """Every container, init and sidecar included, sets a readable limit for ``name``."""
    return all(
        name in c.limits and parse_quantity(c.limits[name]) is not None
        for c in [*pod.spec.init_list, *pod.spec.containers]
    )


def round_up_to_milli(value: ResourceValue) -> ResourceValue:
    """SetDefaults_ResourceList for one value: RoundUp(-3), away from zero.

    Values already exact to the millis are returned untouched (as written); others become
    the canonical string of the rounded quantity. Unreadable values are returned untouched.
    """
    if type(value) is str or type(value) is int:
        return _round_up_to_milli_cached(value)
    return _round_up_to_milli(value)


@functools.lru_cache(maxsize=16384, typed=True)
def _round_up_to_milli_cached(value: str | int) -> ResourceValue:
    return _round_up_to_milli(value)


def _round_up_to_milli(value: ResourceValue) -> ResourceValue:
    q = parse_quantity(value)
    if q is None or q.is_integer():
        return value
    try:
        milli = q.as_fraction() * 1000
    except OverflowError:  # more than ten million digits: leave it to validation
        return value
    if milli.denominator == 1:
        return value
    rounded = math.ceil(abs(milli)) * (1 if milli > 0 else -1)
    # RoundUp keeps the quantity's format; canonical() then prints it the way Go does.
    return Quantity.from_fraction(Fraction(rounded, 1000), q.format).canonical()


def _rounded(resources: ResourceList | None) -> ResourceList | None:
    if resources is None:
        return None
    return {name: round_up_to_milli(v) for name, v in resources.items()}
