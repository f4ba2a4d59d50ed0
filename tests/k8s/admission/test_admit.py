"""A pod through its namespace, end to end: podspec check's JSON for manifests that carry
LimitRanges and ResourceQuotas, on the chosen Kubernetes version."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.k8s.check import check_texts

BEST_EFFORT_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
"""
DEFAULTS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 256Mi}
"""
GPU_QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec:
  hard: {requests.nvidia.com/gpu: "8"}
status:
  hard: {requests.nvidia.com/gpu: "8"}
  used: {requests.nvidia.com/gpu: "6"}
"""


def check(*docs: str, **options: Any) -> dict[str, Any]:
    return check_texts([("in.yaml", "---\n".join(docs))], **options)


def objects(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in result["objects"]}


# --- LimitRanger ----------------------------------------------------------------------------


def test_a_best_effort_pod_in_a_defaulting_namespace_is_admitted_burstable() -> None:
    (pod,) = check(DEFAULTS, BEST_EFFORT_POD)["objects"]
    assert pod["qosClass"] == "BestEffort"  # as written
    admission = pod["admission"]
    assert admission["allowed"] is True
    assert admission["qosClass"] == "Burstable"
    assert admission["qosChange"] == (
        "written as BestEffort; admitted as Burstable because LimitRange/defaults sets cpu and "
        "memory"
    )
    assert admission["defaulted"] == [
        {
            "field": "spec.containers[0].resources.limits[cpu]",
            "value": "500m",
            "from": "LimitRange/defaults",
        },
        {
            "field": "spec.containers[0].resources.limits[memory]",
            "value": "512Mi",
            "from": "LimitRange/defaults",
        },
        {
            "field": "spec.containers[0].resources.requests[cpu]",
            "value": "100m",
            "from": "LimitRange/defaults",
        },
        {
            "field": "spec.containers[0].resources.requests[memory]",
            "value": "256Mi",
            "from": "LimitRange/defaults",
        },
    ]
    assert admission["annotations"] == {
        "kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu, memory request for container "
        "main; cpu, memory limit for container main"
    }
    assert admission["effectiveRequests"] == {"cpu": "100m", "memory": "256Mi"}
    assert admission["effectiveLimits"] == {"cpu": "500m", "memory": "512Mi"}
    assert admission["quota"] is None


def test_no_policy_in_the_namespace_means_admission_is_null() -> None:
    other = BEST_EFFORT_POD.replace("namespace: team", "namespace: other")
    (pod,) = check(DEFAULTS, other)["objects"]
    assert pod["admission"] is None


def test_objects_without_a_namespace_belong_to_the_namespace_option_or_default() -> None:
    lr = DEFAULTS.replace(", namespace: team", "")
    pod = BEST_EFFORT_POD.replace(", namespace: team", "")
    assert check(lr, pod)["objects"][0]["admission"]["qosClass"] == "Burstable"
    result = check(lr, pod, namespace="team")
    assert result["policies"][0]["namespace"] == "team"
    assert result["objects"][0]["admission"]["qosClass"] == "Burstable"
    # A pod of another namespace is not governed by them.
    elsewhere = BEST_EFFORT_POD.replace("namespace: team", "namespace: prod")
    assert check(lr, elsewhere, namespace="team")["objects"][0]["admission"] is None


def test_a_default_limit_below_the_written_request_fails_validation_after_mutation() -> None:
    pod = BEST_EFFORT_POD + "    resources: {requests: {memory: 1Gi}}\n"
    (obj,) = check(DEFAULTS, pod)["objects"]
    assert obj["errors"] == []  # valid as written
    (denial,) = obj["admission"]["denials"]
    assert denial["plugin"] == "LimitRanger"
    assert denial["object"] == "LimitRange/defaults"
    assert denial["apiServerMessage"] == (
        'Pod "trainer" is invalid: spec.containers[0].resources.requests: Invalid value: "1Gi": '
        "must be less than or equal to memory limit of 512Mi"
    )


def test_min_max_and_ratio_refusals_carry_the_plugins_words() -> None:
    lr = """\
apiVersion: v1
kind: LimitRange
metadata: {name: bounds, namespace: team}
spec:
  limits:
  - type: Container
    min: {cpu: 100m}
    maxLimitRequestRatio: {cpu: "2"}
"""
    pod = BEST_EFFORT_POD + "    resources: {requests: {cpu: 50m}, limits: {cpu: 200m}}\n"
    (obj,) = check(lr, pod)["objects"]
    (denial,) = obj["admission"]["denials"]
    assert denial["apiServerMessage"] == (
        'pods "trainer" is forbidden: [minimum cpu usage per Container is 100m, but request is '
        "50m, cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]"
    )


