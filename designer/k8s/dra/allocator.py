"""Structured allocation: which of a node's devices a claim gets, and how many pods with such
claims the node's devices can serve.

Mirrors, for one node, what the scheduler's DynamicResources plugin does with
k8s.io/dynamic-resource-allocation/structured (Kubernetes 1.34/1.35):

* a device matches a request (or a ``firstAvailable`` alternative) when every selector of its
  DeviceClass and every selector of the request is true for it; a CEL runtime error fails the
  claim (the allocator returns it as an error) rather than skipping the device;
* ``allocationMode: ExactCount`` takes ``count`` free matching devices, ``All`` every matching
  device, which must all be free (and a pool that is being updated, with fewer slices of its
  newest generation than ``resourceSliceCount``, cannot serve All);
* ``firstAvailable`` alternatives are tried in order; ``constraints`` with ``matchAttribute``
  make every device of the listed requests (all requests when none is listed) share the
  attribute's value, ``distinctAttribute`` (DRAConsumableCapacity) makes them all differ;
* a device is given to one claim at a time, except to requests with ``adminAccess`` (which
  neither need it free nor use it up); devices of partitionable slices (``consumesCounters``,
  DRAPartitionableDevices) draw on their slice's ``sharedCounters``, and none may go below 0;
* a device taint with effect NoSchedule or NoExecute keeps the device from a request that does
  not tolerate it (DRADeviceTaints);
* like the real allocator, the search goes request by request and device by device, trying
  the next device when a later request or constraint cannot be met (backtracking).

Not modelled: devices several claims may share (``allowMultipleAllocations`` and capacity
``requestPolicy``, DRAConsumableCapacity alpha in 1.34) are allocated whole, to one claim;
per-device binding conditions; the order in which the real allocator visits pools (it can
pick other devices than we do, never a different yes or no for one claim).

Pods per node: pods are placed one after the other, as the scheduler would; each pod gets its
own claims from templates, while a named ResourceClaim is allocated once and shared by every
pod that names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from designer.k8s.core import Message, gettext_noop
from designer.k8s.dra.cel import (
    SelectorCompileError,
    SelectorRuntimeError,
    attribute_value,
    compile_selector,
    qualified,
)
from designer.k8s.dra.classes_table import KNOWN_DEVICE_CLASSES
from designer.k8s.dra.model import (
    ALLOCATION_ALL,
    Device,
    DeviceClass,
    DeviceToleration,
    ResourceClaimSpec,
    _DeviceRequestFields,
)

MAX_PODS = 1024  # more than any node's pod limit
MAX_STEPS = 200_000  # devices tried per claim before the search gives up

A_NO_CLASS = gettext_noop(
    "DeviceClass %(class)s is neither in the input nor one the engine knows, so no device can "
    "be matched to request %(request)s: add the DeviceClass (kubectl get deviceclass %(class)s "
    "-o yaml)."
)
A_BUILTIN_CLASS = gettext_noop(
    "DeviceClass %(class)s is not in the input: its selectors are taken from %(source)s."
)
A_SELECTOR_INVALID = gettext_noop(
    "Request %(request)s: selector %(expression)s does not compile: %(detail)s"
)
A_RUNTIME = gettext_noop("%(owner)s: selector #%(index)s: CEL runtime error: %(detail)s")
A_NO_MATCH = gettext_noop(
    "Request %(request)s of claim %(claim)s: no device on the node matches DeviceClass "
    "%(class)s and the request's selectors."
)
A_TOO_FEW = gettext_noop(
    "Request %(request)s of claim %(claim)s needs %(count)s device(s); %(matching)s device(s) "
    "on the node match, %(free)s of them still free."
)
A_ALL_BUSY = gettext_noop(
    "Request %(request)s of claim %(claim)s asks for all %(matching)s matching device(s) "
    "(allocationMode All), but some are already allocated."
)
A_INCOMPLETE_POOL = gettext_noop(
    "Request %(request)s of claim %(claim)s asks for all devices, but resource pool %(pool)s "
    "is being updated (fewer slices than resourceSliceCount): the scheduler waits."
)
A_CONSTRAINT = gettext_noop(
    "Claim %(claim)s: enough devices match each request, but not %(count)s that also satisfy "
    "its constraints (%(constraint)s)."
)
A_SEARCH_LIMIT = gettext_noop(
    "Claim %(claim)s: the search for a device combination stopped after %(steps)s steps."
)
N_SHARED_NOT_MODELLED = gettext_noop(
    "Device %(device)s may be shared by several claims (allowMultipleAllocations); it is "
    "counted here as allocated whole to one claim."
)


# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateDevice:
    """A device of a ResourceSlice that is reachable from the node."""

    driver: str
    pool: str
    device: Device
    slice_name: str = ""
    pool_incomplete: bool = False
    # (counter set key, counter name, amount) this device uses up when allocated
    counters: tuple[tuple[str, str, Fraction], ...] = ()

    @property
    def name(self) -> str:
        return self.device.name or ""

    @property
    def id(self) -> str:
        """DeviceID.String(): ``<driver>/<pool>/<device>``."""
        return f"{self.driver}/{self.pool}/{self.name}"

    def attribute(self, name: str) -> Any:
        """The value of a fully qualified attribute (``domain/id``), or None."""
        domain, ident = qualified(name, self.driver)
        for key, attr in (self.device.attributes or {}).items():
            if qualified(key, self.driver) == (domain, ident):
                try:
                    return attribute_value(attr)
                except ValueError:
                    return None
        return None


@dataclass(frozen=True)
class ClaimToAllocate:
    """One pod claim: its name in the pod, its spec, and whether every pod shares it."""

    name: str
    spec: ResourceClaimSpec
    shared: bool = False  # a named ResourceClaim: allocated once for all the pods
    label: str = ""  # how messages name it (defaults to the pod claim name)

    @property
    def title(self) -> str:
        return self.label or self.name


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestMatch:
    """The devices of the node a request (or one alternative) matches, free or not."""

    request: str  # "gpu", or "gpu/big" for an alternative
    device_class: str
    count: int | None  # None: allocationMode All
    matching: tuple[str, ...]
    problem: Message | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "deviceClass": self.device_class,
            "count": self.count,
            "matchingDevices": list(self.matching),
            "problem": self.problem.text if self.problem else None,
        }


@dataclass(frozen=True)
class ClaimAllocation:
    claim: str
    devices: dict[str, tuple[str, ...]]  # request -> device ids, when allocated
    matches: tuple[RequestMatch, ...]
    problem: Message | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "allocated": self.ok,
            "devices": {k: list(v) for k, v in self.devices.items()},
            "requests": [m.as_dict() for m in self.matches],
            "problem": self.problem.text if self.problem else None,
        }


@dataclass(frozen=True)
class DeviceFit:
    """What the node's devices allow: ``pods`` such pods (None: the claims do not bound it,
    e.g. only shared ResourceClaims), the first pod's allocation and why one more cannot."""

    pods: int | None
    claims: tuple[ClaimAllocation, ...]
    problem: Message | None
    notes: tuple[Message, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "pods": self.pods,
            "claims": [c.as_dict() for c in self.claims],
            "problem": self.problem.text if self.problem else None,
            "notes": [n.text for n in self.notes],
        }


