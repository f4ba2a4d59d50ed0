"""LimitRanger against Kubernetes' own table: plugin/pkg/admission/limitranger/admission_test.go
(every case transcribed in data/limitranger_cases.json, Go helpers expanded).

Upstream ``TestPodLimitFunc`` only asserts err == nil / err != nil; the messages per case
(``derivedErrors``) were derived from admission.go's format strings by an independent port
and are checked too, as sets (Go's map iteration makes their order random). The
``realApiserver`` variants run the same case the way a kube-apiserver would: the LimitRange
stored with SetDefaults_LimitRangeItem, the pod defaulted (requests <- limits) first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from designer.k8s.admission import (
    ANNOTATION,
    NamespacePolicy,
    admit,
    default_requirements,
    limit_ranger_handles,
    mutate,
    validate,
)
from designer.k8s.apiserver import (
    LATEST,
    LimitRange,
    LimitRangeItem,
    aggregate,
    decode_limit_range,
    forbidden_message,
    pod_with_defaults,
)
from designer.k8s.core import Pod, Quantity

DATA = json.loads((Path(__file__).parent / "data" / "limitranger_cases.json").read_text())
CASES: list[dict[str, Any]] = DATA["cases"]
LISTS = {
    "max": "max",
    "min": "min",
    "default": "default",
    "defaultRequest": "default_request",
    "maxLimitRequestRatio": "max_limit_request_ratio",
}


def limit_range(spec: dict[str, Any], name: str = "abc") -> LimitRange:
    """The LimitRange exactly as the Go test builds it: no defaulting."""
    items = []
    for item in spec["limits"]:
        lists = {
            attr: {k: Quantity.parse(v) for k, v in (item.get(key) or {}).items()}
            for key, attr in LISTS.items()
        }
        items.append(LimitRangeItem(item["type"], **lists))
    return LimitRange(name, "test", tuple(items))


def pod(spec: dict[str, Any], name: str = "pod") -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "test"}, "spec": spec})


def case_id(case: dict[str, Any]) -> str:
    return f"{case['test']}:{case['name']}"


def by_test(name: str) -> list[dict[str, Any]]:
    return [c for c in CASES if c["test"] == name]


def resources(p: Pod) -> dict[str, Any]:
    """The containers' resources as JSON, canonical quantities, for comparisons."""
    out = {}
    for rel, c in p.spec.all_containers():
        out[rel] = {
            kind: {
                n: Quantity.from_json(v).canonical() for n, v in (getattr(c, kind) or {}).items()
            }
            for kind in ("requests", "limits")
        }
    return out


def expected_resources(spec: dict[str, Any]) -> dict[str, Any]:
    return resources(pod(spec))


def test_the_transcription_holds_every_case_of_the_go_file() -> None:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["test"]] = counts.get(c["test"], 0) + 1
    assert counts["TestPodLimitFunc"] == 79  # 37 success + 42 error cases, sidecar included
    assert len(CASES) == 91


# --- TestPodLimitFunc -------------------------------------------------------------------------


@pytest.mark.parametrize("case", by_test("TestPodLimitFunc"), ids=case_id)
def test_pod_limit_func_gives_the_upstream_verdict_and_messages(case: dict[str, Any]) -> None:
    lr = limit_range(case["limitRange"])
    mutated = mutate(pod(case["pod"], case["name"]), [lr]).pod
    errors = validate(mutated, lr, LATEST)
    assert ("deny" if errors else "allow") == case["expect"]
    assert sorted(set(errors)) == case.get("derivedErrors", [])
    if len(set(errors)) == 1:
        message = forbidden_message("pods", case["name"], aggregate(errors) or "")
        assert message == case["derivedMessage"]


REAL = [c for c in by_test("TestPodLimitFunc") if "realApiserver" in c]