def test_an_invalid_limit_range_is_reported_as_the_api_server_does_and_not_applied() -> None:
    bad = """\
apiVersion: v1
kind: LimitRange
metadata: {name: bad, namespace: team}
spec:
  limits:
  - type: Container
    min: {cpu: "2"}
    max: {cpu: "1"}
  - type: Pod
    default: {cpu: "1"}
"""
    result = check(bad, BEST_EFFORT_POD)
    (policy,) = result["policies"]
    assert policy["applied"] is False
    assert policy["message"] == (
        'LimitRange "bad" is invalid: [spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is '
        "greater than max value 1, spec.limits[0].defaultRequest[cpu]: Invalid value: 1: min "
        "value 2 is greater than default request value 1, spec.limits[0].default[cpu]: Invalid "
        "value: 2: min value 2 is greater than default value 1, spec.limits[1].default: "
        "Forbidden: may not be specified when `type` is 'Pod']"
    )
    assert result["objects"][0]["admission"] is None


# --- ResourceQuota --------------------------------------------------------------------------


def test_a_gpu_quota_with_six_of_eight_used_fits_two_more() -> None:
    pod = BEST_EFFORT_POD + "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    (obj,) = check(GPU_QUOTA, pod)["objects"]
    quota = obj["admission"]["quota"]
    assert quota["fits"] == 2
    assert quota["bottleneck"] == "requests.nvidia.com/gpu"
    assert quota["object"] == "ResourceQuota/gpus"
    assert obj["admission"]["allowed"] is True


def test_a_deployment_of_three_gets_two_pods_and_the_third_is_told_why() -> None:
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: team}
spec:
  replicas: 3
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec:
      containers:
      - name: main
        image: triton
        resources: {limits: {nvidia.com/gpu: 1}}
"""
    (obj,) = check(GPU_QUOTA, deployment)["objects"]
    admission = obj["admission"]
    assert admission["quota"]["fits"] == 2 and admission["quota"]["replicas"] == 3
    (denial,) = admission["denials"]
    assert denial["replica"] == 3
    assert denial["message"] == (
        "exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, "
        "used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8"
    )
    assert denial["apiServerMessage"] is None  # a ReplicaSet's pods get random names


def test_a_statefulset_pod_is_named_by_its_ordinal_in_the_message() -> None:
    sts = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: team}
spec:
  replicas: 4
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: main
        image: pg
        resources: {limits: {nvidia.com/gpu: 1}}
"""
    (obj,) = check(GPU_QUOTA, sts)["objects"]
    (denial,) = obj["admission"]["denials"]
    assert denial["replica"] == 3
    assert denial["apiServerMessage"].startswith('pods "db-2" is forbidden: exceeded quota: gpus')


def test_a_pod_without_cpu_limits_is_refused_by_a_quota_on_limits_cpu() -> None:
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: team}
spec:
  hard: {limits.cpu: "8", limits.memory: 16Gi}
status:
  hard: {limits.cpu: "8", limits.memory: 16Gi}
  used: {limits.cpu: "0", limits.memory: "0"}
"""
    pod = BEST_EFFORT_POD + "    resources: {requests: {cpu: 1}, limits: {memory: 1Gi}}\n"
    (obj,) = check(quota, pod)["objects"]
    (denial,) = obj["admission"]["denials"]
    assert denial["plugin"] == "ResourceQuota"
    assert denial["apiServerMessage"] == (
        'pods "trainer" is forbidden: failed quota: compute: must specify limits.cpu for: main'
    )


def test_several_exceeded_resources_are_listed_sorted_in_all_three_lists() -> None:
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: team}
spec: {hard: {requests.cpu: "4", limits.cpu: "4", pods: "10"}}
status:
  hard: {requests.cpu: "4", limits.cpu: "4", pods: "10"}
  used: {requests.cpu: "3", limits.cpu: "3", pods: "1"}
"""
    pod = BEST_EFFORT_POD + "    resources: {requests: {cpu: 2}, limits: {cpu: 2}}\n"
    (denial,) = check(quota, pod)["objects"][0]["admission"]["denials"]
    assert denial["message"] == (
        "exceeded quota: compute, requested: limits.cpu=2,requests.cpu=2, "
        "used: limits.cpu=3,requests.cpu=3, limited: limits.cpu=4,requests.cpu=4"
    )


