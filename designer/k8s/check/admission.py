"""``podspec check``'s namespace step: the LimitRanges and ResourceQuotas of the input,
applied to the workloads of their namespace, and what the chosen Kubernetes version changes.

The policy objects come from the same input as the workloads (any file, any document, the
items of a ``kubectl get limitrange,resourcequota,pods -o yaml`` List). Each is decoded and
validated as the API server would (apiserver.decode_limit_range / decode_resource_quota); an
invalid one is reported with the API server's message and not applied. A policy without a
namespace, and a workload without one, belong to ``--namespace`` (default: ``default``), as
``kubectl apply -n`` would create them.

A ResourceQuota read from the cluster carries ``status.hard``/``status.used``, which is what
admission compares with. One written by hand has no status yet; the quota controller would
set ``status.hard`` to ``spec.hard`` and ``status.used`` to what the namespace's pods use, so
that is what is assumed here, counting the Pods of the input that already run (they carry a
``status``, as ``kubectl get pods -o yaml`` prints them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from designer.k8s.admission import (
    Admission,
    NamespacePolicy,
    admit,
    pod_name,
    pods_at_once,
    usage_stats,
)
from designer.k8s.apiserver import (
    ClusterVersion,
    PolicyObject,
    ResourceQuota,
    cluster_version,
    decode_limit_range,
    decode_resource_quota,
    pod_with_defaults,
    version_notes,
)
from designer.k8s.core import Pod, Quantity
from designer.k8s.kubelet import compute_qos_class
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    ManifestError,
    Skipped,
    find_workloads,
    read_documents,
)

if TYPE_CHECKING:
    from designer.k8s.check.manifests import CheckedObject

DEFAULT_NAMESPACE = "default"
POLICY_KINDS = ("LimitRange", "ResourceQuota")
DECODERS: dict[str, Callable[..., PolicyObject]] = {
    "LimitRange": decode_limit_range,
    "ResourceQuota": decode_resource_quota,
}


@dataclass(frozen=True)
class FoundPolicy:
    """A LimitRange/ResourceQuota document of the input, before it is decoded."""

    file: str
    skipped: Skipped


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


def _live(meta: Any, obj: dict[str, Any]) -> bool:
    """A pod the cluster already runs (as kubectl get prints it), so quota counts it."""
    return isinstance(obj.get("status"), dict) or (
        isinstance(meta, dict) and any(meta.get(k) for k in ("uid", "resourceVersion"))
    )


def _pod_status(obj: Any) -> dict[str, Any]:
    status = obj.get("status") if isinstance(obj, dict) else None
    return status if isinstance(status, dict) else {}


def _with_status(
    quota: ResourceQuota,
    running: list[tuple[Pod, dict[str, Any], dict[str, Any]]],
    version: ClusterVersion,
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
    objects: list[CheckedObject],
    version: ClusterVersion,
    namespace: str | None,
) -> tuple[dict[str, NamespacePolicy], list[PolicyReport]]:
    """The accepted policy of each namespace, and a report for every policy object."""
    running_by_ns: dict[str, list[tuple[Pod, dict[str, Any], dict[str, Any]]]] | None = None

    def running(ns: str) -> list[tuple[Pod, dict[str, Any], dict[str, Any]]]:
        nonlocal running_by_ns
        if running_by_ns is None:  # only a quota without status needs them
            running_by_ns = {}
            for o in objects:
                w = o.workload
                if (
                    w.kind == "Pod"
                    and o.report.defaulted is not None
                    and _live(w.pod_metadata, w.obj)
                ):
                    pods = running_by_ns.setdefault(effective_namespace(w.namespace, namespace), [])
                    pods.append((o.report.defaulted, w.pod_metadata or {}, _pod_status(w.obj)))
        return running_by_ns.get(ns, [])

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


def apply_policies(
    objects: list[CheckedObject],
    found: list[FoundPolicy],
    *,
    version: ClusterVersion,
    namespace: str | None = None,
) -> tuple[list[CheckedObject], list[PolicyReport]]:
    """Every object with its admission (None where no policy applies) and version notes."""
    policies, reports = namespace_policies(found, objects, version, namespace)
    if not policies and version.version is None:
        return objects, reports
    notes_memo: dict[int, tuple[Any, ...]] = {}
    admission_memo: dict[tuple[Any, ...], Admission] = {}
    out = []
    for o in objects:
        report = o.report
        w = o.workload
        notes: tuple[Any, ...] = ()
        if report.pod is not None and version.version is not None:
            key = id(report)
            if key not in notes_memo:
                notes_memo[key] = tuple(
                    version_notes(report.pod, version, spec_path=w.pod_spec_path)
                )
            notes = notes_memo[key]
        admission = None
        policy = policies.get(effective_namespace(w.namespace, namespace))
        if policy is not None and report.pod is not None and report.defaulted is not None:
            replicas = pods_at_once(w.kind, w.obj)
            name = (w.pod_metadata or {}).get("name") if w.kind == "Pod" else None
            # Pods of one template share the admission; only the names in messages differ.
            memo_key = (id(report), policy.namespace, w.kind, replicas)
            admission = admission_memo.get(memo_key)
            if admission is not None:
                admission = dataclasses.replace(admission, pod_name=_namer(w, name))
            else:
                admission = admit(
                    report.pod,
                    report.defaulted,
                    policy,
                    version=version,
                    spec_path=w.pod_spec_path,
                    replicas=replicas,
                    written_qos=report.qos_class,
                    pod_name=_namer(w, name),
                )
                admission_memo[memo_key] = admission
        if admission is None and not notes:
            out.append(o)  # most objects of a cluster dump: nothing to add
        else:
            out.append(dataclasses.replace(o, admission=admission, version_notes=notes))
    return out, reports


def _namer(w: Any, name: Any) -> Callable[[int], str | None]:
    def named(ordinal: int) -> str | None:
        return pod_name(w.kind, w.obj, name if isinstance(name, str) else None, ordinal)

    return named


@dataclass(frozen=True)
class PodAdmission:
    """One pod through a pasted namespace policy (the designer's "Namespace policy" panel)."""

    admission: Admission | None  # None: no accepted policy in the pod's namespace
    policies: list[PolicyReport]
    unreadable: list[str]  # documents of the policy text that could not be read
    namespace: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "admission": self.admission.as_dict() if self.admission else None,
            "policies": [p.as_dict() for p in self.policies],
            "unreadable": self.unreadable,
            "namespace": self.namespace,
        }