@pytest.mark.parametrize("case", REAL, ids=case_id)
def test_a_real_api_server_stores_the_limit_range_defaulted_and_defaults_the_pod_first(
    case: dict[str, Any],
) -> None:
    real = case["realApiserver"]
    decoded = decode_limit_range(
        {"metadata": {"name": "abc", "namespace": "test"}, "spec": case["limitRange"]},
        namespace="test",
    )
    assert decoded.ok, decoded.errors
    stored = decoded.limit_range
    assert stored is not None
    assert stored == limit_range(real["limitRangeAsStored"])
    defaulted = pod_with_defaults(pod(case["pod"], case["name"]))
    mutated = mutate(defaulted, [stored]).pod
    errors = validate(mutated, stored, LATEST)
    assert ("deny" if errors else "allow") == real["expect"]
    assert sorted(set(errors)) == real["derivedErrors"]
    assert resources(mutated) == expected_resources(real["podAfterAdmission"])


# --- defaults, merge and the annotation -------------------------------------------------------


def test_default_container_resource_requirements_come_from_container_items_only() -> None:
    (case,) = by_test("TestDefaultContainerResourceRequirements")
    requests, limits = default_requirements(limit_range(case["limitRange"]))
    want = case["expectDefaultRequirements"]
    assert {k: v.canonical() for k, v in requests.items()} == want["requests"]
    assert {k: v.canonical() for k, v in limits.items()} == want["limits"]


@pytest.mark.parametrize("case", by_test("TestMergePodResourceRequirements"), ids=case_id)
def test_merge_fills_only_missing_names_and_writes_the_annotation(case: dict[str, Any]) -> None:
    result = mutate(pod(case["pod"]), [limit_range(case["limitRange"])])
    assert resources(result.pod) == expected_resources(case["defaulted"])
    # The Go test's shorter string is an artefact of shared maps (see the case's note); a
    # decoded request has none, so the API server writes the derived one.
    annotation = case.get("annotationRealApiserver", case.get("annotation"))
    assert result.annotation == annotation
    annotations = result.pod.metadata.annotations or {}
    assert annotations.get(ANNOTATION) == annotation


def test_pod_limit_func_apply_default_sets_the_documented_quantities() -> None:
    (case,) = by_test("TestPodLimitFuncApplyDefault")
    result = mutate(pod(case["pod"]), [limit_range(case["limitRange"])])
    want = case["expectEachContainerAndInitContainer"]
    for _, c in result.pod.spec.all_containers():
        assert {k: Quantity.from_json(v).canonical() for k, v in c.requests.items()} == want[
            "requests"
        ]
        assert {k: Quantity.from_json(v).canonical() for k, v in c.limits.items()} == want["limits"]
    assert result.annotation == case["annotation"]


# --- the handler ------------------------------------------------------------------------------


HANDLER = [c for c in CASES if c["test"].startswith("TestLimitRanger")]
OPERATIONS = {
    "create without resources vs validLimitRangeNoDefaults": ("CREATE", "", False),
    "UPDATE of a pod is ignored": ("UPDATE", "", False),
    "status subresource is ignored": ("UPDATE", "status", False),
    "terminatingPod (oldObject has deletionTimestamp)": ("UPDATE", "", True),
}


@pytest.mark.parametrize("case", HANDLER, ids=case_id)
def test_the_handler_admits_creates_and_ignores_updates_subresources_and_deletions(
    case: dict[str, Any],
) -> None:
    if case["test"] == "TestLimitRanger_GetLimitRangesFixed22422":
        # The informer/live-lookup cache (singleflight, 30 s TTL): not a pod-resource rule.
        assert case["expect"] == "n/a"
        return
    lr = limit_range(case["limitRange"])
    if case["test"] == "TestLimitRangerIgnoresSubresource":
        checks = [("CREATE", "", False, "deny"), ("UPDATE", "", False, "allow")]
        checks.append(("UPDATE", "status", False, "allow"))
    else:
        op, sub, deleting = OPERATIONS[case["name"]]
        checks = [(op, sub, deleting, case["expect"])]
    for op, sub, deleting, expect in checks:
        p = pod(case["pod"], "testPod")
        handled = limit_ranger_handles("Pod", op, sub, old_deleting=deleting)
        errors = validate(mutate(p, [lr]).pod, lr, LATEST) if handled else []
        assert ("deny" if errors else "allow") == expect


