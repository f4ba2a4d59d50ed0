"""ResourceQuota against Kubernetes' own tables: pkg/quota/v1/evaluator/core/pods_test.go
(all of it) and the pod cases of plugin/pkg/admission/resourcequota/admission_test.go, as
transcribed in data/quota_cases.json. ``errorExact``/``errorContains`` are upstream's strings;
``derivedMessage`` was derived from controller.go's format strings."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from designer.k8s.admission import (
    LimitedResource,
    check_request,
    constraints,
    matching_scopes,
    pod_usage,
    quota_handles,
    usage_stats,
)
from designer.k8s.apiserver import (
    LATEST,
    ResourceQuota,
    ScopeRequirement,
    cluster_version,
    forbidden_message,
)
from designer.k8s.core import Pod, Quantity
from designer.k8s.kubelet import compute_qos_class

DATA = json.loads((Path(__file__).parent / "data" / "quota_cases.json").read_text())
CASES: list[dict[str, Any]] = DATA["cases"]
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def by_test(*names: str) -> list[dict[str, Any]]:
    return [c for c in CASES if c["test"] in names]


def case_id(case: dict[str, Any]) -> str:
    return f"{case['test']}:{case['name']}"


def pod(spec: dict[str, Any] | None, name: str = "pod") -> Pod:
    return Pod.model_validate({"metadata": {"name": name}, "spec": spec or {}})


def quantities(values: dict[str, str]) -> dict[str, Quantity]:
    return {k: Quantity.parse(v) for k, v in values.items()}


def selector(raw: dict[str, Any]) -> ScopeRequirement:
    return ScopeRequirement(raw["scopeName"], raw.get("operator", ""), tuple(raw.get("values", ())))


def quota(raw: dict[str, Any]) -> ResourceQuota:
    spec = raw.get("spec") or {}
    status = raw.get("status")
    exprs = (spec.get("scopeSelector") or {}).get("matchExpressions")
    return ResourceQuota(
        raw.get("name", ""),
        raw.get("namespace", "test"),
        quantities(spec.get("hard") or {}),
        tuple(spec.get("scopes") or ()),
        tuple(selector(e) for e in exprs) if exprs is not None else None,
        quantities(status["hard"]) if status and "hard" in status else None,
        quantities(status["used"]) if status and "used" in status else None,
    )


def metadata(raw: dict[str, Any] | None) -> dict[str, Any]:
    """'now' / 'now - 60s' deletion timestamps at a fixed now."""
    out = dict(raw or {})
    stamp = out.get("deletionTimestamp")
    if isinstance(stamp, str) and stamp.startswith("now"):
        seconds = int(stamp.split("-")[1].strip().rstrip("s")) if "-" in stamp else 0
        out["deletionTimestamp"] = (NOW - timedelta(seconds=seconds)).isoformat()
    return out


def qos(p: Pod) -> str:
    return compute_qos_class(p)


def test_the_transcription_holds_every_case_of_pods_test_go() -> None:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["test"]] = counts.get(c["test"], 0) + 1
    assert counts["TestPodConstraintsFunc"] == 6
    assert counts["TestPodEvaluatorUsage"] == 20
    assert counts["TestPodEvaluatorUsageStats"] == 6
    assert counts["TestPodEvaluatorMatchingScopes"] == 11
    assert counts["TestPodEvaluatorUsageResourceResize"] == 4
    assert counts["TestPodEvaluatorHandles"] == 10
    assert counts["TestAdmitLimitedScopeWithCoverQuota"] == 20
    assert len(CASES) == 95


# --- pods_test.go ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", by_test("TestPodConstraintsFunc"), ids=case_id)
def test_constraints_ask_every_container_for_the_tracked_cpu_and_memory(
    case: dict[str, Any],
) -> None:
    error = constraints(case["required"], pod(case["pod"]), LATEST)
    assert ("deny" if error else "allow") == case["expect"]
    assert (error or "") == case["errorExact"]


def test_pod_level_resources_only_skip_constraints_on_releases_that_honour_them() -> None:
    (case,) = [c for c in by_test("TestPodConstraintsFunc") if c.get("podLevelResourcesEnabled")]
    p = pod(case["pod"])
    assert constraints(case["required"], p, cluster_version("1.34")) is None
    assert constraints(case["required"], p, cluster_version("1.33")) == (
        "must specify cpu for: bar,foo; memory for: bar,foo"
    )


@pytest.mark.parametrize(
    "case", by_test("TestPodEvaluatorUsage", "TestPodEvaluatorUsageResourceResize"), ids=case_id
)
def test_usage_is_what_pods_go_charges(case: dict[str, Any]) -> None:
    usage = pod_usage(
        pod(case["pod"]),
        LATEST,
        metadata=metadata(case.get("metadata")),
        status=case.get("status"),
        now=NOW,
    )
    assert usage == quantities(case["usage"])


@pytest.mark.parametrize("case", by_test("TestPodEvaluatorUsageStats"), ids=case_id)
def test_usage_stats_sum_the_pods_the_quota_scopes_select(case: dict[str, Any]) -> None:
    pods = [
        (pod(p["spec"], p["metadata"]["name"]), p["metadata"], p.get("status") or {})
        for p in case["pods"]
    ]
    q = quota({"spec": case.get("quota") or {}})
    assert usage_stats(pods, q, LATEST, qos, now=NOW) == quantities(case["usedExpected"])


@pytest.mark.parametrize("case", by_test("TestPodEvaluatorMatchingScopes"), ids=case_id)
def test_matching_scopes_are_the_selectors_the_pod_satisfies(case: dict[str, Any]) -> None:
    p = pod(case["pod"])
    got = matching_scopes(p, qos(p), [selector(s) for s in case["selectors"]])
    assert got == [selector(s) for s in case["wantSelectors"]]


@pytest.mark.parametrize("case", by_test("TestPodEvaluatorHandles"), ids=case_id)
def test_the_evaluator_handles_creates_resizes_and_terminating_changes(
    case: dict[str, Any],
) -> None:
    old = pod(case["oldPodSpec"]) if case["oldPodSpec"] is not None else None
    new = pod(case["newPodSpec"]) if case["newPodSpec"] is not None else None
    assert quota_handles(case["operation"], case["subresource"], old, new) is case["handles"]


# --- admission_test.go -------------------------------------------------------------------------

ADMISSION = [c for c in CASES if c["test"].startswith(("TestAdmit", "TestAdmission"))]


def limited(config: dict[str, Any] | None) -> list[LimitedResource]:
    return [
        LimitedResource(
            lr["resource"],
            lr.get("apiGroup", ""),
            tuple(lr.get("matchContains", ())),
            tuple(selector(s) for s in lr.get("matchScopes", ())),
        )
        for lr in (config or {}).get("limitedResources", [])
    ]


@pytest.mark.parametrize("case", ADMISSION, ids=case_id)
def test_quota_admission_gives_the_upstream_verdict_and_message(case: dict[str, Any]) -> None:
    p = pod(case["pod"]["spec"], case["pod"]["name"])
    quotas = [quota(q) for q in case["quotas"] if q.get("namespace", "test") == "test"]
    if not quota_handles(case.get("operation", "CREATE"), case.get("subresource", ""), None, p):
        assert case["expect"] == "allow"
        return
    check = check_request(p, quotas, LATEST, qos(p), limited=limited(case.get("config")))
    assert ("deny" if check.denials else "allow") == case["expect"]
    if check.denials:
        (denial,) = check.denials
        text = (
            forbidden_message("pods", case["pod"]["name"], denial.message)
            if denial.forbidden
            else denial.message
        )
        if "derivedMessage" in case:
            assert text == case["derivedMessage"]
        if "errorContains" in case:
            assert case["errorContains"] in text
    if "usedAfter" in case:
        name = case.get("updatedQuota", quotas[0].name)
        assert set(check.new_used) == {name}
        assert check.new_used[name] == quantities(case["usedAfter"])
