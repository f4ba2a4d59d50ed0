"""Admission: what a namespace's policy does to a pod on its way in, after the API server's
defaulting and before it is stored (plugin/pkg/admission/limitranger, the ResourceQuota
plugin and pkg/quota/v1/evaluator/core/pods.go). Needs the kubelet's QoS class (the
BestEffort quota scope) and the scheduler's sums, so it sits above them and below design.
"""

from __future__ import annotations

from designer.k8s.admission.admit import (
    PLUGIN_LIMIT_RANGER,
    PLUGIN_RESOURCE_QUOTA,
    Admission,
    Denial,
    NamespacePolicy,
    QuotaRoom,
    admit,
)
from designer.k8s.admission.limitranger import (
    ANNOTATION,
    Defaulted,
    LimitRangerDenial,
    Mutation,
    default_requirements,
    max_constraint,
    min_constraint,
    mutate,
    pod_aggregate,
    ratio_constraint,
    validate,
    validate_all,
)
from designer.k8s.admission.limitranger import (
    handles as limit_ranger_handles,
)
from designer.k8s.admission.quota import (
    COUNT_PODS,
    LimitedResource,
    QuotaCheck,
    QuotaDenial,
    Room,
    add_lists,
    advanced_usage,
    check_request,
    compute_usage,
    constraints,
    is_quota_pod,
    mask,
    matches,
    matching_resources,
    matching_scopes,
    pod_usage,
    pretty_print,
    room,
    scope_matches,
    usage_stats,
)
from designer.k8s.admission.quota import (
    handles as quota_handles,
)
from designer.k8s.admission.replicas import (
    MULTIPLICITY,
    Multiplicity,
    pod_name,
    pods_at_once,
)

__all__ = [
    "ANNOTATION",
    "Admission",
    "COUNT_PODS",
    "Defaulted",
    "Denial",
    "LimitRangerDenial",
    "LimitedResource",
    "MULTIPLICITY",
    "Multiplicity",
    "Mutation",
    "NamespacePolicy",
    "PLUGIN_LIMIT_RANGER",
    "PLUGIN_RESOURCE_QUOTA",
    "QuotaCheck",
    "QuotaDenial",
    "QuotaRoom",
    "Room",
    "add_lists",
    "admit",
    "advanced_usage",
    "check_request",
    "compute_usage",
    "constraints",
    "default_requirements",
    "is_quota_pod",
    "limit_ranger_handles",
    "mask",
    "matches",
    "matching_resources",
    "matching_scopes",
    "max_constraint",
    "min_constraint",
    "mutate",
    "pod_aggregate",
    "pod_name",
    "pod_usage",
    "pods_at_once",
    "pretty_print",
    "quota_handles",
    "ratio_constraint",
    "room",
    "scope_matches",
    "usage_stats",
    "validate",
    "validate_all",
]
