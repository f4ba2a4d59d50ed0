"""QoS class and reasons (designer.k8s.qos), checked against Kubernetes' own test cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.core import Pod, parse_quantity
from designer.k8s.kubelet import (
    BEST_EFFORT,
    BURSTABLE,
    GUARANTEED,
    QosReason,
    compute_qos_class,
    pod_qos,
)
from tests.builders import container as ctr
from tests.builders import pod as make_pod

DATA = Path(__file__).parents[1] / "data"
K8S_CASES = json.loads((DATA / "qos_kubernetes_cases.json").read_text())["cases"]


def values(reason: QosReason) -> dict[str, str]:
    """A reason's Kubernetes values (its params but the sentence's subject)."""
    return {k: v for k, v in reason.message.params.items() if isinstance(v, str)}


def codes(reasons: list[QosReason]) -> list[str]:
    return [r.code for r in reasons]


def by_code(reasons: list[QosReason], code: str) -> list[QosReason]:
    return [r for r in reasons if r.code == code]


# --- Kubernetes' table (pkg/apis/core/v1/helper/qos/qos_test.go TestComputePodQOS) ----------


@pytest.mark.parametrize("case", K8S_CASES, ids=[c["name"] for c in K8S_CASES])
def test_kubernetes_compute_pod_qos_cases(case: dict) -> None:
    pod = Pod.model_validate(case["pod"])
    # ComputePodQOS itself, on the object exactly as the Go test builds it ...
    assert compute_qos_class(pod) == case["expected"]
    assert pod_qos(pod, apply_defaults=False).qos_class == case["expected"]
    # ... and what the API server stores after defaulting: the same for every case.
    assert pod_qos(pod).qos_class == case["expected"]


# --- Guaranteed ------------------------------------------------------------------------------


def test_limits_only_pod_is_guaranteed() -> None:
    """The API server copies each limit into the missing request before computing the class."""
    pod = make_pod([ctr("main", limits={"cpu": "1", "memory": "1Gi"})])
    result = pod_qos(pod)
    assert result.qos_class == GUARANTEED
    defaulted = by_code(result.reasons, "request_defaulted_from_limit")
    assert [r.field for r in defaulted] == [
        "spec.containers[0].resources.requests[cpu]",
        "spec.containers[0].resources.requests[memory]",
    ]
    assert values(defaulted[0]) == {"resource": "cpu", "value": "1"}
    assert by_code(result.reasons, "guaranteed")
    # ComputePodQOS on the raw object (no requests at all) would say Burstable.
    assert pod_qos(pod, apply_defaults=False).qos_class == BURSTABLE


def test_equal_requests_written_differently_are_still_guaranteed() -> None:
    pod = make_pod(
        [ctr("main", {"cpu": "0.5", "memory": "1024Mi"}, {"cpu": "500m", "memory": "1Gi"})]
    )
    assert pod_qos(pod).qos_class == GUARANTEED


def test_guaranteed_needs_init_containers_and_sidecars_too() -> None:
    g = {"cpu": "100m", "memory": "64Mi"}
    pod = make_pod(
        [ctr("app", g, g)],
        init=[ctr("migrate", g, g), ctr("proxy", g, g, restartPolicy="Always")],
    )
    result = pod_qos(pod)
    assert result.qos_class == GUARANTEED
    assert result.eviction_rank == 3
    assert "init containers and sidecars" in by_code(result.reasons, "guaranteed")[0].text


def test_pod_level_resources_alone_make_a_guaranteed_pod() -> None:
    pod = make_pod([ctr("a"), ctr("b")], resources={"limits": {"cpu": "2", "memory": "2Gi"}})
    result = pod_qos(pod)
    assert result.qos_class == GUARANTEED
    assert codes(result.reasons)[0] == "pod_level_decides"
    assert {r.field for r in by_code(result.reasons, "pod_request_defaulted")} == {
        "spec.resources.requests[cpu]",
        "spec.resources.requests[memory]",
    }


# --- Burstable: which container and field keeps the pod from Guaranteed -----------------------


def test_sidecar_without_limits_makes_pod_burstable() -> None:
    g = {"cpu": "500m", "memory": "256Mi"}
    pod = make_pod(
        [ctr("main", g, g)],
        init=[ctr("log-shipper", {"cpu": "50m", "memory": "32Mi"}, restartPolicy="Always")],
    )
    result = pod_qos(pod)
    assert result.qos_class == BURSTABLE
    assert result.eviction_rank == 2
    missing = by_code(result.reasons, "missing_limit")
    assert [(r.container, r.field) for r in missing] == [
        ("log-shipper", "spec.initContainers[0].resources.limits[cpu]"),
        ("log-shipper", "spec.initContainers[0].resources.limits[memory]"),
    ]
    assert missing[1].text == (
        'container "log-shipper" (spec.initContainers[0]) sets no memory limit.'
    )


def test_request_below_limit_is_named_with_both_values() -> None:
    pod = make_pod([ctr("main", {"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})])
    result = pod_qos(pod)
    assert result.qos_class == BURSTABLE
    (differs,) = by_code(result.reasons, "request_differs")
    assert (
        differs.text
        == 'container "main" (spec.containers[0]): cpu request 500m differs from limit 1.'
    )
    assert differs.field == "spec.containers[0].resources.requests[cpu]"
    assert values(differs) == {"resource": "cpu", "request": "500m", "limit": "1"}


def test_explicit_zero_request_is_not_replaced_by_the_limit() -> None:
    """Kubernetes' burstable-2 case: requests 0 stay 0 after defaulting, so they differ."""
    pod = make_pod([ctr("c", {"cpu": "0", "memory": "0"}, {"cpu": "100m", "memory": "200Mi"})])
    result = pod_qos(pod)
    assert result.qos_class == BURSTABLE
    assert [r.message.params["request"] for r in by_code(result.reasons, "request_differs")] == [
        "0",
        "0",
    ]