# --- matching --------------------------------------------------------------------------------


def class_selectors(
    name: str, classes: Mapping[str, DeviceClass]
) -> tuple[tuple[str, ...] | None, Message | None]:
    """The selectors of a DeviceClass: from the input, else the table of known classes."""
    if name in classes:
        return tuple(classes[name].expressions), None
    known = KNOWN_DEVICE_CLASSES.get(name)
    if known is not None:
        return known.selectors, Message(A_BUILTIN_CLASS, {"class": name, "source": known.source})
    return None, None


def _tolerated(tolerations: list[DeviceToleration], taint: Any) -> bool:
    """DeviceToleration.ToleratesTaint, as core Toleration.ToleratesTaint."""
    for t in tolerations:
        if t.effect and t.effect != taint.effect:
            continue
        if t.key and t.key != taint.key:
            continue
        operator = t.operator or "Equal"
        if operator == "Exists" or (operator == "Equal" and (t.value or "") == (taint.value or "")):
            return True
    return False


def _usable(candidate: CandidateDevice, alt: _DeviceRequestFields) -> bool:
    for taint in candidate.device.taints or []:
        if taint.effect in ("NoSchedule", "NoExecute") and not _tolerated(
            alt.tolerations or [], taint
        ):
            return False
    return True


class _Failure(Exception):
    def __init__(self, message: Message) -> None:
        super().__init__(message.text)
        self.message = message


