"""``podspec check``: every workload in some manifest files, as one JSON-able report.

The CLI and ``POST /api/v1/analyze`` both print ``check_texts``'s result, so they agree.
"""

from __future__ import annotations

import gc
import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from designer.k8s.admission import Admission, FoundPolicy, PolicyReport, is_policy
from designer.k8s.apiserver import (
    DEFAULT_VERSION,
    ClusterVersion,
    VersionNote,
    cluster_version,
    object_errors,
    pod_from_parts,
    pod_with_defaults,
)
from designer.k8s.check.admission import apply_policies
from designer.k8s.check.claims import NO_LINKS, ClaimLinks, link_claims, read_dra_objects
from designer.k8s.check.memo import (
    TOKEN_BYTES,
    canonical,
    memo_key,
    rename,
    renamed,
    volumes_known,
)
from designer.k8s.check.operators import path_rewriter, skipped_entry, template_section
from designer.k8s.core import FieldError, FieldWarning, Message
from designer.k8s.design import (
    WORKLOAD_OF_KIND,
    Advice,
    PodReport,
    failed_report,
    pod_report,
)
from designer.k8s.dra import DraObjects
from designer.k8s.kubelet import pod_qos
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    RuntimeIndex,
    Workload,
    add_runtimes,
    find_workloads,
    read_documents,
)
from designer.k8s.operators import Finding, OperatorReport, operator_reports
from designer.k8s.scheduler import effective_limits, effective_requests


@dataclass(frozen=True)
class CheckedObject:
    """One pod template's report: the API server's and kubelet's view (``report``, shared
    by identical templates), what the object's operator says (``operator``), its claims and
    its namespace's admission."""

    file: str
    workload: Workload
    report: PodReport
    # Dynamic Resource Allocation: the pod's claims linked to the input (check.claims).
    links: ClaimLinks | None = None
    # Set by check.admission: the pod after its namespace's admission (None: no policy), and
    # what the chosen Kubernetes version does differently to it.
    admission: Admission | None = None
    version_notes: tuple[VersionNote, ...] = field(default_factory=tuple)
    # What the object's operator (and GPU schedulers) say (check.operators, operators).
    operator: OperatorReport | None = None
    # The report is one of pods whose containers were renamed (check.memo.canonical): the
    # token -> name map that as_dict writes back. None: the report is this pod's own.
    rename: dict[str, str] | None = None
    # check_workloads' cache of the entries' shared part (see as_dict); None: none.
    tails: dict[Any, Any] | None = field(default=None, compare=False, repr=False)
    # The API server's errors about the object itself (a Deployment's selector, a Job's
    # restart policy: apiserver.object_errors), those it lists before the pod template's
    # and those after; on the object's first template.
    object_errors: tuple[tuple[FieldError, ...], tuple[FieldError, ...]] = ((), ())

    @property
    def errors(self) -> list[FieldError | Finding]:
        """Every error at its full path: the object's and its pod's, in the API server's
        order, then the operator's."""
        rewrite = path_rewriter(self.workload.path_map)
        # Fields the operator fills in itself (KServe's image from the ServingRuntime).
        filled = self.workload.facts.get("filled") or ()
        own = [rewrite.error(e) for e in self.report.errors if e.field not in filled]
        before, after = self.object_errors
        extra = self.operator.errors if self.operator else []
        return [*before, *own, *after, *(rewrite.finding(f) for f in extra)]

    @property
    def warnings(self) -> list[FieldWarning | Finding]:
        rewrite = path_rewriter(self.workload.path_map)
        own = [rewrite.warning(w) for w in self.report.warnings]
        extra = self.operator.warnings if self.operator else []
        return own + [rewrite.finding(f) for f in extra]

    @property
    def notes(self) -> list[Finding]:
        rewrite = path_rewriter(self.workload.path_map)
        return [rewrite.finding(f) for f in (self.operator.notes if self.operator else [])]

    @property
    def advice(self) -> list[Advice]:
        """The report's advice, with the paths of an assembled pod where they are written."""
        rewrite = path_rewriter(self.workload.path_map)
        if not self.workload.path_map:
            return self.report.advice
        return [
            Advice(a.code, _rewritten(a.message, rewrite.text), a.reason)
            for a in self.report.advice
        ]

    @property
    def qos_reasons(self) -> list[str]:
        rewrite = path_rewriter(self.workload.path_map)
        return [rewrite.text(r) for r in self.report.as_dict()["qosReasons"]]

    def as_dict(self) -> dict[str, Any]:
        """The object's entry of ``objects``. The pods of a cluster dump that share a report
        (and container names) differ only in the first keys (file ... namespace): the rest is
        built once per report and shared, as the report's own lists already are."""
        shared = self.shared_tail()
        if shared is None:
            return self._entry()
        out = self._header()
        out.update(shared_tail_for(shared, self.rename, self.tails))
        return out

    def shared_tail(self) -> SharedTail | None:
        """The part of the entry after the header, built once per report (with the stand-in
        container names) and kept in ``tails``; None when this entry is the object's own (an
        admission, version notes, claims, operator findings, an assembled pod)."""
        w = self.workload
        op = self.operator
        tails = self.tails
        if (
            tails is None
            or self.admission is not None
            or self.version_notes
            or (self.links is not None and self.links is not NO_LINKS)
            or (op is not None and (op.errors or op.warnings or op.notes))
            or w.path_map
            or w.facts
            or self.object_errors != NO_OBJECT_ERRORS
        ):
            return None
        key = (id(self.report), w.template, w.replicas, w.role, w.found_by)
        cached = tails.get(key)
        if cached is None or cached[2] is not w.record:
            tail = {k: v for k, v in self._entry(renamed=False).items() if k not in _HEADER}
            # Most reports never name a container: then the names do not matter.
            named = TOKEN_BYTES in orjson.dumps(tail)
            # The report is held with its id (an id is unique only while its object lives).
            cached = tails[key] = (key, self.report, w.record, tail, named)
        return cached

    def _header(self) -> dict[str, Any]:
        """The keys of the entry that are the object's own (_HEADER)."""
        w = self.workload
        return {
            "file": self.file,
            "document": w.document,
            "path": w.path,
            "kind": w.kind,
            "name": w.name,
            "namespace": w.namespace,
        }

    def _entry(self, *, renamed: bool = True) -> dict[str, Any]:
        w = self.workload
        out = {
            **self._header(),
            **template_section(w),
            **self.report.as_dict(),
            "admission": self.admission.as_dict() if self.admission else None,
            "versionNotes": [n.as_dict() for n in self.version_notes],
        }
        op = self.operator
        if (
            w.path_map
            or w.facts.get("filled")
            or (op and (op.errors or op.warnings))
            or self.object_errors != NO_OBJECT_ERRORS
        ):
            out["errors"] = [e.as_dict() for e in self.errors]
            out["warnings"] = [x.as_dict() for x in self.warnings]
            out["qosReasons"] = self.qos_reasons
            out["advice"] = [a.as_dict() for a in self.advice]
        out["notes"] = [n.as_dict() for n in self.notes] if op and op.notes else []
        out.update((self.links or ClaimLinks()).fields(out["warnings"]))
        return rename(out, self.rename) if self.rename and renamed else out


