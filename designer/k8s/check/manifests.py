"""``podspec check``: every workload in some manifest files, as one JSON-able report.

The CLI and ``POST /api/v1/analyze`` both print ``check_texts``'s result, so they agree.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Any

import orjson

from designer.k8s.apiserver import pod_from_parts, pod_with_defaults
from designer.k8s.check.claims import ClaimLinks, link_claims, read_dra_objects
from designer.k8s.core import FieldError, name_is_dns_subdomain
from designer.k8s.design import WORKLOAD_OF_KIND, PodReport, failed_report, pod_report
from designer.k8s.dra import DraObjects
from designer.k8s.kubelet import pod_qos
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    Workload,
    find_workloads,
    read_documents,
)
from designer.k8s.scheduler import effective_limits, effective_requests

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


@dataclass(frozen=True)
class CheckedObject:
    file: str
    workload: Workload
    report: PodReport
    # Dynamic Resource Allocation: the pod's claims linked to the input (check.claims).
    links: ClaimLinks | None = None

    def as_dict(self) -> dict[str, Any]:
        w = self.workload
        out = {
            "file": self.file,
            "document": w.document,
            "path": w.path,
            "kind": w.kind,
            "name": w.name,
            "namespace": w.namespace,
            **self.report.as_dict(),
        }
        out.update((self.links or ClaimLinks()).fields(out["warnings"]))
        return out


def metadata_path(workload: Workload) -> str:
    """The path the API server reports pod metadata errors at: ``metadata`` for a Pod; for a
    template the template itself (ValidatePodTemplateSpec: ``spec.template.labels``)."""
    if workload.pod_spec_path == "spec":
        return "metadata"
    return workload.pod_spec_path.removesuffix(".spec")


# Fields that differ from pod to pod in a cluster dump and that no check reads (the engine
# validates neither volumes nor node placement; the name is handled apart, see _memo_key).
# Of the volumes, advice reads the memory-backed emptyDirs: those stay in the key.
VOLATILE_METADATA = frozenset(
    {
        "name",
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "ownerReferences",
        "managedFields",
        "generation",
        "selfLink",
    }
)
VOLATILE_SPEC = frozenset({"nodeName", "volumes", "hostname", "subdomain"})
VOLATILE_CONTAINER = frozenset({"volumeMounts"})


def _valid_name(metadata: Any) -> bool:
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return isinstance(name, str) and bool(name) and not name_is_dns_subdomain(name)


def _memo_key(workload: Workload) -> bytes | None:
    """What the report of a workload depends on, or None when it cannot be memoised.

    Pods of one ReplicaSet differ only in fields no check reads (their name, uid, node and
    service-account token volume), so they share one report. A pod name only matters when
    it is invalid, and then the pod is checked on its own.
    """
    meta, spec = workload.pod_metadata, workload.pod_spec
    if not isinstance(meta, dict) or not isinstance(spec, dict) or not _valid_name(meta):
        return None

    def container(c: Any) -> Any:
        if not isinstance(c, dict):
            return c
        return {k: v for k, v in c.items() if k not in VOLATILE_CONTAINER}

    projected_spec = {k: v for k, v in spec.items() if k not in VOLATILE_SPEC}
    if isinstance(spec.get("volumes"), list):
        projected_spec["volumes"] = [v for v in spec["volumes"] if _memory_volume(v)]
    for key in ("containers", "initContainers", "ephemeralContainers"):
        if isinstance(projected_spec.get(key), list):
            projected_spec[key] = [container(c) for c in projected_spec[key]]
    try:
        return orjson.dumps(
            [
                workload.kind == "Pod",
                workload.pod_spec_path,
                {k: v for k, v in meta.items() if k not in VOLATILE_METADATA},
                projected_spec,
            ],
            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
        )
    except (TypeError, orjson.JSONEncodeError):
        return None


def _memory_volume(volume: Any) -> bool:
    empty_dir = volume.get("emptyDir") if isinstance(volume, dict) else None
    return isinstance(empty_dir, dict) and empty_dir.get("medium") == "Memory"


def check_workload(
    file: str, workload: Workload, memo: dict[bytes, PodReport] | None = None
) -> CheckedObject:
    """One workload's report; with ``memo``, identical pod templates are checked once."""
    key = _memo_key(workload) if memo is not None else None
    if key is not None and memo is not None and key in memo:
        return CheckedObject(file, workload, memo[key])
    report = _report(workload)
    if key is not None and memo is not None:
        memo[key] = report
    return CheckedObject(file, workload, report)


def _report(workload: Workload) -> PodReport:
    meta_path = metadata_path(workload)
    pod, errors = pod_from_parts(
        workload.pod_metadata,
        workload.pod_spec,
        # A value of the wrong type is a decoding error at its JSON path (…metadata.labels).
        metadata_path=workload.pod_spec_path.removesuffix("spec") + "metadata",
        spec_path=workload.pod_spec_path,
    )
    if pod is None:
        return _undecodable_report(workload, errors)
    return pod_report(
        pod,
        spec_path=workload.pod_spec_path,
        metadata_path=meta_path,
        template=workload.kind != "Pod",
        # Advice: the rules for every workload type, and for a kind the designer opens as a
        # workload type (a Deployment as online inference, a Job as batch work) that type's.
        workload=WORKLOAD_OF_KIND.get(workload.kind),
        advise=True,
    )


