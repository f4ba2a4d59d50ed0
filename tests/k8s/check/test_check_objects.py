"""A workload's own errors (its kind's validation beyond the pod template: Deployment,
ReplicaSet, StatefulSet, DaemonSet, Job, CronJob):
the check reports every error the API server's validation of the whole object gives, in its
order, for any value in the fields it reads, and never raises."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.apiserver import object_errors, validate_objects
from designer.k8s.check import check_files

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 200_000)
    | st.sampled_from(["", "a", "Always", "Never", "OnFailure", "Indexed", "NonIndexed", "25%"])
    | st.sampled_from(["Recreate", "RollingUpdate", "0", "150%", "x_y", "-1", "OnDelete"])
    | st.sampled_from(["In", "Exists", "matchLabels", "matchExpressions", "*/5 * * * *"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=6,
)
MAYBE = st.one_of(st.just(None), JSON)


def _set(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj.setdefault(key, {})
    if value is not None:
        obj[path[-1]] = value


DEPLOYMENT_FIELDS = [
    ("metadata", "name"),
    ("spec", "replicas"),
    ("spec", "selector"),
    ("spec", "strategy"),
    ("spec", "template", "metadata", "labels"),
    ("spec", "template", "spec", "restartPolicy"),
    ("spec", "template", "spec", "activeDeadlineSeconds"),
]
APPS_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")
CRONJOB_FIELDS = [
    ("metadata", "name"),
    ("spec", "schedule"),
    ("spec", "timeZone"),
    ("spec", "concurrencyPolicy"),
    ("spec", "jobTemplate", "spec", "completions"),
    ("spec", "jobTemplate", "spec", "selector"),
    ("spec", "jobTemplate", "spec", "template", "spec", "restartPolicy"),
    ("spec", "successfulJobsHistoryLimit"),
]
JOB_FIELDS = [
    ("metadata", "name"),
    ("spec", "parallelism"),
    ("spec", "completions"),
    ("spec", "backoffLimit"),
    ("spec", "completionMode"),
    ("spec", "podFailurePolicy"),
    ("spec", "ttlSecondsAfterFinished"),
    ("spec", "template", "spec", "restartPolicy"),
]


def _object(kind: str, values: list[Any]) -> dict[str, Any]:
    api_version = "apps/v1" if kind in APPS_KINDS else "batch/v1"
    template = {
        "metadata": {"labels": {"app": "a"}},
        "spec": {
            "restartPolicy": "Always" if kind in APPS_KINDS else "Never",
            "containers": [{"name": "main", "image": "i"}],
        },
    }
    spec: dict[str, Any] = {"template": template}
    if kind in APPS_KINDS:
        spec["selector"] = {"matchLabels": {"app": "a"}}
    if kind == "CronJob":
        spec = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": spec}}
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "w"},
        "spec": spec,
    }
    fields = {"Job": JOB_FIELDS, "CronJob": CRONJOB_FIELDS}.get(kind, DEPLOYMENT_FIELDS)
    for path, value in zip(fields, values, strict=False):
        _set(obj, path, value)
    return obj


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from([*APPS_KINDS, "Job", "CronJob"]),
    st.lists(MAYBE, min_size=len(JOB_FIELDS), max_size=len(JOB_FIELDS)),
)
def test_the_check_reports_the_objects_own_errors_in_the_api_servers_order(
    kind: str, values: list[Any]
) -> None:
    obj = _object(kind, values)
    (entry,) = check_files([("w.json", json.dumps(obj))]).as_dict()["objects"]
    before, after = object_errors(obj)
    own = [e.as_dict() for e in before + after]
    assert all(e in entry["errors"] for e in own)
    # With a valid pod template, the check's errors are the whole object's validation.
    if not [e for e in entry["errors"] if e not in own]:
        assert entry["errors"] == [e.as_dict() for _, e in validate_objects([obj])]


def test_valid_workloads_have_no_errors_of_their_own() -> None:
    for kind in (*APPS_KINDS, "Job", "CronJob"):
        assert object_errors(_object(kind, [])) == ([], [])


def test_another_groups_kind_of_the_same_name_is_not_validated_as_the_core_one() -> None:
    obj = _object("Deployment", [None, -1])
    assert object_errors(obj)[0]
    obj["apiVersion"] = "example.com/v1"
    assert object_errors(obj) == ([], [])