NO_OBJECT_ERRORS: tuple[tuple[FieldError, ...], tuple[FieldError, ...]] = ((), ())

# The keys of an entry that are the object's own (CheckedObject._header); no token of
# check.memo.canonical can be in them (a manifest cannot guess one).
_HEADER = frozenset({"file", "document", "path", "kind", "name", "namespace"})

# (tails key, report, kind record, tail with the stand-in names, whether it names any)
SharedTail = tuple[Any, PodReport, Any, dict[str, Any], bool]


def shared_tail_for(
    shared: SharedTail, names: dict[str, str] | None, tails: dict[Any, Any] | None
) -> dict[str, Any]:
    """The shared tail with the containers' own names (``names``: check.memo.canonical's
    map), renamed once per map and kept in ``tails``."""
    key, _report, record, tail, named = shared
    if not (named and names):
        return tail
    # The kind's record too: kinds that share a report may not share its tail (the kinds'
    # records live as long as the process, so their ids stay theirs).
    names_key = (key, id(names), id(record))
    renamed = tails.get(names_key) if tails is not None else None
    if renamed is None:
        renamed = (names, rename(tail, names))
        if tails is not None:
            tails[names_key] = renamed
    return renamed[1]


def _rewritten(message: Message, text: Any) -> Message:
    """A Message whose text parameters (field paths) went through ``text``."""
    params = {
        k: _rewritten(v, text) if isinstance(v, Message) else text(v) if isinstance(v, str) else v
        for k, v in message.params.items()
    }
    return Message(message.template, params)


def metadata_path(workload: Workload) -> str:
    """The path the API server reports pod metadata errors at: ``metadata`` for a Pod; for a
    template the template itself (ValidatePodTemplateSpec: ``spec.template.labels``); for a
    PodSpec-like component (KServe) the component, whose labels and annotations are fields."""
    return workload.metadata_path