# What QoS and effective resources read: enough to answer them for a pod whose other fields
# cannot be decoded (an annotation that is not a string must not hide the QoS class).
RESOURCE_FIELDS_SPEC = ("resources", "overhead")
RESOURCE_FIELDS_CONTAINER = ("name", "resources", "restartPolicy")


def _undecodable_report(workload: Workload, errors: list[FieldError]) -> PodReport:
    spec = workload.pod_spec if isinstance(workload.pod_spec, dict) else {}

    def containers(key: str) -> list[Any] | None:
        items = spec.get(key)
        if not isinstance(items, list):
            return None
        return [
            {k: c[k] for k in RESOURCE_FIELDS_CONTAINER if k in c} if isinstance(c, dict) else c
            for c in items
        ]

    minimal = {k: spec[k] for k in RESOURCE_FIELDS_SPEC if k in spec}
    for key in ("containers", "initContainers"):
        if (items := containers(key)) is not None:
            minimal[key] = items
    resource_pod, _problems = pod_from_parts({}, minimal, spec_path=workload.pod_spec_path)
    if resource_pod is None:
        return failed_report(errors)
    defaulted = pod_with_defaults(resource_pod)
    qos = pod_qos(resource_pod, spec_path=workload.pod_spec_path, defaulted=defaulted)
    requests = effective_requests(defaulted, apply_defaults=False)
    limits = effective_limits(defaulted, apply_defaults=False)
    return PodReport(None, qos, requests, limits, errors, [])


@dataclass(frozen=True)
class InputError:
    """What could not be read: a whole file (``document`` None) or one document of it."""

    file: str
    document: int | None
    message: str
    hostile: bool = False  # refused to protect the reader (see manifest.Document.hostile)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "document": self.document, "message": self.message}


@dataclass(frozen=True)
class CheckResult:
    """Every object found in some files and what could not be read."""

    objects: list[CheckedObject]
    errors: list[InputError]
    # The resource.k8s.io objects of the input, checked and linked (check.claims).
    dra_objects: list[dict[str, Any]] = field(default_factory=list)

    @property
    def hostile(self) -> list[InputError]:
        return [e for e in self.errors if e.hostile]

    def as_dict(self) -> dict[str, Any]:
        """The ``podspec check --format json`` document."""
        return {
            "objects": [o.as_dict() for o in self.objects],
            "errors": [e.as_dict() for e in self.errors],
            "draObjects": self.dra_objects,
        }


def check_text(
    file: str, text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES
) -> tuple[list[CheckedObject], list[InputError]]:
    """Objects found in one file and what could not be read, with file and document."""
    objects, errors, dra = _check_file(file, text, max_bytes)
    return link_claims(objects, dra)[0], errors


def _check_file(
    file: str, text: str | bytes, max_bytes: int
) -> tuple[list[CheckedObject], list[InputError], DraObjects]:
    # A parsed manifest is a large tree of acyclic, long-lived objects: the cyclic garbage
    # collector would walk it again and again while parsing and reporting allocate (a third
    # of the time on a 10,000-pod List) and find nothing to free, so it pauses meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _check_text(file, text, max_bytes)
    finally:
        if enabled:
            gc.enable()


def _check_text(
    file: str, text: str | bytes, max_bytes: int
) -> tuple[list[CheckedObject], list[InputError], DraObjects]:
    try:
        documents = read_documents(text, max_bytes=max_bytes)
    except ManifestError as exc:
        return [], [InputError(file, None, str(exc))], DraObjects()
    workloads, read_errors = find_workloads(documents)
    memo: dict[bytes, PodReport] = {}
    objects = [check_workload(file, w, memo) for w in workloads]
    errors = [InputError(file, e.document, e.message, e.hostile) for e in read_errors]
    return objects, errors, read_dra_objects(file, documents)


def check_files(
    inputs: list[tuple[str, str | bytes]], *, max_bytes: int = MAX_INPUT_BYTES
) -> CheckResult:
    """Every object of several files, and what could not be read."""
    objects: list[CheckedObject] = []
    errors: list[InputError] = []
    dra = DraObjects()
    for file, text in inputs:
        found, failed, dra_found = _check_file(file, text, max_bytes)
        objects += found
        errors += failed
        dra.extend(dra_found)
    # Claims link across files: a template in one file serves a pod in another.
    objects, dra_objects = link_claims(objects, dra)
    return CheckResult(objects, errors, dra_objects)


def check_texts(
    inputs: list[tuple[str, str | bytes]], *, max_bytes: int = MAX_INPUT_BYTES
) -> dict[str, Any]:
    """The ``--format json`` document for several files."""
    return check_files(inputs, max_bytes=max_bytes).as_dict()
