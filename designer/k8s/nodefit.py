"""Node fit: how many copies of a pod a GPU node takes, what stays idle, what keeps it Pending.

Three ways to describe a node, all giving a :class:`NodeInfo`:

* :func:`node_from_manifest` reads ``kubectl get node NAME -o yaml`` (status.allocatable,
  status.capacity, metadata.labels and spec.taints used as they are);
* :func:`node_from_catalog` takes a cloud instance type from ``data/node_shapes.py``;
* :func:`node_from_capacity` takes a custom capacity.

The last two estimate allocatable with :func:`estimate_allocatable`, the documented
kube-reserved and hard-eviction formulas of GKE, EKS or AKS (``data/reservations.py``).

:func:`fit` then does what the scheduler's filters do for one node: NodeUnschedulable,
TaintToleration (NoSchedule and NoExecute), NodeAffinity (nodeSelector and required node
affinity) and NodeResourcesFit, with the pod's effective requests (init containers, sidecars,
pod-level resources and pod overhead included) counted in the scheduler's integer units
(millicores for cpu, Value() for everything else, both rounded up).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from designer.k8s.data import reservations as R
from designer.k8s.data.gpu_sharing import VENDORS
from designer.k8s.data.node_shapes import NODE_SHAPES
from designer.k8s.gpu import MIG_RESOURCE_PREFIX, SHARED_SUFFIX, Message, is_gpu_resource
from designer.k8s.model import Pod, ResourceValue
from designer.k8s.node import milli, whole
from designer.k8s.quantity import BINARY_SI, DECIMAL_SI, Quantity, QuantityError
from designer.k8s.scheduling import (
    effective_requests,
    is_native_resource,
    resource_sort_key,
)
from designer.k8s.text import MessageError, gettext_noop

__all__ = [
    "PROVIDERS",
    "Allocatable",
    "FitResult",
    "NodeInfo",
    "NodeShape",
    "PendingReason",
    "catalog_shape",
    "catalog_shapes",
    "estimate_allocatable",
    "fit",
    "node_from_capacity",
    "node_from_catalog",
    "node_from_manifest",
    "tolerates",
]

Provider = Literal["gke", "eks", "aks"]
PROVIDERS: tuple[str, ...] = ("gke", "eks", "aks")
PROVIDER_OF_CLOUD = {"gcp": "gke", "aws": "eks", "azure": "aks"}
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
_FILTERED_EFFECTS = ("NoSchedule", "NoExecute")  # TaintToleration ignores PreferNoSchedule
_MAX_PODS_LIMIT = 100_000


# --- quantities ------------------------------------------------------------------------------


def _parse(value: ResourceValue, where: str) -> Quantity:
    try:
        return Quantity.from_json(value)
    except (QuantityError, TypeError, ValueError) as e:
        raise MessageError(
            gettext_noop("%(where)s: %(value)s is not a Kubernetes quantity (%(error)s)"),
            {"where": where, "value": repr(value), "error": str(e)},
        ) from None


_MAX_QUANTITY = Quantity.from_fraction(2**63 - 1)  # the kubelet's int64 ceiling


def _exact(q: Quantity, where: str) -> Fraction:
    # Compared first: as_fraction() would build a huge int for 1e999999 (or raise).
    if q > _MAX_QUANTITY:
        raise MessageError(
            gettext_noop("%(where)s: %(value)s is too large"),
            {"where": where, "value": q.canonical()},
        )
    return q.as_fraction()


def _parse_list(values: Mapping[str, ResourceValue] | None, where: str) -> dict[str, Quantity]:
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise MessageError(
            gettext_noop("%(where)s must be a mapping of resource names to quantities"),
            {"where": where},
        )
    return {str(k): _parse(v, f"{where}[{k}]") for k, v in values.items()}


def _canonical(values: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: values[k].canonical() for k in sorted(values, key=resource_sort_key)}


def _cpu_text(millicores: int | Fraction) -> str:
    return Quantity.from_fraction(Fraction(millicores) / 1000, DECIMAL_SI).canonical()


def _bytes_text(n: int | Fraction) -> str:
    return Quantity.from_fraction(Fraction(n), BINARY_SI).canonical()


def _count_text(n: int) -> str:
    return Quantity.from_fraction(n, DECIMAL_SI).canonical()


def _unit_text(resource: str, amount: int) -> str:
    """An amount in the scheduler's integer unit for ``resource``, as a canonical quantity."""
    if resource == "cpu":
        return _cpu_text(amount)
    if resource == "memory" or resource.startswith("hugepages-") or "storage" in resource:
        return _bytes_text(amount)
    return _count_text(amount)


