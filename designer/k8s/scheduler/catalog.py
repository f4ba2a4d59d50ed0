"""The catalog of common GPU node shapes (scheduler/node_shapes.py), as NodeShape records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from designer.k8s.core import MessageError, gettext_noop
from designer.k8s.scheduler._units import PROVIDER_OF_CLOUD, _count_text, _parse
from designer.k8s.scheduler.node_shapes import NODE_SHAPES

# --- catalog ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeShape:
    """A cloud instance type with GPUs (one row of data/node_shapes.py)."""

    id: str
    cloud: str  # "aws", "gcp" or "azure"
    vcpus: int
    memory: str
    gpu_count: int
    gpu_model: str
    mig_model: str | None  # key of the GPU's MIG table (designer.k8s.gpu), None: no MIG
    gpu_memory_gb: int  # per GPU
    eks_max_pods: int | None
    source: str
    gpu_resource: str = "nvidia.com/gpu"

    @property
    def provider(self) -> str:
        return PROVIDER_OF_CLOUD[self.cloud]

    def capacity(self) -> dict[str, str]:
        return {
            "cpu": _count_text(self.vcpus),
            "memory": _parse(self.memory, self.id).canonical(),
            self.gpu_resource: _count_text(self.gpu_count),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cloud": self.cloud,
            "provider": self.provider,
            "vcpus": self.vcpus,
            "memory": self.memory,
            "gpuCount": self.gpu_count,
            "gpuModel": self.gpu_model,
            "migModel": self.mig_model,
            "gpuMemoryGB": self.gpu_memory_gb,
            "gpuResource": self.gpu_resource,
            "eksMaxPods": self.eks_max_pods,
            "capacity": self.capacity(),
            "source": self.source,
        }


def catalog_shapes() -> list[NodeShape]:
    """Every catalogued GPU node shape, AWS then Google Cloud then Azure."""
    return [NodeShape(key, *row) for key, row in NODE_SHAPES.items()]


def catalog_shape(shape_id: str) -> NodeShape:
    """One catalogued shape by instance type (case-insensitive); ValueError when unknown."""
    for shape in catalog_shapes():
        if shape.id.lower() == shape_id.strip().lower():
            return shape
    raise MessageError(
        gettext_noop("unknown node shape %(shape)s; known: %(known)s"),
        {"shape": repr(shape_id), "known": ", ".join(NODE_SHAPES)},
    )
