"""What the kubelet does with an admitted pod: its QoS class, cgroup values, oom_score_adj,
CPU throttling risk and eviction order.
"""

from __future__ import annotations

from designer.k8s.kubelet.cgroups import (
    CPU_WEIGHT_LINEAR_LABEL,
    CPU_WEIGHT_QUADRATIC_LABEL,
    cpu_max,
    cpu_weight_linear,
    cpu_weight_quadratic,
    hugepage_size_name,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    pod_cgroup,
)
from designer.k8s.kubelet.oom import (
    oom_score_adj,
)
from designer.k8s.kubelet.qos import (
    BEST_EFFORT,
    BURSTABLE,
    GUARANTEED,
    QosReason,
    QosResult,
    compute_qos_class,
    pod_qos,
)
from designer.k8s.kubelet.view import (
    NodeView,
    node_view,
)

__all__ = [
    "BEST_EFFORT",
    "BURSTABLE",
    "CPU_WEIGHT_LINEAR_LABEL",
    "CPU_WEIGHT_QUADRATIC_LABEL",
    "GUARANTEED",
    "NodeView",
    "QosReason",
    "QosResult",
    "compute_qos_class",
    "cpu_max",
    "cpu_weight_linear",
    "cpu_weight_quadratic",
    "hugepage_size_name",
    "milli_cpu_to_quota",
    "milli_cpu_to_shares",
    "node_view",
    "oom_score_adj",
    "pod_cgroup",
    "pod_qos",
]