def _units(resource: str, q: Quantity) -> int:
    """The scheduler's integer amount: MilliValue() for cpu, Value() for the rest (rounded up)."""
    return milli(q) if resource == "cpu" else whole(q)


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


# --- allocatable estimate --------------------------------------------------------------------

L_GKE_CPU = gettext_noop(
    "GKE reserves CPU for the kubelet and system daemons: 6%% of the first core, 1%% of the next "
    "core, 0.5%% of the next 2 cores and 0.25%% of every core above 4, so %(reserved)s "
    "out of %(capacity)s CPU."
)
L_GKE_MEMORY = gettext_noop(
    "GKE reserves memory: 25%% of the first 4 GiB, 20%% of the next 4 GiB, 10%% of the next "
    "8 GiB, 6%% of the next 112 GiB and 2%% of any memory above 128 GiB (255 MiB on machines "
    "with less than 1 GiB), so %(reserved)s of %(capacity)s (rounded up to whole MiB)."
)
L_EKS_CPU = gettext_noop(
    "EKS (bootstrap.sh on Amazon Linux 2, nodeadm on Amazon Linux 2023) reserves CPU with GKE's "
    "tiers: 6%% of the first core, 1%% of the next core, 0.5%% of the next 2 cores and 0.25%% of "
    "every core above 4, so %(reserved)s out of %(capacity)s CPU."
)
L_EKS_MEMORY = gettext_noop(
    "EKS reserves 11 MiB of memory per pod the node may run plus 255 MiB: "
    "11 x %(max_pods)s + 255 = %(reserved)s."
)
L_AKS_CPU = gettext_noop(
    "AKS reserves CPU by core count (published: 1 core 60m, 2 cores 100m, 4 cores 140m, 8 cores "
    "180m, 16 cores 260m, 32 cores 420m, 64 cores 740m; that is 60m for the first core, 40m for "
    "the second, 20m for each of cores 3 and 4 and 10m for each core above 4), so %(reserved)s "
    "out of %(capacity)s CPU."
)
L_AKS_MEMORY = gettext_noop(
    "AKS (Kubernetes 1.29 and later) reserves the smaller of 20 MiB per pod plus 50 MiB "
    "(20 x %(max_pods)s + 50 = %(per_pods)s) and 25%% of the memory (%(quarter)s): %(reserved)s."
)
L_EVICTION = gettext_noop(
    "The kubelet evicts pods when less than %(eviction)s of memory is available "
    "(evictionHard memory.available), so that much is not allocatable either."
)
L_ALLOC_CPU = gettext_noop("Allocatable CPU = %(capacity)s - %(reserved)s = %(allocatable)s.")
L_ALLOC_MEMORY = gettext_noop(
    "Allocatable memory = %(capacity)s - %(reserved)s - %(eviction)s = %(allocatable)s."
)
L_PODS_GIVEN = gettext_noop("At most %(max_pods)s pods per node, as given.")
L_PODS_CAPACITY = gettext_noop("At most %(max_pods)s pods per node, from the capacity.")
L_PODS_GKE = gettext_noop("At most %(max_pods)s pods per node (GKE Standard default).")
L_PODS_ENI = gettext_noop(
    "At most %(max_pods)s pods per node: the instance type's ENI limit from the EKS AMI's "
    "eni-max-pods.txt (ENIs x (IPv4 addresses per ENI - 1) + 2)."
)
L_PODS_EKS_DEFAULT = gettext_noop(
    "At most %(max_pods)s pods per node: the kubelet default EKS falls back to when the "
    "instance type's ENI limit is unknown. Give the real max pods for a closer estimate."
)
L_PODS_AKS = gettext_noop(
    "At most %(max_pods)s pods per node (AKS default with Azure CNI; kubenet defaults to 110 and "
    "Azure CNI Overlay to 250: give the real value if yours differs)."
)
L_PASSTHROUGH = gettext_noop(
    "%(resources)s: allocatable as in the capacity (the device plugin advertises the same count; "
    "no provider reserves any)."
)