def test_the_pvc_table_is_out_of_scope_and_says_so() -> None:
    (case,) = by_test("TestPersistentVolumeClaimLimitFunc")
    assert case["expect"] == "n/a"
    # PersistentVolumeClaim items never apply to pods.
    lr = limit_range({"limits": [{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}}]})
    assert validate(pod({"containers": [{"name": "a", "image": "x"}]}), lr, LATEST) == []


# --- beyond the Go table: pod-level, ordering, several LimitRanges ----------------------------


def test_pod_items_use_pod_level_cpu_memory_when_the_release_has_pod_level_resources() -> None:
    lr = limit_range({"limits": [{"type": "Pod", "max": {"cpu": "2", "memory": "1Gi"}}]})
    spec = {
        "resources": {"limits": {"cpu": "3", "memory": "512Mi"}},
        "containers": [
            {"name": "a", "image": "x", "resources": {"limits": {"cpu": "1", "memory": "256Mi"}}}
        ],
    }
    errors = validate(pod(spec), lr, LATEST)
    assert errors == ["maximum cpu usage per Pod is 2, but limit is 3"]


def test_container_defaults_are_injected_even_with_pod_level_resources_only() -> None:
    """KEP-2837 §Admission Controller: Container defaults still apply."""
    lr = limit_range({"limits": [{"type": "Container", "default": {"cpu": "500m"}}]})
    spec = {"resources": {"limits": {"cpu": "2"}}, "containers": [{"name": "a", "image": "x"}]}
    result = mutate(pod(spec), [lr])
    assert result.pod.spec.containers[0].limits == {"cpu": "500m"}


def test_a_later_limit_range_fills_only_what_is_still_missing_and_rewrites_the_annotation() -> None:
    first = limit_range({"limits": [{"type": "Container", "default": {"cpu": "1"}}]}, "first")
    second = limit_range(
        {"limits": [{"type": "Container", "default": {"cpu": "2", "memory": "1Gi"}}]}, "second"
    )
    result = mutate(pod({"containers": [{"name": "a", "image": "x"}]}), [first, second])
    assert result.pod.spec.containers[0].limits == {"cpu": "1", "memory": "1Gi"}
    assert result.annotation == "LimitRanger plugin set: memory limit for container a"
    assert [(d.field, d.source) for d in result.defaulted] == [
        ("containers[0].resources.limits[cpu]", "LimitRange/first"),
        ("containers[0].resources.limits[memory]", "LimitRange/second"),
    ]


def test_init_containers_sidecars_included_get_defaults_ephemeral_containers_never() -> None:
    lr = limit_range({"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]})
    spec = {
        "containers": [{"name": "app", "image": "x"}],
        "initContainers": [
            {"name": "init", "image": "x"},
            {"name": "proxy", "image": "x", "restartPolicy": "Always"},
        ],
        "ephemeralContainers": [{"name": "debug", "image": "x"}],
    }
    result = mutate(pod(spec), [lr])
    assert result.annotation == (
        "LimitRanger plugin set: cpu request for container app; "
        "cpu request for init container init; cpu request for init container proxy"
    )
    assert result.pod.spec.model_extra["ephemeralContainers"] == [{"name": "debug", "image": "x"}]


def test_several_errors_of_one_limit_range_are_joined_as_the_api_server_prints_them() -> None:
    lr = limit_range(
        {"limits": [{"type": "Container", "min": {"cpu": "100m"}, "max": {"memory": "1Gi"}}]}
    )
    spec = {"containers": [{"name": "a", "image": "x", "resources": {"requests": {"cpu": "50m"}}}]}
    policy = NamespacePolicy("test", (lr,))
    p = pod(spec, "web")
    result = admit(p, pod_with_defaults(p), policy, version=LATEST, pod_name=lambda i: "web")
    (text,) = result.api_server_messages()
    assert text == (
        'pods "web" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, '
        "maximum memory usage per Container is 1Gi.  No limit is specified]"
    )
