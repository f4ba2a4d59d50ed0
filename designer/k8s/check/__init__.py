"""``podspec check``: every pod template in some manifest files, reported as one JSON document."""

from __future__ import annotations

from designer.k8s.admission import DEFAULT_NAMESPACE, POLICY_KINDS, PolicyReport
from designer.k8s.check.manifests import (
    CheckedObject,
    CheckResult,
    InputError,
    check_files,
    check_text,
)
from designer.k8s.check.stream import (
    CheckStream,
    check_texts,
)

# Where the designer opens a pod template (the manifest floor's, kept here for callers).
from designer.k8s.manifest import pod_template_manifest

__all__ = [
    "CheckResult",
    "CheckStream",
    "CheckedObject",
    "DEFAULT_NAMESPACE",
    "InputError",
    "POLICY_KINDS",
    "PolicyReport",
    "check_files",
    "check_text",
    "check_texts",
    "pod_template_manifest",
]
