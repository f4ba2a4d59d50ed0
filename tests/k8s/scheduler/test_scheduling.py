"""Effective requests and limits (designer.k8s.scheduling).

The table tests transcribe k8s.io/component-helpers/resource/helpers_test.go. The Go tests
call PodRequests/PodLimits on hand-built objects that were never defaulted, so they run with
``apply_defaults=False``; the other tests show what the scheduler sees for a pod the API
server has defaulted.
"""

from __future__ import annotations

from typing import Any

import pytest

from designer.k8s.core import Pod, format_resources
from designer.k8s.scheduler import (
    effective_limits,
    effective_requests,
    request_phases,
    scoring_requests,
)
from tests.builders import container, pod

ALWAYS = {"restartPolicy": "Always"}


def sc(requests: dict | None = None, limits: dict | None = None, name: str = "", **kw: Any) -> dict:
    """A container the way these tests write it: resources first, the name optional."""
    return container(name or None, requests or None, limits or None, image=None, **kw)


def raw_requests(p: Pod) -> dict[str, str]:
    return format_resources(effective_requests(p, apply_defaults=False))


def raw_limits(p: Pod) -> dict[str, str]:
    return format_resources(effective_limits(p, apply_defaults=False))


def get_pod(cpu_req="", cpu_lim="", mem_req="", mem_lim="", cpu_oh="", mem_oh="") -> Pod:
    """helpers_test.go getPod: one container and one init container with the same resources."""
    req = {k: v for k, v in (("cpu", cpu_req), ("memory", mem_req)) if v}
    lim = {k: v for k, v in (("cpu", cpu_lim), ("memory", mem_lim)) if v}
    oh = {k: v for k, v in (("cpu", cpu_oh), ("memory", mem_oh)) if v}
    return pod([sc(req, lim, "foo")], init=[sc(req, lim, "init-foo")], overhead=oh or None)


# --- TestPodRequestsAndLimits -------------------------------------------------------------------

POD_REQUESTS_AND_LIMITS = [
    ("just-limit-no-overhead", get_pod(cpu_lim="9"), {}, {"cpu": "9"}),
    ("just-overhead", get_pod(cpu_oh="5", mem_oh="5"), {"cpu": "5", "memory": "5"}, {}),
    (
        "req-and-overhead",
        get_pod(cpu_req="1", mem_req="10", cpu_oh="5", mem_oh="5"),
        {"cpu": "6", "memory": "15"},
        {},
    ),
    (
        "all-req-lim-and-overhead",
        get_pod("1", "2", "10", "12", "5", "5"),
        {"cpu": "6", "memory": "15"},
        {"cpu": "7", "memory": "17"},
    ),
    (
        "req-some-lim-and-overhead",
        get_pod(cpu_req="1", cpu_lim="2", mem_req="10", cpu_oh="5", mem_oh="5"),
        {"cpu": "6", "memory": "15"},
        {"cpu": "7"},
    ),
]


@pytest.mark.parametrize(
    ("p", "requests", "limits"),
    [case[1:] for case in POD_REQUESTS_AND_LIMITS],
    ids=[case[0] for case in POD_REQUESTS_AND_LIMITS],
)
def test_kubernetes_pod_requests_and_limits(p: Pod, requests: dict, limits: dict) -> None:
    assert raw_requests(p) == requests
    assert raw_limits(p) == limits


def test_kubernetes_two_containers_with_massive_init_take_the_largest_init() -> None:
    """TestPodRequestsAndLimitsWithoutOverhead: the overhead is added here (default options)."""
    p = pod(
        [
            sc({"cpu": "1", "memory": "5"}, {"cpu": "2", "memory": "10"}),
            sc({"cpu": "4", "memory": "12"}, {"cpu": "8", "memory": "24"}),
        ],
        init=[
            sc({"cpu": "1", "memory": "5"}, {"cpu": "1", "memory": "5"}),
            sc({"cpu": "40", "memory": "120"}, {"cpu": "80", "memory": "240"}),
        ],
        overhead={"cpu": "3", "memory": "8"},
    )
    assert raw_requests(p) == {"cpu": "43", "memory": "128"}
    assert raw_limits(p) == {"cpu": "83", "memory": "248"}


# --- TestPodResourceRequests / TestPodResourceLimits (same shapes for both) ---------------------

PHASE_CASES = [
    ("nil options, larger init container", [{"cpu": "1"}], [({"cpu": "4"}, False)], "4"),
    ("nil options, larger containers", [{"cpu": "2"}, {"cpu": "3"}], [({"cpu": "2"}, False)], "5"),
    ("restartable init container", [{"cpu": "1"}], [({"cpu": "1"}, True)], "2"),
    (
        "multiple restartable init containers",
        [{"cpu": "1"}],
        [({"cpu": "5"}, False), ({"cpu": "1"}, True), ({"cpu": "2"}, True), ({"cpu": "3"}, True)],
        "7",  # max(5, sidecars 3+2+1 + regular 1)
    ),
    (
        "multiple restartable and regular init containers",
        [{"cpu": "1"}],
        [
            ({"cpu": "5"}, False),
            ({"cpu": "1"}, True),
            ({"cpu": "2"}, True),
            ({"cpu": "5"}, False),
            ({"cpu": "3"}, True),
        ],
        "8",  # init-2 needs 5 + the sidecars started before it (1+2)
    ),
    (
        "restartable-init, init and regular",
        [{"cpu": "100"}],
        [({"cpu": "10"}, True), ({"cpu": "200"}, False)],
        "210",
    ),
]


