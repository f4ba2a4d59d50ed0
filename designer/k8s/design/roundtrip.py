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
original spelling (``"0.5"`` stays ``"0.5"`` when the designer says ``500m``), so the diff
shows only what the user changed; a YAML float (``cpu: 0.1``) is the exception: the
operators' CRD schemas refuse it (int-or-string), so a rewritten container gets the
designer's spelling.

``object_path(w, pod_path)`` and ``pod_path(document, object_path)`` translate between the
paths of the pod the designer edits (``spec.containers[0].resources.limits[cpu]``) and the
object's (``spec.predictor.model.resources.limits.cpu``), so a problem the object has is
shown beside the form field it is about.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import Message, MessageError, Quantity, QuantityError, gettext_noop
from designer.k8s.manifest import (
    SERVER_METADATA,
    Document,
    Workload,
    dump_yaml,
    find_workloads,
    pod_template_manifest,
    runtime_index,
)

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
    text: str = ""  # the document as YAML, when already printed (for the diff)

    @property
    def yaml(self) -> str:
        return self.text or dump_yaml(self.document)


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
    runtime's pod with spec.trainer applied), named after its object, as Analyze opens it
    (``manifest.pod_template_manifest``). ``context``: the other documents of the input
    (where a TrainJob's runtime may be)."""
    opened = pod_template_manifest(_workload(document, template, path, context))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": copy.deepcopy(opened["metadata"]),
        "spec": copy.deepcopy(opened["spec"]) if isinstance(opened["spec"], dict) else {},
    }


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
                k: before[k]
                if k in before and not isinstance(before[k], float) and _same(before[k], v)
                else str(v)
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
    *,
    before_text: str | None = None,
) -> Patched:
    """``document`` with the container resources of ``pod`` (the designer's edit of the
    template at ``template``; ``path`` the item in a List) written where the object keeps
    them, and the unified diff. ``context``: the other documents of the input;
    ``before_text``: ``document`` as YAML, when the caller has it already."""
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
    if not changed:
        return Patched(out, "", changed, skipped)
    before_text = dump_yaml(document) if before_text is None else before_text
    after_text = dump_yaml(out)
    diff = "".join(
        difflib.unified_diff(
            before_text.splitlines(keepends=True),
            after_text.splitlines(keepends=True),
            "before.yaml",
            "after.yaml",
        )
    )
    return Patched(out, diff, changed, skipped, after_text)


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


# --- paths: the pod the designer edits <-> the object ------------------------------------

_RESOURCE_KEY = re.compile(r"(\.resources\.(?:requests|limits))\.([^\[\]]+)$")


def _rest(path: str, prefix: str) -> str | None:
    """``path`` after ``prefix`` ("" for the prefix itself), or None when it is not under it."""
    if path == prefix:
        return ""
    if prefix and path.startswith(prefix) and path[len(prefix)] in ".[":
        return path[len(prefix) :]
    return None


def object_path(w: Workload, pod_field: str) -> str:
    """Where a field of the pod the designer opened (``spec.restartPolicy``,
    ``spec.containers[0].image``) is written in the workload's object."""
    if (rest := _rest(pod_field, "metadata")) is not None:
        if w.template and rest in (".name", ".namespace"):
            # A template's pod is named after its object (template_pod).
            return "metadata" + rest
        return _written_metadata(w) + rest
    rest = _rest(pod_field, "spec")
    if rest is None:
        return pod_field
    assembled = w.pod_spec_path + rest
    for source, target in sorted(w.path_map, key=lambda m: len(m[0]), reverse=True):
        tail = _rest(assembled, source)
        if tail is not None:
            return target + tail
    return assembled


def _written_metadata(w: Workload) -> str:
    """Where the template's metadata is written (its errors are reported elsewhere: Go's
    ValidatePodTemplateSpec says ``<template>.labels``)."""
    if w.pod_spec_path == "spec" or w.pod_spec_path.endswith(".spec"):
        return w.pod_spec_path.removesuffix("spec") + "metadata"
    return "metadata"


def workload_of(
    document: Any, template: str, path: str = "", context: Sequence[Any] = ()
) -> Workload:
    """The workload of the template at ``template`` (``path``: the List item); raises
    RoundTripError when there is none."""
    return _workload(document, template, path, context)


def pod_path(
    document: Any,
    path_in_object: str,
    template: str | None = None,
    context: Sequence[Any] = (),
) -> str | None:
    """The field of the designer's pod that ``path_in_object`` (a problem's field in the
    object) is about, in the API server's spelling (``...resources.limits[cpu]``); None
    when it is outside every pod template (or outside ``template``, when given)."""
    try:
        runtimes = runtime_index(
            [Document(i, 1, d, None) for i, d in enumerate([document, *context])]
        )
        workloads, _errors = find_workloads([Document(0, 1, document, None)], runtimes)
    except (ValueError, TypeError, KeyError, AttributeError):  # hostile shapes: no place
        return None
    for w in workloads:
        if template is not None and w.template != template:
            continue
        found = _pod_path(w, path_in_object)
        if found is not None:
            return _RESOURCE_KEY.sub(r"\1[\2]", found)
    return None


def _pod_path(w: Workload, path: str) -> str | None:
    # Written where the operator keeps it (KServe's inline container, resourcesPerNode):
    # back to the assembled pod's path first.
    for source, target in sorted(w.path_map, key=lambda m: len(m[1]), reverse=True):
        tail = _rest(path, target)
        if tail is not None:
            path = source + tail
            break
    if (rest := _rest(path, w.pod_spec_path)) is not None:
        return "spec" + rest
    for where in (_written_metadata(w), w.metadata_path):
        if where and (rest := _rest(path, where)) is not None:
            return "metadata" + rest
    return None


# --- what an exported object may not carry -------------------------------------------------

# Fields the API server writes and an applied manifest must not carry (kubectl get -o yaml
# prints them): a resourceVersion makes apply a conflicting update, managedFields is refused.
SERVER_WRITTEN = ("status",)


def applicable_object(document: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``document`` without what the API server writes (status, metadata.managedFields,
    uid, resourceVersion ...), and the paths left out."""
    out = copy.deepcopy(document)
    dropped = [k for k in SERVER_WRITTEN if k in out]
    for k in dropped:
        out.pop(k)
    metadata = out.get("metadata")
    if isinstance(metadata, dict):
        for k in SERVER_METADATA:
            if k in metadata:
                metadata.pop(k)
                dropped.append(f"metadata.{k}")
    return out, dropped
