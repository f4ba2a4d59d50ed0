"""``podspec check``: every pod template in some manifest files, reported as one JSON document."""

from __future__ import annotations

from designer.k8s.check.manifests import (
    CheckedObject,
    check_text,
    check_texts,
    pod_template_manifest,
)

__all__ = [
    "CheckedObject",
    "check_text",
    "check_texts",
    "pod_template_manifest",
]