def test_zero_limit_counts_as_no_limit() -> None:
    pod = make_pod([ctr("c", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "0"})])
    result = pod_qos(pod)
    assert result.qos_class == BURSTABLE
    (missing,) = by_code(result.reasons, "missing_limit")
    assert "memory limit 0, which counts as no limit" in missing.text


def test_spec_path_prefixes_fields_for_templates() -> None:
    pod = make_pod([ctr("web", {"cpu": "1"})])
    result = pod_qos(pod, spec_path="spec.template.spec")
    assert {r.field for r in by_code(result.reasons, "missing_limit")} == {
        "spec.template.spec.containers[0].resources.limits[cpu]",
        "spec.template.spec.containers[0].resources.limits[memory]",
    }


def test_pod_level_limits_without_memory_keep_pod_burstable() -> None:
    pod = make_pod(
        [ctr("c", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})],
        resources={"requests": {"cpu": "1"}, "limits": {"cpu": "1"}},
    )
    result = pod_qos(pod)
    assert result.qos_class == BURSTABLE
    assert codes(result.reasons)[0] == "pod_level_decides"
    (missing,) = by_code(result.reasons, "missing_limit")
    assert missing.field == "spec.resources.limits[memory]"
    assert missing.container is None


def test_pod_level_limits_default_from_containers_only_in_newer_releases() -> None:
    """kubernetes#136120: 1.36+ defaults pod-level limits when every container has them."""
    pod = make_pod(
        [ctr("c", limits={"cpu": "1", "memory": "1Gi"})],
        resources={"requests": {"cpu": "1", "memory": "1Gi"}},
    )
    assert pod_qos(pod).qos_class == GUARANTEED
    assert pod_qos(pod, default_pod_limits=False).qos_class == BURSTABLE


def test_empty_pod_level_resources_do_not_hide_container_resources() -> None:
    """kubernetes#135082 (PodLevelResourcesFixKubeletQOSClass)."""
    g = {"cpu": "1", "memory": "1Gi"}
    pod = make_pod([ctr("c", g, g)], resources={})
    assert pod_qos(pod).qos_class == GUARANTEED
    assert pod_qos(pod, require_pod_level_values=False).qos_class == BEST_EFFORT


# --- BestEffort --------------------------------------------------------------------------------


def test_gpu_only_pod_is_best_effort() -> None:
    pod = make_pod([ctr("trainer", limits={"nvidia.com/gpu": "1"})])
    result = pod_qos(pod)
    assert result.qos_class == BEST_EFFORT
    assert result.eviction_rank == 1
    assert codes(result.reasons) == ["best_effort", "other_resources_ignored"]
    ignored = result.reasons[1]
    assert ignored.container == "trainer"
    assert values(ignored) == {"resources": "nvidia.com/gpu"}
    assert "only cpu and memory decide" in ignored.text


def test_pod_without_resources_is_best_effort() -> None:
    result = pod_qos(make_pod([{"name": "c", "image": "busybox"}]))
    assert result.qos_class == BEST_EFFORT
    assert result.reasons[0].text.startswith("No container sets a cpu or memory")
    assert "Evicted first" in result.eviction_priority.text


