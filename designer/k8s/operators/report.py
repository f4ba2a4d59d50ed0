"""One call for the operators' view of an object's pod templates."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from designer.k8s.manifest import Workload
from designer.k8s.operators.annotations import kueue, pod_gpu_reality
from designer.k8s.operators.findings import Finding, OperatorReport
from designer.k8s.operators.rules import crd_quantities, rules_for


def operator_reports(
    workloads: Sequence[Workload],
    keys: Sequence[Hashable | None] | None = None,
    cache: dict[Hashable, OperatorReport] | None = None,
) -> list[OperatorReport]:
    """What the operator of one object (its pod templates, in order) says about each
    template: its webhook's and controller's errors, warnings and notes. Rules about the
    whole object are reported on its first template.

    ``keys[i]`` identifies what ``workloads[i]``'s pod-only findings depend on (the pod
    template and its paths; None: not cached): identical templates share them in ``cache``,
    as the pods of one ReplicaSet in a cluster dump do."""
    out = []
    for n, w in enumerate(workloads):
        key = keys[n] if keys is not None else None
        rules = rules_for(w)
        # A Pod no operator owns (a cluster dump's): everything below reads only the pod,
        # which its key stands for.
        whole = (key, n == 0) if rules is None and w.kind == "Pod" and key is not None else None
        if whole is not None and cache is not None and whole in cache:
            out.append(cache[whole])
            continue
        report = OperatorReport()
        if rules is not None:
            for rule in rules.template_rules:
                _sort(report, rule(w))
            if n == 0:
                for object_rule in rules.object_rules:
                    _sort(report, object_rule(workloads))
            for note in rules.notes:
                report.notes += note(w)
        report.errors += crd_quantities(w)
        pod_part = cache.get(key) if cache is not None and key is not None else None
        if pod_part is None:
            pod_part = pod_gpu_reality(w)
            if cache is not None and key is not None:
                cache[key] = pod_part
        report.extend(pod_part)
        report.extend(kueue(w, n == 0))
        # Most templates (a cluster dump's pods) have nothing to say: share one empty report.
        report = report if report.errors or report.warnings or report.notes else EMPTY
        if whole is not None and cache is not None:
            cache[whole] = report
        out.append(report)
    return out


EMPTY = OperatorReport((), (), ())  # type: ignore[arg-type]


def _sort(report: OperatorReport, findings: list[Finding]) -> None:
    for f in findings:
        (report.warnings if f.severity == "warning" else report.errors).append(f)
