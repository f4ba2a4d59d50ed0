"""What the designer's buttons do to a design: add or remove containers, apply a preset, a GPU
sharing choice or a headroom proposal."""

from __future__ import annotations

import copy
import re
from collections.abc import Collection
from dataclasses import dataclass

from designer.k8s.core import Quantity, QuantityError
from designer.k8s.design.dra import alternative_action
from designer.k8s.design.model import ContainerDesign, Design, KeptEdit, apply_preset
from designer.k8s.design.planning import gpu_resource_name, headroom_proposal


def gpu_container(design: Design) -> ContainerDesign | None:
    """The container the GPU sharing choice applies to: the first app container with GPUs,
    else the first app container."""
    apps = [c for c in design.containers if c.role == "app"]
    return next((c for c in apps if c.gpus.strip()), apps[0] if apps else None)


def apply_gpu_choice(design: Design) -> Design:
    """Set the GPU container's resource name (and a whole count) for the sharing choice."""
    design = design.model_copy(deep=True)
    name, _profile, problem = gpu_resource_name(design.gpu)
    target = gpu_container(design)
    if problem or name is None or target is None:
        return design
    # The profile field keeps what the user picked (nothing, when the memory need chose it):
    # writing the derived profile there would make it look picked by hand, and a picked
    # profile is never overridden by the memory need (planning.mig_choice).
    target.gpu_resource = name
    count = target.gpus.strip()
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if not (count.isascii() and count.isdigit()) or not count.strip("0"):
        # Shared GPUs are still whole units of the advertised resource.
        target.gpus = "1"
    return design


def apply_headroom(design: Design, limit: str) -> Design:
    """Set the main container's memory limit to ``limit``. A request that equalled the old
    limit (a Guaranteed design) follows it, so the QoS class does not change by surprise, and
    a request above the new limit comes down to it (the API server refuses request > limit)."""

    design = design.model_copy(deep=True)
    target = next((c for c in design.containers if c.role == "app"), None)
    if target is None:
        return design
    request = target.memory_request.strip()
    follows = bool(request) and request == target.memory_limit.strip()
    try:
        above = bool(request) and Quantity.from_json(request) > Quantity.from_json(limit)
    except (QuantityError, ValueError, TypeError, OverflowError):
        above = False
    if follows or above:
        target.memory_request = limit
    target.memory_limit = limit
    return design


def removable(design: Design, index: int) -> bool:
    """Every container but the pod's only app container can be removed."""
    if index >= len(design.containers):
        return False
    apps = [c for c in design.containers if c.role == "app"]
    return design.containers[index].role != "app" or len(apps) > 1


NEW_CONTAINER_NAMES = {"app": "worker", "sidecar": "sidecar", "init": "init"}
# Export the design as a new object instead of the object it was opened from (issue 11).
DROP_ORIGIN = "drop-origin"


@dataclass(frozen=True)
class ActionResult:
    """A design after a designer button, with what the page keeps track of."""

    design: Design
    # Fields the user edited that a preset left alone though it says otherwise.
    kept: tuple[KeptEdit, ...] = ()
    # The user's edited fields after the action (renumbered when a container goes; none
    # after the whole preset was applied on request).
    touched: frozenset[str] = frozenset()


_CONTAINER_KEY = re.compile(r"^containers\[(\d+)\]\.(\w+)$")


def _without_container(touched: Collection[str], index: int) -> frozenset[str]:
    """Edited-field keys after container ``index`` is removed: its keys go, later ones shift."""
    out = set()
    for key in touched:
        match = _CONTAINER_KEY.match(key)
        if match is None:
            out.add(key)
            continue
        i = int(match.group(1))
        if i != index:
            out.add(f"containers[{i - 1 if i > index else i}].{match.group(2)}")
    return frozenset(out)


def apply_action(
    design: Design,
    action: str,
    changed: str = "",
    *,
    touched: Collection[str] = (),
    was: str = "",
    since: Collection[str] = (),
) -> ActionResult:
    """The design after a designer button or preset choice.

    ``preset`` with ``changed`` "workload" or "size" is a new choice in that select (``was``:
    the value it had, so picking the one already chosen changes nothing): its preset is
    applied to every field except the ones the user edited (``touched``), which come back in
    ``kept`` where the preset differs. ``preset`` without ``changed`` is the explicit "apply
    preset": the whole preset, edits included. Unknown actions change nothing.

    ``since``: fields the user edited after asking for this action (the page asks again when
    its answer would replace what was typed while it was on its way). Whatever the action,
    they keep the values they were sent with; the whole preset lists them in ``kept``."""
    typed = frozenset(since)
    if not typed:
        return _apply_action(design, action, changed, frozenset(touched), was)
    if action == "preset" and not changed:
        applied, kept = apply_preset(design, keep=typed)
        return ActionResult(applied, kept, typed)
    result = _apply_action(design, action, changed, frozenset(touched) | typed, was)
    if action == "preset" or result.design is design:
        return result  # a preset choice keeps every edit itself; nothing else changed
    removed = _removed_index(design, result.design, action)
    return ActionResult(
        _restore(result.design, design, typed, removed), result.kept, result.touched
    )


