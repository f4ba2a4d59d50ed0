"""A design opened from an object (Analyze's "Open in designer", ``origin`` in the API):
the design edits one pod template of the object, and the export is that same object with
only what the design changed in its containers' resources written back.

``design_from_origin(origin)`` is the design the designer opens: the template's pod
(``roundtrip.template_pod``) as ``convert.design_from_pod`` reads it.

``export_origin(origin, pod)`` compares the designed pod with the pod of that unedited
design (the *baseline*: what the designer shows before any edit), so only real edits
count, never a spelling the form normalises:

* a container whose resources differ from the baseline's gets them written where the
  object keeps them (``roundtrip.patch_object``: the template's container, KServe's inline
  container, a TrainJob's ``resourcesPerNode``). A request the object spelled out for a
  resource that cannot be overcommitted (``nvidia.com/gpu``) follows its new limit, as the
  API server requires them equal; a DRA claim (``resources.claims``) is not written;
* every other difference (the pod's name, labels, restart policy, tolerations, /dev/shm
  volumes, a container's image or command, containers added or removed, DRA claims) is
  named in ``unwritten`` at its pod path, so the page shows it beside the field that made
  it, with the object's field to change instead.

The exported object leaves out what the API server writes (``status``, ``managedFields``,
``resourceVersion`` ...; ``roundtrip.applicable_object``); the diff is taken against the
object without them, and ``dropped`` names them.
"""

from __future__ import annotations

import collections
import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from designer.k8s.apiserver import validate_objects_own
from designer.k8s.core import Message, Pod, gettext_noop
from designer.k8s.design.canonical import pod_manifest
from designer.k8s.design.convert import design_from_pod, design_to_pod
from designer.k8s.design.crd_schema import validate_custom_resource
from designer.k8s.design.export import EXPORT_KINDS, ExportSettings
from designer.k8s.design.model import Design, Origin
from designer.k8s.design.roundtrip import (
    MSG_NOT_HERE,
    MSG_UNREADABLE,
    RoundTripError,
    _parent,
    _rest,
    applicable_object,
    object_path,
    patch_object,
    pod_path,
    template_pod,
    workload_of,
)
from designer.k8s.design.workload_types import workload_of_kind
from designer.k8s.manifest import Document, Workload, dump_yaml, find_workloads
from designer.k8s.operators import Finding, operator_reports

# Resources the API server never overcommits: a request must equal the limit.
OVERCOMMITTED = frozenset({"cpu", "memory", "ephemeral-storage"})

MSG_UNWRITTEN = gettext_noop(
    "Not written to the %(kind)s: only container resources are written back. To change "
    "it, edit %(where)s in your manifest."
)
MSG_UNWRITTEN_RUNTIME = gettext_noop(
    "Not written: this pod field comes from the runtime %(runtime)s (%(where)s), not from "
    "the TrainJob. To change it, edit the runtime, or add a runtimePatches entry."
)
MSG_NEW_CONTAINER = gettext_noop(
    "Container %(name)s is not in the %(kind)s: a container added in the designer is not "
    "written back, only the resources of the template's own containers are."
)
MSG_REMOVED_CONTAINER = gettext_noop(
    "Container %(name)s was removed in the designer, but the %(kind)s keeps it: only "
    "resources are written back."
)
MSG_CLAIMS = gettext_noop(
    "Not written to the %(kind)s: a DRA claim needs spec.resourceClaims and a "
    "ResourceClaimTemplate, which the export of the object it came from does not add. "
    "Export as a new object to use a claim."
)
MSG_ORIGIN_EXPORT = gettext_noop(
    "This is the %(kind)s %(name)s you opened, with only the container resources you change "
    "in its pod template %(template)s written back: applying it changes nothing else."
)
MSG_ORIGIN_UNCHANGED = gettext_noop("Nothing has changed yet: the YAML is the object as it was.")
MSG_ORIGIN_CHANGED = gettext_noop("Written back: %(fields)s.")
MSG_ORIGIN_DROPPED = gettext_noop(
    "Left out: %(fields)s, which the API server writes itself (kubectl apply refuses or "
    "misreads them)."
)
MSG_ORIGIN_PODS = gettext_noop(
    "The template stands for %(pods)s pod(s) (%(source)s): %(totals)s in all."
)


