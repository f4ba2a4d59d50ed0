"""The pod a template stands for, as the designer opens it (Analyze, the round trip)."""

from __future__ import annotations

from typing import Any

from designer.k8s.manifest.finder import Workload

# Set by the API server when it stores an object; meaningless in a manifest you apply.
SERVER_METADATA = (
    "managedFields",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)


def pod_template_manifest(w: Workload) -> dict[str, Any]:
    """A workload's pod as the designer opens it: server-set metadata dropped, and a
    template (which has no name of its own) named after its workload, in its namespace."""
    metadata = {k: v for k, v in (w.pod_metadata or {}).items() if k not in SERVER_METADATA}
    if w.kind != "Pod":
        if w.name and not metadata.get("name"):
            metadata["name"] = w.name
        if w.namespace and not metadata.get("namespace"):
            metadata["namespace"] = w.namespace
    spec = w.pod_spec
    if w.kind == "StatefulSet" and isinstance(spec, dict):
        spec = _with_claim_volumes(w, spec)
    injected = set(w.facts.get("injected") or ())
    if injected and isinstance(spec, dict) and isinstance(spec.get("containers"), list):
        # Containers the operator adds (KubeRay's autoscaler) are not the template's.
        kept = [c for i, c in enumerate(spec["containers"]) if i not in injected]
        spec = {**spec, "containers": kept}
    return {"kind": w.kind, "metadata": metadata, "spec": spec}


def _with_claim_volumes(w: Workload, spec: dict[str, Any]) -> dict[str, Any]:
    """A StatefulSet's pods get a volume per volumeClaimTemplate, bound to the claim
    ``<template>-<statefulset>-<ordinal>`` (pkg/controller/statefulset); a Pod exported from
    the template needs them too, or its volumeMounts name volumes that do not exist."""
    claims = (
        (w.obj.get("spec") or {}).get("volumeClaimTemplates") if isinstance(w.obj, dict) else None
    )
    if not isinstance(claims, list):
        return spec
    volumes = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
    names = {v.get("name") for v in volumes}
    for claim in claims:
        name = (claim.get("metadata") or {}).get("name") if isinstance(claim, dict) else None
        if isinstance(name, str) and name not in names:
            volumes.append(
                {"name": name, "persistentVolumeClaim": {"claimName": f"{name}-{w.name}-0"}}
            )
    return {**spec, "volumes": volumes} if volumes else spec
