"""A Pod model as the manifest we export: quantities in the canonical form the API server
stores (``0.5`` → ``500m``), always quoted so every YAML reader keeps them as strings."""

from __future__ import annotations

from typing import Any

from designer.k8s.core import Pod, Quantity, QuantityError
from designer.k8s.manifest import QuotedStr, dump_yaml


def _canonical(value: Any) -> Any:
    try:
        return QuotedStr(Quantity.from_json(value).canonical())
    except (QuantityError, ValueError, TypeError):
        # Invalid values are exported as written; validation has already flagged them.
        return value


def _canonical_list(resources: Any) -> Any:
    if not isinstance(resources, dict):
        return resources
    return {name: _canonical(value) for name, value in resources.items()}


def _canonical_requirements(requirements: Any) -> None:
    if isinstance(requirements, dict):
        for key in ("requests", "limits"):
            if key in requirements:
                requirements[key] = _canonical_list(requirements[key])


def pod_manifest(pod: Pod) -> dict[str, Any]:
    """The pod as a manifest dict, quantities canonical and quoted."""
    manifest = pod.manifest()
    spec = manifest.get("spec") or {}
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                _canonical_requirements(container.get("resources"))
    _canonical_requirements(spec.get("resources"))
    if "overhead" in spec:
        spec["overhead"] = _canonical_list(spec["overhead"])
    for volume in spec.get("volumes") or []:
        empty_dir = volume.get("emptyDir") if isinstance(volume, dict) else None
        if isinstance(empty_dir, dict) and "sizeLimit" in empty_dir:
            empty_dir["sizeLimit"] = _canonical(empty_dir["sizeLimit"])
    return manifest


def pod_yaml(pod: Pod) -> str:
    return dump_yaml(pod_manifest(pod))