@dataclass(frozen=True)
class Unwritten:
    """A change of the design the object does not take: ``path`` is the field of the
    designer's pod it is at (``spec.restartPolicy``; "" for the pod as a whole)."""

    path: str
    message: Message

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.path, "message": self.message.text}


@dataclass(frozen=True)
class OriginProblem:
    """An error or warning of the exported object (CRD schema, operator, API server), with
    the designer's pod field it is about (None: outside the edited template)."""

    problem: Finding
    pod_field: str | None
    # The object as it was opened has the same problem: it is shown, but does not keep the
    # download back (the edit did not cause it; fields other than resources are not written,
    # so the designer often cannot fix it).
    inherited: bool = False


@dataclass(frozen=True)
class OriginExport:
    kind: str
    name: str
    template: str
    document: dict[str, Any]  # the object to apply
    yaml: str
    diff: str  # unified diff of the object as opened (server fields left out) and as exported
    changed: list[str]  # the object's fields written
    unwritten: list[Unwritten]
    dropped: list[str]  # the server-written fields left out
    errors: list[OriginProblem] = field(default_factory=list)
    warnings: list[OriginProblem] = field(default_factory=list)
    replicas: int | None = None
    replicas_source: str = ""
    explanation: list[Message] = field(default_factory=list)
    # Fields of the designer's pod the operator fills in itself (KServe's image from its
    # ServingRuntime): the API server never sees them empty.
    filled: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The ``origin`` of the ``POST /api/v1/render`` answer."""
        return {
            "kind": self.kind,
            "name": self.name,
            "template": self.template,
            "diff": self.diff,
            "changed": list(self.changed),
            "unwritten": [u.as_dict() for u in self.unwritten],
            "dropped": list(self.dropped),
            "unchangedErrors": [
                {**p.problem.as_dict(), "origin": p.problem.origin or None}
                for p in self.errors
                if p.inherited
            ],
        }


def _item(origin: Origin) -> tuple[dict[str, Any], str]:
    """The object (the item, for a List) and its template path."""
    document = origin.object
    if not isinstance(document, dict):
        raise RoundTripError(MSG_UNREADABLE, {"reason": "the origin has no object"})
    if origin.path:
        try:
            parent, key = _parent(document, origin.path)
            item = parent[key]
        except (KeyError, IndexError, TypeError, ValueError):
            item = None
        if not isinstance(item, dict):
            raise RoundTripError(MSG_UNREADABLE, {"reason": f"there is no object at {origin.path}"})
        document = item
    return document, origin.template


def origin_kind(origin: Origin) -> str:
    document, _template = _item(origin)
    return str(document.get("kind") or "")


def _pod(manifest: dict[str, Any]) -> Pod:
    try:
        return Pod.model_validate(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": manifest.get("metadata") or {},
                "spec": manifest.get("spec") or {},
            }
        )
    except (ValidationError, ValueError, TypeError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RoundTripError(MSG_UNREADABLE, {"reason": detail}) from exc


def design_from_origin(origin: Origin, workload: str | None = None) -> Design:
    """The design the designer opens for ``origin``'s template (``workload``: its type,
    by default the one the object's kind opens as). Its export kind is the object's kind
    when the designer can build one (the design's export once the origin is dropped or no
    longer kept), else a Pod. Raises RoundTripError when the template cannot be read."""
    document, template = _item(origin)
    context = list(origin.context)
    pod = _pod(template_pod(document, template, context=context))
    kind = str(document.get("kind") or "Pod")
    design = design_from_pod(pod, workload=workload or workload_of_kind(kind))
    design.export = ExportSettings(kind=kind if kind in EXPORT_KINDS else "Pod")
    design.origin = origin
    return design


def origin_design(design: Design) -> Design:
    """A design given with an origin and no containers (the API, the CLI): the origin's
    design, with the fields the design sets replacing its own."""
    assert design.origin is not None
    given = design.model_fields_set - {"containers", "origin"}
    workload = design.workload if "workload" in given else None
    start = design_from_origin(design.origin, workload)
    return start.model_copy(update={name: getattr(design, name) for name in given})


# --- comparing the designed pod with the baseline -------------------------------------------


def _containers(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = spec.get(key)
    return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []


def _resources(container: dict[str, Any]) -> dict[str, Any]:
    value = container.get("resources")
    return value if isinstance(value, dict) else {}


def _same_resources(a: dict[str, Any], b: dict[str, Any]) -> bool:
    from_a = {k: v for k, v in a.items() if v}
    from_b = {k: v for k, v in b.items() if v}
    return from_a == from_b


def _with_requests_following(edited: dict[str, Any], opened: dict[str, Any]) -> dict[str, Any]:
    """The edited resources, with a request the object spelled out for a resource that
    cannot be overcommitted following its limit (the designer drops a GPU request equal to
    its limit: for the object, that would be a change nobody made)."""
    out = copy.deepcopy(edited)
    out.pop("claims", None)
    before = opened.get("requests") if isinstance(opened.get("requests"), dict) else {}
    limits = out.get("limits") if isinstance(out.get("limits"), dict) else {}
    requests = dict(out.get("requests") or {})
    for name, limit in limits.items():
        if name not in OVERCOMMITTED and name in before and name not in requests:
            requests[name] = limit
    if requests:
        out["requests"] = requests
    return out


def _differences(a: Any, b: Any, path: str) -> list[str]:
    """The top-level keys of two mappings whose values differ, as paths."""
    a = a if isinstance(a, dict) else {}
    b = b if isinstance(b, dict) else {}
    return [f"{path}.{k}" for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)]


def _pod_dict(design: Design) -> dict[str, Any]:
    return pod_manifest(design_to_pod(design))


@dataclass
class _Comparison:
    # container name -> resources to write (in the pod the object is patched with)
    resources: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    pod_resources: Any = None
    pod_resources_changed: bool = False
    unwritten: list[Unwritten] = field(default_factory=list)


def _compare(
    w: Workload, baseline: dict[str, Any], edited: dict[str, Any], opened: dict[str, Any]
) -> _Comparison:
    out = _Comparison()
    kind = w.kind
    runtime = w.facts.get("runtime") or {}
    runtime_name = f"{runtime.get('kind')} {runtime.get('name')}"
    node_containers = set(w.facts.get("node_containers") or ())

    def unwritten(path: str) -> None:
        if kind == "TrainJob" and not _trainjob_field(w, path):
            where = object_path(w, path)
            message = Message(MSG_UNWRITTEN_RUNTIME, {"runtime": runtime_name, "where": where})
        else:
            message = Message(MSG_UNWRITTEN, {"kind": kind, "where": object_path(w, path)})
        out.unwritten.append(Unwritten(path, message))

    base_spec = baseline.get("spec") if isinstance(baseline.get("spec"), dict) else {}
    new_spec = edited.get("spec") if isinstance(edited.get("spec"), dict) else {}
    opened_spec = opened.get("spec") if isinstance(opened.get("spec"), dict) else {}
    for key in ("metadata",):
        for path in _differences(baseline.get(key), edited.get(key), key):
            unwritten(path)
    for path in _differences(
        {k: v for k, v in base_spec.items() if k not in ("containers", "initContainers")},
        {k: v for k, v in new_spec.items() if k not in ("containers", "initContainers")},
        "spec",
    ):
        if path == "spec.resources":
            if kind == "TrainJob":
                unwritten(path)
            else:
                out.pod_resources = new_spec.get("resources")
                out.pod_resources_changed = True
        elif path == "spec.resourceClaims":
            out.unwritten.append(Unwritten(path, Message(MSG_CLAIMS, {"kind": kind})))
        else:
            unwritten(path)
    for key in ("initContainers", "containers"):
        before = {c.get("name"): c for c in _containers(base_spec, key)}
        opened_by_name = {
            c.get("name"): (i, c) for i, c in enumerate(_containers(opened_spec, key))
        }
        names = set()
        for i, container in enumerate(_containers(new_spec, key)):
            name = container.get("name")
            names.add(name)
            at = f"spec.{key}[{i}]"
            if name not in before or name not in opened_by_name:
                message = Message(MSG_NEW_CONTAINER, {"name": str(name), "kind": kind})
                out.unwritten.append(Unwritten(at, message))
                continue
            old = before[name]
            for path in _differences(
                {k: v for k, v in old.items() if k != "resources"},
                {k: v for k, v in container.items() if k != "resources"},
                at,
            ):
                unwritten(path)
            new_resources, old_resources = _resources(container), _resources(old)
            if new_resources.get("claims") != old_resources.get("claims"):
                message = Message(MSG_CLAIMS, {"kind": kind})
                out.unwritten.append(Unwritten(f"{at}.resources.claims", message))
            if _same_resources(
                {k: v for k, v in new_resources.items() if k != "claims"},
                {k: v for k, v in old_resources.items() if k != "claims"},
            ):
                continue
            index, opened_container = opened_by_name[name]
            if kind == "TrainJob" and (key != "containers" or index not in node_containers):
                place = runtime_name
                message = Message(MSG_NOT_HERE, {"name": str(name), "where": place})
                out.unwritten.append(Unwritten(f"{at}.resources", message))
                continue
            out.resources[(key, str(name))] = _with_requests_following(
                new_resources, _resources(opened_container)
            )
        for name in before:
            if name not in names:
                message = Message(MSG_REMOVED_CONTAINER, {"name": str(name), "kind": kind})
                out.unwritten.append(Unwritten("", message))
    return out


def _trainjob_field(w: Workload, pod_field: str) -> bool:
    """Whether a field of a TrainJob's pod is the TrainJob's (spec.trainer's image, command,
    args, env...), not its runtime's."""
    return object_path(w, pod_field).startswith("spec.trainer")


