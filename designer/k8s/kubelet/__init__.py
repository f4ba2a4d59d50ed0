"""What the kubelet does with an admitted pod: its QoS class, cgroup values (ResourceConfigForPod,
generateLinuxContainerResources), oom_score_adj, CPU throttling risk and eviction order, for a
given kubelet configuration (cpuCFSQuota, cpuCFSQuotaPeriod).
"""

from __future__ import annotations

from designer.k8s.kubelet.cgroups import (
    CPU_WEIGHT_LINEAR_LABEL,
    CPU_WEIGHT_QUADRATIC_LABEL,
    LinuxResources,
    ResourceConfig,
    calculate_linux_resources,
    container_hugepage_limits,
    container_linux_resources,
    cpu_max,
    cpu_weight_linear,
    cpu_weight_quadratic,
    hugepage_limits,
    hugepage_size_name,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    pod_cgroup,
    pod_milli_cpu_to_quota,
    resource_config_for_pod,
)
from designer.k8s.kubelet.config import (
    DurationError,
    KubeletConfig,
    go_duration_string,
    kubelet_config,
    parse_go_duration,
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
from designer.k8s.kubelet.values import (
    ContainerValues,
    KubeletValues,
    PodValues,
    kubelet_values,
)
from designer.k8s.kubelet.view import (
    BeyondInt64,
    NodeView,
    beyond_int64,
    node_view,
)

__all__ = [
    "BEST_EFFORT",
    "BURSTABLE",
    "BeyondInt64",
    "CPU_WEIGHT_LINEAR_LABEL",
    "CPU_WEIGHT_QUADRATIC_LABEL",
    "ContainerValues",
    "DurationError",
    "GUARANTEED",
    "KubeletConfig",
    "KubeletValues",
    "LinuxResources",
    "NodeView",
    "PodValues",
    "QosReason",
    "QosResult",
    "ResourceConfig",
    "beyond_int64",
    "calculate_linux_resources",
    "compute_qos_class",
    "container_hugepage_limits",
    "container_linux_resources",
    "cpu_max",
    "cpu_weight_linear",
    "cpu_weight_quadratic",
    "go_duration_string",
    "hugepage_limits",
    "hugepage_size_name",
    "kubelet_config",
    "kubelet_values",
    "milli_cpu_to_quota",
    "milli_cpu_to_shares",
    "node_view",
    "oom_score_adj",
    "parse_go_duration",
    "pod_cgroup",
    "pod_milli_cpu_to_quota",
    "pod_qos",
    "resource_config_for_pod",
]
