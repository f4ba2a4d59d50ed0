"""How many pods of its template a workload runs at once, from its own fields: the
multiplicity quota admission sees (each pod is admitted on its own, one after another).

One record per kind, with the controller behaviour it follows. Kinds not listed (or a
DaemonSet, whose count is the number of matching nodes) count as one pod.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _int_at(obj: Any, path: tuple[str, ...]) -> int | None:
    node = obj
    for part in path:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    if isinstance(node, int) and not isinstance(node, bool) and node >= 0:
        return node
    return None


def _replicas(spec_path: tuple[str, ...]) -> Any:
    # A nil .spec.replicas defaults to 1 (apps/v1 defaults.go SetDefaults_Deployment, ...).
    def count(obj: Any) -> int:
        n = _int_at(obj, (*spec_path, "replicas"))
        return 1 if n is None else n

    return count


def _job(spec_path: tuple[str, ...]) -> Any:
    # A Job runs min(parallelism, completions) pods at once; parallelism defaults to 1
    # (batch/v1 SetDefaults_Job); without completions, parallelism pods run.
    def count(obj: Any) -> int:
        parallelism = _int_at(obj, (*spec_path, "parallelism"))
        parallelism = 1 if parallelism is None else parallelism
        completions = _int_at(obj, (*spec_path, "completions"))
        return parallelism if completions is None else min(parallelism, completions)

    return count


@dataclass(frozen=True)
class Multiplicity:
    kind: str
    field: str  # where the count comes from
    count: Any  # (workload object) -> int


MULTIPLICITY: dict[str, Multiplicity] = {
    m.kind: m
    for m in (
        Multiplicity("Deployment", "spec.replicas", _replicas(("spec",))),
        Multiplicity("ReplicaSet", "spec.replicas", _replicas(("spec",))),
        Multiplicity("StatefulSet", "spec.replicas", _replicas(("spec",))),
        Multiplicity("ReplicationController", "spec.replicas", _replicas(("spec",))),
        Multiplicity("Job", "spec.parallelism", _job(("spec",))),
        Multiplicity(
            "CronJob", "spec.jobTemplate.spec.parallelism", _job(("spec", "jobTemplate", "spec"))
        ),
    )
}


def pods_at_once(kind: str, obj: Any) -> int:
    """The number of pods ``obj`` (a workload of ``kind``) runs at once; 1 when unknown."""
    m = MULTIPLICITY.get(kind)
    return m.count(obj) if m is not None else 1


def pod_name(kind: str, obj: Any, pod_name: str | None, ordinal: int = 0) -> str | None:
    """The name the API server prints for the workload's pod number ``ordinal`` (0-based),
    when it is known: a Pod's own name, a StatefulSet's ``<name>-<ordinal>``. Controllers
    (and generateName) give other pods random names: None."""
    if kind == "Pod":
        return pod_name or None
    if kind == "StatefulSet":
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        if isinstance(name, str) and name:
            return f"{name}-{ordinal}"
    return None
