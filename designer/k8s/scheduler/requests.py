"""What the scheduler counts: a pod's effective requests and limits, and the phases behind them.

``effective_requests`` is ``PodRequests`` (k8s.io/component-helpers/resource, see
core.resources) on the pod as the API server stores it: the NodeResourcesFit *filter* fits it
on a node. ``scoring_requests`` is what the same plugin *scores* nodes with.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import (
    Kind,
    Pod,
    Quantity,
    ResourceMap,
    add_into,
    container_resources,
    pod_limits,
    pod_requests,
)

# pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest / DefaultMemoryRequest. Only the
# NodeResourcesFit *scoring* uses them (NonMissingContainerRequests), never the fit check.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


# --- public API ------------------------------------------------------------------------------


def _prepared(pod: Pod, apply_defaults: bool) -> Pod:
    if not apply_defaults:
        return pod

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
