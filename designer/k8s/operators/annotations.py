"""Annotations, labels and node selectors that change what a GPU request means, explained.

One record per key (``GPU_KEYS``): where it is set, what it means, its source. A pod template
that sets one gets a note; combinations the owner refuses are errors with their messages.

* NVIDIA KAI-Scheduler: ``gpu-fraction`` / ``gpu-memory`` pod annotations request a share of
  one GPU; the pod requests no ``nvidia.com/gpu``. Messages from its GPU-request validator
  (pkg gpurequesthandler ValidateGpuRequests) and docs/gpu-sharing.
* HAMi: ``nvidia.com/gpumem`` (MiB), ``nvidia.com/gpumem-percentage`` and
  ``nvidia.com/gpucores`` (%) limits are per vGPU; ``nvidia.com/gpu`` counts vGPUs.
* Kueue: the ``kueue.x-k8s.io/queue-name`` label sends the workload to a LocalQueue, which
  admits it (un-suspends it) when its ClusterQueue has quota for requests x pods.
* GKE: ``cloud.google.com/gke-gpu-sharing-strategy`` (time-sharing, mps),
  ``gke-max-shared-clients-per-gpu`` and ``gke-gpu-partition-size`` (MIG) node labels; EKS and
  others share through the NVIDIA device plugin (``nvidia.com/gpu.product`` ending in
  ``-SHARED``, ``nvidia.com/gpu.replicas``, ``nvidia.com/device-plugin.config``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from designer.k8s.core import Message, gettext_noop
from designer.k8s.manifest import Workload
from designer.k8s.operators.findings import Finding, OperatorReport
from designer.k8s.operators.rules import _fmt, _resources, containers, quantity

KAI = "KAI-Scheduler"
HAMI = "HAMi"
KUEUE = "Kueue"
GKE = "GKE"
NVIDIA = "NVIDIA device plugin"

MSG_KAI_FRACTION = gettext_noop(
    "KAI-Scheduler GPU sharing: gpu-fraction %(value)s asks for that share of one GPU's "
    "memory, by annotation. Kubernetes sees no nvidia.com/gpu request here; the pod needs "
    "schedulerName kai-scheduler with GPU sharing enabled, and KAI does not isolate GPU "
    "memory between the pods sharing a device."
)
MSG_KAI_MEMORY = gettext_noop(
    "KAI-Scheduler GPU sharing: gpu-memory %(value)s MiB of one GPU, by annotation. "
    "Kubernetes sees no nvidia.com/gpu request here; the pod needs schedulerName "
    "kai-scheduler with GPU sharing enabled, and KAI does not isolate GPU memory."
)
MSG_KAI_CONTAINER = gettext_noop(
    'gpu-fraction-container-name "%(name)s" names no container or init container of the pod.'
)
MSG_HAMI = gettext_noop(
    "HAMi vGPU: %(gpus)s vGPU(s), each with %(each)s; in total %(total)s. nvidia.com/gpu "
    "counts vGPUs here, not physical GPUs (HAMi splits each GPU into deviceSplitCount vGPUs)."
)
MSG_KUEUE = gettext_noop(
    "Kueue: queue-name %(queue)s. The workload waits suspended until the ClusterQueue behind "
    "LocalQueue %(queue)s has quota for its requests x pods; every resource it requests "
    "must be in that ClusterQueue's coveredResources."
)
MSG_KUEUE_GROUP = gettext_noop(
    "Kueue pod group %(group)s: admitted together as one workload of %(count)s pod(s)."
)
MSG_GKE_SHARING = gettext_noop(
    "GKE GPU sharing (%(strategy)s): nvidia.com/gpu 1 is a shared slot of a physical GPU "
    "(at most %(clients)s containers per GPU), not a whole GPU; a container may request at "
    "most 1."
)
MSG_GKE_PARTITION = gettext_noop(
    "GKE MIG partitions of %(size)s: nvidia.com/gpu 1 is one MIG slice of that size, not a "
    "whole GPU."
)
MSG_NVIDIA_SHARED = gettext_noop(
    "The node selector %(key)s=%(value)s picks nodes whose GPUs the NVIDIA device plugin "
    "time-slices: nvidia.com/gpu 1 is a shared replica of a GPU, with no memory or fault "
    "isolation."
)
MSG_NVIDIA_CONFIG = gettext_noop(
    "The node selector %(key)s=%(value)s picks a device plugin configuration (time-slicing, "
    "MPS or MIG): what nvidia.com/gpu 1 means depends on it."
)

# KAI: pkg/common/constants, gpurequesthandler (messages verbatim).
KAI_FRACTION_AND_WHOLE = (
    "cannot have both GPU fraction request and whole GPU resource request/limit"
)
KAI_MEMORY_AND_GPU = "cannot request both GPU and GPU memory"
KAI_FRACTION_RANGE = "gpu-fraction annotation value must be a positive number smaller than 1.0"
KAI_MEMORY_RANGE = "gpu-memory annotation value must be a positive integer greater than 0"
KAI_MPS = "MPS is only supported with GPU fraction request"
HAMI_MEM_AND_PERCENT = "nvidia.com/gpumem can't be used together with nvidia.com/gpumem-percentage"
GKE_TIME_SHARING = (
    "invalid request for sharing GPU (time-sharing), at most 1 nvidia.com/gpu can be "
    "requested on GPU nodes"
)

HAMI_UNITS = {
    "nvidia.com/gpumem": "MiB",
    "nvidia.com/gpumem-percentage": "%",
    "nvidia.com/gpucores": "% SM",
}


def _annotations(w: Workload) -> dict[str, Any]:
    meta = w.pod_metadata if isinstance(w.pod_metadata, dict) else {}
    ann = meta.get("annotations")
    return ann if isinstance(ann, dict) else {}


def _ann_path(w: Workload, key: str) -> str:
    """Where the pod's annotation is written: ``<template>.metadata.annotations[key]``, a
    KServe component's own ``annotations``."""
    if w.pod_spec_path == "spec" or w.pod_spec_path.endswith(".spec"):
        return f"{w.pod_spec_path.removesuffix('spec')}metadata.annotations[{key}]"
    return f"{w.metadata_path}.annotations[{key}]"


