"""Node fit with Dynamic Resource Allocation: which devices of pasted ResourceSlices a node can
use, which of them match a pod's claims, and how many such pods the node's devices take.

Mirrors what the scheduler's DynamicResources plugin (Kubernetes 1.34/1.35) sees of a node:

* a ResourceSlice belongs to the node when ``spec.nodeName`` is the node's name, when
  ``spec.allNodes`` is true, or when ``spec.nodeSelector`` matches the node's labels; with
  ``spec.perDeviceNodeSelection`` each device says so itself (``nodeName``, ``allNodes``,
  ``nodeSelector``);
* of the slices of one pool (driver + ``pool.name``) only those of the newest
  ``pool.generation`` count; a pool with fewer of them than ``pool.resourceSliceCount`` is
  incomplete (being updated);
* counters of partitionable devices come from the slice's ``sharedCounters``.

A node without a name (a catalog or custom shape) uses the devices of the one node the
slices name; when they name several, the first in name order, and a note says so.

The claims come from the pod's ``spec.resourceClaims``, resolved against the
ResourceClaimTemplates and ResourceClaims of the input (dra.pod_claims). Devices never appear
in the node's allocatable or the pod's requests: the cpu/memory/extended-resource arithmetic
of ``fit`` is unchanged, and the pods-per-node answer is the smaller of the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from designer.k8s.core import (
    Message,
    MessageError,
    Pod,
    Quantity,
    QuantityError,
    ResourceValue,
    gettext_noop,
)
from designer.k8s.dra import (
    CandidateDevice,
    ClaimToAllocate,
    DeviceFit,
    DraObjects,
    PodClaim,
    ResourceSlice,
    collect,
    device_fit,
    is_dra_object,
    pod_claims,
)
from designer.k8s.manifest import read_documents
from designer.k8s.scheduler.node_fit import FitResult, PendingReason, _term_matches, fit
from designer.k8s.scheduler.nodes import NodeInfo

N_CLAIMS_NOT_COUNTED = gettext_noop(
    "Devices the pod gets through its resource claims (%(claims)s) are allocated by the "
    "DynamicResources plugin from ResourceSlices: they are not part of the node's allocatable "
    "or of the pod's requests, and do not change the cpu and memory arithmetic."
)
N_DEVICES = gettext_noop(
    "The node's ResourceSlices publish %(devices)s device(s); the devices allow %(pods)s such "
    "pod(s) on it."
)
N_DEVICES_UNBOUNDED = gettext_noop(
    "The pod uses only shared ResourceClaims (%(claims)s): they are allocated once for every "
    "pod that names them, so the node's devices do not limit how many such pods it takes."
)
N_NODE_CHOSEN = gettext_noop(
    "The ResourceSlices describe %(count)s nodes (%(nodes)s); the devices of %(node)s are used. "
    "Paste that node's Node object to fit another."
)
N_NO_SLICES = gettext_noop(
    "No ResourceSlice of the input is available on node %(node)s, so no device can be "
    "allocated to the pod's claims there."
)
N_CLAIM_MISSING = gettext_noop(
    "Pod claim %(claim)s names %(kind)s %(object)s, which is not in the input: its devices "
    "cannot be matched. Paste it with the pod."
)
N_INCOMPLETE_POOL = gettext_noop(
    "Resource pool %(pool)s of driver %(driver)s has %(have)s of its %(want)s slices: the "
    "driver is updating it, and requests for all devices wait."
)
N_PASTE_SLICES = gettext_noop(
    "The pod's GPUs come from resource claims (%(claims)s), which this count does not "
    "include: paste the node's ResourceSlices (kubectl get resourceslices -o yaml) to see "
    "which devices match and how many such pods they allow. A node whose GPUs only a device "
    "plugin advertises cannot serve the claims."
)
P_DEVICES = gettext_noop(
    "The pod's resource claims cannot be allocated on this node: %(reason)s The scheduler "
    "leaves it Pending (DynamicResources)."
)


@dataclass(frozen=True)
class ClaimsFit:
    """The DRA part of node fit."""

    node: str | None  # the node whose slices were used
    devices: tuple[str, ...]  # every device id available on the node
    fit: DeviceFit | None  # None when the pod has no claim that could be resolved
    claims: tuple[PodClaim, ...]
    notes: tuple[Message, ...]

    @property
    def pods(self) -> int | None:
        return self.fit.pods if self.fit else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "devices": list(self.devices),
            "podsPerNode": self.pods,
            "claims": [c.as_dict() for c in self.fit.claims] if self.fit else [],
            "problem": self.fit.problem.text if self.fit and self.fit.problem else None,
            "notes": [n.text for n in self.notes]
            + ([n.text for n in self.fit.notes] if self.fit else []),
        }


def _selector_matches(selector: Any, node: NodeInfo) -> bool:
    """A NodeSelector: its terms ORed (an empty selector matches nothing)."""
    if not isinstance(selector, Mapping):
        return False
    terms = [t for t in selector.get("nodeSelectorTerms") or [] if isinstance(t, Mapping)]
    return any(_term_matches(t, node) for t in terms)


def _on_node(spec_like: Any, node: NodeInfo, name: str | None) -> bool:
    if spec_like.node_name:
        return spec_like.node_name == name
    if spec_like.all_nodes:
        return True
    if spec_like.node_selector is not None:
        return _selector_matches(spec_like.node_selector, node)
    return False


def slice_nodes(slices: list[ResourceSlice]) -> list[str]:
    """The node names the slices are local to (``spec.nodeName``, per device too)."""
    names = {s.spec.node_name for s in slices if s.spec.node_name}
    for s in slices:
        if s.spec.per_device_node_selection:
            names |= {d.node_name for d in s.spec.devices or [] if d.node_name}
    return sorted(names)


def _amount(value: Any) -> Fraction | None:
    try:
        return Quantity.from_json(value).as_fraction()
    except (QuantityError, ValueError, TypeError, OverflowError):
        return None


def node_candidates(
    slices: list[ResourceSlice], node: NodeInfo, name: str | None
) -> tuple[list[CandidateDevice], dict[tuple[str, str], Fraction], list[Message]]:
    """The devices available on the node, the counters of their sets, and notes."""
    notes: list[Message] = []

    def pool_key(s: ResourceSlice) -> tuple[str, str]:
        return (s.spec.driver or "", (s.spec.pool.name if s.spec.pool else "") or "")

    def generation(s: ResourceSlice) -> int:
        return (s.spec.pool.generation if s.spec.pool else 0) or 0

    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        newest[pool_key(s)] = max(newest.get(pool_key(s), 0), generation(s))
    current = [s for s in slices if generation(s) == newest[pool_key(s)]]
    counts: dict[tuple[str, str], int] = {}
    wanted: dict[tuple[str, str], int] = {}
    for s in current:
        key = pool_key(s)
        counts[key] = counts.get(key, 0) + 1
        want = (s.spec.pool.resource_slice_count if s.spec.pool else None) or 1
        wanted[key] = max(wanted.get(key, 0), want)
    out: list[CandidateDevice] = []
    counters: dict[tuple[str, str], Fraction] = {}
    seen_pools: set[tuple[str, str]] = set()
    for s in current:
        driver = s.spec.driver or ""
        pool = (s.spec.pool.name if s.spec.pool else "") or ""
        key = (driver, pool)
        per_device = bool(s.spec.per_device_node_selection)
        if not per_device and not _on_node(s.spec, node, name):
            continue
        incomplete = counts[key] < wanted[key]
        if incomplete and key not in seen_pools:
            notes.append(
                Message(
                    N_INCOMPLETE_POOL,
                    {"pool": pool, "driver": driver, "have": counts[key], "want": wanted[key]},
                )
            )
        seen_pools.add(key)
        for counter_set in s.spec.shared_counters or []:
            set_key = f"{driver}/{pool}/{counter_set.name or ''}"
            for counter, cap in (counter_set.counters or {}).items():
                amount = _amount(cap.value)
                if amount is not None:
                    counters[(set_key, counter)] = amount
        for device in s.spec.devices or []:
            if per_device and not _on_node(device, node, name):
                continue
            consumed = []
            for use in device.consumes_counters or []:
                set_key = f"{driver}/{pool}/{use.counter_set or ''}"
                for counter, cap in (use.counters or {}).items():
                    amount = _amount(cap.value)
                    if amount is not None:
                        consumed.append((set_key, counter, amount))
            out.append(
                CandidateDevice(
                    driver, pool, device, s.metadata.name or "", incomplete, tuple(consumed)
                )
            )
    return out, counters, notes


def claims_to_allocate(claims: list[PodClaim]) -> tuple[list[ClaimToAllocate], list[Message]]:
    out, notes = [], []
    for claim in claims:
        spec = claim.spec
        if spec is None:
            if claim.object_name:
                kind = "ResourceClaimTemplate" if claim.source == "template" else "ResourceClaim"
                notes.append(
                    Message(
                        N_CLAIM_MISSING,
                        {"claim": claim.name, "kind": kind, "object": claim.object_name},
                    )
                )
            continue
        out.append(
            ClaimToAllocate(
                f"{claim.source}:{claim.object_name}" if claim.source == "claim" else claim.name,
                spec,
                shared=claim.source == "claim",
                label=claim.name,
            )
        )
    return out, notes


def claims_fit(
    pod: Pod, node: NodeInfo, objects: DraObjects, namespace: str | None = None
) -> ClaimsFit | None:
    """The DRA part of node fit for ``pod``; None when the pod has no resource claims."""
    claims = pod_claims(pod, namespace or pod.metadata.namespace, objects)
    if not claims:
        return None
    slices = objects.slices
    notes: list[Message] = []
    # A catalog or capacity shape is named after its instance type, not a node.
    name = node.name if node.origin == "manifest" else None
    if not name:
        nodes = slice_nodes(slices)
        if nodes:
            name = nodes[0]
            if len(nodes) > 1:
                notes.append(
                    Message(
                        N_NODE_CHOSEN,
                        {"count": len(nodes), "nodes": ", ".join(nodes), "node": name},
                    )
                )
    candidates, counters, found_notes = node_candidates(slices, node, name)
    notes += found_notes
    to_allocate, missing = claims_to_allocate(claims)
    notes += missing
    if not candidates:
        notes.append(Message(N_NO_SLICES, {"node": name or "?"}))
    result = device_fit(to_allocate, objects.classes, candidates, counters) if to_allocate else None
    return ClaimsFit(name, tuple(c.id for c in candidates), result, tuple(claims), tuple(notes))


def without_slices(result: FitResult, claim_names: list[str]) -> FitResult:
    """``fit``'s result for a pod with claims when no ResourceSlice is at hand: says so."""
    if not claim_names:
        return result
    note = Message(N_PASTE_SLICES, {"claims": ", ".join(claim_names)})
    return replace(result, notes=(*result.notes, note))