@pytest.mark.parametrize(
    ("containers", "inits", "expected"),
    [case[1:] for case in PHASE_CASES],
    ids=[case[0] for case in PHASE_CASES],
)
def test_kubernetes_sidecar_aware_requests_and_limits(containers, inits, expected) -> None:
    as_requests = pod(
        [sc(r) for r in containers], init=[sc(r, **(ALWAYS if s else {})) for r, s in inits]
    )
    as_limits = pod(
        [sc(None, r) for r in containers],
        init=[sc(None, r, **(ALWAYS if s else {})) for r, s in inits],
    )
    assert raw_requests(as_requests) == {"cpu": expected}
    assert raw_limits(as_limits) == {"cpu": expected}


def test_kubernetes_pod_overhead_included() -> None:
    """TestPodResourceRequests/Limits "pod overhead included"."""
    overhead = {"cpu": "1", "memory": "1Gi"}
    req = pod(
        [sc({"cpu": "2"}), sc({"cpu": "3"})],
        init=[sc({"cpu": "2"}, {"cpu": "2"})],
        overhead=overhead,
    )
    assert raw_requests(req) == {"cpu": "6", "memory": "1Gi"}
    lim = pod(
        [sc(None, {"cpu": "2"}), sc(None, {"cpu": "3"})],
        init=[sc(None, {"cpu": "2"})],
        overhead=overhead,
    )
    # overhead is only added to non-zero limits, so there is no memory limit
    assert raw_limits(lim) == {"cpu": "6"}


def test_kubernetes_limits_of_partly_limited_pods() -> None:
    assert raw_limits(pod([sc()])) == {}
    both = {"cpu": "2", "memory": "2Gi"}
    assert raw_limits(pod([sc(None, both), sc()])) == both
    assert (
        raw_limits(pod([sc(None, {"cpu": "1", "memory": "1Gi"})], init=[sc(None, both), sc()]))
        == both
    )


# --- TestPodLevelResourceRequests -----------------------------------------------------------------

POD_LEVEL_CASES = [
    ("nil", {}, [], [], {}),
    (
        "pod level memory resource",
        {"requests": {"memory": "2Mi"}},
        [],
        [],
        {"memory": "2Mi"},
    ),
    (
        "pod level memory and container level cpu resources",
        {"requests": {"memory": "2Mi"}},
        [{"cpu": "2m"}],
        [],
        {"cpu": "2m", "memory": "2Mi"},
    ),
    (
        "pod level unsupported resources set at both pod-level and container-level",
        {"requests": {"storage": "2Mi"}},
        [{"storage": "3Mi"}],
        [],
        {"storage": "3Mi"},
    ),
    (
        "pod level unsupported resources set at pod-level",
        {"requests": {"storage": "2Mi"}},
        [{"memory": "3Mi"}],
        [],
        {"memory": "3Mi"},
    ),
    (
        "only container level resources set",
        {},
        [{"memory": "3Mi", "cpu": "2m"}],
        [],
        {"cpu": "2m", "memory": "3Mi"},
    ),
    (
        "both container-level and pod-level resources set",
        {"requests": {"memory": "6Mi", "cpu": "8m"}},
        [{"memory": "3Mi", "cpu": "2m"}],
        [],
        {"cpu": "8m", "memory": "6Mi"},
    ),
    (
        "container-level resources and init container set",
        {},
        [{"memory": "3Mi", "cpu": "2m"}],
        [({"memory": "5Mi", "cpu": "4m"}, False)],
        {"cpu": "4m", "memory": "5Mi"},
    ),
    (
        "container-level resources and sidecar container set",
        {},
        [{"memory": "3Mi", "cpu": "2m"}],
        [({"memory": "5Mi", "cpu": "4m"}, True)],
        {"cpu": "6m", "memory": "8Mi"},
    ),
    (
        "container-level resources, init and sidecar container set",
        {},
        [{"memory": "3Mi", "cpu": "2m"}],
        [({"memory": "5Mi", "cpu": "4m"}, True), ({"memory": "6Mi", "cpu": "8m"}, False)],
        {"cpu": "12m", "memory": "11Mi"},
    ),
    (
        "pod-level resources, container-level resources, init and sidecar container set",
        {"requests": {"memory": "15Mi", "cpu": "18m"}},
        [{"memory": "3Mi", "cpu": "2m"}],
        [({"memory": "5Mi", "cpu": "4m"}, True), ({"memory": "6Mi", "cpu": "8m"}, False)],
        {"cpu": "18m", "memory": "15Mi"},
    ),
]