def kai(w: Workload) -> OperatorReport:
    report = OperatorReport()
    ann = _annotations(w)
    fraction, memory = ann.get("gpu-fraction"), ann.get("gpu-memory")
    if fraction is None and memory is None:
        if str(ann.get("mps", "")).lower() == "true":
            report.errors.append(Finding(_ann_path(w, "mps"), KAI_MPS, KAI))
        return report
    whole = any(
        "nvidia.com/gpu" in _resources(c, part)
        for key in ("containers", "initContainers")
        for _i, c in containers(w.pod_spec, key)
        for part in ("requests", "limits")
    )
    if fraction is not None:
        value = quantity(str(fraction))
        if value is None or not (0 < value < 1):
            report.errors.append(Finding(_ann_path(w, "gpu-fraction"), KAI_FRACTION_RANGE, KAI))
        if whole:
            report.errors.append(Finding(_ann_path(w, "gpu-fraction"), KAI_FRACTION_AND_WHOLE, KAI))
        report.notes.append(
            Finding(
                _ann_path(w, "gpu-fraction"),
                Message(MSG_KAI_FRACTION, {"value": str(fraction)}),
                KAI,
            )
        )
    if memory is not None:
        text = str(memory)
        if not text.isdigit() or int(text) <= 0:
            report.errors.append(Finding(_ann_path(w, "gpu-memory"), KAI_MEMORY_RANGE, KAI))
        if fraction is not None or whole:
            report.errors.append(Finding(_ann_path(w, "gpu-memory"), KAI_MEMORY_AND_GPU, KAI))
        report.notes.append(
            Finding(_ann_path(w, "gpu-memory"), Message(MSG_KAI_MEMORY, {"value": text}), KAI)
        )
    target = ann.get("gpu-fraction-container-name")
    if isinstance(target, str):
        names = {
            c.get("name")
            for key in ("containers", "initContainers")
            for _i, c in containers(w.pod_spec, key)
        }
        if target not in names:
            report.errors.append(
                Finding(
                    _ann_path(w, "gpu-fraction-container-name"),
                    Message(MSG_KAI_CONTAINER, {"name": target}),
                    KAI,
                )
            )
    return report


def hami(w: Workload) -> OperatorReport:
    report = OperatorReport()
    for key in ("containers", "initContainers"):
        for i, c in containers(w.pod_spec, key):
            limits = _resources(c, "limits")
            found = [k for k in HAMI_UNITS if k in limits]
            if not found:
                continue
            path = f"{w.pod_spec_path}.{key}[{i}].resources.limits"
            if "nvidia.com/gpumem" in limits and "nvidia.com/gpumem-percentage" in limits:
                report.errors.append(Finding(path, HAMI_MEM_AND_PERCENT, HAMI))
            vgpus = quantity(limits.get("nvidia.com/gpu", 1)) or Fraction(1)
            each = ", ".join(f"{k} {limits[k]} {HAMI_UNITS[k]}" for k in found)
            totals = []
            for k in found:
                q = quantity(limits[k])
                if q is not None:
                    totals.append(f"{k} {_fmt(q * vgpus)} {HAMI_UNITS[k]}")
            params = {"gpus": _fmt(vgpus), "each": each, "total": ", ".join(totals)}
            report.notes.append(Finding(path, Message(MSG_HAMI, params), HAMI))
    return report


KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
# The label values any rule here reads (check.memo keeps them; other label values only
# matter for their validity).
LABELS_READ = frozenset({KUEUE_QUEUE_LABEL, KUEUE_GROUP_LABEL})


def kueue(w: Workload, first: bool) -> OperatorReport:
    """The queue label is on the object (a Pod, Job, JobSet, RayCluster, TrainJob ...)."""
    report = OperatorReport()
    if not first:
        return report
    meta = w.obj.get("metadata") if isinstance(w.obj.get("metadata"), dict) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    if KUEUE_QUEUE_LABEL not in labels and KUEUE_GROUP_LABEL not in labels:
        return report
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    queue = labels.get(KUEUE_QUEUE_LABEL)
    if isinstance(queue, str):
        path = "metadata.labels[kueue.x-k8s.io/queue-name]"
        report.notes.append(Finding(path, Message(MSG_KUEUE, {"queue": queue}), KUEUE))
    group = labels.get(KUEUE_GROUP_LABEL)
    if isinstance(group, str):
        count = annotations.get("kueue.x-k8s.io/pod-group-total-count", "?")
        path = "metadata.labels[kueue.x-k8s.io/pod-group-name]"
        report.notes.append(
            Finding(path, Message(MSG_KUEUE_GROUP, {"group": group, "count": str(count)}), KUEUE)
        )
    return report


def node_selectors(w: Workload) -> OperatorReport:
    report = OperatorReport()
    spec = w.pod_spec if isinstance(w.pod_spec, dict) else {}
    selector = spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), dict) else {}
    base = f"{w.pod_spec_path}.nodeSelector"
    strategy = selector.get("cloud.google.com/gke-gpu-sharing-strategy")
    if isinstance(strategy, str):
        clients = selector.get("cloud.google.com/gke-max-shared-clients-per-gpu", "?")
        path = f"{base}[cloud.google.com/gke-gpu-sharing-strategy]"
        message = Message(MSG_GKE_SHARING, {"strategy": strategy, "clients": str(clients)})
        report.notes.append(Finding(path, message, GKE))
        for i, c in containers(spec):
            q = quantity(_resources(c, "limits").get("nvidia.com/gpu", 0))
            if strategy == "time-sharing" and q is not None and q > 1:
                at = f"{w.pod_spec_path}.containers[{i}].resources.limits[nvidia.com/gpu]"
                report.errors.append(Finding(at, GKE_TIME_SHARING, f"{GKE} (kubelet admission)"))
    size = selector.get("cloud.google.com/gke-gpu-partition-size")
    if isinstance(size, str):
        path = f"{base}[cloud.google.com/gke-gpu-partition-size]"
        report.notes.append(Finding(path, Message(MSG_GKE_PARTITION, {"size": size}), GKE))
    product = selector.get("nvidia.com/gpu.product")
    if isinstance(product, str) and product.endswith("-SHARED"):
        path = f"{base}[nvidia.com/gpu.product]"
        params = {"key": "nvidia.com/gpu.product", "value": product}
        report.notes.append(Finding(path, Message(MSG_NVIDIA_SHARED, params), NVIDIA))
    for key in ("nvidia.com/device-plugin.config", "nvidia.com/gpu.replicas"):
        value = selector.get(key)
        if value is not None:
            params = {"key": key, "value": str(value)}
            report.notes.append(
                Finding(f"{base}[{key}]", Message(MSG_NVIDIA_CONFIG, params), NVIDIA)
            )
    return report


def pod_gpu_reality(w: Workload) -> OperatorReport:
    """The pod's own annotations, extended resources and node selectors that change GPU
    reality: a function of the pod template and its paths alone (callers may cache it)."""
    report = OperatorReport()
    for part in (kai(w), hami(w), node_selectors(w)):
        report.extend(part)
    return report


def gpu_reality(w: Workload, first: bool) -> OperatorReport:
    """Every annotation, label and node selector of a template that changes GPU reality."""
    report = pod_gpu_reality(w)
    report.extend(kueue(w, first))
    return report