_SOURCES = {"gke": R.GKE_SOURCE, "eks": R.EKS_SOURCE, "aks": R.AKS_SOURCE}


@dataclass(frozen=True)
class Allocatable:
    """An estimate of a node's allocatable from its capacity and the provider's formulas."""

    provider: str
    capacity: dict[str, str]
    allocatable: dict[str, str]
    reserved: dict[str, str]  # kube-reserved (cpu, memory)
    eviction: dict[str, str]  # hard eviction threshold (memory)
    max_pods: int
    formula_lines: list[Message]
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "capacity": dict(self.capacity),
            "allocatable": dict(self.allocatable),
            "reserved": dict(self.reserved),
            "evictionHard": dict(self.eviction),
            "maxPods": self.max_pods,
            "formula": [line.text for line in self.formula_lines],
            "formulaDetails": [line.as_dict() for line in self.formula_lines],
            "source": self.source,
        }


def _tiered(total: Fraction, tiers: Iterable[tuple[int | None, Fraction]]) -> Fraction:
    """Sum of share x (part of ``total`` inside each range); ranges start where the last ended."""
    start, reserved = 0, Fraction(0)
    for end, share in tiers:
        if total <= start:
            break
        top = total if end is None else min(total, end)
        reserved += (top - start) * share
        if end is None:
            break
        start = end
    return reserved


def _eks_cpu_milli(total_milli: Fraction) -> int:
    """nodeadm getCPUMillicoresToReserve: each range's share truncated, as Go's int division."""
    start, reserved = 0, 0
    for end, share in R.CPU_PERCENT_TIERS:
        if total_milli <= start:
            break
        top = total_milli if end is None else min(total_milli, end)
        reserved += math.floor((top - start) * share)
        if end is None:
            break
        start = end
    return reserved


def _round_up(n: Fraction, step: int) -> int:
    return math.ceil(n / step) * step


def _check_max_pods(max_pods: object) -> int:
    if isinstance(max_pods, bool) or not isinstance(max_pods, int):
        raise MessageError(
            gettext_noop("max pods must be a whole number, not %(value)s"),
            {"value": repr(max_pods)},
        )
    if not 1 <= max_pods <= _MAX_PODS_LIMIT:
        raise MessageError(
            gettext_noop("max pods must be between 1 and %(limit)s, not %(value)s"),
            {"limit": _MAX_PODS_LIMIT, "value": max_pods},
        )
    return max_pods


def estimate_allocatable(
    capacity: Mapping[str, ResourceValue], provider: str, max_pods: int | None = None
) -> Allocatable:
    """Allocatable for a node of ``capacity`` on ``provider`` ("gke", "eks" or "aks").

    ``max_pods`` matters to EKS and AKS (their memory reservation grows with it) and becomes the
    ``pods`` allocatable; without it, a ``pods`` entry of the capacity is used, else the
    provider's default (GKE 110, EKS 110 for an unknown instance type, AKS 30). GPUs and other
    resources are passed through unchanged. Raises ValueError for an unknown provider or a
    value that is not a quantity, naming it.
    """
    return _estimate(capacity, provider, max_pods, None)


