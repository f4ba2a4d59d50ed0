"""Keep the object a pod template came from: edit one template's container resources in the
designer, export the same object with only those resources changed, and show the diff.

``template_pod(document, template)`` is the pod the designer opens for the template at that
path (``Workload.template``, as podspec check names it); ``patch_object(document, template,
pod)`` writes the edited pod's container resources back where the object keeps them:

* ``<template>.spec.containers[i].resources`` (and init containers, pod-level ``resources``);
* a KServe inline container: ``spec.predictor.model.resources``;
* a TrainJob's node container: ``spec.trainer.resourcesPerNode`` (the runtime's other
  containers are the runtime's: changing them is refused, they are another object);
* KubeRay's autoscaler sidecar, when the head pod is edited with it: ``spec.autoscalerOptions
  .resources``.

Containers are matched by name. A value that is the same quantity as before keeps its
original spelling (``0.5`` stays ``0.5`` when the designer says ``500m``), so the diff shows
only what the user changed.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import Message, MessageError, Quantity, QuantityError, gettext_noop
from designer.k8s.manifest import Document, Workload, dump_yaml, find_workloads, runtime_index

MSG_NO_TEMPLATE = gettext_noop("The object has no pod template at %(template)s.")
MSG_UNREADABLE = gettext_noop("The object cannot be read: %(reason)s")
MSG_NOT_HERE = gettext_noop(
    "Container %(name)s belongs to %(where)s, not to this object: change it there."
)
MSG_UNKNOWN_CONTAINER = gettext_noop(
    "The template has no container named %(name)s: only the resources of its own containers "
    "are written back."
)


class RoundTripError(MessageError):
    """The document or template path cannot be edited (``message`` keeps it translatable)."""


@dataclass(frozen=True)
class Patched:
    document: dict[str, Any]  # the object, with only the changed resources replaced
    diff: str  # unified diff of the object before and after, as YAML
    changed: list[str]  # field paths written
    skipped: list[Message] = field(default_factory=list)  # edits that were not written

    @property
    def yaml(self) -> str:
        return dump_yaml(self.document)


def _workload(
    document: Any, template: str, path: str = "", context: Sequence[Any] = ()
) -> Workload:
    runtimes = runtime_index([Document(i, 1, d, None) for i, d in enumerate([document, *context])])
    workloads, errors = find_workloads([Document(0, 1, document, None)], runtimes)
    for w in workloads:
        if w.template == template and w.path == path:
            return w
    if errors:
        raise RoundTripError(MSG_UNREADABLE, {"reason": errors[0].message})
    raise RoundTripError(MSG_NO_TEMPLATE, {"template": template or '""'})


def template_pod(
    document: dict[str, Any], template: str, path: str = "", context: Sequence[Any] = ()
) -> dict[str, Any]:
    """The pod the designer opens for the template at ``template`` of ``document``: its
    metadata and spec (a KServe inline container as the first container, a TrainJob as the
    runtime's pod with spec.trainer applied), named after its object. ``context``: the other
    documents of the input (where a TrainJob's runtime may be)."""
    w = _workload(document, template, path, context)
    metadata = copy.deepcopy(w.pod_metadata) if isinstance(w.pod_metadata, dict) else {}
    if w.kind != "Pod":
        if w.name and not metadata.get("name"):
            metadata["name"] = w.name
        if w.namespace and not metadata.get("namespace"):
            metadata["namespace"] = w.namespace
    spec = copy.deepcopy(w.pod_spec) if isinstance(w.pod_spec, dict) else {}
    injected = set(w.facts.get("injected") or ())
    if injected and isinstance(spec.get("containers"), list):
        spec["containers"] = [c for i, c in enumerate(spec["containers"]) if i not in injected]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


_PART = re.compile(r"([^.\[]+)|\[(\d+)\]")


def _parent(obj: Any, path: str) -> tuple[Any, str | int]:
    """The container holding the last field of ``path``, and that field's key."""
    parts: list[str | int] = [
        int(m.group(2)) if m.group(2) is not None else m.group(1) for m in _PART.finditer(path)
    ]
    node = obj
    for part in parts[:-1]:
        node = node[part]
    return node, parts[-1]


def _same(a: Any, b: Any) -> bool:
    try:
        return Quantity.from_json(a).as_fraction() == Quantity.from_json(b).as_fraction()
    except (QuantityError, ValueError, TypeError):
        return a == b


def _merged(old: Any, new: Any) -> Any:
    """The edited resources, keeping the original spelling of unchanged quantities."""
    if not isinstance(new, dict):
        return new
    old = old if isinstance(old, dict) else {}
    out: dict[str, Any] = {}
    for part, values in new.items():
        before = old.get(part) if isinstance(old.get(part), dict) else {}
        if isinstance(values, dict):
            out[part] = {
                k: before[k] if k in before and _same(before[k], v) else str(v)
                for k, v in values.items()
            }
        else:
            out[part] = copy.deepcopy(values)
    return out


def _resources_of(container: Any) -> Any:
    return container.get("resources") if isinstance(container, dict) else None


def _equal(a: Any, b: Any) -> bool:
    a = {k: v for k, v in (a or {}).items() if v} if isinstance(a, dict) else a
    b = {k: v for k, v in (b or {}).items() if v} if isinstance(b, dict) else b
    if not isinstance(a, dict) or not isinstance(b, dict):
        return a == b
    if set(a) != set(b):
        return False
    for part in a:
        x, y = a[part], b[part]
        if isinstance(x, dict) and isinstance(y, dict):
            if set(x) != set(y) or not all(_same(x[k], y[k]) for k in x):
                return False
        elif x != y:
            return False
    return True


def patch_object(
    document: dict[str, Any],
    template: str,
    pod: dict[str, Any],
    path: str = "",
    context: Sequence[Any] = (),
) -> Patched:
    """``document`` with the container resources of ``pod`` (the designer's edit of the
    template at ``template``; ``path`` the item in a List) written where the object keeps
    them, and the unified diff. ``context``: the other documents of the input."""
    w = _workload(document, template, path, context)
    rewrite = dict(w.path_map)
    out = copy.deepcopy(document)
    target = out
    if path:
        target, key = _parent(out, path)
        target = target[key]
    edited_spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    original = w.pod_spec if isinstance(w.pod_spec, dict) else {}
    changed: list[str] = []
    skipped: list[Message] = []
    for key in ("initContainers", "containers"):
        originals = original.get(key) if isinstance(original.get(key), list) else []
        by_name = {c.get("name"): (i, c) for i, c in enumerate(originals) if isinstance(c, dict)}
        for container in edited_spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            name = container.get("name")
            if name not in by_name:
                skipped.append(Message(MSG_UNKNOWN_CONTAINER, {"name": str(name)}))
                continue
            i, before = by_name[name]
            new = _resources_of(container)
            if _equal(_resources_of(before), new):
                continue
            at = f"{w.pod_spec_path}.{key}[{i}]"
            where = rewrite.get(f"{at}.resources") or (
                f"{rewrite[at]}.resources" if at in rewrite else f"{at}.resources"
            )
            if (
                w.kind == "TrainJob"
                and key == "containers"
                and i in w.facts.get("node_containers", ())
            ):
                where = "spec.trainer.resourcesPerNode"
            elif w.kind == "TrainJob":
                # A container of the runtime, not of the TrainJob.
                runtime = w.facts.get("runtime") or {}
                place = f"{runtime.get('kind')} {runtime.get('name')}"
                skipped.append(Message(MSG_NOT_HERE, {"name": str(name), "where": place}))
                continue
            _write(target, where, _merged(_current(target, where), new))
            changed.append(where)
    level = edited_spec.get("resources")
    if not _equal(original.get("resources"), level) and w.kind != "TrainJob":
        where = f"{w.pod_spec_path}.resources"
        _write(target, where, _merged(_current(target, where), level))
        changed.append(where)
    before_text = dump_yaml(document)
    after_text = dump_yaml(out)
    diff = "".join(
        difflib.unified_diff(
            before_text.splitlines(keepends=True),
            after_text.splitlines(keepends=True),
            "before.yaml",
            "after.yaml",
        )
    )
    return Patched(out, diff, changed, skipped)


def _current(obj: Any, path: str) -> Any:
    try:
        parent, key = _parent(obj, path)
        return parent[key] if isinstance(parent, dict) and key in parent else None
    except (KeyError, IndexError, TypeError):
        return None


def _write(obj: Any, path: str, value: Any) -> None:
    """Set ``path`` of ``obj`` to ``value`` (None or empty removes it), creating mappings on
    the way (``spec.autoscalerOptions`` may not exist yet)."""
    parts: list[str | int] = [
        int(m.group(2)) if m.group(2) is not None else m.group(1) for m in _PART.finditer(path)
    ]
    node = obj
    for part in parts[:-1]:
        if isinstance(part, str) and (part not in node or node[part] is None):
            node[part] = {}
        node = node[part]
    last = parts[-1]
    if value in (None, {}) or (isinstance(value, dict) and not any(value.values())):
        if isinstance(node, dict):
            node.pop(last, None)  # type: ignore[arg-type]
        return
    node[last] = value