def decode_metadata_path(workload: Workload) -> str:
    """Where the pod metadata is written (a decoding error is at its JSON path)."""
    if workload.pod_spec_path == "spec" or workload.pod_spec_path.endswith(".spec"):
        return workload.pod_spec_path.removesuffix("spec") + "metadata"
    return workload.metadata_path


log = logging.getLogger("designer.check")
INTERNAL = (
    "the designer could not check this workload (the failure is logged); the reports on the "
    "other workloads are complete"
)


def check_workload(
    file: str,
    workload: Workload,
    memo: dict[bytes, PodReport] | None = None,
    version: ClusterVersion | None = None,
    key: bytes | None = None,
) -> CheckedObject:
    """One workload's report; with ``memo``, identical pod templates are checked once
    (``key``: the workload's memo key when the caller has it)."""
    if key is None and memo is not None:
        key = memo_key(workload)
    return CheckedObject(file, workload, _shared_report(workload, memo, version, key))


def _shared_report(
    workload: Workload,
    memo: dict[bytes, PodReport] | None,
    version: ClusterVersion | None,
    key: bytes | None,
) -> PodReport:
    if key is not None and memo is not None:
        report = memo.get(key)
        if report is not None:
            return report
    try:
        report = _report(workload, version)
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError):
        # A defect of the designer on one workload must not lose the report on the others
        # (the CLI prints one document for all of them): it is named at the workload.
        log.exception("checking %s %s failed", workload.kind, workload.pod_spec_path)
        report = failed_report([FieldError(workload.pod_spec_path, "InternalError", INTERNAL)])
    if key is not None and memo is not None:
        memo[key] = report
    return report


def _report(workload: Workload, version: ClusterVersion | None = None) -> PodReport:
    meta_path = metadata_path(workload)
    pod, errors = pod_from_parts(
        workload.pod_metadata,
        workload.pod_spec,
        # A value of the wrong type is a decoding error at its JSON path (…metadata.labels).
        metadata_path=decode_metadata_path(workload),
        spec_path=workload.pod_spec_path,
    )
    if pod is None:
        return _undecodable_report(workload, errors)
    return pod_report(
        pod,
        spec_path=workload.pod_spec_path,
        metadata_path=meta_path,
        template=workload.kind != "Pod",
        version=version,
        # Advice: the rules for every workload type, and for a kind the designer opens as a
        # workload type (a Deployment as online inference, a Job as batch work) that type's.
        workload=WORKLOAD_OF_KIND.get(workload.kind),
        advise=True,
        volumes_known=volumes_known(workload),
    )


# What QoS and effective resources read: enough to answer them for a pod whose other fields
# cannot be decoded (an annotation that is not a string must not hide the QoS class).
RESOURCE_FIELDS_SPEC = ("resources", "overhead")
RESOURCE_FIELDS_CONTAINER = ("name", "resources", "restartPolicy")


def _undecodable_report(workload: Workload, errors: list[FieldError]) -> PodReport:
    spec = workload.pod_spec if isinstance(workload.pod_spec, dict) else {}

    def containers(key: str) -> list[Any] | None:
        items = spec.get(key)
        if not isinstance(items, list):
            return None
        return [
            {k: c[k] for k in RESOURCE_FIELDS_CONTAINER if k in c} if isinstance(c, dict) else c
            for c in items
        ]

    minimal = {k: spec[k] for k in RESOURCE_FIELDS_SPEC if k in spec}
    for key in ("containers", "initContainers"):
        if (items := containers(key)) is not None:
            minimal[key] = items
    resource_pod, _problems = pod_from_parts({}, minimal, spec_path=workload.pod_spec_path)
    if resource_pod is None:
        return failed_report(errors)
    defaulted = pod_with_defaults(resource_pod)
    qos = pod_qos(resource_pod, spec_path=workload.pod_spec_path, defaulted=defaulted)
    requests = effective_requests(defaulted, apply_defaults=False)
    limits = effective_limits(defaulted, apply_defaults=False)
    return PodReport(None, qos, requests, limits, errors, [])


@dataclass(frozen=True)
class InputError:
    """What could not be read: a whole file (``document`` None) or one document of it."""

    file: str
    document: int | None
    message: str
    hostile: bool = False  # refused to protect the reader (see manifest.Document.hostile)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "document": self.document, "message": self.message}