def _estimate(
    capacity: Mapping[str, ResourceValue],
    provider: str,
    max_pods: int | None,
    pods_origin: str | None,
) -> Allocatable:
    if provider not in PROVIDERS:
        raise MessageError(
            gettext_noop("unknown provider %(provider)s; choose one of %(known)s"),
            {"provider": repr(provider), "known": ", ".join(PROVIDERS)},
        )
    cap = _parse_list(capacity, "capacity")
    lines: list[Message] = []

    if max_pods is not None:
        pods = _check_max_pods(max_pods)
        pods_line = L_PODS_ENI if pods_origin == "eni" else L_PODS_GIVEN
    elif "pods" in cap:
        if not cap["pods"].is_integer():
            raise MessageError(
                gettext_noop("capacity[pods]: %(value)s is not a whole number"),
                {"value": cap["pods"].canonical()},
            )
        pods = _check_max_pods(whole(cap["pods"]))
        pods_line = L_PODS_CAPACITY
    else:
        pods = {"gke": R.GKE_DEFAULT_MAX_PODS, "eks": R.EKS_DEFAULT_MAX_PODS}.get(
            provider, R.AKS_DEFAULT_MAX_PODS
        )
        pods_line = {"gke": L_PODS_GKE, "eks": L_PODS_EKS_DEFAULT}.get(provider, L_PODS_AKS)

    allocatable: dict[str, str] = {}
    reserved: dict[str, str] = {}
    eviction: dict[str, str] = {}

    if "cpu" in cap:
        total = _exact(cap["cpu"], "capacity[cpu]") * 1000  # millicores
        if total < 0:
            raise MessageError(
                gettext_noop("%(where)s: %(value)s is negative"),
                {"where": "capacity[cpu]", "value": cap["cpu"].canonical()},
            )
        if provider == "eks":
            cpu_reserved = _eks_cpu_milli(total)
        elif provider == "gke":
            cpu_reserved = math.ceil(_tiered(total, R.CPU_PERCENT_TIERS))
        else:
            cpu_reserved = math.ceil(_tiered(total, R.AKS_CPU_TIERS_MILLI))
        cpu_reserved = min(cpu_reserved, math.floor(total))
        params = {"capacity": cap["cpu"].canonical(), "reserved": _cpu_text(cpu_reserved)}
        lines.append(
            Message({"gke": L_GKE_CPU, "eks": L_EKS_CPU, "aks": L_AKS_CPU}[provider], params)
        )
        cpu_alloc = _cpu_text(max(Fraction(0), total - cpu_reserved))
        reserved["cpu"] = params["reserved"]
        allocatable["cpu"] = cpu_alloc
        lines.append(Message(L_ALLOC_CPU, {**params, "allocatable": cpu_alloc}))

    if "memory" in cap:
        total = _exact(cap["memory"], "capacity[memory]")  # bytes
        if total < 0:
            raise MessageError(
                gettext_noop("%(where)s: %(value)s is negative"),
                {"where": "capacity[memory]", "value": cap["memory"].canonical()},
            )
        capacity_text = cap["memory"].canonical()
        if provider == "gke":
            evict = R.GKE_EVICTION_MEMORY
            if total < R.GKE_SMALL_MACHINE_BYTES:
                mem_reserved = R.GKE_SMALL_MACHINE_RESERVED
            else:
                mem_reserved = _round_up(_tiered(total, R.GKE_MEMORY_TIERS), R.MIB)
            lines.append(
                Message(
                    L_GKE_MEMORY,
                    {"capacity": capacity_text, "reserved": _bytes_text(mem_reserved)},
                )
            )
        elif provider == "eks":
            evict = R.EKS_EVICTION_MEMORY
            mem_reserved = (R.EKS_MEMORY_PER_POD_MIB * pods + R.EKS_MEMORY_BASE_MIB) * R.MIB
            lines.append(
                Message(L_EKS_MEMORY, {"max_pods": pods, "reserved": _bytes_text(mem_reserved)})
            )
        else:
            evict = R.AKS_EVICTION_MEMORY
            per_pods = (R.AKS_MEMORY_PER_POD_MIB * pods + R.AKS_MEMORY_BASE_MIB) * R.MIB
            quarter = _round_up(total * R.AKS_MEMORY_CAP, R.MIB)
            mem_reserved = min(per_pods, quarter)
            lines.append(
                Message(
                    L_AKS_MEMORY,
                    {
                        "max_pods": pods,
                        "per_pods": _bytes_text(per_pods),
                        "quarter": _bytes_text(quarter),
                        "reserved": _bytes_text(mem_reserved),
                    },
                )
            )
        lines.append(Message(L_EVICTION, {"eviction": _bytes_text(evict)}))
        mem_alloc = _bytes_text(max(Fraction(0), total - mem_reserved - evict))
        reserved["memory"] = _bytes_text(mem_reserved)
        eviction["memory"] = _bytes_text(evict)
        allocatable["memory"] = mem_alloc
        lines.append(
            Message(
                L_ALLOC_MEMORY,
                {
                    "capacity": capacity_text,
                    "reserved": reserved["memory"],
                    "eviction": eviction["memory"],
                    "allocatable": mem_alloc,
                },
            )
        )

    allocatable["pods"] = _count_text(pods)
    lines.append(Message(pods_line, {"max_pods": pods}))
    passed = [n for n in sorted(cap, key=resource_sort_key) if n not in ("cpu", "memory", "pods")]
    for name in passed:
        allocatable[name] = cap[name].canonical()
    if passed:
        lines.append(Message(L_PASSTHROUGH, {"resources": ", ".join(passed)}))

    capacity_out = _canonical(cap)
    capacity_out.setdefault("pods", _count_text(pods))
    return Allocatable(
        provider=provider,
        capacity=capacity_out,
        allocatable={k: allocatable[k] for k in sorted(allocatable, key=resource_sort_key)},
        reserved=reserved,
        eviction=eviction,
        max_pods=pods,
        formula_lines=lines,
        source=_SOURCES[provider],
    )


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


