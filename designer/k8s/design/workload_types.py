"""Workload types: one record each, with its sizing presets and the reasons behind them.

Presets are starting points, not measurements: each says so. Training aims at Guaranteed with
CPU and memory sized for data loading and a memory-backed /dev/shm; online inference sets
requests = limits; batch work and preprocessing accept BestEffort or low Burstable and retry
on failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from designer.k8s.core import gettext_noop

WorkloadType = Literal["training", "distributed", "inference", "batch", "preprocessing"]


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
class WorkloadSpec:
    key: WorkloadType
    label: str
    image: str
    restart_policy: str
    rationale: tuple[str, ...]
    sizes: dict[str, Size] = field(default_factory=dict)
    default_size: str = "M"


# The data a newcomer extends. Each rationale line is shown under "why these defaults".
WORKLOADS: dict[str, WorkloadSpec] = {
    w.key: w
    for w in (
        WorkloadSpec(
            key="training",
            label=gettext_noop("Training (single node, multi-GPU)"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
            rationale=(
                gettext_noop(
                    "Requests equal limits for CPU and memory, so the pod is Guaranteed: evicted "
                    "last and never squeezed by neighbours during a long run (course: training "
                    "should be Guaranteed or high Burstable)."
                ),
                gettext_noop(
                    "About 8 CPUs and 32Gi of memory per GPU keep the data loader ahead of the GPU."
                ),
                gettext_noop(
                    "/dev/shm is a memory-backed emptyDir: PyTorch DataLoader workers share "
                    "batches through it, and its size counts against the container memory limit."
                ),
                gettext_noop(
                    "GPUs are set as limits only: Kubernetes copies them to requests. (The course "
                    "says extended resources take only requests; the API server does the opposite "
                    "and requires limits.)"
                ),
            ),
            sizes={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("16", "16", "64Gi", "64Gi", "2", "16Gi"),
                "L": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "XL": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
            },
        ),
        WorkloadSpec(
            key="distributed",
            label=gettext_noop("Distributed training worker"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
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
            sizes={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "L": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
                "XL": Size("96", "96", "1024Gi", "1024Gi", "8", "128Gi"),
            },
        ),
        WorkloadSpec(
            key="inference",
            label=gettext_noop("Online inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="Always",
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
            sizes={
                "S": Size("2", "2", "8Gi", "8Gi", "1"),
                "M": Size("4", "4", "16Gi", "16Gi", "1"),
                "L": Size("8", "8", "32Gi", "32Gi", "1"),
                "XL": Size("16", "16", "64Gi", "64Gi", "2"),
            },
        ),
        WorkloadSpec(
            key="batch",
            label=gettext_noop("Batch / offline inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="OnFailure",
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
            sizes={
                "S": Size("1", "", "4Gi", "8Gi", "1"),
                "M": Size("2", "", "8Gi", "16Gi", "1"),
                "L": Size("4", "", "16Gi", "32Gi", "1"),
                "XL": Size("8", "", "32Gi", "64Gi", "2"),
            },
        ),
        WorkloadSpec(
            key="preprocessing",
            label=gettext_noop("Data preprocessing"),
            image="python:3.12-slim",
            restart_policy="OnFailure",
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
            sizes={
                "S": Size("", "", "", ""),
                "M": Size("1", "", "2Gi", "4Gi"),
                "L": Size("4", "", "8Gi", "16Gi"),
                "XL": Size("8", "", "32Gi", "64Gi"),
            },
        ),
    )
}
SIZE_KEYS = ("S", "M", "L", "XL")