@dataclass(frozen=True)
class CheckResult:
    """Every object found in some files, what could not be read, the namespace policies
    found (check.admission) and the Kubernetes version the answers are for."""

    objects: list[CheckedObject]
    errors: list[InputError]
    # The objects that hold no pod template, with the reason (check.operators.skipped_entry).
    skipped: list[dict[str, Any]] = field(default_factory=list)
    # The resource.k8s.io objects of the input, checked and linked (check.claims).
    dra_objects: list[dict[str, Any]] = field(default_factory=list)
    policies: list[PolicyReport] = field(default_factory=list)
    kubernetes_version: str = DEFAULT_VERSION
    namespace: str | None = None

    @property
    def hostile(self) -> list[InputError]:
        return [e for e in self.errors if e.hostile]

    def as_dict(self) -> dict[str, Any]:
        """The ``podspec check --format json`` document."""
        # As in check_files: the entries are many small long-lived objects, made while the
        # input's tree is alive; the cyclic collector would walk both for nothing to free.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return {
                "objects": [o.as_dict() for o in self.objects],
                "skipped": list(self.skipped),
                "errors": [e.as_dict() for e in self.errors],
                "draObjects": self.dra_objects,
                "policies": [p.as_dict() for p in self.policies],
                "kubernetesVersion": self.kubernetes_version,
            }
        finally:
            if enabled:
                gc.enable()


def check_text(
    file: str,
    text: str | bytes,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    kubernetes_version: str | None = None,
    namespace: str | None = None,
    max_workloads: int | None = None,
) -> tuple[list[CheckedObject], list[InputError]]:
    """Objects found in one file and what could not be read, with file and document; the
    file's LimitRanges and ResourceQuotas apply to its workloads and its resource.k8s.io
    objects to its pods' claims (see check_files)."""
    result = check_files(
        [(file, text)],
        max_bytes=max_bytes,
        kubernetes_version=kubernetes_version,
        namespace=namespace,
        max_workloads=max_workloads,
    )
    return result.objects, result.errors


def _read(
    file: str, text: str | bytes, max_bytes: int, max_workloads: int | None = None
) -> tuple[list[Any] | None, str | None]:
    try:
        if max_workloads is None:
            return read_documents(text, max_bytes=max_bytes), None
        # More documents than the budget allows are refused before they are parsed.
        return read_documents(text, max_bytes=max_bytes, max_documents=max_workloads + 1), None
    except ManifestError as exc:
        return None, str(exc)


def _check_documents(
    file: str,
    documents: list[Any],
    runtimes: RuntimeIndex,
    version: ClusterVersion | None = None,
    policies: list[FoundPolicy] | None = None,
    max_workloads: int | None = None,
    share_names: bool = False,
) -> tuple[list[CheckedObject], list[InputError], list[dict[str, Any]], DraObjects]:
    """A file's pod templates checked, its read errors, the objects without a pod template
    and its resource.k8s.io objects."""
    scan = find_workloads(documents, runtimes)
    workloads, read_errors = scan
    if max_workloads is not None and len(workloads) > max_workloads:
        message = f"input has {len(workloads):,} workloads; the limit is {max_workloads:,}"
        return [], [InputError(file, None, message)], [], DraObjects()
    if policies is not None:
        policies += [FoundPolicy(file, s) for s in scan.skipped if is_policy(s)]
    objects = check_workloads(file, workloads, version, share_names=share_names)
    errors = [InputError(file, e.document, e.message, e.hostile) for e in read_errors]
    skipped = [skipped_entry(file, s) for s in scan.skipped]
    return objects, errors, skipped, read_dra_objects(file, documents)


# A memo of one check holds a report per distinct pod template; a dump of pods that share
# nothing would otherwise keep every pod's report (and Pod model) alive to the end.
MEMO_LIMIT = 8192