def match_request(
    key: str,
    alt: _DeviceRequestFields,
    classes: Mapping[str, DeviceClass],
    candidates: list[CandidateDevice],
    memo: dict[tuple[str, str], bool] | None = None,
) -> tuple[list[CandidateDevice], list[Message]]:
    """The candidates a request (alternative) matches; raises _Failure as the allocator
    fails (unknown class, CEL runtime error). ``memo`` keeps selector results of earlier
    calls on the same devices."""
    memo = {} if memo is None else memo
    notes: list[Message] = []
    class_name = alt.device_class_name or ""
    class_exprs, note = class_selectors(class_name, classes)
    if note:
        notes.append(note)
    if class_exprs is None:
        raise _Failure(Message(A_NO_CLASS, {"class": class_name, "request": key}))
    selectors = []
    for owner, exprs in ((f"class {class_name}", class_exprs), (f"request {key}", alt.expressions)):
        for i, expression in enumerate(exprs):
            try:
                selectors.append((owner, i, compile_selector(expression)))
            except SelectorCompileError as exc:
                raise _Failure(
                    Message(
                        A_SELECTOR_INVALID,
                        {"request": key, "expression": expression, "detail": exc.detail},
                    )
                ) from None
    out = []
    for candidate in candidates:
        if not _usable(candidate, alt):
            continue
        ok = True
        for owner, i, selector in selectors:
            try:
                seen = (selector.expression, candidate.id)
                if seen not in memo:
                    memo[seen] = selector.matches(candidate.driver, candidate.device)
                if not memo[seen]:
                    ok = False
                    break
            except SelectorRuntimeError as exc:
                raise _Failure(
                    Message(A_RUNTIME, {"owner": owner, "index": i, "detail": str(exc)})
                ) from None
        if ok:
            out.append(candidate)
    return out, notes


# --- allocating one claim --------------------------------------------------------------------


@dataclass
class _State:
    in_use: set[str] = field(default_factory=set)
    counters: dict[tuple[str, str], Fraction] = field(default_factory=dict)
    # (selector, device id) -> whether it matches: placing pod after pod asks the same
    # question again (a device's attributes do not change while a fit is worked out).
    matched: dict[tuple[str, str], bool] = field(default_factory=dict)


def _constraint_groups(spec: ResourceClaimSpec) -> list[tuple[tuple[str, ...], str, bool]]:
    """(requests it applies to, attribute, distinct?) per constraint; () = every request."""
    out = []
    for c in (spec.devices.constraints if spec.devices else None) or []:
        attribute = c.match_attribute or c.distinct_attribute
        if attribute:
            out.append((tuple(c.requests or ()), attribute, c.match_attribute is None))
    return out


def _applies(scope: tuple[str, ...], key: str) -> bool:
    return not scope or key in scope or key.partition("/")[0] in scope


def _constraints_hold(
    groups: list[tuple[tuple[str, ...], str, bool]], chosen: list[tuple[str, CandidateDevice]]
) -> bool:
    for scope, attribute, distinct in groups:
        values = [d.attribute(attribute) for key, d in chosen if _applies(scope, key)]
        if not values:
            continue
        if any(v is None for v in values):
            return False
        keys = [repr(v) for v in values]
        if distinct and len(set(keys)) != len(keys):
            return False
        if not distinct and len(set(keys)) != 1:
            return False
    return True


