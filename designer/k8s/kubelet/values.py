"""The kubelet's numbers for a pod, as data: what ResourceConfigForPod gives the pod cgroup
and what generateLinuxContainerResources (with GetContainerOOMScoreAdjust) gives each
container. ``POST /api/v1/fit`` answers with :meth:`KubeletValues.as_dict`, and the designer's
"What the node does" table shows the same numbers (kubelet/view.py builds on this).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from designer.k8s.core import Pod
from designer.k8s.kubelet.cgroups import (
    LinuxResources,
    ResourceConfig,
    container_linux_resources,
    cpu_weight_linear,
    limit_for,
    resource_config_for_pod,
)
from designer.k8s.kubelet.config import KubeletConfig
from designer.k8s.kubelet.oom import _is_node_critical, oom_score_adj
from designer.k8s.kubelet.qos import BURSTABLE, compute_qos_class

Role = Literal["init", "sidecar", "app"]
Source = Literal["container", "pod", "none"]


@dataclass(frozen=True)
class PodValues:
    """The pod cgroup: ResourceConfig (None = the kubelet leaves the field unset; a quota of
    -1 = cpuCFSQuota off) and the cpu.weight the kubelet derives from the shares."""

    cpu_shares: int
    cpu_weight: int  # getCPUWeight(cpuShares), linear
    cpu_quota: int | None
    cpu_period: int | None
    memory_limit: int | None
    hugetlb: dict[int, int]

    def as_dict(self) -> dict[str, int | None]:
        return {
            "cpuShares": self.cpu_shares,
            "cpuWeight": self.cpu_weight,
            "cpuQuota": self.cpu_quota,
            "cpuPeriod": self.cpu_period,
            "memoryLimit": self.memory_limit,
        }


@dataclass(frozen=True)
class ContainerValues:
    """One container: CRI LinuxContainerResources (0 = not set) and its oom_score_adj."""

    name: str | None
    field: str  # e.g. "spec.initContainers[0]"
    role: Role
    cpu_shares: int
    cpu_quota: int
    cpu_period: int
    memory_limit: int
    oom_score_adj: int | None  # None: Burstable and the node's memory capacity is unknown
    cpu_limit_source: Source
    memory_limit_source: Source
    unified: dict[str, str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cpuShares": self.cpu_shares,
            "cpuQuota": self.cpu_quota,
            "cpuPeriod": self.cpu_period,
            "memoryLimit": self.memory_limit,
            "oomScoreAdj": self.oom_score_adj,
        }


@dataclass(frozen=True)
class KubeletValues:
    qos_class: str
    config: KubeletConfig
    memory_capacity: int | None
    pod: PodValues
    containers: tuple[ContainerValues, ...]

    def as_dict(self) -> dict[str, Any]:
        """``{"pod": {...}, "containers": [...]}``, the ``kubelet`` answer of /api/v1/fit."""
        return {"pod": self.pod.as_dict(), "containers": [c.as_dict() for c in self.containers]}


def _pod_values(rc: ResourceConfig) -> PodValues:
    return PodValues(
        rc.cpu_shares,
        cpu_weight_linear(rc.cpu_shares),
        rc.cpu_quota,
        rc.cpu_period,
        rc.memory,
        rc.hugetlb,
    )


def kubelet_values(
    defaulted: Pod,
    memory_capacity: int | None = None,
    config: KubeletConfig | None = None,
    *,
    spec_path: str = "spec",
    qos_class: str | None = None,
) -> KubeletValues:
    """What the kubelet computes for ``defaulted`` (the pod as the API server stores it) on a
    node with ``memory_capacity`` bytes of memory (None: unknown, so a Burstable container's
    oom_score_adj is None).

    Values that cannot be read count as unset here; callers that can meet them (the node
    view, the API) check for them first (core.unreadable_quantities).
    """
    config = config or KubeletConfig()
    qos_class = qos_class or compute_qos_class(defaulted)
    capacity = memory_capacity if memory_capacity and memory_capacity > 0 else None
    rc = resource_config_for_pod(
        defaulted,
        qos_class,
        enforce_cpu_limits=config.cpu_cfs_quota,
        cpu_period=config.cpu_cfs_quota_period_us,
    )
    containers = []
    for rel, c in defaulted.spec.all_containers():
        lr: LinuxResources = container_linux_resources(defaulted, c, config)
        adj: int | None
        if capacity is not None:
            adj = oom_score_adj(defaulted, c, capacity, qos_class=qos_class)
        elif qos_class == BURSTABLE and not _is_node_critical(defaulted):
            adj = None  # depends on the node's memory capacity
        else:
            adj = oom_score_adj(defaulted, c, 1, qos_class=qos_class)  # capacity does not matter
        role: Role = (
            "app" if rel.startswith("containers[") else ("sidecar" if c.is_sidecar else "init")
        )
        containers.append(
            ContainerValues(
                name=c.name,
                field=f"{spec_path}.{rel}",
                role=role,
                cpu_shares=lr.cpu_shares,
                cpu_quota=lr.cpu_quota,
                cpu_period=lr.cpu_period,
                memory_limit=lr.memory_limit_in_bytes,
                oom_score_adj=adj,
                cpu_limit_source=limit_for(defaulted, c, "cpu")[1],  # type: ignore[arg-type]
                memory_limit_source=limit_for(defaulted, c, "memory")[1],  # type: ignore[arg-type]
                unified=lr.unified,
            )
        )
    return KubeletValues(qos_class, config, capacity, _pod_values(rc), tuple(containers))
