"""oom_score_adj: GetContainerOOMScoreAdjust of pkg/kubelet/qos/policy.go, and why."""

from __future__ import annotations

from designer.k8s.core import (
    Container,
    Message,
    Pod,
    Quantity,
    aggregate_container_resources,
    gettext_noop,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    parse_quantity,
    parse_resources,
    pod_level_list,
    whole,
)
from designer.k8s.kubelet.cgroups import _go_div
from designer.k8s.kubelet.qos import BEST_EFFORT, GUARANTEED, compute_qos_class

# pkg/kubelet/qos/policy.go
GUARANTEED_OOM_SCORE_ADJ = -997


BEST_EFFORT_OOM_SCORE_ADJ = 1000


SYSTEM_NODE_CRITICAL = "system-node-critical"


SYSTEM_CRITICAL_PRIORITY = 2_000_000_000  # pkg/apis/scheduling: SystemCriticalPriority


def _limit_for(pod: Pod, c: Container, res: str) -> tuple[Quantity | None, str]:
    """getCPULimit / getMemoryLimit: the pod-level limit stands in for a missing one."""
    own = parse_quantity(c.limits[res]) if res in c.limits else None
    if (own is None or own.is_zero()) and is_pod_level_resources_set(pod):
        pod_lim = parse_resources(pod_level_list(pod, "limits")).get(res)
        if pod_lim is not None and not pod_lim.is_zero():
            return pod_lim, "pod"
        return None, "none"
    if own is None or own.is_zero():
        return None, "none"
    return own, "container"


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
    q = parse_quantity(c.requests["memory"]) if "memory" in c.requests else None
    return whole(q) if q is not None else 0


def _remaining_pod_mem_req_per_container(pod: Pod) -> int:
    """remainingPodMemReqPerContainer (pkg/kubelet/qos/helpers.go)."""
    pod_req = parse_resources(pod_level_list(pod, "requests")).get("memory")
    if pod_req is None or pod_req.is_zero():
        return 0
    n = len(pod.spec.containers) + len(pod.spec.init_list)
    if n == 0:  # not a valid pod; Go would divide by zero
        return 0
    aggr = aggregate_container_resources(pod, "requests").get("memory")
    remaining = whole(pod_req) - (whole(aggr) if aggr is not None else 0)
    return _go_div(remaining, n)


def oom_score_adj(
    pod: Pod, container: Container, memory_capacity: int, *, qos_class: str | None = None
) -> int:
    """GetContainerOOMScoreAdjust (pkg/kubelet/qos/policy.go) for a defaulted pod.

    ``memory_capacity`` is the node's memory capacity in bytes (cadvisor's MemoryCapacity),
    which must be positive. The 1.34 policy is modelled; the alpha KubeletOOMScoreAdjTieBreak
    nudge and DRA node-allocatable memory are not.
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
    mem_req = _memory_request_value(container)
    remaining = 0
    pod_level = is_pod_level_requests_set(pod)
    if pod_level:
        # KEP-2837: the pod-level request not claimed by containers is shared equally.
        remaining = _remaining_pod_mem_req_per_container(pod)
        adj = 1000 - _go_div(1000 * (mem_req + remaining), memory_capacity)
    else:
        adj = 1000 - _go_div(1000 * mem_req, memory_capacity)

    if _is_sidecar(pod, container):
        # A sidecar never scores above the regular container with the smallest request.
        min_req = min((_memory_request_value(c) for c in pod.spec.containers), default=0)
        if pod_level:
            min_req += remaining
        min_adj = 1000 - _go_div(1000 * min_req, memory_capacity)
        adj = min(adj, min_adj)

    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ  # stay above Guaranteed (3)
    if adj == BEST_EFFORT_OOM_SCORE_ADJ:
        return adj - 1  # stay below BestEffort (999)
    return adj


OOM_NODE_CRITICAL = gettext_noop("system-node-critical pods get -997, like Guaranteed ones.")


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
        return Message(OOM_NODE_CRITICAL, {})
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
