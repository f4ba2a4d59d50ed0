"""What the API server does to a pod on its way in: decoding, defaulting and validation
(pkg/apis/core, apps, batch, autoscaling), with Go's field paths and messages.
"""

from __future__ import annotations

from designer.k8s.apiserver.decode import (
    pod_from_parts,
)
from designer.k8s.apiserver.defaults import (
    pod_with_defaults,
    round_up_to_milli,
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
    "validate_objects",
    "validate_pod",
]
