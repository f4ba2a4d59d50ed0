"""A cluster dump's Pods checked by their memo key alone, once a Pod with that key was
checked the long way.

In a ``kubectl get pods -A`` dump most items are ``v1`` Pods whose report another Pod of
their ReplicaSet already has (check.memo: the same key, the same report). The long way
still makes each one a Workload, groups it, asks the operator rules, links its claims,
applies the namespace's policies and builds a CheckedObject, for an entry that differs from
the other Pod's only in its header (file ... namespace) and its containers' names: 6.7 of
the 24 µs a pod of a 10,000-pod JSON dump took (its parse, the key and the entry's JSON
are the rest), spent on what the key already decided.

So a Pod item whose key was learned is stamped: its entry is its header and the learned
shared part (CheckedObject.shared_tail, with its own container names). A key is learned
from a Pod checked the long way whose entry was that shared part, in the same check (the
same version, no policies: a slice of a dump holds none, see check.stream), so a stamped
entry is the one the long way would give: the report, the operator's (a Pod no operator
owns: read from the pod alone), the claim links (none: the key is never made for a pod with
claims, and a slice has no DRA objects) and the version notes are the key's. Everything
else (other kinds, a Pod not keyed, a key not learned yet) goes the long way, in order.
The differential tests (tests/k8s/check/test_check_stamps.py, test_check_stream.py) compare with
check_files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from designer.k8s.apiserver import ClusterVersion
from designer.k8s.check.admission import apply_policies
from designer.k8s.check.claims import link_claims
from designer.k8s.check.manifests import (
    MEMO_LIMIT,
    CheckedObject,
    SharedTail,
    check_workloads,
    shared_tail_for,
)
from designer.k8s.check.memo import canonical_parts
from designer.k8s.dra import DraObjects
from designer.k8s.manifest import Document, WorkloadScan, find_workloads_of_items, kind_record

POD_RECORD = kind_record("v1", "Pod")
assert POD_RECORD is not None


@dataclass
class CheckedItems:
    """Some items of a List checked: their entries in order, what reading the items that
    went the long way found (errors, objects without a pod template) and the number of
    workloads; ``refused``: more workloads than the budget, nothing checked."""

    entries: list[dict[str, Any]]
    scan: WorkloadScan
    workloads: int
    refused: bool = False


@dataclass
class Memos:
    """What one check remembers across its slices: reports by key, the operator's, the
    entries' shared parts, and the stamps (key -> shared part)."""

    memo: dict[bytes, Any]
    operator_memo: dict[Any, Any]
    tails: dict[Any, Any]
    stamps: dict[bytes, SharedTail]