@pytest.mark.parametrize(
    ("resources", "containers", "inits", "expected"),
    [case[1:] for case in POD_LEVEL_CASES],
    ids=[case[0] for case in POD_LEVEL_CASES],
)
def test_kubernetes_pod_level_resource_requests(resources, containers, inits, expected) -> None:
    p = pod(
        [sc(r) for r in containers],
        init=[sc(r, **(ALWAYS if s else {})) for r, s in inits],
        resources=resources,
    )
    assert raw_requests(p) == expected


# --- TestAggregateContainerRequestsAndLimits ------------------------------------------------------


def test_kubernetes_aggregate_regular_init_and_sidecar() -> None:
    req = pod([sc({"cpu": "9"})], init=[sc({"cpu": "8"}, **ALWAYS), sc({"cpu": "6"})])
    assert raw_requests(req) == {"cpu": "17"}
    lim = pod(
        [sc(None, {"cpu": "9"})], init=[sc(None, {"cpu": "8"}, **ALWAYS), sc(None, {"cpu": "6"})]
    )
    assert raw_limits(lim) == {"cpu": "17"}
    assert raw_limits(pod([sc(None, {"cpu": "9"}), sc(None, {"cpu": "9"})])) == {"cpu": "18"}


# --- what the scheduler sees after defaulting ----------------------------------------------------


def test_limit_only_container_requests_its_limit_once_defaulted() -> None:
    p = pod([sc(None, {"cpu": "9", "nvidia.com/gpu": "1"})])
    assert format_resources(effective_requests(p)) == {"cpu": "9", "nvidia.com/gpu": "1"}
    assert raw_requests(p) == {}


def test_pod_level_limits_become_the_scheduled_request() -> None:
    p = pod([sc(), sc()], resources={"limits": {"cpu": "2", "memory": "4Gi"}})
    assert format_resources(effective_requests(p)) == {"cpu": "2", "memory": "4Gi"}
    assert format_resources(effective_limits(p)) == {"cpu": "2", "memory": "4Gi"}


def test_pod_level_values_replace_container_values_only_for_names_they_set() -> None:
    p = pod(
        [sc({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"})],
        resources={"requests": {"cpu": "2"}},
    )
    assert format_resources(effective_requests(p)) == {
        "cpu": "2",
        "memory": "1Gi",
        "nvidia.com/gpu": "1",
    }


def test_overhead_is_added_on_top_of_pod_level_requests() -> None:
    p = pod([sc()], resources={"requests": {"cpu": "1"}}, overhead={"cpu": "250m"})
    assert format_resources(effective_requests(p)) == {"cpu": "1250m"}


def test_zero_requests_are_kept_as_zero() -> None:
    assert raw_requests(pod([sc({"cpu": "0"})])) == {"cpu": "0"}


def test_unreadable_values_are_skipped() -> None:
    p = pod([sc({"cpu": "lots", "memory": "1Gi"})])
    assert format_resources(effective_requests(p)) == {"memory": "1Gi"}


def test_sums_are_printed_canonically() -> None:
    p = pod([sc({"cpu": "0.5", "memory": "512Mi"}), sc({"cpu": "500m", "memory": "512Mi"})])
    assert raw_requests(p) == {"cpu": "1", "memory": "1Gi"}


def test_scoring_counts_100m_and_200mi_for_containers_without_requests() -> None:
    p = pod([sc(), sc({"cpu": "1"}), sc({"cpu": "0", "memory": "0"})])
    assert format_resources(scoring_requests(p)) == {"cpu": "1100m", "memory": "419430400"}
    assert format_resources(effective_requests(p)) == {"cpu": "1", "memory": "0"}


def test_format_resources_orders_cpu_and_memory_first() -> None:
    p = pod([sc({"nvidia.com/gpu": "1", "memory": "1Gi", "cpu": "1", "ephemeral-storage": "1Gi"})])
    assert list(format_resources(effective_requests(p))) == [
        "cpu",
        "memory",
        "ephemeral-storage",
        "nvidia.com/gpu",
    ]


def test_request_phases_explain_why_an_init_container_sets_the_request() -> None:
    p = pod(
        [sc({"cpu": "1"}, name="app")],
        init=[sc({"cpu": "500m"}, name="proxy", **ALWAYS), sc({"cpu": "2"}, name="migrate")],
    )
    phases = request_phases(p)
    assert [(ph.kind, format_resources(ph.resources)) for ph in phases] == [
        ("init", {"cpu": "500m"}),
        ("init", {"cpu": "2500m"}),
        ("running", {"cpu": "1500m"}),
    ]
    assert phases[1].containers == ("spec.initContainers[0]", "spec.initContainers[1]")
    assert phases[1].label == (
        'init container "migrate" (spec.initContainers[1]) running, with the sidecars started '
        "before it"
    )
    assert format_resources(effective_requests(p)) == {"cpu": "2500m"}