def test_zero_values_are_reported_as_ignored() -> None:
    pod = make_pod([ctr("c", {"cpu": "0"}, {"memory": "0"})])
    result = pod_qos(pod)
    assert result.qos_class == BEST_EFFORT
    assert {r.field for r in by_code(result.reasons, "zero_ignored")} == {
        "spec.containers[0].resources.requests[cpu]",
        "spec.containers[0].resources.requests[memory]",
        "spec.containers[0].resources.limits[memory]",
    }


# --- unreadable values ---------------------------------------------------------------------------


def test_unreadable_cpu_value_leaves_the_class_unknown() -> None:
    pod = make_pod([ctr("c", {"cpu": "lots"}, {"cpu": "1", "memory": "1Gi"})])
    result = pod_qos(pod)
    assert result.qos_class is None
    assert result.eviction_rank == 0
    (reason,) = result.reasons
    assert reason.code == "unreadable_quantity"
    assert reason.field == "spec.containers[0].resources.requests[cpu]"
    assert values(reason) == {"resource": "cpu", "kind": "request", "value": "lots"}


def test_unreadable_gpu_value_does_not_matter_for_qos() -> None:
    g = {"cpu": "1", "memory": "1Gi"}
    pod = make_pod([ctr("c", g, {**g, "nvidia.com/gpu": "one"})])
    assert pod_qos(pod).qos_class == GUARANTEED


def test_unreadable_container_value_is_ignored_when_pod_level_values_decide() -> None:
    pod = make_pod(
        [ctr("c", {"cpu": "x"})],
        resources={
            "requests": {"cpu": "1", "memory": "1Gi"},
            "limits": {"cpu": "1", "memory": "1Gi"},
        },
    )
    assert pod_qos(pod).qos_class == GUARANTEED


# --- equivalence with the per-resource rewrite (pkg/apis/core/helper/qos/qos_generated.go) --


def _per_resource_class(pod: Pod) -> str:
    """requirementsQOS/resourceQOS of the current Kubernetes source, container level."""
    from designer.k8s.core import parse_resources

    def requirements(c) -> str:  # noqa: ANN001
        if not c.requests and not c.limits:
            return BEST_EFFORT
        seen = None
        for r in ("cpu", "memory"):
            req = parse_resources(c.requests).get(r)
            lim = parse_resources(c.limits).get(r)
            zero_req = req is None or req.is_zero()
            zero_lim = lim is None or lim.is_zero()
            if zero_req and zero_lim:
                cls = BEST_EFFORT
            elif zero_req != zero_lim or req != lim:
                return BURSTABLE
            else:
                cls = GUARANTEED
            if seen is None:
                seen = cls
            elif seen != cls:
                return BURSTABLE
        return seen or BEST_EFFORT

    pod_class = None
    for _, c in pod.spec.all_containers():
        cls = requirements(c)
        if cls == BURSTABLE:
            return cls
        if pod_class is None:
            pod_class = cls
        elif pod_class != cls:
            return BURSTABLE
    return pod_class or BEST_EFFORT


_milli = st.sampled_from([None, 0, 100, 250, 500, 1000])


@st.composite
def _valid_containers(draw) -> list[dict]:  # noqa: ANN001
    out = []
    for i in range(draw(st.integers(1, 3))):
        req: dict[str, str] = {}
        lim: dict[str, str] = {}
        for r, unit in (("cpu", "m"), ("memory", "Mi")):
            lo, hi = draw(_milli), draw(_milli)
            if lo is not None and hi is not None and lo > hi:
                lo, hi = hi, lo  # validation rejects a request above its limit
            if lo is not None:
                req[r] = f"{lo}{unit}"
            if hi is not None:
                lim[r] = f"{hi}{unit}"
        out.append(ctr(f"c{i}", req, lim))
    return out


@settings(max_examples=300, deadline=None)
@given(_valid_containers())
def test_summed_and_per_resource_algorithms_agree_on_valid_pods(containers: list[dict]) -> None:
    pod = make_pod(containers)
    from designer.k8s.apiserver import pod_with_defaults

    defaulted = pod_with_defaults(pod)
    assert compute_qos_class(defaulted) == _per_resource_class(defaulted)
    result = pod_qos(pod)
    assert result.qos_class == compute_qos_class(defaulted)
    if result.qos_class == BURSTABLE:
        every_limit = all(
            all(_positive_limit(c.limits.get(r)) for r in ("cpu", "memory"))
            for _, c in defaulted.spec.all_containers()
        )
        # A container without a cpu or memory limit is named; else a request that differs.
        expected = "request_differs" if every_limit else "missing_limit"
        assert by_code(result.reasons, expected), [r.code for r in result.reasons]


def _positive_limit(value: object) -> bool:
    q = parse_quantity(value) if value is not None else None
    return q is not None and q.sign() > 0
