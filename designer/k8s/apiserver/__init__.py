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
from designer.k8s.apiserver.workloads import (
    INT_RE,
    OmitValueError,
    int_or_percent_value,
    is_int,
    template_parts,
    template_warnings,
    validate_objects,
)

__all__ = [
    "DRA_VALIDATORS",
    "RawJSON",
    "decoding_errors",
    "dra_warnings",
    "INT_RE",
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
    "validate_objects",
    "validate_pod",
    "validate_resource_claim",
    "validate_resource_claim_template",
    "validate_resource_claim_update",
]
