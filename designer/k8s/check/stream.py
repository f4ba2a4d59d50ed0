"""``podspec check``, check_texts and ``POST /api/v1/analyze`` over large dumps: a slice of
pods at a time, on several cores.

check_files holds every document of its inputs at once: a 100,000-pod dump is a tree of
gigabytes. :class:`CheckStream` gives the same report, object for object and byte for byte,
while holding one slice of a dump's items at a time (manifest.split), and spreads the
slices and files over processes (``jobs``), results in input order.

A slice can be checked on its own when nothing in it depends on another slice: that is so
unless the input holds LimitRanges or ResourceQuotas (they admit the pods of their namespace),
resource.k8s.io objects (claims link across files) or TrainJobs (their runtime may be
anywhere). Each slice says whether it holds such an object (read, not searched for in the
text: an escape that spells a kind is read as the kind); entries are held until every slice
is checked, and when one does, the whole input is checked by check_files instead. So are
files over a caller's workload budget (the web's), which check_files refuses in its own
words. A text the splitter does not cut is checked whole, file by file; when it is the only
input, a large List, each worker reads it whole and checks its parts of the items.

A stream keeps its inputs, splits and memo to itself (the web checks requests in threads);
its ``jobs`` workers are forked with a copy of them, one stream's fork at a time.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import orjson

from designer.k8s.admission import POLICY_KINDS
from designer.k8s.apiserver import ClusterVersion, cluster_version
from designer.k8s.check.manifests import (
    CheckResult,
    InputError,
    check_files,
)
from designer.k8s.check.operators import skipped_entry
from designer.k8s.check.stamps import Memos, check_items, check_long_way
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    Document,
    ManifestError,
    SplitError,
    SplitList,
    find_workloads,
    is_list,
    read_documents,
    read_list,
    split_list,
)

# The kinds a slice cannot be checked without (see the module docstring), and the group.
CROSS_KINDS = frozenset({*POLICY_KINDS, "TrainJob"})
DRA_GROUP = "resource.k8s.io"
# Pods per slice: large enough that a slice's start-up cost vanishes, small enough that a
# slice's tree stays in the processor's caches while it is checked (10,000 pods check a
# fifth faster in slices of 500 than whole).
SLICE_ITEMS = 500
# An input the splitter does not cut is read by every worker from this size (below it, a
# worker's fork costs more than the check it shares), in this many parts per worker (a
# worker that starts late takes fewer).
SHARED_MIN_BYTES = 1 << 20
PARTS_PER_JOB = 4


@dataclass
class SliceResult:
    """What one slice (a file, or items of a dump) adds to the report; ``whole``: the slice
    could not be read on its own, so this is the whole file's part instead."""

    # One chunk per slice: its entries, or what the caller's encoder made of them.
    chunks: list[Any] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    whole: bool = False
    # The slice holds an object other slices depend on: the input is checked whole.
    cross: bool = False
    # The errors (of ``errors``) for documents refused to protect the reader.
    hostile: list[dict[str, Any]] = field(default_factory=list)
    # The pod templates found (a caller's budget counts them).
    workloads: int = 0

    def extend(self, other: SliceResult) -> None:
        self.chunks += other.chunks
        self.errors += other.errors
        self.skipped += other.skipped
        self.hostile += other.hostile
        self.workloads += other.workloads


@dataclass
class _State:
    """What checking a stream's units reads: the inputs, the splits of its dumps, and the
    memo of reports and of their entries' shared part (pods of one template in several
    slices share them). A stream's own; a --jobs worker has the copy it was forked with."""

    texts: list[tuple[str, str | bytes]]
    splits: dict[int, SplitList] = field(default_factory=dict)
    # Texts a worker reads whole to check its parts of (see CheckStream._units), read once.
    documents: dict[int, list[Document] | ManifestError] = field(default_factory=dict)
    memos: Memos = field(default_factory=lambda: Memos({}, {}, {}, {}))


@dataclass(frozen=True)
class _Unit:
    """A file checked whole, or ``items[first:last]`` of its split dump, or (``parts``) part
    ``part`` of the items of a file each worker reads whole (``last_slice``: the file's
    last)."""

    file_index: int
    first: int = 0
    last: int = 0
    sliced: bool = False
    last_slice: bool = True
    part: int = 0
    parts: int = 0