def admit_pod(
    pod: Pod,
    policy_text: str | bytes,
    *,
    kubernetes_version: str | None = None,
    namespace: str | None = None,
    kind: str = "Pod",
    replicas: int = 1,
    spec_path: str = "spec",
    written_qos: str | None = None,
) -> PodAdmission:
    """``pod`` (as written, e.g. a design's pod) through the LimitRanges and ResourceQuotas of
    ``policy_text`` (YAML/JSON, Lists included: ``kubectl get limitrange,resourcequota -o
    yaml``) for one Kubernetes version. The pod is in its own namespace, else ``namespace``,
    else ``default``; ``kind``/``replicas`` say how many such pods its workload runs."""
    version = cluster_version(kubernetes_version)
    try:
        documents = read_documents(policy_text, max_bytes=MAX_INPUT_BYTES)
    except ManifestError as exc:
        return PodAdmission(
            None, [], [str(exc)], effective_namespace(pod.metadata.namespace, namespace)
        )
    scan = find_workloads(documents)
    found = [FoundPolicy("policy", s) for s in scan.skipped if is_policy(s)]
    ns = effective_namespace(pod.metadata.namespace, namespace)
    policies, reports = namespace_policies(found, [], version, namespace)
    policy = policies.get(ns)
    admission = None
    if policy is not None:
        defaulted = pod_with_defaults(pod, version=version)
        name = pod.metadata.name if kind == "Pod" else None
        admission = admit(
            pod,
            defaulted,
            policy,
            version=version,
            spec_path=spec_path,
            replicas=replicas,
            written_qos=written_qos,
            pod_name=lambda _ordinal: name,
        )
    return PodAdmission(admission, reports, [e.message for e in scan.errors], ns)
