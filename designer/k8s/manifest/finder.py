"""Finding pod templates in the objects of a manifest (List items included)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from designer.k8s.manifest._common import MAX_INPUT_BYTES, _type_name
from designer.k8s.manifest.reader import Document, ReadError, read_documents


@dataclass(frozen=True)
class Workload:
    document: int
    path: str  # "" or "items[3]"
    kind: str
    name: str | None
    namespace: str | None
    obj: dict
    pod_spec_path: str
    pod_spec: dict
    pod_metadata: dict


@dataclass(frozen=True)
class Skipped:
    """An object of a kind that has no pod template (Service, ConfigMap, ...)."""

    document: int
    path: str
    kind: str
    name: str | None
    # The object itself (a LimitRange, a ResourceQuota... that the check reads); shared.
    obj: Any = dataclasses.field(default=None, compare=False, repr=False)


class WorkloadScan(tuple):
    """``(workloads, errors)``; unpacks as a 2-tuple.  ``.skipped`` lists other kinds."""

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
# Finding pod templates
# ---------------------------------------------------------------------------

# kind -> (API groups, path of the PodSpec, path of the pod metadata)
_TEMPLATE_KINDS: dict[str, tuple[frozenset[str], str, str]] = {
    "Pod": (frozenset({""}), "spec", "metadata"),
    "PodTemplate": (frozenset({""}), "template.spec", "template.metadata"),
    "ReplicationController": (frozenset({""}), "spec.template.spec", "spec.template.metadata"),
    "Deployment": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "ReplicaSet": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "DaemonSet": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "StatefulSet": (frozenset({"apps"}), "spec.template.spec", "spec.template.metadata"),
    "Job": (frozenset({"batch"}), "spec.template.spec", "spec.template.metadata"),
    "CronJob": (
        frozenset({"batch"}),
        "spec.jobTemplate.spec.template.spec",
        "spec.jobTemplate.spec.template.metadata",
    ),
}
# kind -> (API groups, PodSpec path, fields of the pod template: the object that
# holds "spec" and "metadata"; () for a Pod, which is its own template)
_TEMPLATE_FIELDS = {
    kind: (groups, spec, tuple(spec.split(".")[:-1]))
    for kind, (groups, spec, meta) in _TEMPLATE_KINDS.items()
}


def _walk(obj: dict, fields: tuple[str, ...]) -> dict | str:
    """The mapping at ``fields`` ({} when a field is missing or null), or an
    error message when a field on the way is not a mapping."""
    node: Any = obj
    for n, field in enumerate(fields):
        node = node.get(field)
        if node is None:
            return {}
        if type(node) is not dict and not isinstance(node, dict):
            return f"{'.'.join(fields[: n + 1])} is {_type_name(node)}, expected a mapping"
    return node  # type: ignore[no-any-return]


def _template_parts(obj: dict, fields: tuple[str, ...]) -> tuple[dict, dict] | str:
    """(PodSpec, pod metadata) of the template at ``fields``, or an error message."""
    template = _walk(obj, fields) if fields else obj
    if type(template) is str:
        return template
    spec = template.get("spec")
    metadata = template.get("metadata")
    for field, value in (("spec", spec), ("metadata", metadata)):
        if value is not None and type(value) is not dict and not isinstance(value, dict):
            where = ".".join((*fields, field))
            return f"{where} is {_type_name(value)}, expected a mapping"
    return (spec if spec is not None else {}), (metadata if metadata is not None else {})


class _Finder:
    """find_workloads' state: the three result lists and a cache of API groups."""

    def __init__(self) -> None:
        self.workloads: list[Workload] = []
        self.errors: list[ReadError] = []
        self.skipped: list[Skipped] = []
        self.groups: dict[str, str] = {}  # apiVersion -> API group

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
        fields = _TEMPLATE_FIELDS.get(kind)
        if fields is None and kind.endswith("List") and "items" in obj:
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
        if fields is not None:
            api_version = obj.get("apiVersion")
            if type(api_version) is str:
                group = self.groups.get(api_version)
                if group is None:
                    group = self.groups[api_version] = api_version.rpartition("/")[0]
                if group not in fields[0]:
                    fields = None
        if fields is None:
            self.skipped.append(Skipped(doc.index, path, kind, name, obj))
            return None
        parts = _template_parts(obj, fields[2])
        if type(parts) is str:
            what = f'{kind} "{name}"' if name else kind
            self.error(doc, path, f"{what}: {parts}")
            return None
        self.workloads.append(
            Workload(doc.index, path, kind, name, namespace, obj, fields[1], parts[0], parts[1])
        )
        return None


def find_workloads(documents: list[Document]) -> WorkloadScan:
    """Pod templates of every object in ``documents`` (List items included).

    Returns ``(workloads, errors)``; the result's ``.skipped`` lists objects of
    kinds without a pod template (Service, ConfigMap, ...), which are not errors.
    Objects whose apiVersion names another API group (a CRD that reuses the
    kind name "Job", say) are skipped too.
    """
    finder = _Finder()
    record = finder.object
    for doc in documents:
        if doc.error is not None:
            finder.errors.append(ReadError(doc.index, doc.error, doc.hostile))
            continue
        if doc.data is None:
            continue
        # Lists (a kubectl dump is one) nest rarely: a stack of item lists.
        stack: list[tuple[list[Any], str, int]] = []
        items = record(doc, doc.data, "")
        if items is not None:
            stack.append((items, "items", 0))
        while stack:
            items, prefix, start = stack.pop()
            for i in range(start, len(items)):
                nested = record(doc, items[i], f"{prefix}[{i}]")
                if nested is not None:
                    stack.append((items, prefix, i + 1))
                    stack.append((nested, f"{prefix}[{i}].items", 0))
                    break
    return WorkloadScan(finder.workloads, finder.errors, finder.skipped)


def load(text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES) -> WorkloadScan:
    """read_documents + find_workloads."""
    return find_workloads(read_documents(text, max_bytes=max_bytes))
