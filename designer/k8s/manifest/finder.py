"""Finding pod templates in the objects of a manifest (List items included)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import Message
from designer.k8s.manifest._common import MAX_INPUT_BYTES, _type_name
from designer.k8s.manifest.kinds import (
    KindRecord,
    Replicas,
    SiteError,
    kind_record,
    no_template,
    sites_by_shape,
)
from designer.k8s.manifest.reader import Document, ReadError, read_documents
from designer.k8s.manifest.trainer import (
    TRAINER_GROUP,
    TRAINJOB_RECORD,
    RuntimeIndex,
    trainjob_sites,
)


@dataclass(frozen=True)
class Workload:
    """One pod template of an object (a PyTorchJob has one per replica type)."""

    document: int
    path: str  # "" or "items[3]"
    kind: str
    name: str | None
    namespace: str | None
    obj: dict
    pod_spec_path: str
    pod_spec: dict
    pod_metadata: dict
    template: str = ""  # JSON path of the pod template in the object ("" for a Pod)
    replicas: Replicas = Replicas(1)
    role: str = ""  # "Worker", "head", "leader", "predictor" ...
    found_by: str = "kind"  # "kind": the kinds table knows it; "shape": found by shape
    metadata_path: str = "metadata"
    required_container: str | None = None
    # Assembled container paths -> where they are written (KServe inline containers, the
    # TrainJob fields a runtime's node container takes).
    path_map: tuple[tuple[str, str], ...] = ()
    facts: dict = field(default_factory=dict, compare=False)
    record: KindRecord | None = field(default=None, compare=False)

    @property
    def api_group(self) -> str:
        api_version = self.obj.get("apiVersion") if isinstance(self.obj, dict) else None
        return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


@dataclass(frozen=True)
class Skipped:
    """An object that holds no pod template (Service, ConfigMap, a TrainJob whose runtime
    is not known, ...), with the reason."""

    document: int
    path: str
    kind: str
    name: str | None
    # The object itself (a LimitRange, a ResourceQuota... that the check reads); shared.
    obj: Any = field(default=None, compare=False, repr=False)
    reason: Message | None = field(default=None, compare=False)

    @property
    def reason_text(self) -> str:
        return self.reason.text if self.reason else f"{self.kind}: no pod template"


class WorkloadScan(tuple):
    """``(workloads, errors)``; unpacks as a 2-tuple.  ``.skipped`` lists the objects
    without a pod template."""

    skipped: list[Skipped]

    def __new__(
        cls, workloads: list[Workload], errors: list[ReadError], skipped: list[Skipped]
    ) -> WorkloadScan:
        self = super().__new__(cls, (workloads, errors))
        self.skipped = skipped
        return self

    def __getnewargs__(self) -> tuple[list[Workload], list[ReadError], list[Skipped]]:
        return (self[0], self[1], self.skipped)  # for pickle and copy

    @property
    def workloads(self) -> list[Workload]:
        return self[0]

    @property
    def errors(self) -> list[ReadError]:
        return self[1]


# ---------------------------------------------------------------------------
# Finding pod templates: the kinds table (kinds.py), else by shape
# ---------------------------------------------------------------------------


class _Finder:
    """find_workloads' state: the three result lists and the training runtimes."""

    def __init__(self, runtimes: RuntimeIndex | None) -> None:
        self.workloads: list[Workload] = []
        self.errors: list[ReadError] = []
        self.skipped: list[Skipped] = []
        self.runtimes = runtimes

    def error(self, doc: Document, path: str, message: str) -> None:
        where = f"line {doc.line}: {path + ': ' if path else ''}"
        self.errors.append(ReadError(doc.index, where + message))

    def object(self, doc: Document, obj: Any, path: str) -> list[Any] | None:
        """Record one object; return the items of a List to look at next."""
        if type(obj) is not dict and not isinstance(obj, dict):
            message = f"expected a mapping (a Kubernetes object), got {_type_name(obj)}"
            self.error(doc, path, message)
            return None
        kind = obj.get("kind")
        if type(kind) is not str or not kind:
            self.error(doc, path, 'object has no "kind"')
            return None
        api_version = obj.get("apiVersion")
        record = kind_record(api_version, kind)
        if record is None and kind.endswith("List") and "items" in obj:
            items = obj["items"]
            if items is None or type(items) is list or isinstance(items, list):
                return items or []
            self.error(doc, path, f"{kind}: items is {_type_name(items)}, expected a list")
            return None
        metadata = obj.get("metadata")
        name = namespace = None
        if type(metadata) is dict or isinstance(metadata, dict):
            name = metadata.get("name")
            if type(name) is not str:
                name = None
            namespace = metadata.get("namespace")
            if type(namespace) is not str:
                namespace = None
        found_by = "kind"
        reason: Message | None = None
        try:
            if record is not None:
                sites = record.sites(obj)
            elif kind == "TrainJob" and _group(api_version) == TRAINER_GROUP:
                sites, _runtime, reason = trainjob_sites(obj, self.runtimes)
                record = TRAINJOB_RECORD
            else:
                sites = sites_by_shape(obj)
                found_by = "shape"
        except SiteError as exc:
            what = f'{kind} "{name}"' if name else kind
            self.error(doc, path, f"{what}: {exc}")
            return None
        if not sites:
            if reason is None:
                reason = no_template(kind, record)
            self.skipped.append(Skipped(doc.index, path, kind, name, obj, reason))
            return None
        append = self.workloads.append
        for site in sites:
            # Workload's fields set at once: the frozen dataclass's __init__ sets each of
            # them through object.__setattr__, a third of finding a dump's pods.
            w = _new(Workload)
            _setattr(
                w,
                "__dict__",
                {
                    "document": doc.index,
                    "path": path,
                    "kind": kind,
                    "name": name,
                    "namespace": namespace,
                    "obj": obj,
                    "pod_spec_path": site.spec_path,
                    "pod_spec": site.spec,
                    "pod_metadata": site.metadata,
                    "template": site.template,
                    "replicas": site.replicas,
                    "role": site.role,
                    "found_by": found_by,
                    "metadata_path": site.metadata_path,
                    "required_container": site.required_container,
                    "path_map": site.path_map,
                    "facts": site.facts,
                    "record": record,
                },
            )
            append(w)
        return None


