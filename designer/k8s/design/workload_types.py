"""Workload types: one record each, in one table (``WORKLOAD_TYPES``).

A record holds everything the product knows about a type: its label, the image and restart
policy a new design starts with, its sizing presets and the reasons behind them, the object it
is exported as by default, the name a new design gets, and its traits (what advice rules and
explanations select on). Adding a type is adding a record: the designer's form, the API
(``Design.workload``), the export and the advice all read this table.

Presets are starting points, not measurements: each says so. Training aims at Guaranteed with
CPU and memory sized for data loading and a memory-backed /dev/shm; online inference sets
requests = limits; batch work and preprocessing accept BestEffort or low Burstable and retry
on failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.k8s.core import MessageError, gettext_noop

# Traits a workload type may have; advice rules and explanations select on them.
TRAITS = {
    "evicting-loses-work": "a long run that loses its progress since the last checkpoint",
    "latency-sensitive": "a server whose latency suffers when it is squeezed by neighbours",
    "data-loading": "GPU work fed by CPU data loaders, which need cores and host memory per GPU",
    "shared-memory": "PyTorch DataLoader workers or NCCL that need a large /dev/shm",
    "retried": "work that tolerates eviction and is retried, so it should pack tightly",
}


@dataclass(frozen=True)
class Size:
    """One preset: the main container's resources. Empty string = not set."""

    cpu_request: str
    cpu_limit: str
    memory_request: str
    memory_limit: str
    gpus: str = ""
    shm: str = ""


@dataclass(frozen=True)
class WorkloadType:
    id: str
    label: str  # marked with gettext_noop
    image: str
    restart_policy: str
    default_export_kind: str  # an id of design.export.EXPORT_KINDS
    default_name: str
    traits: frozenset[str]
    rationale: tuple[str, ...]  # "why these defaults", each marked with gettext_noop
    presets: dict[str, Size] = field(default_factory=dict)
    default_size: str = "M"
    # Export kinds (ids of EXPORT_KINDS) the designer offers first for this type, in order;
    # the others follow in the table's order.
    export_kinds: tuple[str, ...] = ()
    source: str = "starting points of this product, not measurements"

    def __post_init__(self) -> None:
        unknown = self.traits - TRAITS.keys()
        if unknown:
            raise ValueError(f"unknown traits {sorted(unknown)} for workload type {self.id}")
        if self.default_size not in self.presets:
            raise ValueError(
                f"workload type {self.id}: default size {self.default_size} has no preset"
            )


class UnknownWorkloadType(MessageError):
    """A workload type id that is not in the table."""


