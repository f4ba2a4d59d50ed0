"""What the kubelet applies on the node (designer.k8s.node).

Tables transcribe pkg/kubelet/cm/helpers_linux_test.go (TestMilliCPUToShares,
TestMilliCPUToQuota, TestResourceConfigForPod, TestHugePageLimits,
TestCPUSharesEqualAfterV2RoundTrip's conversions), pkg/kubelet/qos/policy_test.go
(TestGetContainerOOMScoreAdjust, without the DRA cases) and opencontainers/cgroups
utils_test.go (TestConvertCPUSharesToCgroupV2Value, both formulas). Like the Go tests, the
transcribed ones run on pods that are *not* defaulted.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.core import Pod, Quantity
from designer.k8s.kubelet import (
    CPU_WEIGHT_LINEAR_LABEL,
    CPU_WEIGHT_QUADRATIC_LABEL,
    compute_qos_class,
    cpu_max,
    cpu_weight_linear,
    cpu_weight_quadratic,
    hugepage_size_name,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    node_view,
    oom_score_adj,
    pod_cgroup,
)
from tests.builders import container as c
from tests.builders import pod

MI = 1024 * 1024
GI = 1024 * MI
ALWAYS = {"restartPolicy": "Always"}


def rl(cpu: str = "", memory: str = "") -> dict[str, str]:
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


# --- conversions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("milli", "shares"),
    [
        (0, 2),
        (1, 2),
        (2, 2),
        (3, 3),
        (100, 102),
        (500, 512),
        (1000, 1024),
        (255999, 255999 * 1024 // 1000),
        (256000, 262144),
        (256001, 262144),
        (1000000, 262144),
        (-1, 2),
        (-1000000, 2),
    ],
)
def test_kubernetes_milli_cpu_to_shares(milli: int, shares: int) -> None:
    assert milli_cpu_to_shares(milli) == shares


@pytest.mark.parametrize(
    ("milli", "quota"),
    [
        (0, 0),
        (5, 1000),
        (9, 1000),
        (10, 1000),
        (200, 20000),
        (500, 50000),
        (1000, 100000),
        (1500, 150000),
    ],
)
def test_kubernetes_milli_cpu_to_quota(milli: int, quota: int) -> None:
    assert milli_cpu_to_quota(milli) == quota


@pytest.mark.parametrize(
    ("shares", "weight"),
    [
        (0, 0),
        (1, 1),
        (2, 1),
        (3, 2),
        (1024, 100),
        (262143, 10000),
        (262144, 10000),
        (262145, 10000),
        (2000, 170),
    ],
)
def test_cgroups_quadratic_cpu_weight(shares: int, weight: int) -> None:
    """opencontainers/cgroups v0.0.5 utils_test.go; 2000 -> 170 from runc issue #4896."""
    assert cpu_weight_quadratic(shares) == weight


@pytest.mark.parametrize(
    ("shares", "weight"),
    [(0, 0), (2, 1), (262144, 10000), (51, 2), (102, 4), (1024, 39), (2000, 77)],
)
def test_linear_cpu_weight(shares: int, weight: int) -> None:
    """runc utils_test.go; 51/102 shares (50m/100m) from TestCPUSharesEqualAfterV2RoundTrip;
    1024 -> 39 and 2000 -> 77 from runc issues #4772 / #4896."""
    assert cpu_weight_linear(shares) == weight


def test_cpu_weight_labels_name_both_runtimes() -> None:
    assert "runc < 1.3.2" in CPU_WEIGHT_LINEAR_LABEL
    assert "runc >= 1.3.2" in CPU_WEIGHT_QUADRATIC_LABEL
    assert "crun >= 1.23" in CPU_WEIGHT_QUADRATIC_LABEL


def test_cpu_max_prints_max_without_a_quota() -> None:
    assert cpu_max(None) == "max 100000"
    assert cpu_max(0) == "max 100000"
    assert cpu_max(50000) == "50000 100000"


