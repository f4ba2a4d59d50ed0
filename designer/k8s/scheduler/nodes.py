"""Nodes as node fit sees them: read from ``kubectl get node NAME -o yaml``, a catalog shape or
a custom capacity, always as a :class:`NodeInfo`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from designer.k8s.core import (
    Message,
    MessageError,
    Quantity,
    QuantityError,
    ResourceValue,
    gettext_noop,
)
from designer.k8s.gpu import GpuSharing, SharingError, advertised_gpus, mig_model
from designer.k8s.scheduler._units import INSTANCE_TYPE_LABEL, _canonical, _parse_list, _text
from designer.k8s.scheduler.allocatable import Allocatable, _estimate, estimate_allocatable
from designer.k8s.scheduler.catalog import NodeShape, catalog_shape

# --- nodes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeInfo:
    """What fit() needs to know about one node."""

    name: str | None
    capacity: dict[str, str]
    allocatable: dict[str, str]
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, Any], ...] = ()
    unschedulable: bool = False
    origin: Literal["manifest", "capacity", "catalog"] = "manifest"
    estimate: Allocatable | None = None
    shape: NodeShape | None = None
    # How the device plugin shares the GPUs, when the GPU resources were derived from it.
    gpu_sharing: GpuSharing | None = None
    gpu_notes: tuple[Message, ...] = ()

    @property
    def memory_capacity(self) -> int | None:
        """The node's memory capacity in bytes (what cadvisor reports and oom_score_adj uses),
        from status.capacity, else allocatable; None when the node gives neither."""
        value = self.capacity.get("memory") or self.allocatable.get("memory")
        try:
            q = Quantity.from_json(value) if value else None
        except QuantityError:
            return None
        return q.go_scaled_value(0) if q is not None and q.sign() > 0 else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "origin": self.origin,
            "capacity": dict(self.capacity),
            "allocatable": dict(self.allocatable),
            "labels": dict(self.labels),
            "taints": [dict(t) for t in self.taints],
            "unschedulable": self.unschedulable,
            "estimate": self.estimate.as_dict() if self.estimate else None,
            "shape": self.shape.as_dict() if self.shape else None,
            "gpuSharing": self.gpu_sharing.as_dict() if self.gpu_sharing else None,
            "gpuNotes": [n.text for n in self.gpu_notes],
        }


def _str_map(values: object, where: str) -> dict[str, str]:
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise MessageError(gettext_noop("%(where)s must be a mapping"), {"where": where})
    return {str(k): _text(v) for k, v in values.items()}


def _taints(values: object, where: str) -> tuple[dict[str, Any], ...]:
    if values is None:
        return ()
    if not isinstance(values, list) or not all(isinstance(t, Mapping) for t in values):
        raise MessageError(
            gettext_noop("%(where)s must be a list of taints (key, value, effect)"),
            {"where": where},
        )
    return tuple(dict(t) for t in values)


def node_from_manifest(obj: Mapping[str, Any]) -> NodeInfo:
    """A node from ``kubectl get node NAME -o yaml`` (parsed to a dict).

    A ``List`` holding exactly one Node is accepted too. Raises ValueError when the object is
    not a Node, has no status.allocatable or status.capacity, or holds a value that is not a
    quantity (naming its field).
    """
    if not isinstance(obj, Mapping):
        raise MessageError(gettext_noop("a Node manifest must be a mapping"))
    if obj.get("kind") == "List":
        items = [i for i in obj.get("items") or [] if isinstance(i, Mapping)]
        nodes = [i for i in items if i.get("kind", "Node") == "Node"]
        if len(nodes) != 1:
            raise MessageError(
                gettext_noop("the List holds %(count)s nodes; paste one (kubectl get node NAME)"),
                {"count": len(nodes)},
            )
        obj = nodes[0]
    kind = obj.get("kind")
    if kind not in (None, "Node"):
        raise MessageError(gettext_noop("expected a Node, got %(kind)s"), {"kind": repr(kind)})
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    if not all(isinstance(x, Mapping) for x in (meta, spec, status)):
        raise MessageError(gettext_noop("metadata, spec and status must be mappings"))
    raw_alloc = status.get("allocatable")
    raw_cap = status.get("capacity")
    if raw_alloc is None and raw_cap is None:
        raise MessageError(
            gettext_noop(
                "status.allocatable is missing: paste the output of kubectl get node NAME -o yaml"
            )
        )
    capacity = _canonical(_parse_list(raw_cap, "status.capacity"))
    allocatable = (
        _canonical(_parse_list(raw_alloc, "status.allocatable"))
        if raw_alloc is not None
        else dict(capacity)
    )
    return NodeInfo(
        name=_text(meta.get("name")) if meta.get("name") is not None else None,
        capacity=capacity,
        allocatable=allocatable,
        labels=_str_map(meta.get("labels"), "metadata.labels"),
        taints=_taints(spec.get("taints"), "spec.taints"),
        unschedulable=bool(spec.get("unschedulable")),
        origin="manifest",
    )


NO_GPUS_TO_SHARE = gettext_noop(
    "the node's capacity has no %(resource)s to share; give the number of physical GPUs as "
    "%(resource)s"
)
GPU_COUNT = gettext_noop("%(resource)s must be a whole number of physical GPUs, not %(value)s")


def _shared(
    capacity: Mapping[str, ResourceValue],
    sharing: GpuSharing | None,
    model: str | None,
    model_label: str = "",
) -> tuple[dict[str, ResourceValue], tuple[Message, ...]]:
    """The capacity with its physical nvidia.com/gpu replaced by what the device plugin
    advertises under ``sharing`` (gpu.advertised_gpus); raises SharingError."""
    if sharing is None or sharing.mode == "whole":
        return dict(capacity), ()
    gpu = "nvidia.com/gpu"
    if gpu not in capacity:
        raise SharingError("mode", NO_GPUS_TO_SHARE, {"resource": gpu})
    try:
        count = Quantity.from_json(capacity[gpu])
    except (QuantityError, TypeError, ValueError):
        count = None
    if count is None or count.sign() < 0 or not count.is_integer() or count.as_fraction() > 10_000:
        raise SharingError("mode", GPU_COUNT, {"resource": gpu, "value": repr(capacity[gpu])})
    advertised = advertised_gpus(int(count.as_fraction()), sharing, model, model_label=model_label)
    shared = {k: v for k, v in capacity.items() if k != gpu}
    shared.update({k: str(n) for k, n in advertised.resources.items()})
    return shared, advertised.notes


def node_from_capacity(
    capacity: Mapping[str, ResourceValue],
    provider: str,
    max_pods: int | None = None,
    *,
    name: str | None = None,
    labels: Mapping[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    gpu_sharing: GpuSharing | None = None,
    gpu_model: str | None = None,
) -> NodeInfo:
    """A custom node: ``capacity`` with allocatable estimated for ``provider``.

    With ``gpu_sharing``, ``capacity["nvidia.com/gpu"]`` counts the physical GPUs (of MIG model
    ``gpu_model``, needed for the MIG modes) and is replaced by what the device plugin
    advertises for that sharing; raises SharingError for a sharing the node cannot have.
    """
    if gpu_sharing is not None and gpu_model is not None:
        gpu_model = mig_model(gpu_model).key
    shared, notes = _shared(capacity, gpu_sharing, gpu_model)
    est = estimate_allocatable(shared, provider, max_pods)
    return NodeInfo(
        name=name,
        capacity=est.capacity,
        allocatable=est.allocatable,
        labels=_str_map(labels, "labels"),
        taints=_taints(taints, "taints"),
        origin="capacity",
        estimate=est,
        gpu_sharing=gpu_sharing if gpu_sharing and gpu_sharing.mode != "whole" else None,
        gpu_notes=notes,
    )


def node_from_catalog(
    shape_id: str,
    provider: str | None = None,
    max_pods: int | None = None,
    *,
    gpu_sharing: GpuSharing | None = None,
) -> NodeInfo:
    """A catalogued instance type with allocatable estimated for ``provider``.

    The provider defaults to the shape's cloud (AWS -> EKS, Google Cloud -> GKE, Azure -> AKS);
    on EKS the max pods default to the instance type's ENI limit. The node gets the
    ``node.kubernetes.io/instance-type`` label and no taints (managed GPU pools may add some;
    use a pasted node manifest to see them).

    With ``gpu_sharing`` the shape's GPUs are advertised as the device plugin would for that
    sharing (MIG slices of the shape's GPU model, replicas); raises SharingError when the
    shape cannot be shared that way (MIG on a GPU without MIG, a profile of another model).
    """
    shape = catalog_shape(shape_id)
    chosen = provider or shape.provider
    origin = None
    if max_pods is None and chosen == "eks" and shape.eks_max_pods is not None:
        max_pods, origin = shape.eks_max_pods, "eni"
    capacity, notes = _shared(shape.capacity(), gpu_sharing, shape.mig_model, shape.gpu_model)
    est = _estimate(capacity, chosen, max_pods, origin)
    return NodeInfo(
        name=shape.id,
        capacity=est.capacity,
        allocatable=est.allocatable,
        labels={INSTANCE_TYPE_LABEL: shape.id},
        origin="catalog",
        estimate=est,
        shape=shape,
        gpu_sharing=gpu_sharing if gpu_sharing and gpu_sharing.mode != "whole" else None,
        gpu_notes=notes,
    )