def node_from_capacity(
    capacity: Mapping[str, ResourceValue],
    provider: str,
    max_pods: int | None = None,
    *,
    name: str | None = None,
    labels: Mapping[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
) -> NodeInfo:
    """A custom node: ``capacity`` with allocatable estimated for ``provider``."""
    est = estimate_allocatable(capacity, provider, max_pods)
    return NodeInfo(
        name=name,
        capacity=est.capacity,
        allocatable=est.allocatable,
        labels=_str_map(labels, "labels"),
        taints=_taints(taints, "taints"),
        origin="capacity",
        estimate=est,
    )


def node_from_catalog(
    shape_id: str, provider: str | None = None, max_pods: int | None = None
) -> NodeInfo:
    """A catalogued instance type with allocatable estimated for ``provider``.

    The provider defaults to the shape's cloud (AWS -> EKS, Google Cloud -> GKE, Azure -> AKS);
    on EKS the max pods default to the instance type's ENI limit. The node gets the
    ``node.kubernetes.io/instance-type`` label and no taints (managed GPU pools may add some;
    use a pasted node manifest to see them).
    """
    shape = catalog_shape(shape_id)
    chosen = provider or shape.provider
    origin = None
    if max_pods is None and chosen == "eks" and shape.eks_max_pods is not None:
        max_pods, origin = shape.eks_max_pods, "eni"
    est = _estimate(shape.capacity(), chosen, max_pods, origin)
    return NodeInfo(
        name=shape.id,
        capacity=est.capacity,
        allocatable=est.allocatable,
        labels={INSTANCE_TYPE_LABEL: shape.id},
        origin="catalog",
        estimate=est,
        shape=shape,
    )


# --- scheduling predicates -------------------------------------------------------------------


def _text(value: object) -> str:
    """A label/taint value as Kubernetes would hold it (strings; YAML booleans as true/false)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go), exactly.

    An empty effect matches every effect; an empty key matches every key (validation only
    allows that with operator Exists); operator Exists matches any value, Equal (or empty)
    needs the same value; any other operator matches nothing.
    """
    effect = _text(toleration.get("effect"))
    if effect and effect != _text(taint.get("effect")):
        return False
    key = _text(toleration.get("key"))
    if key and key != _text(taint.get("key")):
        return False
    operator = _text(toleration.get("operator"))
    if operator in ("", "Equal"):
        return _text(toleration.get("value")) == _text(taint.get("value"))
    return operator == "Exists"


def _tolerated(tolerations: list[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def _taint_text(taint: Mapping[str, Any]) -> str:
    key, value, effect = (_text(taint.get(k)) for k in ("key", "value", "effect"))
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _go_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64) for Gt/Lt, None when it fails."""
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit() or not body.isascii():
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


def _requirement_matches(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """One NodeSelectorRequirement against the node's labels (labels.Selector semantics)."""
    key = _text(expr.get("key"))
    op = _text(expr.get("operator"))
    values = [_text(v) for v in expr.get("values") or []]
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        if not present or len(values) != 1:
            return False
        have, bound = _go_int64(labels[key]), _go_int64(values[0])
        if have is None or bound is None:
            return False
        return have > bound if op == "Gt" else have < bound
    return False


def _term_matches(term: Mapping[str, Any], node: NodeInfo) -> bool:
    """A NodeSelectorTerm: its expressions and fields ANDed; an empty term matches nothing."""
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False
    node_fields = {"metadata.name": node.name or ""}
    for f in fields:
        if _text(f.get("key")) != "metadata.name" or _text(f.get("operator")) not in (
            "In",
            "NotIn",
        ):
            return False
        if not _requirement_matches(f, node_fields):
            return False
    return all(_requirement_matches(e, node.labels) for e in exprs)


# --- fit -------------------------------------------------------------------------------------

P_UNSCHEDULABLE = gettext_noop(
    "The node is cordoned (spec.unschedulable): the scheduler places no new pods on it."
)
P_TAINT = gettext_noop(
    "The node has the taint %(taint)s and the pod has no toleration for it, so the scheduler "
    "will not place it there."
)
P_SELECTOR_MISSING = gettext_noop(
    "nodeSelector %(key)s=%(value)s does not match: the node has no %(key)s label."
)
P_SELECTOR_DIFFERENT = gettext_noop(
    "nodeSelector %(key)s=%(value)s does not match: the node's label is %(key)s=%(actual)s."
)
P_AFFINITY = gettext_noop(
    "None of the %(terms)s term(s) of the pod's required node affinity matches the node's labels."
)
P_DEVICE_PLUGIN = gettext_noop(
    "The node has no %(resource)s in its allocatable, so the pod stays Pending with "
    "“Insufficient %(resource)s”: %(plugin)s is not running there, or the node has no such "
    "device."
)
P_DEVICE_PLUGIN_OTHER = gettext_noop(
    "The node has no %(resource)s in its allocatable, so the pod stays Pending with "
    "“Insufficient %(resource)s”; it advertises %(others)s instead: request that name, or change "
    "how the GPUs are shared on the node."
)
P_INSUFFICIENT = gettext_noop(
    "Insufficient %(resource)s: the pod requests %(request)s but the node has %(available)s "
    "allocatable."
)
P_INSUFFICIENT_DS = gettext_noop(
    "Insufficient %(resource)s: the pod requests %(request)s but the node has %(available)s "
    "allocatable once its DaemonSets (%(overhead)s) are counted."
)
P_TOO_MANY_PODS = gettext_noop(
    "Too many pods: the node allows %(pods)s pods and its DaemonSets already take them all."
)
DEFAULT_PLUGIN = gettext_noop("the device plugin that advertises it")
N_IDLE = gettext_noop(
    "%(amount)s %(resource)s left idle on each node: %(bottleneck)s runs out first."
)
N_REMAINDER = gettext_noop(
    "%(amount)s %(resource)s left idle on each node: %(available)s is not a multiple of the "
    "%(request)s each pod requests."
)
N_UNREQUESTED = gettext_noop(
    "%(amount)s %(resource)s left unrequested on each node: this pod asks for none."
)
N_NO_REQUESTS = gettext_noop(
    "The pod requests nothing, so only the node's pod limit bounds how many fit."
)


@dataclass(frozen=True)
class PendingReason:
    """Why the scheduler would leave the pod Pending on this node."""

    code: str  # unschedulable, untolerated-taint, node-selector, node-affinity,
    # device-plugin-missing, insufficient, too-many-pods
    message: Message
    resource: str | None = None

    @property
    def text(self) -> str:
        return self.message.text

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "resource": self.resource, **self.message.as_dict()}


@dataclass(frozen=True)
class FitResult:
    """How many copies of a pod one node takes, and what is left over."""

    pods_per_node: int | None  # 0 when the pod cannot land; None = unbounded
    pods_per_node_by_resources: int | None  # the resource arithmetic alone
    bottleneck: str | None  # None when the pod requests nothing
    bottlenecks: tuple[str, ...]  # every resource that runs out at the same count
    pods_by_resource: dict[str, int]
    requests: dict[str, str]
    allocatable: dict[str, str]  # after DaemonSet overhead
    stranded: dict[str, str]
    pending_reasons: tuple[PendingReason, ...]
    notes: tuple[Message, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "podsPerNode": self.pods_per_node,
            "podsPerNodeByResources": self.pods_per_node_by_resources,
            "bottleneck": self.bottleneck,
            "bottlenecks": list(self.bottlenecks),
            "podsByResource": dict(self.pods_by_resource),
            "requests": dict(self.requests),
            "allocatable": dict(self.allocatable),
            "stranded": dict(self.stranded),
            "pendingReasons": [r.text for r in self.pending_reasons],
            "pendingReasonDetails": [r.as_dict() for r in self.pending_reasons],
            "notes": [n.text for n in self.notes],
            "noteDetails": [n.as_dict() for n in self.notes],
        }


def _bottleneck_order(name: str) -> tuple[int, tuple[int, str]]:
    """Ties are reported GPUs first, then other extended resources, cpu, memory, ..., pods."""
    if name == "pods":
        return (3, (0, name))
    if is_gpu_resource(name):
        return (0, (0, name))
    if not is_native_resource(name):
        return (1, (0, name))
    return (2, resource_sort_key(name))


def _plugin_for(resource: str) -> str:
    if resource.startswith(MIG_RESOURCE_PREFIX):
        return str(VENDORS["nvidia"]["plugin"])
    base = resource.removesuffix(SHARED_SUFFIX)
    for row in VENDORS.values():
        if base in row["resources"]:  # type: ignore[operator]
            return str(row["plugin"])
    return DEFAULT_PLUGIN


def _pod_tolerations(pod: Pod) -> list[Mapping[str, Any]]:
    return [t for t in pod.spec.tolerations or [] if isinstance(t, Mapping)]


def _placement_reasons(pod: Pod, node: NodeInfo) -> list[PendingReason]:
    reasons: list[PendingReason] = []
    tolerations = _pod_tolerations(pod)
    if node.unschedulable and not _tolerated(tolerations, UNSCHEDULABLE_TAINT):
        reasons.append(PendingReason("unschedulable", Message(P_UNSCHEDULABLE, {})))
    for taint in node.taints:
        if _text(taint.get("effect")) in _FILTERED_EFFECTS and not _tolerated(tolerations, taint):
            reasons.append(
                PendingReason("untolerated-taint", Message(P_TAINT, {"taint": _taint_text(taint)}))
            )
    for key, value in (pod.spec.node_selector or {}).items():
        want = _text(value)
        if key not in node.labels:
            msg = Message(P_SELECTOR_MISSING, {"key": key, "value": want})
        elif node.labels[key] != want:
            msg = Message(
                P_SELECTOR_DIFFERENT, {"key": key, "value": want, "actual": node.labels[key]}
            )
        else:
            continue
        reasons.append(PendingReason("node-selector", msg))
    affinity = (pod.spec.model_extra or {}).get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = (
        node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(node_affinity, Mapping)
        else None
    )
    if isinstance(required, Mapping):
        terms = [t for t in required.get("nodeSelectorTerms") or [] if isinstance(t, Mapping)]
        if not any(_term_matches(t, node) for t in terms):
            reasons.append(
                PendingReason("node-affinity", Message(P_AFFINITY, {"terms": len(terms)}))
            )
    return reasons


def fit(
    pod: Pod, node: NodeInfo, daemonset_overhead: Mapping[str, ResourceValue] | None = None
) -> FitResult:
    """How many copies of ``pod`` fit on ``node`` and what would keep it Pending there.

    ``daemonset_overhead`` is what the node's DaemonSet pods request in total (a ``pods`` entry
    counts their number against the node's pod limit); it is taken from allocatable first.
    Per resource the count is floor(allocatable left / effective request), the pod limit caps
    it, and the smallest count is the bottleneck. ``stranded`` is allocatable left minus
    pods-per-node x request, for cpu, memory and every GPU resource of the node or the pod.
    Raises ValueError for an overhead value that is not a quantity.
    """
    requests = {n: q for n, q in effective_requests(pod).items() if q.sign() > 0}
    req_units = {n: _units(n, q) for n, q in requests.items()}
    req_units = {n: u for n, u in req_units.items() if u > 0}
    alloc = {n: _units(n, q) for n, q in _parse_list(node.allocatable, "allocatable").items()}
    overhead_q = _parse_list(daemonset_overhead, "daemonset_overhead")
    overhead = {n: max(0, _units(n, q)) for n, q in overhead_q.items()}
    avail = {n: max(0, a - overhead.get(n, 0)) for n, a in alloc.items()}

    reasons = _placement_reasons(pod, node)
    counts: dict[str, int] = {}
    for name in sorted(req_units, key=_bottleneck_order):
        need = req_units[name]
        if name not in alloc and not is_native_resource(name):
            others = sorted(n for n in alloc if is_gpu_resource(n) and alloc[n] > 0)
            if is_gpu_resource(name) and others:
                msg = Message(
                    P_DEVICE_PLUGIN_OTHER, {"resource": name, "others": ", ".join(others)}
                )
            else:
                msg = Message(P_DEVICE_PLUGIN, {"resource": name, "plugin": _plugin_for(name)})
            reasons.append(PendingReason("device-plugin-missing", msg, name))
            counts[name] = 0
            continue
        have = avail.get(name, 0)
        counts[name] = have // need
        if need > have:
            params = {
                "resource": name,
                "request": requests[name].canonical(),
                "available": _unit_text(name, have),
            }
            template = P_INSUFFICIENT
            if overhead.get(name):
                template = P_INSUFFICIENT_DS
                params["overhead"] = overhead_q[name].canonical()
            reasons.append(PendingReason("insufficient", Message(template, params), name))
    if "pods" in alloc:
        counts["pods"] = avail["pods"]
        if avail["pods"] < 1:
            reasons.append(
                PendingReason(
                    "too-many-pods",
                    Message(P_TOO_MANY_PODS, {"pods": alloc["pods"]}),
                    "pods",
                )
            )

    by_resources = min(counts.values()) if counts else None
    bottlenecks: tuple[str, ...] = ()
    if req_units and by_resources is not None:
        bottlenecks = tuple(
            n for n in sorted(counts, key=_bottleneck_order) if counts[n] == by_resources
        )
    per_node = 0 if reasons else by_resources
    placement_blocked = any(
        r.code not in ("insufficient", "too-many-pods", "device-plugin-missing") for r in reasons
    )

    notes: list[Message] = []
    if not req_units:
        notes.append(Message(N_NO_REQUESTS, {}))
    stranded: dict[str, str] = {}
    if per_node is not None:
        shown = {"cpu", "memory"} | {n for n in alloc if is_gpu_resource(n) and alloc[n] > 0}
        shown |= {n for n in req_units if is_gpu_resource(n)}
        for name in sorted(shown & set(alloc), key=resource_sort_key):
            left = max(0, avail[name] - per_node * req_units.get(name, 0))
            stranded[name] = _unit_text(name, left)
            if is_gpu_resource(name) and left > 0 and per_node > 0:
                if name in req_units and bottlenecks and name in bottlenecks:
                    # The GPUs themselves run out: what is left is less than one pod's worth.
                    notes.append(
                        Message(
                            N_REMAINDER,
                            {
                                "amount": stranded[name],
                                "resource": name,
                                "available": _unit_text(name, avail[name]),
                                "request": _unit_text(name, req_units[name]),
                            },
                        )
                    )
                elif name in req_units and bottlenecks:
                    notes.append(
                        Message(
                            N_IDLE,
                            {
                                "amount": stranded[name],
                                "resource": name,
                                "bottleneck": bottlenecks[0],
                            },
                        )
                    )
                elif name not in req_units:
                    notes.append(
                        Message(N_UNREQUESTED, {"amount": stranded[name], "resource": name})
                    )

    def fmt(values: Mapping[str, int], keep: Callable[[str], bool]) -> dict[str, str]:
        return {
            n: _unit_text(n, values[n]) for n in sorted(values, key=resource_sort_key) if keep(n)
        }

    return FitResult(
        pods_per_node=per_node,
        pods_per_node_by_resources=by_resources,
        # A pod kept off the node by a taint, selector or affinity has no resource bottleneck.
        bottleneck=bottlenecks[0] if bottlenecks and not placement_blocked else None,
        bottlenecks=bottlenecks,
        pods_by_resource=dict(counts),
        requests=_canonical(requests),
        allocatable=fmt(avail, lambda n: True),
        stranded=stranded,
        pending_reasons=tuple(reasons),
        notes=tuple(notes),
    )