def test_hugepage_size_names_match_hugetlb_files() -> None:
    assert hugepage_size_name(2 * MI) == "2MB"
    assert hugepage_size_name(GI) == "1GB"
    assert hugepage_size_name(64 * 1024) == "64KB"


# --- TestResourceConfigForPod (enforceCPULimits, default period, no DRA) ------------------------

CONFIG_CASES = [
    ("besteffort", pod([c("c", {}, {})]), (2, None, None)),
    ("burstable-no-limits", pod([c("c", rl("100m", "100Mi"))]), (102, None, None)),
    (
        "burstable-with-limits",
        pod([c("c", rl("100m", "100Mi"), rl("200m", "200Mi"))]),
        (102, 20000, 200 * MI),
    ),
    (
        "burstable-partial-limits",
        pod([c("a", rl("100m", "100Mi"), rl("200m", "200Mi")), c("b", rl("100m", "100Mi"))]),
        (204, None, None),
    ),
    ("guaranteed", pod([c("c", rl("100m", "100Mi"), rl("100m", "100Mi"))]), (102, 10000, 100 * MI)),
    (
        "burstable-partial-limits-with-init-containers",
        pod(
            [c("a", rl("100m", "100m"), rl("100m", "100Mi")), c("b", rl("100m", "100m"))],
            init=[c("i", rl("100m", "100m"), rl("100m", "100Mi")), c("j", rl("100m", "100m"))],
        ),
        (204, None, None),
    ),
    (
        "besteffort-with-pod-level-resources-enabled",
        pod([c("c")], resources={"requests": {}, "limits": {}}),
        (2, None, None),
    ),
    (
        "burstable-with-pod-level-requests",
        pod([{"name": "c"}], resources={"requests": rl("100m", "100Mi")}),
        (102, None, None),
    ),
    (
        "burstable-with-pod-and-container-level-requests",
        pod([c("c", rl("10m", "50Mi"))], resources={"requests": rl("100m", "100Mi")}),
        (102, None, None),
    ),
    (
        "burstable-with-pod-level-resources",
        pod(
            [{"name": "c"}],
            resources={"requests": rl("100m", "100Mi"), "limits": rl("200m", "200Mi")},
        ),
        (102, 20000, 200 * MI),
    ),
    (
        "burstable-with-pod-and-container-level-resources",
        pod(
            [c("c", rl("10m", "50Mi"), rl("50m", "100Mi"))],
            resources={"requests": rl("100m", "100Mi"), "limits": rl("200m", "200Mi")},
        ),
        (102, 20000, 200 * MI),
    ),
    (
        "burstable-with-partial-pod-level-resources-limits",
        pod(
            [c("c", rl("200m", "200Mi"), rl("200m", "200Mi"))],
            resources={"requests": rl("200m", "300Mi")},
        ),
        (204, 20000, 200 * MI),
    ),
    (
        "guaranteed-with-pod-level-resources",
        pod(
            [{"name": "c"}],
            resources={"requests": rl("100m", "100Mi"), "limits": rl("100m", "100Mi")},
        ),
        (102, 10000, 100 * MI),
    ),
    (
        "guaranteed-with-pod-and-container-level-resources",
        pod(
            [c("c", rl("10m", "50Mi"), rl("50m", "100Mi"))],
            resources={"requests": rl("100m", "100Mi"), "limits": rl("100m", "100Mi")},
        ),
        (102, 10000, 100 * MI),
    ),
    (
        "guaranteed-pod-level-resources-with-init-containers",
        pod(
            [c("c", rl("10m", "50Mi"), rl("50m", "50Mi"))],
            init=[c("i", rl("10m", "50Mi"), rl("50m", "50Mi"))],
            resources={"requests": rl("100m", "100Mi"), "limits": rl("100m", "100Mi")},
        ),
        (102, 10000, 100 * MI),
    ),
]