def check_items(
    file: str,
    doc: Document,
    items: list[Any],
    first: int,
    version: ClusterVersion,
    memos: Memos,
    *,
    namespace: str | None = None,
    max_workloads: int | None = None,
) -> CheckedItems:
    """``items`` (the List ``doc``'s items from ``first`` on, holding no object others
    depend on: check.stream.links_across) checked as check_files checks them.

    Of the Pods whose key is not learned yet, the first of each key goes the long way with
    the other items; the rest are stamped after it (or go the long way next, when its entry
    turned out to be its own)."""
    stamps = memos.stamps
    entries: list[dict[str, Any] | None] = []
    missed: list[tuple[int, Any]] = []
    missed_keys: list[bytes | None] = []
    deferred: list[tuple[int, Any, bytes, dict[str, str]]] = []  # (position, item, key, names)
    pending: set[bytes] = set()
    header = {"file": file, "document": doc.index}
    tails = memos.tails
    for i, item in enumerate(items, first):
        found = _keyed(item)
        if found is not None:
            key, names = found
            shared = stamps.get(key)
            if shared is not None:
                entries.append(_entry(header, i, item, shared_tail_for(shared, names, tails)))
                continue
            if key in pending:
                deferred.append((len(entries), item, key, names))
                entries.append(None)
                continue
            pending.add(key)
        entries.append(None)
        missed.append((i, item))
        missed_keys.append(found[0] if found is not None else None)
    scan, counts = find_workloads_of_items(doc, missed)
    workloads = len(items) - len(missed) + len(scan.workloads)
    if max_workloads is not None and workloads > max_workloads:
        return CheckedItems([], scan, workloads, refused=True)
    long_way = check_long_way(file, scan.workloads, version, memos, namespace)
    if len(stamps) > MEMO_LIMIT:
        stamps.clear()
    # The long way's entries, each item's in its place; the keys their entries teach.
    out: list[Any] = entries
    at = 0
    missed_at = 0
    for position, entry in enumerate(entries):
        if (
            entry is not None
            or missed_at == len(missed)
            or missed[missed_at][0] != first + position
        ):
            continue
        count = counts[missed_at]
        key = missed_keys[missed_at]
        missed_at += 1
        if count == 1 and key is not None:
            shared = long_way[at].shared_tail()
            if shared is not None:
                stamps[key] = shared
        out[position] = [o.as_dict() for o in long_way[at : at + count]]
        at += count
    # The Pods that waited for their key: stamped now, or the long way after all (Pods with
    # a spec: nothing to report but their entries, in their places).
    again: list[tuple[int, Any]] = []
    for position, item, key, names in deferred:
        shared = stamps.get(key)
        if shared is not None:
            out[position] = _entry(
                header, first + position, item, shared_tail_for(shared, names, tails)
            )
        else:
            again.append((position, item))
    if again:
        scan_again, _counts = find_workloads_of_items(doc, [(first + p, item) for p, item in again])
        checked = check_long_way(file, scan_again.workloads, version, memos, namespace)
        for (position, _item), o in zip(again, checked, strict=True):
            out[position] = o.as_dict()
    flat: list[dict[str, Any]] = []
    for entry in out:
        if type(entry) is list:  # noqa: E721
            flat += entry
        else:
            flat.append(entry)
    return CheckedItems(flat, scan, workloads)


def _keyed(item: Any) -> tuple[bytes, dict[str, str]] | None:
    """The memo key and container names of a ``v1`` Pod (check.memo.canonical), else None."""
    if type(item) is not dict or item.get("kind") != "Pod":  # noqa: E721
        return None
    api_version = item.get("apiVersion")
    meta = item.get("metadata")
    spec = item.get("spec")
    if (
        (api_version == "v1" or kind_record(api_version, "Pod") is POD_RECORD)
        and type(meta) is dict  # noqa: E721
        and type(spec) is dict  # noqa: E721
    ):
        return canonical_parts("Pod", "spec", "metadata", meta, spec)
    return None


def _entry(
    header: dict[str, Any], index: int, item: dict[str, Any], tail: dict[str, Any]
) -> dict[str, Any]:
    """A stamped Pod's entry: CheckedObject._header (as the finder reads a Pod), then the
    shared part."""
    meta = item["metadata"]
    name = meta.get("name")
    namespace = meta.get("namespace")
    entry = {
        **header,
        "path": f"items[{index}]",
        "kind": "Pod",
        "name": name if type(name) is str else None,  # noqa: E721
        "namespace": namespace if type(namespace) is str else None,  # noqa: E721
    }
    entry.update(tail)
    return entry


def check_long_way(
    file: str,
    workloads: list[Any],
    version: ClusterVersion,
    memos: Memos,
    namespace: str | None,
) -> list[CheckedObject]:
    """check_files' check of some workloads of a slice of a dump (no policies, no DRA
    objects: check.stream.links_across sends a dump that holds them whole)."""
    if not workloads:
        return []
    objects: list[CheckedObject] = check_workloads(
        file,
        workloads,
        version,
        memos.memo,
        memos.operator_memo,
        share_names=True,
        tails=memos.tails,
    )
    objects, _dra = link_claims(objects, DraObjects())
    objects, _reports = apply_policies(objects, [], version=version, namespace=namespace)
    return objects