def with_claims(result: FitResult, claims: ClaimsFit | None) -> FitResult:
    """``fit``'s result with the DRA part folded in: pods per node is the smaller count, an
    allocation failure keeps the pod Pending, and notes say what the claims change."""
    if claims is None:
        return result
    notes = list(result.notes)
    names = ", ".join(c.name for c in claims.claims)
    notes.append(Message(N_CLAIMS_NOT_COUNTED, {"claims": names}))
    reasons = list(result.pending_reasons)
    per_node = result.pods_per_node
    bottleneck = result.bottleneck
    device_fit_ = claims.fit
    if device_fit_ is not None:
        if device_fit_.pods is None:
            notes.append(Message(N_DEVICES_UNBOUNDED, {"claims": names}))
        else:
            notes.append(
                Message(N_DEVICES, {"devices": len(claims.devices), "pods": device_fit_.pods})
            )
            if device_fit_.pods == 0 and device_fit_.problem is not None:
                reasons.append(
                    PendingReason(
                        "dra-unallocatable",
                        Message(P_DEVICES, {"reason": device_fit_.problem}),
                        "resourceClaims",
                    )
                )
                per_node = 0
            elif per_node is None or device_fit_.pods < per_node:
                per_node = device_fit_.pods
                bottleneck = "resourceClaims" if not reasons else None
    return replace(
        result,
        pods_per_node=per_node,
        bottleneck=bottleneck,
        pending_reasons=tuple(reasons),
        notes=tuple(notes),
        claims=claims,
    )


