"""``podspec check``: every pod template in some manifest files, reported as one JSON document."""

from __future__ import annotations

from designer.k8s.check.admission import (
    DEFAULT_NAMESPACE,
    POLICY_KINDS,
    PolicyReport,
)
from designer.k8s.check.manifests import (
    TEMPLATE_KINDS_WORKLOAD,
    CheckedObject,
    CheckResult,
    check_inputs,
    check_text,
    check_texts,
    pod_template_manifest,
)

__all__ = [
    "CheckResult",
    "CheckedObject",
    "DEFAULT_NAMESPACE",
    "POLICY_KINDS",
    "PolicyReport",
    "check_inputs",
    "TEMPLATE_KINDS_WORKLOAD",
    "check_text",
    "check_texts",
    "pod_template_manifest",
]