# The data a newcomer extends. Each rationale line is shown under "why these defaults".
WORKLOAD_TYPES: dict[str, WorkloadType] = {
    w.id: w
    for w in (
        WorkloadType(
            id="training",
            label=gettext_noop("Training (single node, multi-GPU)"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
            default_export_kind="Pod",
            default_name="trainer",
            traits=frozenset({"evicting-loses-work", "data-loading", "shared-memory"}),
            rationale=(
                gettext_noop(
                    "Requests equal limits for CPU and memory, so the pod is Guaranteed: evicted "
                    "last and never squeezed by neighbours during a long run."
                ),
                gettext_noop(
                    "8 CPUs and 32Gi of memory per GPU keep the data loader ahead of the GPU (a "
                    "common rule of thumb is at least 4 CPUs and 16Gi per GPU)."
                ),
                gettext_noop(
                    "/dev/shm is a memory-backed emptyDir: PyTorch DataLoader workers share "
                    "batches through it, and its size counts against the container memory limit."
                ),
                gettext_noop(
                    "GPUs are set as limits only: for an extended resource the API server copies "
                    "the limit to the request, and it refuses a request without a limit."
                ),
            ),
            presets={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("16", "16", "64Gi", "64Gi", "2", "16Gi"),
                "L": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "XL": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
            },
        ),
        WorkloadType(
            id="distributed",
            label=gettext_noop("Distributed training worker"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
            default_export_kind="IndexedJob",
            default_name="trainer-worker",
            # What multi-node training runs as: the Kubeflow operators, JobSet, plain
            # Indexed Jobs, Ray.
            export_kinds=("PyTorchJob", "TrainJob", "JobSet", "IndexedJob", "RayCluster"),
            traits=frozenset({"evicting-loses-work", "data-loading", "shared-memory"}),
            rationale=(
                gettext_noop(
                    "Every worker is Guaranteed: losing one worker to eviction stalls the "
                    "whole job."
                ),
                gettext_noop(
                    "Workers are sized per node (often all GPUs of one node) so collective "
                    "communication stays fast."
                ),
                gettext_noop(
                    "/dev/shm is memory-backed and counts against the memory limit (NCCL and data "
                    "loaders use it)."
                ),
                gettext_noop(
                    "restartPolicy Never: the launcher (torchrun, a Job) restarts the group, not "
                    "the kubelet restarting one worker alone."
                ),
            ),
            presets={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "L": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
                "XL": Size("96", "96", "1024Gi", "1024Gi", "8", "128Gi"),
            },
        ),
        WorkloadType(
            id="inference",
            label=gettext_noop("Online inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="Always",
            default_export_kind="Deployment",
            default_name="inference",
            # Model serving (KServe) and multi-node inference (LeaderWorkerSet) first.
            export_kinds=("InferenceService", "LeaderWorkerSet", "Deployment"),
            traits=frozenset({"latency-sensitive"}),
            rationale=(
                gettext_noop(
                    "CPU and memory requests equal limits: latency stays predictable and the pod "
                    "is Guaranteed, so it is not evicted under node pressure."
                ),
                gettext_noop(
                    "One GPU per replica; scale out with more replicas rather than bigger pods."
                ),
                gettext_noop("restartPolicy Always: a serving process that exits is restarted."),
            ),
            presets={
                "S": Size("2", "2", "8Gi", "8Gi", "1"),
                "M": Size("4", "4", "16Gi", "16Gi", "1"),
                "L": Size("8", "8", "32Gi", "32Gi", "1"),
                "XL": Size("16", "16", "64Gi", "64Gi", "2"),
            },
        ),
        WorkloadType(
            id="batch",
            label=gettext_noop("Batch / offline inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="OnFailure",
            default_export_kind="Job",
            default_name="batch-inference",
            traits=frozenset({"retried"}),
            rationale=(
                gettext_noop(
                    "Low Burstable: modest requests let it pack onto spare capacity, a memory "
                    "limit stops it from starving neighbours, no CPU limit avoids throttling."
                ),
                gettext_noop(
                    "It may be evicted first under pressure: make the work idempotent and let "
                    "restartPolicy OnFailure (or a Job) retry it."
                ),
            ),
            presets={
                "S": Size("1", "", "4Gi", "8Gi", "1"),
                "M": Size("2", "", "8Gi", "16Gi", "1"),
                "L": Size("4", "", "16Gi", "32Gi", "1"),
                "XL": Size("8", "", "32Gi", "64Gi", "2"),
            },
        ),
        WorkloadType(
            id="preprocessing",
            label=gettext_noop("Data preprocessing"),
            image="python:3.12-slim",
            restart_policy="OnFailure",
            default_export_kind="Job",
            default_name="preprocess",
            traits=frozenset({"retried"}),
            rationale=(
                gettext_noop(
                    "Short CPU work that tolerates eviction: BestEffort or low Burstable uses idle "
                    "capacity without reserving it."
                ),
                gettext_noop(
                    "A memory limit protects neighbours from a runaway job; OnFailure retries it."
                ),
                gettext_noop("No GPUs: preprocessing that holds a GPU it does not use strands it."),
            ),
            presets={
                "S": Size("", "", "", ""),
                "M": Size("1", "", "2Gi", "4Gi"),
                "L": Size("4", "", "8Gi", "16Gi"),
                "XL": Size("8", "", "32Gi", "64Gi"),
            },
        ),
    )
}
SIZE_KEYS = ("S", "M", "L", "XL")


def workload_type(workload_id: str) -> WorkloadType:
    """The record of a workload type; an unknown id is an error, never a silent default."""
    try:
        return WORKLOAD_TYPES[workload_id]
    except (KeyError, TypeError):
        raise UnknownWorkloadType(
            gettext_noop("unknown workload type %(id)s; choose one of %(known)s"),
            {"id": repr(workload_id), "known": ", ".join(WORKLOAD_TYPES)},
        ) from None


def register_workload_type(record: WorkloadType) -> None:
    """Add a workload type to the table (replacing one with the same id)."""
    WORKLOAD_TYPES[record.id] = record


def unregister_workload_type(workload_id: str) -> None:
    WORKLOAD_TYPES.pop(workload_id, None)


# Which workload type a manifest's pod template opens as in the designer, by the kind that
# holds it (a Deployment is usually a service; a Job or CronJob, batch work).
WORKLOAD_OF_KIND: dict[str, str] = {
    "Deployment": "inference",
    "StatefulSet": "inference",
    "Job": "batch",
    "CronJob": "batch",
}


def workload_of_kind(kind: str) -> str:
    return WORKLOAD_OF_KIND.get(kind, "training")
