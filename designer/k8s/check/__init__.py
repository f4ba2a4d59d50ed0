"""``podspec check``: every pod template in some manifest files, reported as one JSON document."""

from __future__ import annotations

from designer.k8s.check.admission import (
    DEFAULT_NAMESPACE,
    POLICY_KINDS,
    PodAdmission,
    PolicyReport,
    admit_pod,
)
from designer.k8s.check.manifests import (
    CheckedObject,
    CheckResult,
    InputError,
    check_files,
    check_text,
    check_texts,
    pod_template_manifest,
)

__all__ = [
    "CheckResult",
    "CheckedObject",
    "DEFAULT_NAMESPACE",
    "InputError",
    "POLICY_KINDS",
    "PodAdmission",
    "PolicyReport",
    "admit_pod",
    "check_files",
    "check_text",
    "check_texts",
    "pod_template_manifest",
]