# What a caller makes of a slice's entries (a module-level function: --jobs workers run it).
Encoder = Callable[[list[dict[str, Any]]], Any]


class CheckStream:
    """check_texts' document, a slice at a time: :meth:`objects` yields the ``objects``
    entries in order (:meth:`chunks`, what an encoder makes of each slice's entries);
    afterwards :meth:`rest` is every other key of the document. The entries are held until
    every slice is checked (a later slice that cannot be read alone means its file is read
    whole; one that holds an object others depend on, that the whole input is), as
    JSON-ready entries that share what the pods of one report have in common (a few hundred
    bytes per pod instead of the pod's tree), or as what the encoder made of them.

    Raises ValueError (at construction) for an unsupported Kubernetes version."""

    def __init__(
        self,
        inputs: list[tuple[str, str | bytes]],
        *,
        max_bytes: int = MAX_INPUT_BYTES,
        kubernetes_version: str | None = None,
        namespace: str | None = None,
        jobs: int = 1,
        slice_items: int = SLICE_ITEMS,
        max_workloads: int | None = None,
        shared_min_bytes: int = SHARED_MIN_BYTES,
    ) -> None:
        self.version = cluster_version(kubernetes_version)
        self.kubernetes_version = kubernetes_version
        self.inputs = inputs
        self.max_bytes = max_bytes
        self.namespace = namespace
        self.jobs = max(1, jobs)
        self.slice_items = max(1, slice_items)
        # check_files' budget: more workloads in a file than this, and it is refused.
        self.max_workloads = max_workloads
        self.shared_min_bytes = shared_min_bytes
        self._rest: dict[str, Any] | None = None
        self._hostile: list[dict[str, Any]] = []
        self._state = _State(inputs)
        self._planned: tuple[int, list[_Unit]] | None = None

    def objects(self) -> Iterator[dict[str, Any]]:
        for chunk in _gc_paused(self._chunks(None)):
            yield from chunk

    def chunks(self, encode: Encoder) -> Iterator[Any]:
        """``encode(entries)`` for the entries of each slice, in input order, computed where
        the slice is checked: with ``jobs``, in the worker, which then sends only what
        ``encode`` returned (e.g. the entries' JSON as the report writes it) instead of the
        entries for this process to read back and write itself."""
        return _gc_paused(self._chunks(encode))

    def _chunks(self, encode: Encoder | None) -> Iterator[Any]:
        files: list[SliceResult] = []
        part = SliceResult()
        budget = self.max_workloads
        for unit, result in self._run(self._plan(), encode):
            if result.cross:
                break
            if result.whole and not part.whole:
                part = result  # the file read whole replaces its slices
            elif not part.whole:
                part.extend(result)
            if budget is not None and part.workloads > budget:
                break  # check_files refuses the file, in its words
            if unit.last_slice:
                files.append(part)
                part = SliceResult()
        else:
            errors: list[dict[str, Any]] = []
            skipped: list[dict[str, Any]] = []
            for part in files:
                yield from part.chunks
                errors += part.errors
                skipped += part.skipped
                self._hostile += part.hostile
            empty = CheckResult(
                [], [], kubernetes_version=str(self.version.version), namespace=self.namespace
            ).as_dict()
            self._rest = {**empty, "skipped": skipped, "errors": errors}
            del self._rest["objects"]
            return
        del files, part
        yield from self._check_whole(encode)

    def hostile(self) -> list[dict[str, Any]]:
        """The ``errors`` entries of documents refused to protect the reader (once the
        objects are exhausted)."""
        return self._hostile

    def rest(self) -> dict[str, Any]:
        """The document's keys after ``objects`` (call once :meth:`objects` is exhausted)."""
        if self._rest is None:
            raise RuntimeError("CheckStream.rest() before objects() was exhausted")
        return self._rest

    def document(self) -> dict[str, Any]:
        """The whole document at once (what check_texts returns)."""
        objects = list(self.objects())
        return {"objects": objects, **self.rest()}

    # --- inputs that must be checked whole ---------------------------------------------

    def _check_whole(self, encode: Encoder | None) -> Iterator[Any]:
        result = check_files(
            self.inputs,
            max_bytes=self.max_bytes,
            kubernetes_version=self.kubernetes_version,
            namespace=self.namespace,
            max_workloads=self.max_workloads,
            share_names=True,
        )
        self._hostile = [e.as_dict() for e in result.hostile]
        enabled = gc.isenabled()
        gc.disable()
        try:
            document = result.as_dict()
        finally:
            if enabled:
                gc.enable()
        objects = document.pop("objects")
        self._rest = document
        if encode is None:
            yield objects
            return
        for first in range(0, len(objects), self.slice_items):
            yield encode(objects[first : first + self.slice_items])

    # --- slices ---------------------------------------------------------------------

    def would_fork(self) -> bool:
        """Whether checking forks workers (``jobs`` > 1 and more than one file or slice);
        a caller may then lower ``jobs`` before checking (the plan follows)."""
        return self.jobs > 1 and len(self._plan()) > 1

    def _plan(self) -> list[_Unit]:
        """The units for the current ``jobs``, planned once per value."""
        if self._planned is None or self._planned[0] != self.jobs:
            self._planned = (self.jobs, self._units())
        return self._planned[1]

    def _units(self) -> list[_Unit]:
        """Every file, or every slice of a file that is a dump, in order. A large input the
        splitter does not cut (a dump in JSON or YAML of another layout), when
        it is the only one (it would be checked whole in this process otherwise), is read
        whole by each worker, which checks its parts of the items: the parse is repeated,
        the rest of the check (about two thirds of it) shared, and this process never holds
        the tree (freeing it costs a fifth of its parse; a worker exits without freeing)."""
        self._state = _State(self.inputs)
        units: list[_Unit] = []
        for i, (_file, text) in enumerate(self.inputs):
            data = _bytes(text)
            split = split_list(data) if len(data) <= self.max_bytes else None
            if split is not None and not is_list(split.document.data):
                split = None
            if split is None and self._shared(data):
                parts = PARTS_PER_JOB * self.jobs
                units += [
                    _Unit(i, part=k, parts=parts, last_slice=k == parts - 1) for k in range(parts)
                ]
                continue
            if split is None or (
                # More items than the budget: read whole, refused before any is checked.
                self.max_workloads is not None and split.count > self.max_workloads
            ):
                units.append(_Unit(i))
                continue
            self._state.splits[i] = split
            n = split.count
            size = slice_size(n, self.slice_items, self.jobs)
            for first in range(0, n, size):
                last = min(first + size, n)
                units.append(_Unit(i, first, last, sliced=True, last_slice=last == n))
        return units

    def _shared(self, data: bytes) -> bool:
        """Whether an input the splitter does not cut is read by every worker (see
        :meth:`_units`)."""
        return (
            self.jobs > 1
            and len(self.inputs) == 1
            and self.shared_min_bytes <= len(data) <= self.max_bytes
            and _may_be_one_list(data)
        )

    def _settings(self) -> Settings:
        return (self.max_bytes, self.kubernetes_version, self.namespace, self.max_workloads)

    def _run(
        self, units: list[_Unit], encode: Encoder | None
    ) -> Iterator[tuple[_Unit, SliceResult]]:
        global _FORKED
        settings = self._settings()
        if self.jobs == 1 or len(units) == 1:
            for unit in units:
                yield unit, _check_unit(self._state, unit, settings, encode)
            return
        # fork: the workers inherit the inputs and their splits without copying them; each
        # returns the JSON entries of its slice. Entries travel as JSON (orjson): a tenth of
        # pickle's cost to read back; what an encoder made of them, pickled.
        context = get_context("fork")
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context) as pool:
            try:
                n = len(units)
                # The workers fork at the first submit and keep the state they forked with;
                # the lock keeps another thread's stream from handing them its own.
                with _FORK_LOCK:
                    _FORKED = self._state
                    try:
                        results = pool.map(_check_unit_remote, units, [settings] * n, [encode] * n)
                    finally:
                        _FORKED = None
                for unit, sent in zip(units, results, strict=True):
                    yield unit, SliceResult(**orjson.loads(sent)) if encode is None else sent
            finally:
                # The caller stops early when a slice needs the whole input.
                pool.shutdown(cancel_futures=True)