# --- the export ----------------------------------------------------------------------------


def _problems(document: dict[str, Any]) -> tuple[list[Finding], list[Finding]]:
    """The object's errors and warnings: the API server's for the kinds it knows, the CRD
    schema's for the vendored operator kinds, and the operators' own rules."""
    errors: list[Finding] = []
    warnings: list[Finding] = []
    # The pod template's own errors are the design's pod report (same rules).
    for _i, error in validate_objects_own([document]):
        errors.append(Finding.of(error, ""))
    for problem in validate_custom_resource(document) or []:
        errors.append(Finding(problem.field, problem.message, "CRD schema"))
    try:
        workloads, _read = find_workloads([Document(0, 1, document, None)])
    except (ValueError, TypeError, KeyError, AttributeError):
        workloads = []
    for w, report in zip(workloads, operator_reports(list(workloads)), strict=True):
        errors += [_written(w, f) for f in report.errors]
        warnings += [_written(w, f) for f in report.warnings]
    return errors, warnings


def _written(w: Workload, finding: Finding) -> Finding:
    """A finding at the path where the object writes its field (KServe's inline container,
    spec.trainer), not the assembled pod's."""
    for source, target in sorted(w.path_map, key=lambda m: len(m[0]), reverse=True):
        if finding.field == source or finding.field.startswith((source + ".", source + "[")):
            return finding.with_field(target + finding.field[len(source) :])
    return finding


