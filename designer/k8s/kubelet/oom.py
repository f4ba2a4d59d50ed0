"""oom_score_adj: GetContainerOOMScoreAdjust of pkg/kubelet/qos/policy.go, and why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from designer.k8s.core import (
    Container,
    Message,
    Pod,
    aggregate_container_resources,
    gettext_noop,
    go_scaled_value,
    is_pod_level_requests_set,
    parse_quantity,
    parse_resources,
    pod_level_list,
)
from designer.k8s.kubelet.cgroups import _go_div, _wrap64
from designer.k8s.kubelet.qos import BEST_EFFORT, GUARANTEED, compute_qos_class

# pkg/kubelet/qos/policy.go
GUARANTEED_OOM_SCORE_ADJ = -997


BEST_EFFORT_OOM_SCORE_ADJ = 1000


SYSTEM_NODE_CRITICAL = "system-node-critical"


SYSTEM_CRITICAL_PRIORITY = 2_000_000_000  # pkg/apis/scheduling: SystemCriticalPriority


def _is_node_critical(pod: Pod) -> bool:
    """types.IsNodeCriticalPod: critical (priority >= 2e9, filled in by the Priority admission
    plugin from the class) and priorityClassName system-node-critical."""
    if pod.spec.priority_class_name != SYSTEM_NODE_CRITICAL:
        return False
    priority = (pod.spec.model_extra or {}).get("priority")
    return not isinstance(priority, int) or priority >= SYSTEM_CRITICAL_PRIORITY


def _is_sidecar(pod: Pod, c: Container) -> bool:
    """isSidecarContainer (policy.go): restartPolicy Always and listed as an init container."""
    return c.is_sidecar and any(i.name == c.name for i in pod.spec.init_list)


def _memory_request_value(c: Container) -> int:
    """container.Resources.Requests.Memory().Value()."""
    q = parse_quantity(c.requests["memory"]) if "memory" in c.requests else None
    return go_scaled_value(q) if q is not None else 0


def _dra_memory(pod: Pod, c: Container) -> int:
    """The memory a container gets from DRA node-allocatable resource claims
    (pod.status.nodeAllocatableResourceClaimStatuses, gate DRANodeAllocatableResources,
    newer than 1.34): a claim's mapping and perPod overhead split among the containers that
    reference it, plus its perContainer overhead."""
    status = (pod.model_extra or {}).get("status")
    claims = (
        status.get("nodeAllocatableResourceClaimStatuses") if isinstance(status, Mapping) else None
    )
    total = 0
    for claim in claims if isinstance(claims, list) else []:
        if not isinstance(claim, Mapping):
            continue
        refs = [n for n in claim.get("containers") or [] if isinstance(n, str)]
        if c.name not in refs:
            continue

        def memory(entries: Any, key: str) -> int:
            out = 0
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, Mapping) and entry.get("name") == "memory" and key in entry:
                    q = parse_quantity(entry[key])
                    out += go_scaled_value(q) if q is not None else 0
            return out

        total += _go_div(memory(claim.get("mapping"), "quantity"), len(refs))
        total += _go_div(memory(claim.get("overhead"), "perPod"), len(refs))
        total += memory(claim.get("overhead"), "perContainer")
    return total


def _effective_memory_request(pod: Pod, c: Container, dra: bool) -> int:
    """getEffectiveContainerMemoryRequest: the request, plus DRA memory when the gate is on."""
    return _memory_request_value(c) + (_dra_memory(pod, c) if dra else 0)


def _remaining_pod_mem_req_per_container(pod: Pod, dra: bool = False) -> int:
    """remainingPodMemReqPerContainer (pkg/kubelet/qos/helpers.go)."""
    pod_req = parse_resources(pod_level_list(pod, "requests")).get("memory")
    if pod_req is None or pod_req.is_zero():
        return 0
    n = len(pod.spec.containers) + len(pod.spec.init_list)
    if n == 0:  # not a valid pod; Go would divide by zero
        return 0
    aggr = aggregate_container_resources(pod, "requests").get("memory")
    claimed = go_scaled_value(aggr) if aggr is not None else 0
    if dra:
        claimed += sum(_dra_memory(pod, c) for _, c in pod.spec.all_containers())
    return _go_div(_wrap64(go_scaled_value(pod_req) - claimed), n)


def oom_score_adj(
    pod: Pod,
    container: Container,
    memory_capacity: int,
    *,
    qos_class: str | None = None,
    dra_node_allocatable: bool = False,
) -> int:
    """GetContainerOOMScoreAdjust (pkg/kubelet/qos/policy.go) for a defaulted pod.

    ``memory_capacity`` is the node's memory capacity in bytes (cadvisor's MemoryCapacity),
    which must be positive. The 1.34 policy is modelled, in Go's int64 arithmetic.
    ``dra_node_allocatable`` turns on the newer DRANodeAllocatableResources gate (memory of
    DRA claims in pod.status counts as requested); the alpha KubeletOOMScoreAdjTieBreak
    nudge is not modelled.
    """
    if memory_capacity <= 0:
        raise ValueError("memory_capacity must be a positive number of bytes")
    if _is_node_critical(pod):
        return GUARANTEED_OOM_SCORE_ADJ
    qos_class = qos_class or compute_qos_class(pod)
    if qos_class == GUARANTEED:
        return GUARANTEED_OOM_SCORE_ADJ
    if qos_class == BEST_EFFORT:
        return BEST_EFFORT_OOM_SCORE_ADJ

    # Burstable: 1000 - 1000 * request / capacity, so a container using more than it asked
    # for reaches 1000 and is the prime target.
    dra = dra_node_allocatable
    mem_req = _effective_memory_request(pod, container, dra)
    remaining = 0
    pod_level = is_pod_level_requests_set(pod)
    if pod_level:
        # KEP-2837: the pod-level request not claimed by containers is shared equally.
        remaining = _remaining_pod_mem_req_per_container(pod, dra)
        adj = 1000 - _go_div(_wrap64(1000 * _wrap64(mem_req + remaining)), memory_capacity)
    else:
        adj = 1000 - _go_div(_wrap64(1000 * mem_req), memory_capacity)

    if _is_sidecar(pod, container):
        # A sidecar never scores above the regular container with the smallest request.
        min_req = min(
            (_effective_memory_request(pod, c, dra) for c in pod.spec.containers), default=0
        )
        if pod_level:
            min_req += remaining
        min_adj = 1000 - _go_div(_wrap64(1000 * _wrap64(min_req)), memory_capacity)
        adj = min(adj, min_adj)

    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ  # stay above Guaranteed (3)
    if adj == BEST_EFFORT_OOM_SCORE_ADJ:
        return adj - 1  # stay below BestEffort (999)
    return adj


OOM_NODE_CRITICAL = gettext_noop("system-node-critical pods get -997, like Guaranteed ones.")


OOM_NODE_CRITICAL_ADMITTED = gettext_noop(
    "system-node-critical pods get -997, like Guaranteed ones: the manifest sets no priority, and "
    "the Priority admission plugin gives the pod its class's 2000001000, which makes it critical."
)


OOM_GUARANTEED = gettext_noop("Guaranteed pods get -997: the kernel kills them last.")


OOM_BEST_EFFORT = gettext_noop("BestEffort pods get 1000: the kernel kills them first.")


OOM_BURSTABLE = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]."
)


OOM_BURSTABLE_POD_LEVEL = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; the "
    "pod-level memory request not claimed by containers is shared equally."
)


OOM_BURSTABLE_SIDECAR = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; a "
    "sidecar is capped at the score of the app container with the smallest request."
)


OOM_BURSTABLE_POD_LEVEL_SIDECAR = gettext_noop(
    "Burstable: 1000 - 1000 x memory request / node memory capacity, kept within [3, 999]; the "
    "pod-level memory request not claimed by containers is shared equally; a sidecar is capped "
    "at the score of the app container with the smallest request."
)


OOM_NEEDS_CAPACITY = gettext_noop("%(formula)s Give the node's memory capacity to compute it.")


def _oom_reason(pod: Pod, c: Container, qos_class: str, adj: int | None) -> Message:
    if _is_node_critical(pod):
        # types.IsNodeCriticalPod needs spec.priority >= 2e9; a manifest without one gets it
        # from the PriorityClass at admission, which is what is assumed here.
        has_priority = isinstance((pod.spec.model_extra or {}).get("priority"), int)
        return Message(OOM_NODE_CRITICAL if has_priority else OOM_NODE_CRITICAL_ADMITTED, {})
    if qos_class == GUARANTEED:
        return Message(OOM_GUARANTEED, {})
    if qos_class == BEST_EFFORT:
        return Message(OOM_BEST_EFFORT, {})
    formula = {
        (False, False): OOM_BURSTABLE,
        (True, False): OOM_BURSTABLE_POD_LEVEL,
        (False, True): OOM_BURSTABLE_SIDECAR,
        (True, True): OOM_BURSTABLE_POD_LEVEL_SIDECAR,
    }[(is_pod_level_requests_set(pod), _is_sidecar(pod, c))]
    if adj is None:
        return Message(OOM_NEEDS_CAPACITY, {"formula": Message(formula, {})})
    return Message(formula, {})