def check_workloads(
    file: str,
    workloads: list[Workload],
    version: ClusterVersion | None = None,
    memo: dict[bytes, PodReport] | None = None,
    operator_memo: dict[Any, OperatorReport] | None = None,
    *,
    share_names: bool = False,
    tails: dict[Any, Any] | None = None,
) -> list[CheckedObject]:
    """The workloads of one file checked, in order; identical pod templates (by memo key)
    share their report, in ``memo`` when given (a caller checking many slices of one dump).

    ``share_names``: pods that differ in their containers' names too share a report (see
    check.memo.canonical), for callers that only read ``as_dict()`` (the report's Pod model
    and messages then hold the stand-in names)."""
    memo = {} if memo is None else memo
    operator_memo = {} if operator_memo is None else operator_memo
    tails = {} if tails is None else tails
    objects: list[CheckedObject] = []
    for group in _by_object(workloads):
        if len(memo) > MEMO_LIMIT:
            memo.clear()
        if len(operator_memo) > MEMO_LIMIT:
            operator_memo.clear()
        if len(tails) > MEMO_LIMIT:
            tails.clear()
        checked = list(group)
        keys: list[bytes | None] = []
        names: list[dict[str, str] | None] = []
        for i, w in enumerate(group):
            found = canonical(w) if share_names else None
            if found is None:
                keys.append(memo_key(w))
                names.append(None)
                continue
            key, mapping = found
            keys.append(key)
            names.append(mapping)
            # The renamed copy is what gets checked: only needed when a report for the key
            # is not known yet (a Pod no operator owns reads nothing else; see
            # operators.operator_reports).
            if key not in memo or w.kind != "Pod" or (key, i == 0) not in operator_memo:
                checked[i] = renamed(w, mapping)
        extras = operator_reports(checked, keys, operator_memo)
        # The object's own errors (its kind's validation beyond the pod template), on its
        # first template: a Pod has none (its report is all of it).
        first = group[0]
        before, after = object_errors(first.obj, version) if first.kind != "Pod" else ((), ())
        own_errors = (tuple(before), tuple(after)) if before or after else NO_OBJECT_ERRORS
        for n, (w, c, k, extra, mapping) in enumerate(
            zip(group, checked, keys, extras, names, strict=True)
        ):
            report = _shared_report(c, memo, version, k)
            # CheckedObject(file, w, report, operator=extra, rename=mapping, tails=tails),
            # its fields set at once (a frozen dataclass's __init__ sets each through
            # object.__setattr__: a tenth of checking a dump).
            o = _new(CheckedObject)
            _setattr(
                o,
                "__dict__",
                {
                    "file": file,
                    "workload": w,
                    "report": report,
                    "links": None,
                    "admission": None,
                    "version_notes": (),
                    "operator": extra,
                    "rename": mapping,
                    "tails": tails,
                    "object_errors": own_errors if n == 0 else NO_OBJECT_ERRORS,
                },
            )
            objects.append(o)
    return objects


_new = object.__new__
_setattr = object.__setattr__


def _by_object(workloads: list[Workload]) -> list[list[Workload]]:
    """Consecutive pod templates of one object (document and List path) together."""
    groups: list[list[Workload]] = []
    document = path = None
    group: list[Workload] = []
    for w in workloads:
        if group and w.document == document and w.path == path:
            group.append(w)
        else:
            group = [w]
            groups.append(group)
            document, path = w.document, w.path
    return groups


def check_files(
    inputs: list[tuple[str, str | bytes]],
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    kubernetes_version: str | None = None,
    namespace: str | None = None,
    max_workloads: int | None = None,
    share_names: bool = False,
) -> CheckResult:
    """Every object of several files, and what could not be read, for one Kubernetes
    version (default: the newest supported). The LimitRanges and ResourceQuotas found in any
    file apply to the workloads of their namespace (``namespace`` for objects without one;
    ``default`` when None); ResourceClaims, ResourceClaimTemplates and DeviceClasses in any
    file link to the pods' claims. Raises ValueError for an unsupported version.

    ``max_workloads`` bounds the work a caller accepts per file (the web's budget): more
    documents than that are refused before parsing, more workloads before any is checked.

    ``share_names``: for callers that only read the objects' ``as_dict()`` (check_texts, the
    API): pods that differ only in their containers' names share one report."""
    version = cluster_version(kubernetes_version)
    # A parsed manifest is a large tree of acyclic, long-lived objects: the cyclic garbage
    # collector would walk it again and again while parsing and reporting allocate (a third
    # of the time on a 10,000-pod List) and find nothing to free, so it pauses meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        objects: list[CheckedObject] = []
        errors: list[InputError] = []
        skipped: list[dict[str, Any]] = []
        found: list[FoundPolicy] = []
        dra = DraObjects()
        # A TrainJob's runtime may be in any of the files: read them all first.
        read = [(file, *_read(file, text, max_bytes, max_workloads)) for file, text in inputs]
        runtimes = RuntimeIndex()
        for file, documents, _failure in read:
            if documents is not None:
                add_runtimes(runtimes, documents, file)
        for file, documents, failure in read:
            if documents is None:
                errors.append(InputError(file, None, str(failure)))
                continue
            checked, failed, without, dra_found = _check_documents(
                file, documents, runtimes, version, found, max_workloads, share_names
            )
            objects += checked
            errors += failed
            skipped += without
            dra.extend(dra_found)
        # Claims link across files: a template in one file serves a pod in another.
        objects, dra_objects = link_claims(objects, dra)
        objects, reports = apply_policies(objects, found, version=version, namespace=namespace)
        return CheckResult(
            objects,
            errors,
            skipped,
            dra_objects=dra_objects,
            policies=reports,
            kubernetes_version=str(version.version),
            namespace=namespace,
        )
    finally:
        if enabled:
            gc.enable()