def _key(finding: Finding) -> tuple[str, str]:
    return (finding.field, str(finding.message))


@dataclass(frozen=True)
class _Opened:
    """What an origin always gives, whatever the design: worked out once per origin (the
    live update renders the same origin on every keystroke)."""

    applicable: dict[str, Any]
    dropped: list[str]
    text: str  # ``applicable`` as YAML: the diff's "before"
    opened: dict[str, Any]
    baseline: dict[str, Any]
    # The object's own errors and warnings as it was opened (the unchanged export's).
    problems: tuple[list[Finding], list[Finding]]

    @property
    def errors_before(self) -> frozenset[tuple[str, str]]:
        return frozenset(_key(f) for f in self.problems[0])


_OPENED: collections.OrderedDict[bytes, _Opened] = collections.OrderedDict()
_OPENED_SIZE = 32


def _opened(origin: Origin) -> _Opened:
    # The key is the origin's content (the object may come from anywhere: the API, a share
    # link); a pure function of it, so caching it in the process is safe on every replica.
    key = hashlib.blake2b(
        orjson.dumps(origin.model_dump(mode="json", exclude={"id"}), option=orjson.OPT_SORT_KEYS)
        if _orjson_safe(origin)
        else repr(origin.model_dump(exclude={"id"})).encode(),
        digest_size=20,
    ).digest()
    found = _OPENED.get(key)
    if found is not None:
        _OPENED.move_to_end(key)
        return found
    document, template = _item(origin)
    context = list(origin.context)
    applicable, dropped = applicable_object(document)
    found = _Opened(
        applicable=applicable,
        dropped=dropped,
        text=dump_yaml(applicable),
        opened=template_pod(applicable, template, context=context),
        baseline=_pod_dict(design_from_origin(origin)),
        problems=_problems(applicable),
    )
    _OPENED[key] = found
    while len(_OPENED) > _OPENED_SIZE:
        _OPENED.popitem(last=False)
    return found


