"""API server resource defaulting (designer.k8s.defaults)."""

from __future__ import annotations

from designer.k8s.apiserver import pod_with_defaults, round_up_to_milli
from tests.builders import container as ctr
from tests.builders import pod as make_pod

# --- SetDefaults_Pod: request = limit ----------------------------------------------------------


def test_limit_without_request_becomes_the_request_for_every_resource() -> None:
    limits = {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": 2, "ephemeral-storage": "10Gi"}
    out = pod_with_defaults(make_pod([ctr("main", limits=limits)]))
    assert out.spec.containers[0].requests == limits


def test_existing_requests_are_kept() -> None:
    out = pod_with_defaults(make_pod([ctr("main", {"cpu": "250m"}, {"cpu": "1", "memory": "1Gi"})]))
    assert out.spec.containers[0].requests == {"cpu": "250m", "memory": "1Gi"}


def test_explicit_zero_request_is_not_overwritten() -> None:
    out = pod_with_defaults(make_pod([ctr("main", {"cpu": "0"}, {"cpu": "1"})]))
    assert out.spec.containers[0].requests == {"cpu": "0"}


def test_init_containers_and_sidecars_are_defaulted_too() -> None:
    pod = make_pod(
        [ctr("app")],
        init=[
            ctr("migrate", limits={"cpu": "2"}),
            ctr("proxy", limits={"memory": "64Mi"}, restartPolicy="Always"),
        ],
    )
    out = pod_with_defaults(pod)
    assert out.spec.init_list[0].requests == {"cpu": "2"}
    assert out.spec.init_list[1].requests == {"memory": "64Mi"}


def test_containers_without_limits_get_no_requests() -> None:
    out = pod_with_defaults(make_pod([{"name": "c", "image": "busybox"}, ctr("d", {"cpu": "1"})]))
    assert out.spec.containers[0].resources is None
    assert out.spec.containers[1].requests == {"cpu": "1"}


def test_the_original_pod_is_not_modified() -> None:
    pod = make_pod([ctr("main", limits={"cpu": "1"})], resources={"limits": {"memory": "1Gi"}})
    before = pod.manifest()
    pod_with_defaults(pod)
    assert pod.manifest() == before


def test_unreadable_limit_is_not_copied() -> None:
    out = pod_with_defaults(make_pod([ctr("main", limits={"cpu": "lots", "memory": "1Gi"})]))
    assert out.spec.containers[0].requests == {"memory": "1Gi"}
    assert out.spec.containers[0].limits == {"cpu": "lots", "memory": "1Gi"}


def test_other_fields_survive_defaulting() -> None:
    pod = make_pod([ctr("main", limits={"cpu": "1"}, ports=[{"containerPort": 80}])], hostIPC=True)
    manifest = pod_with_defaults(pod).manifest()
    assert manifest["spec"]["hostIPC"] is True
    assert manifest["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]


# --- pod-level requests (defaultPodRequests) ----------------------------------------------------


def test_pod_level_request_defaults_to_the_pod_level_limit_when_no_container_requests() -> None:
    pod = make_pod([ctr("a"), ctr("b")], resources={"limits": {"cpu": "2", "memory": "2Gi"}})
    out = pod_with_defaults(pod)
    assert out.spec.resources.requests == {"cpu": "2", "memory": "2Gi"}


def test_pod_level_request_defaults_to_the_sidecar_aware_container_requests() -> None:
    # steady state: 1 (app) + 500m (sidecar) = 1500m; init phase: 2 (migrate) + 500m = 2500m.
    pod = make_pod(
        [ctr("app", {"cpu": "1"})],
        init=[ctr("proxy", {"cpu": "500m"}, restartPolicy="Always"), ctr("migrate", {"cpu": "2"})],
        resources={"limits": {"cpu": "4", "memory": "1Gi"}},
    )
    out = pod_with_defaults(pod)
    assert out.spec.resources.requests == {"cpu": "2500m", "memory": "1Gi"}


def test_pod_level_requests_mix_container_requests_and_pod_limits_per_resource() -> None:
    pod = make_pod(
        [ctr("app", limits={"cpu": "500m"})], resources={"limits": {"cpu": "2", "memory": "1Gi"}}
    )
    out = pod_with_defaults(pod)
    # cpu: the container's request (defaulted from its limit); memory: the pod-level limit.
    assert out.spec.resources.requests == {"cpu": "500m", "memory": "1Gi"}


def test_explicit_pod_level_requests_are_kept() -> None:
    pod = make_pod(
        [ctr("app", {"cpu": "100m"})],
        resources={"requests": {"cpu": "1"}, "limits": {"cpu": "2", "memory": "1Gi"}},
    )
    assert pod_with_defaults(pod).spec.resources.requests == {"cpu": "1", "memory": "1Gi"}


def test_pod_level_requests_are_not_derived_without_pod_level_limits() -> None:
    pod = make_pod([ctr("app", {"cpu": "1"})], resources={"requests": {"memory": "1Gi"}})
    assert pod_with_defaults(pod).spec.resources.requests == {"memory": "1Gi"}


def test_extended_resources_never_become_pod_level_requests() -> None:
    pod = make_pod(
        [ctr("app", limits={"nvidia.com/gpu": "1"})], resources={"limits": {"memory": "1Gi"}}
    )
    assert pod_with_defaults(pod).spec.resources.requests == {"memory": "1Gi"}


# --- pod-level limits (defaultHugePagePodLimits, defaultPodLimits) ------------------------------


def test_pod_level_limits_default_to_the_sum_of_container_limits() -> None:
    pod = make_pod(
        [ctr("a", limits={"cpu": "1", "memory": "1Gi"}), ctr("b", limits={"cpu": "500m"})],
        resources={"requests": {"cpu": "2", "memory": "2Gi"}},
    )
    out = pod_with_defaults(pod)
    # Every container limits cpu; only one limits memory, so memory stays unbounded.
    assert out.spec.resources.limits == {"cpu": "1500m"}
    assert pod_with_defaults(pod, default_pod_limits=False).spec.resources.limits is None


def test_pod_level_limits_need_init_containers_limited_too() -> None:
    pod = make_pod(
        [ctr("a", limits={"cpu": "1"})],
        init=[ctr("setup", {"cpu": "1"})],
        resources={"requests": {"cpu": "1"}},
    )
    assert pod_with_defaults(pod).spec.resources.limits is None


def test_pod_level_hugepages_limit_defaults_from_containers() -> None:
    """Kubernetes' "pod-level resources hugepages-2Mi:L, container hugepages-2Mi:L" shape."""
    pod = make_pod(
        [
            ctr(
                "a",
                {"cpu": "1", "memory": "100Mi"},
                {"cpu": "1", "memory": "100Mi", "hugepages-2Mi": "2Mi"},
            )
        ],
        resources={
            "requests": {"cpu": "1", "memory": "100Mi"},
            "limits": {"cpu": "1", "memory": "100Mi"},
        },
    )
    out = pod_with_defaults(pod)
    assert out.spec.resources.limits == {"cpu": "1", "memory": "100Mi", "hugepages-2Mi": "2Mi"}
    # The pod-level hugepages request then defaults to that pod-level limit.
    assert out.spec.resources.requests == {"cpu": "1", "memory": "100Mi", "hugepages-2Mi": "2Mi"}


def test_pod_level_hugepages_limit_is_not_defaulted_when_requested_at_pod_level() -> None:
    pod = make_pod(
        [ctr("a", limits={"cpu": "1", "memory": "100Mi", "hugepages-2Mi": "2Mi"})],
        resources={
            "requests": {"hugepages-2Mi": "10Mi"},
            "limits": {"cpu": "1", "memory": "100Mi"},
        },
    )
    assert "hugepages-2Mi" not in pod_with_defaults(pod).spec.resources.limits


def test_no_pod_level_defaults_without_pod_level_resources() -> None:
    out = pod_with_defaults(make_pod([ctr("a", limits={"cpu": "1", "hugepages-2Mi": "2Mi"})]))
    assert out.spec.resources is None


# --- SetDefaults_ResourceList: round up to milli precision --------------------------------------


def test_values_finer_than_a_milli_are_rounded_up() -> None:
    pod = make_pod([ctr("a", {"cpu": "0.0001", "memory": "1.5"}, {"cpu": 0.0015})])
    out = pod_with_defaults(pod)
    assert out.spec.containers[0].requests == {"cpu": "1m", "memory": "1.5"}
    assert out.spec.containers[0].limits == {"cpu": "2m"}


def test_round_up_to_milli_leaves_exact_and_unreadable_values_alone() -> None:
    assert round_up_to_milli("250m") == "250m"
    assert round_up_to_milli(2) == 2
    assert round_up_to_milli("1.0001m") == "2m"
    assert round_up_to_milli("nope") == "nope"
