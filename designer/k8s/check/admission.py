"""``podspec check``'s namespace step: the LimitRanges and ResourceQuotas of the input,
applied to the workloads of their namespace, and what the chosen Kubernetes version changes.

The policy objects come from the same input as the workloads (any file, any document, the
items of a ``kubectl get limitrange,resourcequota,pods -o yaml`` List); admission.policies
decodes and validates them and groups them by namespace. A policy without a namespace, and a
workload without one, belong to ``--namespace`` (default: ``default``), as ``kubectl apply
-n`` would create them. A quota without status counts the input's running Pods.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from designer.k8s.admission import (
    Admission,
    FoundPolicy,
    NamespacePolicy,
    PolicyReport,
    RunningPod,
    admit,
    effective_namespace,
    is_live,
    pod_name,
    pod_status,
    pods_at_once,
)
from designer.k8s.admission import (
    namespace_policies as read_namespace_policies,
)
from designer.k8s.apiserver import ClusterVersion, version_notes

if TYPE_CHECKING:
    from designer.k8s.check.manifests import CheckedObject


def namespace_policies(
    found: list[FoundPolicy],
    objects: list[CheckedObject],
    version: ClusterVersion,
    namespace: str | None,
) -> tuple[dict[str, NamespacePolicy], list[PolicyReport]]:
    """The accepted policy of each namespace, and a report for every policy object; a quota
    without status counts the running Pods among ``objects``."""
    running_by_ns: dict[str, list[RunningPod]] | None = None

    def running(ns: str) -> list[RunningPod]:
        nonlocal running_by_ns
        if running_by_ns is None:  # only a quota without status needs them
            running_by_ns = {}
            for o in objects:
                w = o.workload
                if (
                    w.kind == "Pod"
                    and o.report.defaulted is not None
                    and is_live(w.pod_metadata, w.obj)
                ):
                    pods = running_by_ns.setdefault(effective_namespace(w.namespace, namespace), [])
                    pods.append((o.report.defaulted, w.pod_metadata or {}, pod_status(w.obj)))
        return running_by_ns.get(ns, [])

    return read_namespace_policies(found, running, version, namespace)


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