def _orjson_safe(origin: Origin) -> bool:
    try:
        orjson.dumps(origin.object)
    except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits
        return False
    return True


def export_origin(origin: Origin, pod: Pod, design: Design) -> OriginExport:
    """The object ``origin`` came from, with the container resources ``design`` (whose pod
    is ``pod``) changed written back; raises RoundTripError when it cannot be read."""
    _document, template = _item(origin)
    context = list(origin.context)
    cached = _opened(origin)
    applicable, dropped = copy.deepcopy(cached.applicable), list(cached.dropped)
    w = workload_of(applicable, template, context=context)
    opened = cached.opened
    baseline = cached.baseline
    edited = pod_manifest(pod)
    comparison = _compare(w, baseline, edited, opened)

    # The pod written back: the opened one, with the changed resources in place.
    patched_pod = copy.deepcopy(opened)
    spec = patched_pod["spec"]
    for key in ("initContainers", "containers"):
        for container in _containers(spec, key):
            new = comparison.resources.get((key, str(container.get("name"))))
            if new is not None:
                container["resources"] = new
    if comparison.pod_resources_changed:
        if comparison.pod_resources:
            spec["resources"] = comparison.pod_resources
        else:
            spec.pop("resources", None)
    patched = patch_object(
        applicable, template, patched_pod, context=context, before_text=cached.text
    )
    unwritten = list(comparison.unwritten) + [Unwritten("", m) for m in patched.skipped]

    errors_now, warnings_now = _problems(patched.document) if patched.changed else cached.problems
    errors_before = cached.errors_before

    def place(finding: Finding) -> str | None:
        return pod_path(patched.document, finding.field, template, context)

    errors = []
    for finding in errors_now:
        where = place(finding)
        errors.append(OriginProblem(finding, where, _key(finding) in errors_before))
    warnings = [OriginProblem(f, place(f)) for f in warnings_now]

    name = str((applicable.get("metadata") or {}).get("name") or "")
    lines = [
        Message(MSG_ORIGIN_EXPORT, {"kind": w.kind, "name": name, "template": template or '""'})
    ]
    if patched.changed:
        lines.append(Message(MSG_ORIGIN_CHANGED, {"fields": ", ".join(patched.changed)}))
    else:
        lines.append(Message(MSG_ORIGIN_UNCHANGED, {}))
    if dropped:
        lines.append(Message(MSG_ORIGIN_DROPPED, {"fields": ", ".join(dropped)}))
    return OriginExport(
        kind=w.kind,
        name=name,
        template=template,
        document=patched.document,
        yaml=patched.yaml if patched.changed else cached.text,
        diff=patched.diff,
        changed=list(patched.changed),
        unwritten=unwritten,
        dropped=dropped,
        errors=errors,
        warnings=warnings,
        replicas=w.replicas.count,
        replicas_source=w.replicas.source,
        explanation=lines,
        filled=tuple(
            "spec" + rest
            for f in w.facts.get("filled") or ()
            if (rest := _rest(f, w.pod_spec_path)) is not None
        ),
    )
