"""``podspec check`` over large dumps: a slice of pods at a time, on several cores.

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
texts the splitter does not cut.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import orjson

from designer.k8s.admission import POLICY_KINDS
from designer.k8s.apiserver import ClusterVersion, cluster_version
from designer.k8s.check.admission import apply_policies
from designer.k8s.check.claims import link_claims
from designer.k8s.check.manifests import (
    CheckedObject,
    CheckResult,
    InputError,
    check_files,
    check_workloads,
)
from designer.k8s.check.operators import skipped_entry
from designer.k8s.dra import DraObjects
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    SplitError,
    SplitList,
    find_workloads,
    find_workloads_in_items,
    is_list,
    read_documents,
    split_list,
)

# The kinds a slice cannot be checked without (see the module docstring), and the group.
CROSS_KINDS = frozenset({*POLICY_KINDS, "TrainJob"})
DRA_GROUP = "resource.k8s.io"
# Pods per slice: large enough that a slice's start-up cost vanishes, small enough that a
# slice's tree stays in the processor's caches while it is checked (10,000 pods check a
# fifth faster in slices of 500 than whole).
SLICE_ITEMS = 500


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


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

    def extend(self, other: SliceResult) -> None:
        self.chunks += other.chunks
        self.errors += other.errors
        self.skipped += other.skipped


@dataclass(frozen=True)
class _Unit:
    """A file checked whole, or ``items[first:last]`` of its split dump (``last_slice``:
    the file's last)."""

    file_index: int
    first: int = 0
    last: int = 0
    sliced: bool = False
    last_slice: bool = True


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
    ) -> None:
        self.version = cluster_version(kubernetes_version)
        self.kubernetes_version = kubernetes_version
        self.inputs = inputs
        self.max_bytes = max_bytes
        self.namespace = namespace
        self.jobs = max(1, jobs)
        self.slice_items = max(1, slice_items)
        self._rest: dict[str, Any] | None = None

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
        for unit, result in self._run(self._units(), encode):
            if result.cross:
                break
            if result.whole and not part.whole:
                part = result  # the file read whole replaces its slices
            elif not part.whole:
                part.extend(result)
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
            empty = CheckResult(
                [], [], kubernetes_version=str(self.version.version), namespace=self.namespace
            ).as_dict()
            self._rest = {**empty, "skipped": skipped, "errors": errors}
            del self._rest["objects"]
            return
        del files, part
        yield from self._check_whole(encode)

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
            share_names=True,
        )
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

    def _units(self) -> list[_Unit]:
        """Every file, or every slice of a file that is a dump, in order."""
        global _SPLITS, _TEXTS
        _TEXTS = self.inputs
        _SPLITS = {}
        units: list[_Unit] = []
        for i, (_file, text) in enumerate(self.inputs):
            data = _bytes(text)
            split = split_list(data) if len(data) <= self.max_bytes else None
            if split is None or not is_list(split.document.data):
                units.append(_Unit(i))
                continue
            _SPLITS[i] = split
            n = len(split.items)
            size = slice_size(n, self.slice_items, self.jobs)
            for first in range(0, n, size):
                last = min(first + size, n)
                units.append(_Unit(i, first, last, sliced=True, last_slice=last == n))
        return units

    def _run(
        self, units: list[_Unit], encode: Encoder | None
    ) -> Iterator[tuple[_Unit, SliceResult]]:
        settings = (self.max_bytes, self.kubernetes_version, self.namespace)
        if self.jobs == 1 or len(units) == 1:
            for unit in units:
                yield unit, _check_unit(unit, settings, encode)
            return
        # fork: the workers inherit the inputs and their splits (_TEXTS, _SPLITS) without
        # copying them; each returns the JSON entries of its slice.
        # Entries travel as JSON (orjson): a tenth of pickle's cost to read back; what an
        # encoder made of them, pickled.
        context = get_context("fork")
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context) as pool:
            try:
                n = len(units)
                results = pool.map(_check_unit_remote, units, [settings] * n, [encode] * n)
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


