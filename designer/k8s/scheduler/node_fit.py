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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from designer.k8s.core import (
    Message,
    Pod,
    Quantity,
    ResourceValue,
    Unreadable,
    gettext_noop,
    is_native_resource,
    parse_quantity,
    resource_sort_key,
    unreadable_quantities,
)
from designer.k8s.gpu import MIG_RESOURCE_PREFIX, SHARED_SUFFIX, VENDORS, is_gpu_resource
from designer.k8s.scheduler._units import (
    _FILTERED_EFFECTS,
    UNSCHEDULABLE_TAINT,
    _canonical,
    _parse_list,
    _text,
    _unit_text,
    _units,
)
from designer.k8s.scheduler.nodes import NodeInfo
from designer.k8s.scheduler.requests import effective_requests

# --- scheduling predicates -------------------------------------------------------------------


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
    if not body.isdigit() or not body.isascii() or len(body.lstrip("0")) > 19:
        return None  # (more than 19 digits cannot fit; int() refuses over 4300)
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
N_UNREADABLE = gettext_noop(
    "How many pods fit cannot be worked out: %(fields)s cannot be read as a quantity (the API "
    "server would reject the pod)."
)


N_MPS_ONE = gettext_noop(
    "With MPS a container may request only one replica: %(who)s requests %(count)s "
    "%(resource)s, which the device plugin refuses when the pod starts on the node."
)


def _mps_notes(pod: Pod, node: NodeInfo, spec_path: str) -> list[Message]:
    """MPS sharing refuses more than one replica per container (k8s-device-plugin:
    failRequestsGreaterThanOne is always on for MPS)."""
    if node.gpu_sharing is None or node.gpu_sharing.mode != "mps":
        return []
    out = []
    for rel, c in pod.spec.all_containers():
        for resource in ("nvidia.com/gpu", "nvidia.com/gpu" + SHARED_SUFFIX):
            value = c.limits.get(resource, c.requests.get(resource))
            q = parse_quantity(value) if value is not None else None
            if q is not None and q > _ONE:
                who = Message(
                    'container "%(name)s" (%(path)s)',
                    {"name": c.name, "path": f"{spec_path}.{rel}"},
                )
                out.append(
                    Message(N_MPS_ONE, {"who": who, "count": q.canonical(), "resource": resource})
                )
    return out


_ONE = Quantity.parse("1")


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
    # Requests that cannot be read: the counts that depend on them are not computed (None).
    unreadable: tuple[Unreadable, ...] = ()
    # The DRA part (dra_fit.ClaimsFit) when the pod has resource claims.
    claims: Any = None

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
            "cannotCompute": [u.as_dict() for u in self.unreadable],
            "claims": self.claims.as_dict() if self.claims is not None else None,
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


def _plugin_for(resource: str) -> Message:
    """The device plugin that advertises ``resource``, as a (translatable) sentence part."""
    if resource.startswith(MIG_RESOURCE_PREFIX):
        return Message(str(VENDORS["nvidia"]["plugin"]), {})
    base = resource.removesuffix(SHARED_SUFFIX)
    for row in VENDORS.values():
        if base in row["resources"]:  # type: ignore[operator]
            return Message(str(row["plugin"]), {})
    return Message(DEFAULT_PLUGIN, {})


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
    pod: Pod,
    node: NodeInfo,
    daemonset_overhead: Mapping[str, ResourceValue] | None = None,
    *,
    apply_defaults: bool = True,
    spec_path: str = "spec",
) -> FitResult:
    """How many copies of ``pod`` fit on ``node`` and what would keep it Pending there.

    ``daemonset_overhead`` is what the node's DaemonSet pods request in total (a ``pods`` entry
    counts their number against the node's pod limit); it is taken from allocatable first.
    Per resource the count is floor(allocatable left / effective request), the pod limit caps
    it, and the smallest count is the bottleneck. ``stranded`` is allocatable left minus
    pods-per-node x request, for cpu, memory and every GPU resource of the node or the pod.
    Raises ValueError for an overhead value that is not a quantity. Pass the defaulted pod
    with ``apply_defaults=False`` when it is at hand. A request that cannot be read is not
    taken for zero: the pods per node are then None (unknown) unless the pod cannot land at all,
    and ``unreadable`` names the fields (their paths start with ``spec_path``).
    """
    unreadable = tuple(unreadable_quantities(pod, spec_path, as_requests=True))
    requests = {
        n: q
        for n, q in effective_requests(pod, apply_defaults=apply_defaults).items()
        if q.sign() > 0
    }
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
    if unreadable:
        # The missing counts could be the smallest; only a pod that cannot land is certain.
        by_resources = None
        bottlenecks = ()
        per_node = 0 if reasons else None
    placement_blocked = any(
        r.code not in ("insufficient", "too-many-pods", "device-plugin-missing") for r in reasons
    )

    notes: list[Message] = []
    if unreadable:
        fields = ", ".join(f"{u.field} (“{u.value}”)" for u in unreadable)
        notes.append(Message(N_UNREADABLE, {"fields": fields}))
    notes.extend(node.gpu_notes)
    notes.extend(_mps_notes(pod, node, spec_path))
    if not req_units and not unreadable:
        notes.append(Message(N_NO_REQUESTS, {}))
    stranded: dict[str, str] = {}
    if per_node is not None and not unreadable:
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
        unreadable=unreadable,
    )
