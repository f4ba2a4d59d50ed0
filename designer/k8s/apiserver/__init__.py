"""What the API server does to a pod on its way in: decoding, defaulting and validation
(pkg/apis/core, apps, batch, autoscaling), with Go's field paths and messages.
"""

from __future__ import annotations

from designer.k8s.apiserver.decode import (
    decoding_errors,
    pod_from_parts,
)
from designer.k8s.apiserver.defaults import (
    pod_with_defaults,
    round_up_to_milli,
)
from designer.k8s.apiserver.dra import (
    DRA_VALIDATORS,
    RawJSON,
    dra_warnings,
    validate_claim_spec,
    validate_device_class,
    validate_dra_object,
    validate_resource_claim,
    validate_resource_claim_template,
    validate_resource_claim_update,
)
from designer.k8s.apiserver.pod import (
    ValidationResult,
    validate_pod,
)
from designer.k8s.apiserver.policy import (
    LimitRange,
    LimitRangeItem,
    PolicyObject,
    ResourceQuota,
    ScopeRequirement,
    decode_limit_range,
    decode_resource_quota,
    go_float_f,
    validate_limit_range,
    validate_resource_quota,
)
from designer.k8s.apiserver.status import (
    aggregate,
    forbidden_message,
    invalid_message,
    invalid_text,
)
from designer.k8s.apiserver.version_notes import (
    VersionNote,
    version_notes,
)
from designer.k8s.apiserver.versions import (
    DEFAULT_VERSION,
    LATEST,
    SUPPORTED_VERSIONS,
    VERSION_DIFFERENCES,
    ClusterVersion,
    VersionDifference,
    cluster_version,
    dra_api_version,
    dra_api_versions,
    parse_kubernetes_version,
)
from designer.k8s.apiserver.workloads import (
    INT_RE,
    OmitValueError,
    int_or_percent_value,
    is_int,
    object_errors,
    template_parts,
    template_warnings,
    validate_objects,
    validate_objects_own,
)

__all__ = [
    "DRA_VALIDATORS",
    "RawJSON",
    "decoding_errors",
    "dra_warnings",
    "DEFAULT_VERSION",
    "INT_RE",
    "LATEST",
    "LimitRange",
    "LimitRangeItem",
    "PolicyObject",
    "ResourceQuota",
    "ScopeRequirement",
    "aggregate",
    "decode_limit_range",
    "decode_resource_quota",
    "forbidden_message",
    "go_float_f",
    "invalid_message",
    "invalid_text",
    "validate_limit_range",
    "validate_resource_quota",
    "SUPPORTED_VERSIONS",
    "VERSION_DIFFERENCES",
    "ClusterVersion",
    "VersionDifference",
    "VersionNote",
    "cluster_version",
    "dra_api_version",
    "dra_api_versions",
    "parse_kubernetes_version",
    "version_notes",
    "OmitValueError",
    "ValidationResult",
    "int_or_percent_value",
    "is_int",
    "pod_from_parts",
    "pod_with_defaults",
    "round_up_to_milli",
    "template_parts",
    "template_warnings",
    "validate_claim_spec",
    "validate_device_class",
    "validate_dra_object",
    "object_errors",
    "validate_objects",
    "validate_objects_own",
    "validate_pod",
    "validate_resource_claim",
    "validate_resource_claim_template",
    "validate_resource_claim_update",
]