_new = object.__new__
_setattr = object.__setattr__


def _group(api_version: Any) -> str | None:
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else None


def find_workloads(documents: list[Document], runtimes: RuntimeIndex | None = None) -> WorkloadScan:
    """Pod templates of every object in ``documents`` (List items included).

    Returns ``(workloads, errors)``: one workload per pod template (kinds.KINDS says where
    each kind keeps them; other kinds are searched by shape). The result's ``.skipped``
    lists the objects that hold none, with the reason; they are not errors. A TrainJob is
    resolved against the training runtimes of ``runtimes`` (by default those in
    ``documents``) and those Kubeflow Trainer installs.
    """
    if runtimes is None:
        runtimes = runtime_index(documents)
    finder = _Finder(runtimes)
    for doc in documents:
        if doc.error is not None:
            finder.errors.append(ReadError(doc.index, doc.error, doc.hostile))
            continue
        if doc.data is None:
            continue
        items = finder.object(doc, doc.data, "")
        if items is not None:
            _walk(finder, doc, items, 0)
    return WorkloadScan(finder.workloads, finder.errors, finder.skipped)


def is_list(obj: Any) -> bool:
    """Whether find_workloads reads ``obj`` as a List (its items are the objects)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
        return False
    kind = obj["kind"]
    return (
        kind_record(obj.get("apiVersion"), kind) is None
        and kind.endswith("List")
        and ("items" in obj)
    )


def find_workloads_in_items(
    doc: Document, items: list[Any], first: int, runtimes: RuntimeIndex | None = None
) -> WorkloadScan:
    """find_workloads for the items ``first``, ``first + 1``... of the List ``doc`` (a slice
    of a dump read on its own, see split.py): the workloads, paths and errors the whole List
    gives for those items."""
    finder = _Finder(runtimes if runtimes is not None else RuntimeIndex())
    _walk(finder, doc, items, first)
    return WorkloadScan(finder.workloads, finder.errors, finder.skipped)


def find_workloads_of_items(
    doc: Document, items: list[tuple[int, Any]], runtimes: RuntimeIndex | None = None
) -> tuple[WorkloadScan, list[int]]:
    """find_workloads_in_items for some items of the List ``doc`` given with their indexes,
    in order, and how many workloads each gave."""
    finder = _Finder(runtimes if runtimes is not None else RuntimeIndex())
    counts = []
    workloads = finder.workloads
    for index, item in items:
        before = len(workloads)
        _walk(finder, doc, [item], index)
        counts.append(len(workloads) - before)
    return WorkloadScan(finder.workloads, finder.errors, finder.skipped), counts


def _walk(finder: _Finder, doc: Document, items: list[Any], first: int) -> None:
    # Lists (a kubectl dump is one) nest rarely: a stack of item lists, with the index of
    # the first item of each (a slice of a dump starts further in).
    stack: list[tuple[list[Any], str, int, int]] = [(items, "items", 0, first)]
    while stack:
        items, prefix, start, offset = stack.pop()
        for i in range(start, len(items)):
            nested = finder.object(doc, items[i], f"{prefix}[{i + offset}]")
            if nested is not None:
                stack.append((items, prefix, i + 1, offset))
                stack.append((nested, f"{prefix}[{i + offset}].items", 0, 0))
                break


def runtime_index(documents: list[Document], file: str = "") -> RuntimeIndex:
    """The training runtimes among ``documents`` (List items included)."""
    index = RuntimeIndex()
    add_runtimes(index, documents, file)
    return index


def add_runtimes(index: RuntimeIndex, documents: list[Document], file: str = "") -> None:
    for doc in documents:
        data = doc.data
        items = data.get("items") if isinstance(data, dict) else None
        for obj in [data, *(items if isinstance(items, list) else [])]:
            index.add(obj, {"file": file, "document": doc.index})


def load(text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES) -> WorkloadScan:
    """read_documents + find_workloads."""
    return find_workloads(read_documents(text, max_bytes=max_bytes))
