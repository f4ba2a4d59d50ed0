"""A namespace's policy objects, read: LimitRanges and ResourceQuotas decoded and validated
as the API server would (apiserver.decode_limit_range / decode_resource_quota), grouped by
namespace. ``podspec check`` finds them among its workloads (check.admission); the designer's
"Namespace policy" panel reads them from a pasted text (``read_policy_text``), such as the
output of ``kubectl get limitrange,resourcequota -n team -o yaml``.

An invalid object is reported with the API server's message and not applied. A policy without
a namespace belongs to the namespace the caller names (``kubectl apply -n``), else
``default``.

A ResourceQuota read from the cluster carries ``status.hard``/``status.used``, which is what
admission compares with. One written by hand has no status yet; the quota controller would
set ``status.hard`` to ``spec.hard`` and ``status.used`` to what the namespace's pods use
(pkg/controller/resourcequota), so that is what is assumed, counting the running Pods of the
input (those with a ``status`` or a ``uid``, as ``kubectl get pods -o yaml`` prints them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.admission.admit import NamespacePolicy
from designer.k8s.admission.quota import usage_stats
from designer.k8s.apiserver import (
    ClusterVersion,
    PolicyObject,
    ResourceQuota,
    decode_limit_range,
    decode_resource_quota,
    pod_from_parts,
    pod_with_defaults,
)
from designer.k8s.core import Message, Pod, Quantity, gettext_noop
from designer.k8s.kubelet import compute_qos_class
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    Skipped,
    find_workloads,
    read_documents,
)

DEFAULT_NAMESPACE = "default"
POLICY_KINDS = ("LimitRange", "ResourceQuota")
DECODERS: dict[str, Callable[..., PolicyObject]] = {
    "LimitRange": decode_limit_range,
    "ResourceQuota": decode_resource_quota,
}

# A running pod as quota usage reads it: (the pod as stored, its metadata, its status).
RunningPod = tuple[Pod, Mapping[str, Any], Mapping[str, Any]]

M_NOT_A_POLICY = gettext_noop(
    "Document %(document)s%(path)s: %(kind)s%(name)s is not read here (only LimitRanges, "
    "ResourceQuotas and, for a quota without status, running Pods are)."
)
M_POD_NOT_RUNNING = gettext_noop(
    "Document %(document)s%(path)s: Pod%(name)s is not running (it has no status), so it "
    "does not count in any quota's usage."
)
M_POD_UNDECODABLE = gettext_noop(
    "Document %(document)s%(path)s: Pod%(name)s cannot be decoded, so it does not count in "
    "any quota's usage: %(error)s"
)


@dataclass(frozen=True)
class FoundPolicy:
    """A LimitRange/ResourceQuota document of the input, before it is decoded."""

    file: str
    skipped: Skipped

    @property
    def namespace(self) -> str | None:
        """The namespace its metadata names, if any."""
        meta = self.skipped.obj.get("metadata") if isinstance(self.skipped.obj, dict) else None
        ns = meta.get("namespace") if isinstance(meta, dict) else None
        return ns if isinstance(ns, str) and ns else None


@dataclass(frozen=True)
class PolicyReport:
    file: str
    document: int
    path: str
    policy: PolicyObject
    used_from: str | None = None  # quotas: "status", or "input" when status was computed

    def as_dict(self) -> dict[str, Any]:
        p = self.policy
        out: dict[str, Any] = {
            "file": self.file,
            "document": self.document,
            "path": self.path,
            "kind": p.kind,
            "name": p.name or None,
            "namespace": p.namespace,
            "applied": p.ok,
            "errors": [e.as_dict() for e in p.errors],
            "message": p.message,
        }
        if p.kind == "ResourceQuota":
            out["usedFrom"] = self.used_from
        return out


def is_policy(skipped: Skipped) -> bool:
    return skipped.kind in POLICY_KINDS and isinstance(skipped.obj, dict)


def effective_namespace(namespace: str | None, flag: str | None) -> str:
    return namespace or flag or DEFAULT_NAMESPACE


def is_live(meta: Any, obj: dict[str, Any]) -> bool:
    """A pod the cluster already runs (as kubectl get prints it), so quota counts it."""
    return isinstance(obj.get("status"), dict) or (
        isinstance(meta, dict) and any(meta.get(k) for k in ("uid", "resourceVersion"))
    )


def pod_status(obj: Any) -> dict[str, Any]:
    status = obj.get("status") if isinstance(obj, dict) else None
    return status if isinstance(status, dict) else {}


def _with_status(
    quota: ResourceQuota, running: list[RunningPod], version: ClusterVersion
) -> ResourceQuota:
    """A hand-written quota as the quota controller would first write its status."""

    def qos_of(p: Pod) -> str | None:
        return compute_qos_class(p, require_pod_level_values=version.qos_requires_pod_level_values)

    used = usage_stats(running, quota, version, qos_of)
    zero = Quantity.parse("0")
    return dataclasses.replace(
        quota,
        status_hard=dict(quota.hard),
        status_used={k: used.get(k, zero) for k in quota.hard},
    )


def namespace_policies(
    found: list[FoundPolicy],
    running: Callable[[str], list[RunningPod]],
    version: ClusterVersion,
    namespace: str | None,
) -> tuple[dict[str, NamespacePolicy], list[PolicyReport]]:
    """The accepted policy of each namespace, and a report for every policy object.
    ``running(ns)`` gives the running pods of a namespace (only a quota without status asks);
    ``namespace`` is the namespace of policies that name none."""
    reports: list[PolicyReport] = []
    limit_ranges: dict[str, list[Any]] = {}
    quotas: dict[str, list[ResourceQuota]] = {}
    for f in found:
        s = f.skipped
        decoded = DECODERS[s.kind](s.obj, namespace=effective_namespace(None, namespace))
        used_from = None
        if decoded.ok and decoded.limit_range is not None:
            limit_ranges.setdefault(decoded.namespace, []).append(decoded.limit_range)
        elif decoded.ok and decoded.quota is not None:
            quota = decoded.quota
            used_from = "status"
            if quota.status_hard is None:
                quota = _with_status(quota, running(decoded.namespace), version)
                used_from = "input"
            quotas.setdefault(decoded.namespace, []).append(quota)
        reports.append(PolicyReport(f.file, s.document, s.path, decoded, used_from))
    spaces = set(limit_ranges) | set(quotas)
    policies = {
        ns: NamespacePolicy(ns, tuple(limit_ranges.get(ns, ())), tuple(quotas.get(ns, ())))
        for ns in spaces
    }
    return policies, reports


# --- a pasted policy text (the designer's panel) ------------------------------------------


@dataclass(frozen=True)
class PolicyNote:
    """A document of the policy text that is read but not applied, or not read at all."""

    document: int
    message: Message


@dataclass(frozen=True)
class PolicyText:
    """The namespace policy objects of a pasted text, read but not yet decoded (decoding
    needs the namespace of the objects that name none: ``PolicyText.policies``)."""

    found: list[FoundPolicy] = field(default_factory=list)
    # Running Pods of the text (``kubectl get limitrange,resourcequota,pods -o yaml``):
    # (namespace or None, the pod as stored, metadata, status).
    pods: list[tuple[str | None, Pod, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    notes: list[PolicyNote] = field(default_factory=list)
    # What could not be read: (document or None for the whole text, the reader's message).
    unreadable: list[tuple[int | None, str]] = field(default_factory=list)

    @property
    def namespaces(self) -> list[str]:
        """The namespaces the policy objects name, in input order."""
        return list(dict.fromkeys(ns for f in self.found if (ns := f.namespace)))

    def policies(
        self, version: ClusterVersion, namespace: str | None
    ) -> tuple[dict[str, NamespacePolicy], list[PolicyReport]]:
        """The accepted policy of each namespace and a report per object; ``namespace`` is
        the namespace of the objects (policies and pods) that name none."""

        def running(ns: str) -> list[RunningPod]:
            return [
                (pod, meta, status)
                for pod_ns, pod, meta, status in self.pods
                if effective_namespace(pod_ns, namespace) == ns
            ]

        return namespace_policies(self.found, running, version, namespace)


def _where(document: int, path: str, name: str | None) -> dict[str, Any]:
    return {
        "document": document,
        "path": f" ({path})" if path else "",
        "name": f" {name}" if name else "",
    }


POLICY_FILE = "policy"


def read_policy_text(text: str | bytes, *, version: ClusterVersion) -> PolicyText:
    """Read the LimitRanges and ResourceQuotas of a pasted text (YAML or JSON, several
    documents, Lists such as ``kubectl get limitrange,resourcequota,pods -o yaml``). Running
    Pods are kept (decoded and defaulted for ``version``) for quotas without status; every
    other object, and every document that cannot be read, is named in ``notes`` or
    ``unreadable``."""
    try:
        documents = read_documents(text, max_bytes=MAX_INPUT_BYTES)
    except ManifestError as exc:
        return PolicyText(unreadable=[(None, str(exc))])
    scan = find_workloads(documents)
    found = [FoundPolicy(POLICY_FILE, s) for s in scan.skipped if is_policy(s)]
    notes = [
        PolicyNote(
            s.document,
            Message(M_NOT_A_POLICY, {"kind": s.kind, **_where(s.document, s.path, s.name)}),
        )
        for s in scan.skipped
        if not is_policy(s)
    ]
    pods = []
    for w in scan.workloads:
        where = _where(w.document, w.path, w.name)
        if w.kind != "Pod":
            notes.append(PolicyNote(w.document, Message(M_NOT_A_POLICY, {"kind": w.kind, **where})))
            continue
        if not is_live(w.pod_metadata, w.obj):
            notes.append(PolicyNote(w.document, Message(M_POD_NOT_RUNNING, where)))
            continue
        pod, errors = pod_from_parts(w.pod_metadata, w.pod_spec)
        if pod is None:
            error = str(errors[0]) if errors else ""
            notes.append(
                PolicyNote(w.document, Message(M_POD_UNDECODABLE, {**where, "error": error}))
            )
            continue
        defaulted = pod_with_defaults(pod, version=version)
        pods.append((w.namespace, defaulted, w.pod_metadata or {}, pod_status(w.obj)))
    notes.sort(key=lambda n: n.document)
    unreadable = [(e.document, e.message) for e in scan.errors]
    return PolicyText(found, pods, notes, unreadable)