def _take(state: _State, candidate: CandidateDevice, admin: bool) -> bool:
    if admin:
        return True
    if candidate.id in state.in_use:
        return False
    for set_key, counter, amount in candidate.counters:
        if state.counters.get((set_key, counter), Fraction(0)) < amount:
            return False
    state.in_use.add(candidate.id)
    for set_key, counter, amount in candidate.counters:
        state.counters[(set_key, counter)] -= amount
    return True


def _give_back(state: _State, candidate: CandidateDevice, admin: bool) -> None:
    if admin:
        return
    state.in_use.discard(candidate.id)
    for set_key, counter, amount in candidate.counters:
        state.counters[(set_key, counter)] += amount


def allocate_claim(
    claim: ClaimToAllocate,
    classes: Mapping[str, DeviceClass],
    candidates: list[CandidateDevice],
    state: _State,
) -> tuple[ClaimAllocation, list[Message]]:
    """Allocate one claim from the free devices in ``state`` (updated when it succeeds)."""
    notes: list[Message] = []
    matches: list[RequestMatch] = []
    options: list[list[tuple[str, _DeviceRequestFields, list[CandidateDevice], bool]]] = []
    for request in claim.spec.requests:
        per_request = []
        for alt in request.alternatives():
            key = request.name or ""
            if request.first_available:
                key += "/" + (getattr(alt, "name", None) or "")
            admin = bool(getattr(alt, "admin_access", None))
            try:
                found, found_notes = match_request(key, alt, classes, candidates, state.matched)
            except _Failure as failure:
                matches.append(
                    RequestMatch(
                        key, alt.device_class_name or "", alt.device_count, (), failure.message
                    )
                )
                return ClaimAllocation(claim.title, {}, tuple(matches), failure.message), notes
            notes += [n for n in found_notes if n not in notes]
            matches.append(
                RequestMatch(
                    key, alt.device_class_name or "", alt.device_count, tuple(d.id for d in found)
                )
            )
            per_request.append((key, alt, found, admin))
        options.append(per_request)

    groups = _constraint_groups(claim.spec)
    steps = 0
    failures: list[Message] = []

    def solve(i: int, chosen: list[tuple[str, CandidateDevice, bool]]) -> list[Any] | None:
        nonlocal steps
        if i == len(options):
            return list(chosen)
        for key, alt, found, admin in options[i]:
            if alt.mode == ALLOCATION_ALL:
                picks = list(found)
                incomplete = next((d for d in picks if d.pool_incomplete), None)
                if incomplete is not None:
                    failures.append(
                        Message(
                            A_INCOMPLETE_POOL,
                            {"request": key, "claim": claim.title, "pool": incomplete.pool},
                        )
                    )
                    continue
                if not picks:
                    failures.append(_no_match(key, alt, claim))
                    continue
                taken = []
                for d in picks:
                    if not _take(state, d, admin):
                        break
                    taken.append(d)
                if len(taken) == len(picks):
                    attempt = chosen + [(key, d, admin) for d in picks]
                    if _constraints_hold(groups, [(k, d) for k, d, _ in attempt]):
                        result = solve(i + 1, attempt)
                        if result is not None:
                            return result
                    else:
                        failures.append(_constraint_failure(claim, groups, len(picks)))
                else:
                    failures.append(
                        Message(
                            A_ALL_BUSY,
                            {"request": key, "claim": claim.title, "matching": len(picks)},
                        )
                    )
                for d in taken:
                    _give_back(state, d, admin)
                continue
            need = alt.device_count or 0
            free = [d for d in found if admin or d.id not in state.in_use]
            if need > len(free):
                failures.append(
                    _no_match(key, alt, claim)
                    if not found
                    else Message(
                        A_TOO_FEW,
                        {
                            "request": key,
                            "claim": claim.title,
                            "count": need,
                            "matching": len(found),
                            "free": len(free),
                        },
                    )
                )
                continue
            result = pick(i, key, found, admin, need, 0, chosen)
            if result is not None:
                return result
        return None

    def pick(
        i: int,
        key: str,
        found: list[CandidateDevice],
        admin: bool,
        need: int,
        start: int,
        chosen: list[tuple[str, CandidateDevice, bool]],
    ) -> list[Any] | None:
        nonlocal steps
        if need == 0:
            return solve(i + 1, chosen)
        for j in range(start, len(found) - need + 1):
            steps += 1
            if steps > MAX_STEPS:
                raise _Failure(Message(A_SEARCH_LIMIT, {"claim": claim.title, "steps": MAX_STEPS}))
            d = found[j]
            if not _take(state, d, admin):
                continue
            attempt = [*chosen, (key, d, admin)]
            if _constraints_hold(groups, [(k, c) for k, c, _ in attempt]):
                result = pick(i, key, found, admin, need - 1, j + 1, attempt)
                if result is not None:
                    return result
            elif not failures or failures[-1].template != A_CONSTRAINT:
                failures.append(_constraint_failure(claim, groups, need))
            _give_back(state, d, admin)
        return None

    try:
        result = solve(0, [])
    except _Failure as failure:
        return ClaimAllocation(claim.title, {}, tuple(matches), failure.message), notes
    if result is None:
        problem = failures[-1] if failures else _no_match("", None, claim)
        return ClaimAllocation(claim.title, {}, tuple(matches), problem), notes
    devices: dict[str, list[str]] = {}
    for key, d, _admin in result:
        devices.setdefault(key, []).append(d.id)
        if d.device.allow_multiple_allocations:
            note = Message(N_SHARED_NOT_MODELLED, {"device": d.id})
            if note not in notes:
                notes.append(note)
    return (
        ClaimAllocation(claim.title, {k: tuple(v) for k, v in devices.items()}, tuple(matches)),
        notes,
    )