def slice_size(items: int, most: int, jobs: int) -> int:
    """Items per slice of a dump of ``items``: at most ``most``, in as many slices as a
    multiple of ``jobs``, so every worker gets the same share and none idles at the end
    (10,000 pods in 2,000s on 2 cores: 3 slices on one, 2 on the other; in 1,667s: 3 and 3)."""
    if jobs <= 1 or items <= most:
        return most
    slices = -(-items // most)
    slices = -(-slices // jobs) * jobs
    return -(-items // slices)


def _bytes(text: str | bytes) -> bytes:
    """The input's bytes to look at (an unpaired surrogate kept, for the reader to refuse)."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    return text if isinstance(text, bytes) else bytes(text)


# The inputs and their splits, set before the workers fork (they read them from here), and
# each process's memo of reports and of their entries' shared part (pods of one template in
# several slices share them).
_TEXTS: list[tuple[str, str | bytes]] = []
_SPLITS: dict[int, SplitList] = {}
_MEMO: dict[bytes, Any] = {}
_OPERATOR_MEMO: dict[Any, Any] = {}
_TAILS: dict[Any, Any] = {}


def _check_unit_remote(
    unit: _Unit, settings: tuple[int, str | None, str | None], encode: Encoder | None
) -> bytes | SliceResult:
    result = _check_unit(unit, settings, encode)
    if encode is not None:
        return result
    return orjson.dumps(
        {
            "chunks": result.chunks,
            "errors": result.errors,
            "skipped": result.skipped,
            "whole": result.whole,
            "cross": result.cross,
        }
    )


def _check_unit(
    unit: _Unit, settings: tuple[int, str | None, str | None], encode: Encoder | None = None
) -> SliceResult:
    result = _check_slice(unit, settings)
    if not result.cross:
        entries = result.chunks[0] if result.chunks else []
        result.chunks = [encode(entries) if encode else entries]
    return result


def _check_slice(unit: _Unit, settings: tuple[int, str | None, str | None]) -> SliceResult:
    """The slice's (or file's) result, its entries as its one chunk."""
    max_bytes, kubernetes_version, namespace = settings
    version = cluster_version(kubernetes_version)
    file, text = _TEXTS[unit.file_index]
    enabled = gc.isenabled()
    gc.disable()
    try:
        if unit.sliced:
            split = _SPLITS[unit.file_index]
            try:
                items = split.read(unit.first, unit.last)
            except SplitError:
                result = _check_file(file, text, max_bytes, version, namespace)
                result.whole = True
                return result
            if links_across(items):
                return SliceResult(cross=True)
            scan = find_workloads_in_items(split.document, items, unit.first)
            return _report(file, scan, version, namespace)
        return _check_file(file, text, max_bytes, version, namespace)
    finally:
        if enabled:
            gc.enable()


def _check_file(
    file: str,
    text: str | bytes,
    max_bytes: int,
    version: ClusterVersion,
    namespace: str | None,
) -> SliceResult:
    try:
        documents = read_documents(text, max_bytes=max_bytes)
    except ManifestError as exc:
        return SliceResult(errors=[InputError(file, None, str(exc)).as_dict()])
    if links_across([d.data for d in documents]):
        return SliceResult(cross=True)
    return _report(file, find_workloads(documents), version, namespace)


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


def _report(file: str, scan: Any, version: ClusterVersion, namespace: str | None) -> SliceResult:
    objects: list[CheckedObject] = check_workloads(
        file, scan.workloads, version, _MEMO, _OPERATOR_MEMO, share_names=True, tails=_TAILS
    )
    objects, _dra = link_claims(objects, DraObjects())
    objects, _reports = apply_policies(objects, [], version=version, namespace=namespace)
    return SliceResult(
        chunks=[[o.as_dict() for o in objects]],
        errors=[InputError(file, e.document, e.message, e.hostile).as_dict() for e in scan.errors],
        skipped=[skipped_entry(file, s) for s in scan.skipped],
    )