def test_a_best_effort_scope_quota_counts_the_pod_by_its_admitted_class() -> None:
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: be, namespace: team}
spec: {hard: {pods: "5"}, scopes: [BestEffort]}
status: {hard: {pods: "5"}, used: {pods: "5"}}
"""
    # As written it is BestEffort and the full quota would refuse it; LimitRanger's defaults
    # make it Burstable first, so the BestEffort quota does not apply.
    (obj,) = check(DEFAULTS, quota, BEST_EFFORT_POD)["objects"]
    assert obj["admission"]["allowed"] is True
    assert obj["admission"]["quota"] is None
    (alone,) = check(quota, BEST_EFFORT_POD)["objects"]
    assert alone["admission"]["denials"][0]["message"] == (
        "exceeded quota: be, requested: pods=1, used: pods=5, limited: pods=5"
    )


def test_a_hand_written_quota_counts_the_running_pods_of_the_input() -> None:
    quota = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec: {hard: {requests.nvidia.com/gpu: "2"}}
"""
    running = """\
apiVersion: v1
kind: Pod
metadata: {name: old, namespace: team, uid: 1234}
spec:
  containers:
  - {name: main, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
status: {phase: Running}
"""
    new = BEST_EFFORT_POD + "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    result = check(quota, running, new)
    assert result["policies"][0]["usedFrom"] == "input"
    assert objects(result)["trainer"]["admission"]["quota"]["fits"] == 1


# --- the Kubernetes version -----------------------------------------------------------------

POD_LEVEL = """\
apiVersion: v1
kind: Pod
metadata: {name: plr, namespace: team}
spec:
  resources:
    requests: {cpu: "2", memory: 4Gi}
    limits: {cpu: "2", memory: 4Gi}
  containers:
  - {name: a, image: x}
  - {name: b, image: x}
"""


def test_the_same_pod_level_manifest_answers_differently_on_1_33_and_1_34() -> None:
    on_133 = check(POD_LEVEL, kubernetes_version="1.33")
    on_134 = check(POD_LEVEL, kubernetes_version="1.34")
    (old,), (new,) = on_133["objects"], on_134["objects"]
    assert on_133["kubernetesVersion"] == "1.33" and on_134["kubernetesVersion"] == "1.34"
    assert new["qosClass"] == "Guaranteed"  # pod-level resources decide
    assert new["effectiveRequests"] == {"cpu": "2", "memory": "4Gi"}
    assert old["qosClass"] == "BestEffort"  # spec.resources dropped: nothing is left
    assert old["effectiveRequests"] == {}
    (note,) = old["versionNotes"]
    assert note["field"] == "spec.resources"
    assert "drops spec.resources" in note["message"]
    assert "KEP-2837" in note["source"]
    assert new["versionNotes"] == []


def test_quota_must_specify_applies_to_pod_level_pods_only_before_1_34() -> None:
    quota = GPU_QUOTA.replace("requests.nvidia.com/gpu", "requests.cpu")
    assert check(quota, POD_LEVEL, kubernetes_version="1.34")["objects"][0]["admission"]["allowed"]
    (denial,) = check(quota, POD_LEVEL, kubernetes_version="1.33")["objects"][0]["admission"][
        "denials"
    ]
    assert denial["message"] == "failed quota: gpus: must specify requests.cpu for: a,b"


def test_an_empty_spec_resources_decides_qos_on_1_35_not_in_newer_releases() -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {}
  containers:
  - {name: a, image: x, resources: {limits: {cpu: 1, memory: 1Gi}}}
"""
    (obj,) = check(pod, kubernetes_version="1.35")["objects"]
    assert obj["qosClass"] == "BestEffort"  # kubernetes#135082
    assert [n["field"] for n in obj["versionNotes"]] == ["spec.resources"]
    (old,) = check(pod, kubernetes_version="1.33")["objects"]
    assert old["qosClass"] == "Guaranteed"  # the field is dropped before the bug can bite


def test_resize_policy_is_dropped_before_1_33() -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: a
    image: x
    resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
"""
    (obj,) = check(pod, kubernetes_version="1.32")["objects"]
    assert [n["field"] for n in obj["versionNotes"]] == ["spec.containers[0].resizePolicy"]
    assert check(pod, kubernetes_version="1.33")["objects"][0]["versionNotes"] == []


