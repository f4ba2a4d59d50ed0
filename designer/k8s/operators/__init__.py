"""What ML operators and GPU schedulers do with a pod template: the Kubeflow Training
Operator's and Trainer's, JobSet's, LeaderWorkerSet's, KubeRay's, KServe's and Volcano's own
rules (webhook and controller messages verbatim), the containers they add, and the
annotations, labels and node selectors (KAI-Scheduler, HAMi, Kueue, GKE, the NVIDIA device
plugin) that change what a GPU request means.
"""

from __future__ import annotations

from designer.k8s.operators.annotations import (
    LABELS_READ,
)
from designer.k8s.operators.findings import (
    Finding,
    OperatorReport,
)
from designer.k8s.operators.report import (
    operator_reports,
)
from designer.k8s.operators.rules import (
    RULES,
    gpus_per_pod,
)

__all__ = [
    "Finding",
    "LABELS_READ",
    "OperatorReport",
    "RULES",
    "gpus_per_pod",
    "operator_reports",
]