E_NOT_DRA = gettext_noop(
    "%(where)s: %(kind)s is not a resource.k8s.io object (paste kubectl get resourceslices "
    "-o yaml, and DeviceClasses, ResourceClaims or ResourceClaimTemplates)"
)
E_UNDECODABLE = gettext_noop("%(where)s: %(kind)s %(name)s cannot be read: %(error)s")
E_UNREADABLE = gettext_noop("%(where)s: %(error)s")


def _values(value: Any, where: str) -> list[tuple[Any, Any]]:
    """(location, object) pairs of pasted text, an object or a list of objects."""
    if isinstance(value, str):
        out = []
        for document in read_documents(value):
            if document.error is not None:
                raise MessageError(
                    E_UNREADABLE,
                    {"where": f"{where} document {document.index}", "error": document.error},
                )
            if document.data is not None:
                out.append((((where, document.index), ""), document.data))
        return out
    if isinstance(value, list):
        return [(((where, i), ""), v) for i, v in enumerate(value)]
    return [(((where, 0), ""), value)]


def dra_inputs(slices: Any, pod_text: Any = None) -> DraObjects:
    """The resource.k8s.io objects of the pasted ``resourceSlices`` (text, an object, a
    ``List`` or a list) and of the pod's text (templates and classes pasted with the pod).
    Raises MessageError naming what cannot be read: nothing is skipped silently."""
    objects = DraObjects()
    if isinstance(pod_text, str):
        found = collect(_values(pod_text, "pod"))
        objects.extend(found)
    if slices is None:
        return objects
    pairs = _values(slices, "resourceSlices")
    stack = list(pairs)
    while stack:
        location, obj = stack.pop(0)
        kind = obj.get("kind") if isinstance(obj, dict) else None
        items = obj.get("items") if isinstance(obj, dict) else None
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            nested = [((location[0], f"items[{i}]"), item) for i, item in enumerate(items)]
            stack = nested + stack
            continue
        if not is_dra_object(obj):
            raise MessageError(
                E_NOT_DRA, {"where": _where(location), "kind": kind or repr(obj)[:40]}
            )
    found = collect(pairs)
    for o in found.objects:
        if o.model is None:
            error = o.decode_error.errors()[0] if o.decode_error else {}
            loc = ".".join(str(p) for p in error.get("loc", ()))
            raise MessageError(
                E_UNDECODABLE,
                {
                    "where": _where(o.location),
                    "kind": o.kind,
                    "name": o.name or "",
                    "error": f"{loc}: {error.get('msg', '')}",
                },
            )
    objects.extend(found)
    return objects


def _where(location: Any) -> str:
    parts: list[str] = []
    while isinstance(location, tuple):
        location, last = location
        parts.insert(0, f"[{last}]" if isinstance(last, int) else str(last))
    return str(location) + "".join(p if p.startswith("[") else f" {p}" for p in parts if p)


def fit_with_claims(
    pod: Pod,
    node: NodeInfo,
    daemonset_overhead: Mapping[str, ResourceValue] | None = None,
    objects: DraObjects | None = None,
    *,
    apply_defaults: bool = True,
) -> FitResult:
    """``fit`` with the pod's resource claims allocated from the ResourceSlices of
    ``objects`` (see the module docstring)."""
    result = fit(pod, node, daemonset_overhead, apply_defaults=apply_defaults)
    if objects is None:
        return result
    return with_claims(result, claims_fit(pod, node, objects))