@pytest.mark.parametrize(
    ("p", "expected"), [case[1:] for case in CONFIG_CASES], ids=[case[0] for case in CONFIG_CASES]
)
def test_kubernetes_resource_config_for_pod(p: Pod, expected: tuple) -> None:
    shares, quota, memory = expected
    values, _ = pod_cgroup(p, compute_qos_class(p))
    assert (values.cpu_shares, values.cpu_quota, values.memory_max_bytes) == expected
    assert values.cpu_max == cpu_max(quota)
    assert values.memory_max == (str(memory) if memory else "max")


@pytest.mark.parametrize(
    ("requests", "expected"),
    [
        ({"2Mi": "128"}, {}),
        ({"hugepages-2Mi": "128"}, {"2MB": 128}),
        (
            {
                "hugepages-2Mi": "128",
                f"hugepages-{2 * MI}": "256",
                "hugepages-4Mi": "512",
                "4Mi": "1024",
            },
            {"2MB": 384, "4MB": 512},
        ),
    ],
    ids=["no valid hugepages", "2Mi only", "2Mi and 4Mi"],
)
def test_kubernetes_hugepage_limits(requests: dict, expected: dict) -> None:
    p = pod([c("c", requests)])
    _, hugetlb = pod_cgroup(p, compute_qos_class(p))
    assert hugetlb == expected


# --- TestGetContainerOOMScoreAdjust (pkg/kubelet/qos/policy_test.go) -----------------------------

