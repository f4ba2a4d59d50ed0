"""The kubelet's values as data (kubelet_values) and the node view built on them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import Pod, Quantity
from designer.k8s.kubelet import (
    KubeletConfig,
    cpu_max,
    kubelet_values,
    node_view,
)

GI = 1024**3


def pod(containers: list[dict], init: list[dict] | None = None, **spec: Any) -> Pod:
    body: dict[str, Any] = {"containers": containers, **spec}
    if init:
        body["initContainers"] = init
    return Pod.model_validate({"metadata": {"name": "p"}, "spec": body})


def c(name: str, requests: dict | None = None, limits: dict | None = None, **kw: Any) -> dict:
    return {
        "name": name,
        "image": "i",
        "resources": {"requests": requests or {}, "limits": limits or {}},
        **kw,
    }


def test_containers_come_in_pod_order_init_first_with_their_roles() -> None:
    p = pod(
        [c("app", {"cpu": "1", "memory": "1Gi"})],
        init=[c("proxy", {"cpu": "100m"}, restartPolicy="Always"), c("setup", {"cpu": "1"})],
    )
    values = kubelet_values(pod_with_defaults(p), 8 * GI)
    assert [(x.name, x.role, x.field) for x in values.containers] == [
        ("proxy", "sidecar", "spec.initContainers[0]"),
        ("setup", "init", "spec.initContainers[1]"),
        ("app", "app", "spec.containers[0]"),
    ]
    assert [x["name"] for x in values.as_dict()["containers"]] == ["proxy", "setup", "app"]


def test_a_burstable_oom_score_needs_the_memory_capacity() -> None:
    p = pod_with_defaults(pod([c("app", {"memory": "1Gi"})]))
    assert kubelet_values(p).containers[0].oom_score_adj is None
    assert kubelet_values(p, 16 * GI).containers[0].oom_score_adj == 1000 - 1000 // 16


def test_a_guaranteed_oom_score_needs_no_capacity() -> None:
    p = pod_with_defaults(pod([c("app", None, {"cpu": "1", "memory": "1Gi"})]))
    assert kubelet_values(p).containers[0].oom_score_adj == -997


def test_cpu_limits_off_gives_minus_one_on_the_pod_and_zero_on_containers() -> None:
    p = pod_with_defaults(pod([c("app", None, {"cpu": "1", "memory": "1Gi"})]))
    values = kubelet_values(p, 8 * GI, KubeletConfig(cpu_cfs_quota=False))
    assert (values.pod.cpu_quota, values.pod.cpu_period) == (-1, 100000)
    assert (values.containers[0].cpu_quota, values.containers[0].cpu_period) == (0, 0)
    view = node_view(p, Quantity.parse("8Gi"), kubelet=KubeletConfig(cpu_cfs_quota=False))
    assert view.throttling_risk is False and "cpuCFSQuota: false" in view.throttling.text
    assert view.pod.cpu_max == "max 100000"


def test_the_throttling_text_follows_a_custom_period() -> None:
    config = KubeletConfig(cpu_cfs_quota_period_us=5000)
    view = node_view(pod([c("app", None, {"cpu": "2", "memory": "1Gi"})]), kubelet=config)
    assert view.containers[0].cgroup.cpu_max == "10000 5000"
    assert "until the next 5ms period" in view.throttling.text
    # milli * 5000 / 1000 >= 1000 from 200m on.
    assert "Limits below 200m are raised" in view.throttling.text


def test_a_burstable_pod_with_memory_limits_equal_to_requests_cannot_exceed_them() -> None:
    # cpu request != limit makes it Burstable, but its memory use still cannot pass its request.
    p = pod([c("app", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})])
    view = node_view(p)
    assert view.qos_class == "Burstable"
    assert "its limit equals its request, so its use cannot exceed it" in view.eviction_order.text


POD_CASES = [
    pod([c("a")]),
    pod([c("a", {"cpu": "250m", "memory": "1Gi"})]),
    pod([c("a", None, {"cpu": "3", "memory": "2Gi"}), c("b", {"cpu": "1"}, {"memory": "1Gi"})]),
    pod([c("a")], resources={"limits": {"cpu": "2", "memory": "1Gi"}}),
    pod([c("a", {"cpu": "1"})], init=[c("s", {"memory": "64Mi"}, restartPolicy="Always")]),
    pod([c("a", None, {"cpu": "5m", "memory": "16Mi", "hugepages-2Mi": "4Mi"})]),
    pod([c("a", None, {"cpu": "1e999", "memory": "1Gi"})]),
    pod([c("a", None, {"cpu": "1"})], overhead={"cpu": "250m", "memory": "120Mi"}),
]


@pytest.mark.parametrize("p", POD_CASES)
@pytest.mark.parametrize(
    "config",
    [
        KubeletConfig(),
        KubeletConfig(cpu_cfs_quota=False),
        KubeletConfig(cpu_cfs_quota_period_us=5000),
    ],
)
def test_the_node_view_table_shows_the_kubelet_values(p: Pod, config: KubeletConfig) -> None:
    view = node_view(p, Quantity.parse("64Gi"), kubelet=config)
    values = view.kubelet
    assert values is not None
    assert values.as_dict() == kubelet_values(pod_with_defaults(p), 64 * GI, config).as_dict()
    assert view.pod.cpu_shares == values.pod.cpu_shares
    assert view.pod.cpu_weight_linear == values.pod.cpu_weight
    assert view.pod.cpu_max == cpu_max(values.pod.cpu_quota, values.pod.cpu_period)
    assert view.pod.memory_max == (
        str(values.pod.memory_limit) if values.pod.memory_limit else "max"
    )
    for shown, raw in zip(view.containers, values.containers, strict=True):
        assert shown.cgroup.cpu_shares == raw.cpu_shares
        assert shown.cgroup.cpu_max == cpu_max(raw.cpu_quota, raw.cpu_period)
        assert shown.cgroup.memory_max == (str(raw.memory_limit) if raw.memory_limit else "max")
        assert shown.oom_score_adj == raw.oom_score_adj


ODD = ["lots", "8GB", "1e999", "-1", "0", "1.5", "100Ei", True, None, 7]


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["cpu", "memory", "hugepages-2Mi"]), st.sampled_from(ODD), max_size=3
    ),
    st.dictionaries(st.sampled_from(["cpu", "memory"]), st.sampled_from(ODD), max_size=2),
)
def test_unreadable_values_are_named_and_never_computed_with(requests: dict, limits: dict) -> None:
    p = pod([c("a", requests, limits)])
    view = node_view(p, Quantity.parse("16Gi"))
    bad = {u.resource for u in view.unreadable}
    assert (view.kubelet is None) == bool(bad)
    if "cpu" in bad:
        assert view.throttling_risk is None and view.containers[0].cgroup.cpu_shares is None
    if "memory" in bad:
        assert view.containers[0].cgroup.memory_max is None
        assert view.eviction_order.text.startswith("The eviction order cannot be worked out")
        assert view.containers[0].oom_score_adj is None
    if bad:
        assert view.cannot_compute is not None


def test_a_node_critical_class_without_priority_says_admission_is_assumed() -> None:
    p = pod([c("agent", {"memory": "64Mi"})], priorityClassName="system-node-critical")
    (agent,) = node_view(p, Quantity.parse("8Gi")).containers
    assert agent.oom_score_adj == -997
    assert "Priority admission plugin" in agent.oom_reason.text
    with_priority = pod(
        [c("agent", {"memory": "64Mi"})],
        priorityClassName="system-node-critical",
        priority=2000001000,
    )
    (agent,) = node_view(with_priority, Quantity.parse("8Gi")).containers
    assert agent.oom_reason.text == "system-node-critical pods get -997, like Guaranteed ones."