def _no_match(key: str, alt: _DeviceRequestFields | None, claim: ClaimToAllocate) -> Message:
    return Message(
        A_NO_MATCH,
        {
            "request": key,
            "claim": claim.title,
            "class": (alt.device_class_name if alt else "") or "",
        },
    )


def _constraint_failure(
    claim: ClaimToAllocate, groups: list[tuple[tuple[str, ...], str, bool]], count: int
) -> Message:
    text = ", ".join(("distinctAttribute " if d else "matchAttribute ") + a for _, a, d in groups)
    return Message(A_CONSTRAINT, {"claim": claim.title, "count": count, "constraint": text})


# --- pods per node ---------------------------------------------------------------------------


def initial_state(counter_sets: Mapping[tuple[str, str], Fraction] | None = None) -> _State:
    return _State(set(), dict(counter_sets or {}))


def device_fit(
    claims: list[ClaimToAllocate],
    classes: Mapping[str, DeviceClass],
    candidates: list[CandidateDevice],
    counter_sets: Mapping[tuple[str, str], Fraction] | None = None,
    *,
    limit: int = MAX_PODS,
) -> DeviceFit:
    """How many pods with ``claims`` the devices take, placing them one after the other."""
    state = initial_state(counter_sets)
    notes: list[Message] = []
    first: tuple[ClaimAllocation, ...] = ()
    shared_done: set[str] = set()
    pods = 0
    problem: Message | None = None
    per_pod = [c for c in claims if not c.shared]
    while pods < limit:
        allocations = []
        for claim in claims:
            if claim.shared and claim.name in shared_done:
                continue
            allocation, found_notes = allocate_claim(claim, classes, candidates, state)
            notes += [n for n in found_notes if n not in notes]
            allocations.append(allocation)
            if not allocation.ok:
                problem = allocation.problem
                break
            if claim.shared:
                shared_done.add(claim.name)
        if pods == 0:
            first = tuple(allocations)
        if problem is not None:
            break
        pods += 1
        if not per_pod:
            # Only shared claims: once allocated, they do not bound the pod count.
            return DeviceFit(None, first, None, tuple(notes))
    return DeviceFit(pods, first, problem, tuple(notes))