STD = 8_000_000_000
DEFAULT_MEM_REQ = str(STD // 8)
DEFAULT_MEM_LIM = str(1000 + STD // 8)
DEFAULT_POD_MEM_REQ = str(STD // 4)
DEFAULT_POD_MEM_LIM = str(1000 + STD // 4)
SAMPLE = c("main-1", {"memory": DEFAULT_MEM_REQ}, {"memory": DEFAULT_MEM_LIM})
INIT = c("init-container", {"memory": DEFAULT_MEM_REQ}, {"memory": DEFAULT_MEM_LIM})
SIDECAR = c("sidecar-container", {"memory": DEFAULT_MEM_REQ}, {"memory": DEFAULT_MEM_LIM}, **ALWAYS)
SMALL_SIDECAR = c(
    "sidecar-small-container", {"memory": str(STD // 20)}, {"memory": DEFAULT_MEM_LIM}, **ALWAYS
)
BIG_SIDECAR = c(
    "sidecar-big-container", {"memory": str(STD // 2)}, {"memory": DEFAULT_MEM_LIM}, **ALWAYS
)
POD_GUARANTEED = {
    "requests": {"cpu": "5m", "memory": DEFAULT_POD_MEM_REQ},
    "limits": {"cpu": "5m", "memory": DEFAULT_POD_MEM_REQ},
}
POD_BURSTABLE = {
    "requests": {"cpu": "5m", "memory": DEFAULT_POD_MEM_REQ},
    "limits": {"cpu": "5m", "memory": DEFAULT_POD_MEM_LIM},
}
G5 = {"cpu": "5m", "memory": DEFAULT_MEM_REQ}

OOM_CASES = [
    (
        "cpu-limit",
        pod([c("cpu-limit", None, {"cpu": "10"})]),
        4_000_000_000,
        {"cpu-limit": (999, 999)},
    ),
    (
        "memory-limit-cpu-request",
        pod([c("memory-limit-cpu-request", {"cpu": "0"}, {"memory": "10G"})]),
        STD,
        {"memory-limit-cpu-request": (999, 999)},
    ),
    (
        "zero-memory-limit",
        pod([c("zero-memory-limit", None, {"memory": "0"})]),
        7230457451,
        {"zero-memory-limit": (1000, 1000)},
    ),
    (
        "no-request-limit",
        pod([c("no-request-limit")]),
        4_000_000_000,
        {"no-request-limit": (1000, 1000)},
    ),
    (
        "equal-request-limit-cpu-memory",
        pod([c("e", {"memory": "10G", "cpu": "5m"}, {"cpu": "5m", "memory": "10G"})]),
        123456789,
        {"e": (-997, -997)},
    ),
    (
        "cpu-unlimited-memory-limited-with-requests",
        pod([c("u", {"memory": str(STD // 2), "cpu": "5m"}, {"memory": "10G"})]),
        STD,
        {"u": (495, 505)},
    ),
    ("request-no-limit", pod([c("r", {"memory": str(STD - 1), "cpu": "5m"})]), STD, {"r": (3, 3)}),
    (
        "cluster-critical",
        pod([c("cc")], priorityClassName="system-cluster-critical", priority=2_000_000_000),
        4_000_000_000,
        {"cc": (1000, 1000)},
    ),
    (
        "node-critical",
        pod([c("nc")], priorityClassName="system-node-critical", priority=2_000_001_000),
        4_000_000_000,
        {"nc": (-997, -997)},
    ),
    (
        "burstable-unique-container-pod",
        pod([c("b", {"memory": DEFAULT_MEM_REQ}, {"memory": DEFAULT_MEM_LIM})]),
        STD,
        {"b": (875, 880)},
    ),
    (
        "burstable-mixed-unique-main-container-pod",
        pod([SAMPLE], init=[INIT]),
        STD,
        {"init-container": (875, 880), "main-1": (875, 880)},
    ),
    (
        "burstable-mixed-multi-container-small-sidecar-pod",
        pod([SAMPLE], init=[INIT, SMALL_SIDECAR]),
        STD,
        {"init-container": (875, 880), "sidecar-small-container": (875, 875), "main-1": (875, 875)},
    ),
    (
        "burstable-mixed-multi-container-sample-request-pod",
        pod([SAMPLE], init=[INIT, SIDECAR]),
        STD,
        {"init-container": (875, 880), "sidecar-container": (875, 875), "main-1": (875, 875)},
    ),
    (
        "burstable-mixed-multi-container-big-sidecar-container-pod",
        pod([SAMPLE], init=[INIT, BIG_SIDECAR]),
        STD,
        {"init-container": (875, 880), "sidecar-big-container": (500, 500), "main-1": (875, 875)},
    ),
    (
        "guaranteed-pod-resources-no-container-resources",
        pod([c("n1"), c("n2")], resources=POD_GUARANTEED),
        4_000_000_000,
        {"n1": (-997, -997), "n2": (-997, -997)},
    ),
    (
        "guaranteed-pod-resources-equal-container-resources",
        pod([c("g1", G5, G5), c("g2", G5, G5)], resources=POD_GUARANTEED),
        4_000_000_000,
        {"g1": (-997, -997), "g2": (-997, -997)},
    ),
    (
        "guaranteed-pod-resources-unequal-container-requests",
        pod(
            [
                c(
                    "b",
                    {"cpu": "3m", "memory": DEFAULT_MEM_REQ},
                    {"cpu": "5m", "memory": DEFAULT_MEM_LIM},
                ),
                c("be"),
            ],
            resources=POD_GUARANTEED,
        ),
        4_000_000_000,
        {"b": (-997, -997), "be": (-997, -997)},
    ),
    (
        "burstable-pod-resources-no-container-resources",
        pod([c("n1"), c("n2")], resources=POD_BURSTABLE),
        4_000_000_000,
        {"n1": (750, 750), "n2": (750, 750)},
    ),
    (
        "burstable-pod-resources-equal-container-requests",
        pod([c("g1", G5, G5), c("g2", G5, G5)], resources=POD_BURSTABLE),
        4_000_000_000,
        {"g1": (750, 750), "g2": (750, 750)},
    ),
    (
        "burstable-pod-resources-unequal-container-requests",
        pod(
            [
                c(
                    "b",
                    {"cpu": "3m", "memory": DEFAULT_MEM_REQ},
                    {"cpu": "5m", "memory": DEFAULT_MEM_REQ},
                ),
                c("be"),
            ],
            resources=POD_BURSTABLE,
        ),
        4_000_000_000,
        {"b": (625, 625), "be": (875, 875)},
    ),
    (
        "burstable-pod-resources-no-container-resources-with-sidecar",
        pod([c("n")], init=[c("ns", **ALWAYS)], resources=POD_BURSTABLE),
        4_000_000_000,
        {"n": (750, 750), "ns": (750, 750)},
    ),
    (
        "burstable-pod-resources-equal-container-requests-with-sidecar",
        pod(
            [c("b", G5, {"cpu": "5m", "memory": DEFAULT_MEM_LIM})],
            init=[c("s", G5, {"cpu": "5m", "memory": DEFAULT_MEM_LIM}, **ALWAYS)],
            resources=POD_BURSTABLE,
        ),
        4_000_000_000,
        {"b": (750, 750), "s": (750, 750)},
    ),
    (
        "burstable-pod-resources-unequal-container-requests-with-sidecar",
        pod(
            [
                c(
                    "b1",
                    {"cpu": "5m", "memory": "1000000000"},
                    {"cpu": "5m", "memory": DEFAULT_POD_MEM_LIM},
                ),
                c(
                    "b2",
                    {"cpu": "5m", "memory": "500000000"},
                    {"cpu": "5m", "memory": DEFAULT_POD_MEM_LIM},
                ),
            ],
            init=[
                c(
                    "s",
                    {"cpu": "5m", "memory": "200000000"},
                    {"cpu": "5m", "memory": DEFAULT_POD_MEM_LIM},
                    **ALWAYS,
                )
            ],
            resources={
                "requests": {"cpu": "5m", "memory": "2000000000"},
                "limits": {"cpu": "5m", "memory": DEFAULT_POD_MEM_LIM},
            },
        ),
        4_000_000_000,
        {"b1": (725, 725), "b2": (850, 850), "s": (850, 850)},
    ),
]


@pytest.mark.parametrize(
    ("p", "capacity", "expected"),
    [case[1:] for case in OOM_CASES],
    ids=[case[0] for case in OOM_CASES],
)
def test_kubernetes_get_container_oom_score_adjust(p: Pod, capacity: int, expected: dict) -> None:
    for _, container in p.spec.all_containers():
        low, high = expected[container.name]
        assert low <= oom_score_adj(p, container, capacity) <= high, container.name


# --- the node view ------------------------------------------------------------------------------


def test_guaranteed_pod_gets_bounded_pod_cgroup_and_minus_997() -> None:
    p = pod([c("app", None, {"cpu": "500m", "memory": "512Mi"})])
    view = node_view(p, Quantity.parse("16Gi"))
    assert view.qos_class == "Guaranteed"
    assert view.pod.cpu_shares == 512
    assert view.pod.cpu_max == "50000 100000"
    assert view.pod.memory_max == str(512 * MI)
    (app,) = view.containers
    assert app.cgroup.cpu_shares == 512
    assert app.cgroup.cpu_weight_linear == cpu_weight_linear(512)
    assert app.cgroup.cpu_weight_quadratic == cpu_weight_quadratic(512)
    assert app.oom_score_adj == -997
    assert view.throttling_risk is True
    assert '"app" (spec.containers[0]) may use 50000µs of CPU time' in view.throttling.text


def test_pod_memory_max_includes_overhead() -> None:
    p = pod(
        [c("app", None, {"cpu": "1", "memory": "1Gi"})], overhead={"cpu": "250m", "memory": "120Mi"}
    )
    view = node_view(p)
    assert view.pod.memory_max_bytes == GI + 120 * MI
    assert view.pod.cpu_quota == 125000
    assert view.pod.cpu_shares == milli_cpu_to_shares(1250)
    # the container cgroup does not include overhead
    assert view.containers[0].cgroup.memory_max_bytes == GI


def test_best_effort_pod_gets_two_shares_and_no_limits() -> None:
    view = node_view(pod([{"name": "c", "image": "busybox"}]), Quantity.parse("8Gi"))
    assert view.qos_class == "BestEffort"
    assert (view.pod.cpu_shares, view.pod.cpu_weight_linear, view.pod.cpu_weight_quadratic) == (
        2,
        1,
        1,
    )
    assert view.pod.cpu_max == "max 100000"
    assert view.pod.memory_max == "max"
    assert view.containers[0].oom_score_adj == 1000
    assert view.throttling_risk is False
    assert "requests no memory" in view.eviction_order.text


def test_burstable_oom_score_needs_the_node_memory_capacity() -> None:
    p = pod([c("app", {"cpu": "250m", "memory": "1Gi"})])
    assert node_view(p).containers[0].oom_score_adj is None
    assert "memory capacity" in node_view(p).containers[0].oom_reason.text
    view = node_view(p, Quantity.parse("16Gi"))
    assert view.containers[0].oom_score_adj == 1000 - (1000 * GI) // (16 * GI)  # 938
    assert "requests 1Gi of memory" in view.eviction_order.text


def test_container_without_limit_is_capped_by_the_pod_level_limit() -> None:
    p = pod(
        [c("app"), c("sidecar-less", {"cpu": "100m"})],
        resources={"limits": {"cpu": "2", "memory": "1Gi"}},
    )
    view = node_view(p, Quantity.parse("4Gi"))
    app, other = view.containers
    assert (app.cpu_limit_source, app.memory_limit_source) == ("pod", "pod")
    assert app.cgroup.cpu_max == "200000 100000"
    assert app.cgroup.memory_max_bytes == GI
    # no cpu request at all: shares come from the (pod-level) limit, as calculateLinuxResources does
    assert app.cgroup.cpu_shares == 2048
    assert other.cgroup.cpu_shares == 102
    assert "(the pod-level limit)" in view.throttling.text


def test_sidecar_and_init_containers_get_their_own_cgroups() -> None:
    p = pod(
        [c("app", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})],
        init=[
            c("proxy", {"cpu": "100m", "memory": "64Mi"}, **ALWAYS),
            c("setup", None, {"cpu": "2", "memory": "1Gi"}),
        ],
    )
    view = node_view(p, Quantity.parse("8Gi"))
    assert [(x.name, x.role, x.field) for x in view.containers] == [
        ("proxy", "sidecar", "spec.initContainers[0]"),
        ("setup", "init", "spec.initContainers[1]"),
        ("app", "app", "spec.containers[0]"),
    ]
    proxy = view.containers[0]
    assert proxy.cgroup.cpu_max == "max 100000" and proxy.cgroup.memory_max == "max"
    # the sidecar's score is capped at the app container's: 1000 - 1000*1Gi/8Gi = 875
    assert proxy.oom_score_adj == 875
    assert "sidecar is capped" in proxy.oom_reason.text
    # the proxy has no cpu limit, so the pod cgroup is not CPU-bounded
    assert view.pod.cpu_quota is None and view.pod.memory_max == "max"


def test_system_node_critical_pod_gets_minus_997_even_when_burstable() -> None:
    p = pod([c("agent", {"memory": "64Mi"})], priorityClassName="system-node-critical")
    view = node_view(p, Quantity.parse("8Gi"))
    assert view.qos_class == "Burstable"
    assert view.containers[0].oom_score_adj == -997


def test_tiny_cpu_limit_is_raised_to_the_minimum_quota() -> None:
    view = node_view(pod([c("app", None, {"cpu": "5m", "memory": "16Mi"})]))
    assert view.containers[0].cgroup.cpu_max == "1000 100000"
    assert "raised to the 1ms minimum quota" in view.throttling.text


def test_hugepages_requests_size_the_pod_hugetlb_limit() -> None:
    p = pod([c("app", None, {"cpu": "1", "memory": "1Gi", "hugepages-2Mi": "100Mi"})])
    view = node_view(p)
    assert view.hugetlb == {"2MB": 100 * MI}
    assert any("hugetlb" in n.text for n in view.notes)


def test_an_unreadable_cpu_value_withholds_only_what_depends_on_cpu() -> None:
    p = pod([c("app", {"cpu": "lots", "memory": "1Gi"}, {"memory": "1Gi"})])
    view = node_view(p, Quantity.parse("8Gi"))
    assert view.qos_class is None  # the class depends on the cpu request too
    (app,) = view.containers
    assert app.cgroup.cpu_shares is None and app.cgroup.cpu_max is None
    assert view.pod.cpu_shares is None
    assert app.cgroup.memory_max_bytes == GI  # memory is readable
    assert view.throttling_risk is None
    assert "CPU throttling cannot be worked out" in view.throttling.text
    assert "spec.containers[0].resources.requests[cpu] (“lots”)" in view.throttling.text
    assert app.oom_score_adj is None and "cannot be worked out" in app.oom_reason.text
    assert "requests 1Gi of memory" in view.eviction_order.text
    assert view.kubelet is None
    assert view.cannot_compute is not None and "cannot be read" in view.notes[0].text


def test_an_unreadable_memory_value_is_not_taken_for_no_memory() -> None:
    # Issue 16: memory "8GB" made the node panel say the pod "requests no memory ... among
    # the first evicted".
    p = pod([c("app", {"cpu": "1", "memory": "8GB"}, {"cpu": "1", "memory": "8GB"})])
    view = node_view(p, Quantity.parse("8Gi"))
    assert "requests no memory" not in view.eviction_order.text
    assert view.eviction_order.text.startswith("The eviction order cannot be worked out")
    assert "spec.containers[0].resources.limits[memory] (“8GB”)" in view.eviction_order.text
    assert view.memory_request is None
    (app,) = view.containers
    assert app.cgroup.memory_max is None and view.pod.memory_max is None
    assert app.cgroup.cpu_max == "100000 100000"  # cpu is readable
    assert view.throttling_risk is True
    assert app.oom_score_adj is None


def test_memory_request_for_eviction_uses_pod_level_request_and_overhead() -> None:
    p = pod([c("app")], resources={"requests": {"memory": "1Gi"}}, overhead={"memory": "64Mi"})
    view = node_view(p)
    assert view.memory_request == Quantity.from_fraction(Fraction(GI + 64 * MI), "BinarySI")
    assert "rankMemoryPressure" in view.eviction_order.text


ODD_VALUES = [
    "1e999999999",
    "-1",
    "0.0000000001",
    "1.5",
    "lots",
    True,
    None,
    1e300,
    "9Ei",
    "",
    " 1 ",
    "100E",
    0,
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["cpu", "memory", "hugepages-2Mi", "nvidia.com/gpu"]),
            st.sampled_from(["requests", "limits"]),
            st.sampled_from(ODD_VALUES),
        ),
        max_size=6,
    ),
    st.booleans(),
    st.booleans(),
)
def test_no_engine_function_crashes_on_odd_values(entries, sidecar: bool, pod_level: bool) -> None:
    res: dict[str, dict] = {}
    for name, kind, value in entries:
        res.setdefault(kind, {})[name] = value
    containers = [{"name": "a", "resources": res}]
    init = [{"name": "s", "resources": res, **(ALWAYS if sidecar else {})}]
    p = pod(containers, init=init, resources=res if pod_level else None, overhead=res.get("limits"))
    from designer.k8s.core import format_resources
    from designer.k8s.kubelet import pod_qos
    from designer.k8s.scheduler import effective_limits, effective_requests

    pod_qos(p)
    format_resources(effective_requests(p))
    format_resources(effective_limits(p))
    view = node_view(p, Quantity.parse("16Gi"))
    assert view.qos_class in ("Guaranteed", "Burstable", "BestEffort", None)
    assert (view.kubelet is None) == bool(view.unreadable)
