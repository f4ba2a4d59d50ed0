"""``podspec check``: every workload in some manifest files, as one JSON-able report.

The CLI and ``POST /api/v1/analyze`` both print ``check_texts``'s result, so they agree.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    Workload,
    find_workloads,
    read_documents,
)
from designer.k8s.report import PodReport, failed_report, pod_from_parts, pod_report

TEMPLATE_KINDS_WORKLOAD = {
    "Deployment": "inference",
    "StatefulSet": "inference",
    "Job": "batch",
    "CronJob": "batch",
}


@dataclass(frozen=True)
class CheckedObject:
    file: str
    workload: Workload
    report: PodReport

    def as_dict(self) -> dict[str, Any]:
        w = self.workload
        return {
            "file": self.file,
            "document": w.document,
            "path": w.path,
            "kind": w.kind,
            "name": w.name,
            "namespace": w.namespace,
            **self.report.as_dict(),
        }


def metadata_path(workload: Workload) -> str:
    """Where the pod's metadata is: ``metadata`` for a Pod, ``<template>.metadata`` else."""
    return workload.pod_spec_path.removesuffix("spec") + "metadata"


def check_workload(file: str, workload: Workload) -> CheckedObject:
    meta_path = metadata_path(workload)
    pod, errors = pod_from_parts(
        workload.pod_metadata,
        workload.pod_spec,
        metadata_path=meta_path,
        spec_path=workload.pod_spec_path,
    )
    if pod is None:
        return CheckedObject(file, workload, failed_report(errors))
    report = pod_report(
        pod,
        spec_path=workload.pod_spec_path,
        metadata_path=meta_path,
        template=workload.kind != "Pod",
    )
    return CheckedObject(file, workload, report)


def check_text(
    file: str, text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES
) -> tuple[list[CheckedObject], list[dict[str, Any]]]:
    """Objects found in one file and what could not be read, with file and document."""
    try:
        documents = read_documents(text, max_bytes=max_bytes)
    except ManifestError as exc:
        return [], [{"file": file, "document": None, "message": str(exc)}]
    workloads, read_errors = find_workloads(documents)
    # The parsed input is a large tree of long-lived objects: the cyclic garbage collector
    # would walk it again and again while the reports allocate (a third of the time on a
    # 10,000-pod List). Reports create no cycles worth collecting, so it pauses here.
    enabled = gc.isenabled()
    gc.disable()
    try:
        objects = [check_workload(file, w) for w in workloads]
    finally:
        if enabled:
            gc.enable()
    errors = [{"file": file, "document": e.document, "message": e.message} for e in read_errors]
    return objects, errors


def check_texts(
    inputs: list[tuple[str, str | bytes]], *, max_bytes: int = MAX_INPUT_BYTES
) -> dict[str, Any]:
    """The ``--format json`` document for several files."""
    objects: list[CheckedObject] = []
    errors: list[dict[str, Any]] = []
    for file, text in inputs:
        found, failed = check_text(file, text, max_bytes=max_bytes)
        objects += found
        errors += failed
    return {"objects": [o.as_dict() for o in objects], "errors": errors}