def _gc_paused(values: Iterator[Any]) -> Iterator[Any]:
    """``values``, with the cyclic GC paused while they are computed: as in check_files, the
    entries are many small long-lived objects it would walk again and again to free none."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield from values
    finally:
        if enabled:
            gc.enable()


def check_texts(
    inputs: list[tuple[str, str | bytes]],
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    kubernetes_version: str | None = None,
    namespace: str | None = None,
    max_workloads: int | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """The ``--format json`` document for several files: ``objects`` (one per pod
    template), ``skipped`` (objects without one), ``errors`` (what could not be read) and
    the policies, DRA objects and version of check_files: ``check_files(...,
    share_names=True).as_dict()``, computed a slice of a dump at a time (each slice's tree
    stays in the processor's caches while it is checked), on ``jobs`` processes."""
    return CheckStream(
        inputs,
        max_bytes=max_bytes,
        kubernetes_version=kubernetes_version,
        namespace=namespace,
        max_workloads=max_workloads,
        jobs=jobs,
    ).document()


def slice_size(items: int, most: int, jobs: int) -> int:
    """Items per slice of a dump of ``items``: at most ``most``, in as many slices as a
    multiple of ``jobs``, so every worker gets the same share and none idles at the end
    (10,000 pods in 2,000s on 2 cores: 3 slices on one, 2 on the other; in 1,667s: 3 and 3)."""
    if jobs <= 1 or items <= most:
        return most
    slices = -(-items // most)
    slices = -(-slices // jobs) * jobs
    return -(-items // slices)


_SPACE = re.compile(rb"[ \t\r\n]*")


def _may_be_one_list(data: bytes) -> bool:
    """Whether the text may be one List, judged from a few bytes (a guess: whatever it is
    read as decides the check; a text of several documents or with no items is checked
    whole by one worker, and read by each for nothing)."""
    start = _SPACE.match(data).end()  # type: ignore[union-attr]
    if data[start : start + 1] in (b"{", b"["):
        return b'"items"' in data
    return b"\n---" not in data and (data.startswith(b"items:") or b"\nitems:" in data)


def _bytes(text: str | bytes) -> bytes:
    """The input's bytes to look at (an unpaired surrogate kept, for the reader to refuse)."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    return text if isinstance(text, bytes) else bytes(text)


# The state of the stream whose workers are forking (they read it from here).
_FORKED: _State | None = None
_FORK_LOCK = threading.Lock()
Settings = tuple[int, str | None, str | None, int | None]


def _check_unit_remote(
    unit: _Unit, settings: Settings, encode: Encoder | None
) -> bytes | SliceResult:
    assert _FORKED is not None, "a stream's worker runs in the process forked for it"
    result = _check_unit(_FORKED, unit, settings, encode)
    if encode is not None:
        return result
    return orjson.dumps(
        {
            "chunks": result.chunks,
            "errors": result.errors,
            "skipped": result.skipped,
            "whole": result.whole,
            "cross": result.cross,
            "hostile": result.hostile,
            "workloads": result.workloads,
        }
    )


def _check_unit(
    state: _State, unit: _Unit, settings: Settings, encode: Encoder | None = None
) -> SliceResult:
    result = _check_slice(state, unit, settings)
    if not result.cross:
        entries = result.chunks[0] if result.chunks else []
        result.chunks = [encode(entries) if encode else entries]
    return result


def _check_slice(state: _State, unit: _Unit, settings: Settings) -> SliceResult:
    """The slice's (or file's) result, its entries as its one chunk."""
    _max_bytes, kubernetes_version, namespace, max_workloads = settings
    version = cluster_version(kubernetes_version)
    file = state.texts[unit.file_index][0]
    enabled = gc.isenabled()
    gc.disable()
    try:
        if unit.parts:
            return _check_part(state, unit, settings, version)
        if unit.sliced:
            split = state.splits[unit.file_index]
            try:
                items = split.read(unit.first, unit.last)
            except SplitError:
                result = _check_file(state, unit.file_index, settings, version)
                result.whole = True
                return result
            if links_across(items):
                return SliceResult(cross=True)
            return _report_items(state, file, split.document, items, unit.first, version, settings)
        return _check_file(state, unit.file_index, settings, version)
    finally:
        if enabled:
            gc.enable()


def _check_part(
    state: _State, unit: _Unit, settings: Settings, version: ClusterVersion
) -> SliceResult:
    """Part ``unit.part`` of the items of a List read whole (in this worker, once); when the
    file is not one List (or has more items than the budget), the first part is the whole
    file's check and the others add nothing."""
    _max_bytes, _version, namespace, max_workloads = settings
    documents = _read(state, unit.file_index, settings, keep=True)
    listed = None if isinstance(documents, ManifestError) else read_list(documents)
    if listed is None or (max_workloads is not None and listed.count > max_workloads):
        if unit.part:
            return SliceResult(whole=True)
        result = _check_file(state, unit.file_index, settings, version)
        result.whole = True
        return result
    n = listed.count
    first, last = unit.part * n // unit.parts, (unit.part + 1) * n // unit.parts
    items = listed.read(first, last)
    if links_across(items):
        return SliceResult(cross=True)
    file = state.texts[unit.file_index][0]
    return _report_items(state, file, listed.document, items, first, version, settings)


def _read(
    state: _State, index: int, settings: Settings, *, keep: bool = False
) -> list[Document] | ManifestError:
    """The documents of input ``index`` read whole, as check_files reads them (its workload
    budget: more documents are refused before they are parsed), or the reader's error;
    ``keep``: remembered for this worker's other parts of the file (otherwise the tree is
    freed once checked)."""
    found = state.documents.get(index)
    if found is not None:
        return found
    max_bytes, _version, _namespace, max_workloads = settings
    text = state.texts[index][1]
    try:
        if max_workloads is None:
            found = read_documents(text, max_bytes=max_bytes)
        else:
            found = read_documents(text, max_bytes=max_bytes, max_documents=max_workloads + 1)
    except ManifestError as exc:
        found = exc
    if keep:
        state.documents[index] = found
    return found


def _check_file(
    state: _State, index: int, settings: Settings, version: ClusterVersion
) -> SliceResult:
    _max_bytes, _version, namespace, max_workloads = settings
    file = state.texts[index][0]
    documents = _read(state, index, settings)
    if isinstance(documents, ManifestError):
        return SliceResult(errors=[InputError(file, None, str(documents)).as_dict()])
    if links_across([d.data for d in documents]):
        return SliceResult(cross=True)
    scan = find_workloads(documents)
    if max_workloads is not None and len(scan.workloads) > max_workloads:
        return SliceResult(workloads=len(scan.workloads))  # refused, as check_files says
    return _report(state, file, scan, version, namespace)


def links_across(values: list[Any]) -> bool:
    """Whether any object among ``values`` (the items of Lists among them included) is one
    that objects elsewhere depend on (CROSS_KINDS, the resource.k8s.io group)."""
    stack = [values]
    while stack:
        for obj in stack.pop():
            if type(obj) is not dict and not isinstance(obj, dict):
                continue
            kind = obj.get("kind")
            if type(kind) is str and kind in CROSS_KINDS:  # noqa: E721
                return True
            api_version = obj.get("apiVersion")
            if type(api_version) is str and DRA_GROUP in api_version:  # noqa: E721
                return True
            items = obj.get("items")
            if type(items) is list or isinstance(items, list):  # noqa: E721
                stack.append(items)
    return False


def _report_items(
    state: _State,
    file: str,
    document: Document,
    items: list[Any],
    first: int,
    version: ClusterVersion,
    settings: Settings,
) -> SliceResult:
    """A slice of a List's items checked (check.stamps), or refused by the budget."""
    _max_bytes, _version, namespace, max_workloads = settings
    checked = check_items(
        file,
        document,
        items,
        first,
        version,
        state.memos,
        namespace=namespace,
        max_workloads=max_workloads,
    )
    if checked.refused:
        return SliceResult(workloads=checked.workloads)  # refused, unchecked
    return _slice_result(file, checked.scan, checked.entries, checked.workloads)


def _report(
    state: _State, file: str, scan: Any, version: ClusterVersion, namespace: str | None
) -> SliceResult:
    objects = check_long_way(file, scan.workloads, version, state.memos, namespace)
    return _slice_result(file, scan, [o.as_dict() for o in objects], len(scan.workloads))


def _slice_result(
    file: str, scan: Any, entries: list[dict[str, Any]], workloads: int
) -> SliceResult:
    """The slice's entries (as its one chunk) with what reading it found."""
    errors = [InputError(file, e.document, e.message, e.hostile) for e in scan.errors]
    return SliceResult(
        chunks=[entries],
        errors=[e.as_dict() for e in errors],
        skipped=[skipped_entry(file, s) for s in scan.skipped],
        hostile=[e.as_dict() for e in errors if e.hostile],
        workloads=workloads,
    )