# --- robustness -------------------------------------------------------------------------------

quantity_text = st.one_of(
    st.sampled_from(
        ["0", "1", "100m", "1.5", "2Gi", "-1", "1e3", "0.0001", "8Ei", "1e18", "abc", ""]
    ),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
)
resource_name = st.sampled_from(
    [
        "cpu",
        "memory",
        "ephemeral-storage",
        "hugepages-2Mi",
        "nvidia.com/gpu",
        "pods",
        "bad name",
        "requests.cpu",
        "limits.memory",
        "requests.nvidia.com/gpu",
        "count/pods",
        "storage",
    ]
)
resource_list = st.dictionaries(resource_name, quantity_text, max_size=4)
limit_item = st.fixed_dictionaries(
    {"type": st.sampled_from(["Container", "Pod", "PersistentVolumeClaim", "Other", ""])},
    optional={
        k: resource_list
        for k in ("min", "max", "default", "defaultRequest", "maxLimitRequestRatio")
    },
)
scope = st.sampled_from(["BestEffort", "NotBestEffort", "Terminating", "PriorityClass", "Nope"])
quota_spec = st.fixed_dictionaries(
    {"hard": resource_list},
    optional={
        "scopes": st.lists(scope, max_size=3),
        "scopeSelector": st.fixed_dictionaries(
            {
                "matchExpressions": st.lists(
                    st.fixed_dictionaries(
                        {
                            "scopeName": scope,
                            "operator": st.sampled_from(["In", "NotIn", "Exists", "Bad"]),
                        },
                        optional={"values": st.lists(st.sampled_from(["high", "low"]), max_size=2)},
                    ),
                    max_size=2,
                )
            }
        ),
    },
)
container = st.fixed_dictionaries(
    {"name": st.sampled_from(["a", "b", ""]), "image": st.just("x")},
    optional={
        "resources": st.fixed_dictionaries(
            {}, optional={"requests": resource_list, "limits": resource_list}
        )
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(limit_item, max_size=3),
    quota=quota_spec,
    status=st.one_of(
        st.none(), st.fixed_dictionaries({"hard": resource_list, "used": resource_list})
    ),
    containers=st.lists(container, min_size=1, max_size=3),
    pod_level=st.one_of(
        st.none(),
        st.fixed_dictionaries({}, optional={"requests": resource_list, "limits": resource_list}),
    ),
    version=st.sampled_from(["1.31", "1.33", "1.34", "1.35"]),
    replicas=st.integers(0, 10**6),
)
def test_admission_never_crashes_on_arbitrary_limit_ranges_and_quotas(
    items: list[Any],
    quota: dict[str, Any],
    status: dict[str, Any] | None,
    containers: list[Any],
    pod_level: dict[str, Any] | None,
    version: str,
    replicas: int,
) -> None:
    lr = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "lr"},
        "spec": {"limits": items},
    }
    rq: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "q"},
        "spec": quota,
    }
    if status is not None:
        rq["status"] = status
    spec: dict[str, Any] = {"containers": containers}
    if pod_level is not None:
        spec["resources"] = pod_level
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"replicas": replicas, "template": {"spec": spec}},
    }
    text = yaml.safe_dump_all([lr, rq, deployment])
    result = check_texts([("in.yaml", text)], kubernetes_version=version)
    assert len(result["policies"]) == 2
    for p in result["policies"]:
        assert p["applied"] == (p["message"] is None)
    (obj,) = result["objects"]
    admission = obj["admission"]
    if admission is not None:
        assert admission["allowed"] == (not admission["denials"])
        if admission["quota"] and admission["quota"]["fits"] is not None:
            assert admission["quota"]["fits"] >= 0


def test_pods_of_one_template_share_the_admission_but_keep_their_own_names() -> None:
    full = GPU_QUOTA.replace(
        'used: {requests.nvidia.com/gpu: "6"}', 'used: {requests.nvidia.com/gpu: "8"}'
    )
    pod = BEST_EFFORT_POD + "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    result = check(full, pod, pod.replace("name: trainer", "name: trainer-2"))
    texts = [o["admission"]["denials"][0]["apiServerMessage"] for o in result["objects"]]
    assert [t.split(" is forbidden")[0] for t in texts] == ['pods "trainer"', 'pods "trainer-2"']