def _apply_action(
    design: Design, action: str, changed: str, edited: frozenset[str], was: str
) -> ActionResult:
    if action == "preset":
        if changed == "workload" and design.origin is not None:
            # Opened from an object: a new workload type changes the advice and the size
            # presets only, never the object's containers, name or labels.
            return ActionResult(design, (), edited)
        if changed in ("workload", "size"):
            applied, kept = apply_preset(design, whole=changed == "workload", keep=edited)
            current = design.workload if changed == "workload" else design.size
            if was and was == current:
                # The choice already shown: nothing changes (the edits it would keep are
                # still offered the whole preset).
                return ActionResult(design, kept, edited)
            return ActionResult(applied, kept, edited)
        applied, _kept = apply_preset(design)
        return ActionResult(applied, (), frozenset())
    if action.startswith("remove-"):
        index = action.removeprefix("remove-")
        if index.isascii() and index.isdigit() and len(index) < 6 and removable(design, int(index)):
            return ActionResult(
                design_action(design, action), (), _without_container(edited, int(index))
            )
    return ActionResult(design_action(design, action), (), edited)


def _removed_index(before: Design, after: Design, action: str) -> int | None:
    """The container a ``remove-N`` action took out, if it did."""
    index = action.removeprefix("remove-")
    if (
        action.startswith("remove-")
        and index.isascii()
        and index.isdigit()
        and len(after.containers) < len(before.containers)
    ):
        return int(index)
    return None


def _restore(after: Design, before: Design, keys: frozenset[str], removed: int | None) -> Design:
    """``after`` (a copy the action made) with the fields ``keys`` as they were in ``before``
    (a container's fields follow it when the action removed the container ``removed``)."""
    for key in sorted(keys):
        match = _CONTAINER_KEY.match(key)
        if match is None:
            source, target, name = before, after, key
        else:
            i, name = int(match.group(1)), match.group(2)
            j = i - 1 if removed is not None and i > removed else i
            if i == removed or i >= len(before.containers) or j >= len(after.containers):
                continue
            source, target = before.containers[i], after.containers[j]
        if name in type(source).model_fields:
            setattr(target, name, copy.deepcopy(getattr(source, name)))
    return after


def design_action(design: Design, action: str, changed: str = "") -> Design:
    """The design after a designer button (add/remove a container, apply a preset, a GPU
    sharing choice, add/remove a DRA claim's firstAvailable alternative or apply a headroom
    proposal); unknown actions change nothing. A preset here is applied without regard to
    edits (see apply_action)."""
    design = design.model_copy(deep=True)
    if action.startswith("add-"):
        role = action.removeprefix("add-")
        if role in NEW_CONTAINER_NAMES:
            number = sum(1 for c in design.containers if c.role == role) + 1
            design.containers.append(
                ContainerDesign(
                    role=role,  # type: ignore[arg-type]
                    name=f"{NEW_CONTAINER_NAMES[role]}-{number}",
                    image="busybox:1.36",
                )
            )
    elif action.startswith("remove-"):
        index = action.removeprefix("remove-")
        # ASCII digits only ("remove-²" is no index), and no more than a list can hold.
        if index.isascii() and index.isdigit() and len(index) < 6 and removable(design, int(index)):
            del design.containers[int(index)]
    elif action == "gpu":
        design = apply_gpu_choice(design)
    elif (choice := alternative_action(design.gpu, action)) is not None:
        design.gpu = choice
    elif action == "headroom":
        proposal, _problem = headroom_proposal(design.headroom, design.shm_size)
        if proposal is not None:
            design = apply_headroom(design, proposal.limit)
    elif action == DROP_ORIGIN:
        design.origin = None
    elif action == "preset":
        if changed == "workload" and design.origin is not None:
            # Opened from an object: its containers stay; the type changes the advice and
            # the size presets only (the origin panel says so).
            pass
        else:
            design = apply_preset(design, whole=changed != "size")[0]
    return design
