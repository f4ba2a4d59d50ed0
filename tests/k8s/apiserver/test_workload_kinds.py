"""The API server's errors about a ReplicaSet, StatefulSet, DaemonSet, CronJob (and a
Deployment's and a Job's selector): whole lines as ``kubectl apply`` prints them after the
object's name, in Go's order. Expected texts follow pkg/apis/{apps,batch}/validation and
apimachinery's ErrorBody; the LabelSelector ``%#v`` ones are as users have reported them
(kubernetes/kubernetes issues, e.g. ``v1.LabelSelector{MatchLabels:map[string]string{},
MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for
deployment``)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.k8s.apiserver import cluster_version, object_errors, validate_objects
from designer.k8s.apiserver.selectors import selector_matcher, validate_label_selector


def _template(restart: str = "Always", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "web"} if labels is None else labels},
        "spec": {"restartPolicy": restart, "containers": [{"name": "c", "image": "nginx"}]},
    }


def _apps(kind: str, **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}}, "template": _template()}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "web"}, "spec": base}


def _lines(obj: dict[str, Any]) -> list[str]:
    before, after = object_errors(obj)
    return [f"{e.field}: {e.body()}" for e in before + after]


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"])
def test_a_valid_object_has_no_errors(kind: str) -> None:
    obj = _apps(kind)
    assert _lines(obj) == []
    assert validate_objects([obj]) == []


def test_a_statefulset_in_gos_order() -> None:
    obj = _apps(
        "StatefulSet",
        podManagementPolicy="Sometimes",
        updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 2}},
        persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep"},
        replicas=-1,
        minReadySeconds=-5,
        ordinals={"start": -1},
        template=_template("Never", {"app": "other"}),
    )
    obj["metadata"]["name"] = "web.v1"  # a DNS subdomain, not the label pods need
    assert _lines(obj) == [
        'metadata.name: Invalid value: "web.v1": must not contain dots',
        "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or "
        "'Parallel'",
        "spec.updateStrategy.rollingUpdate: Invalid value: "
        "apps.RollingUpdateStatefulSetStrategy{Partition:2, "
        "MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy "
        "'RollingUpdate'",
        'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": '
        'supported values: "Retain", "Delete"',
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0",
        "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: '
        "`selector` does not match template `labels`",
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]


def test_selectors_that_do_not_convert_or_select_nothing() -> None:
    empty = _apps("StatefulSet", selector={})
    assert _lines(empty) == [
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
        "statefulset"
    ]
    missing = _apps("Deployment")
    del missing["spec"]["selector"]
    assert _lines(missing) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
        "`selector` does not match template `labels`",
    ]
    bad = _apps(
        "ReplicaSet",
        selector={"matchExpressions": [{"key": "tier", "operator": "Near", "values": ["a"]}]},
    )
    assert _lines(bad) == [
        'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid '
        "selector operator",
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{"
        'Key:"tier", Operator:"Near", Values:[]string{"a"}}}}: invalid label selector',
    ]


def test_a_daemonset_needs_no_selector_to_be_refused_for_it() -> None:
    obj = _apps("DaemonSet", updateStrategy={"rollingUpdate": {"maxUnavailable": 0}})
    del obj["spec"]["selector"]
    obj["spec"]["template"]["spec"]["activeDeadlineSeconds"] = 30
    assert _lines(obj) == [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
        "`selector` does not match template `labels`",
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
        "DaemonSet is not Supported",
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when "
        "maxSurge is 0",
    ]
    both = _apps("DaemonSet", updateStrategy={"rollingUpdate": {"maxSurge": "150%"}})
    assert _lines(both) == [
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, "
        'IntVal:0, StrVal:"150%"}: must not be greater than 100%',
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, "
        'IntVal:0, StrVal:"150%"}: may not be set when maxUnavailable is non-zero',
    ]


def test_a_deployments_counts_after_its_strategy() -> None:
    obj = _apps("Deployment", minReadySeconds=900, revisionHistoryLimit=-1)
    assert _lines(obj) == [
        "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        # progressDeadlineSeconds defaults to 600 before validation.
        "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds",
    ]


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ({"matchLabels": {"app": "web"}}, {"app": "web", "x": "y"}, True),
        ({"matchLabels": {"app": "web"}}, {"app": "api"}, False),
        (
            {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
            {"tier": "b"},
            True,
        ),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}, {}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        (
            {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]},
            {"tier": "a"},
            False,
        ),
        ({"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, {"gpu": ""}, True),
        ({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}, {"gpu": ""}, False),
        ({}, {}, True),
        (None, {"app": "web"}, False),
    ],
)
def test_label_selector_matches(selector: Any, labels: dict[str, str], matches: bool) -> None:
    matcher = selector_matcher(selector)
    assert matcher is not None
    assert matcher(labels) is matches


def test_label_selector_validation_paths() -> None:
    selector = {
        "matchLabels": {"a/b/c": "x"},
        "matchExpressions": [
            {"key": "k", "operator": "In"},
            {"key": "k", "operator": "Exists", "values": ["v"]},
            {"key": "k", "operator": "In", "values": ["ok", "not ok"]},
        ],
    }
    assert [(e.field, e.type) for e in validate_label_selector(selector, "spec.selector")] == [
        ("spec.selector.matchLabels", "FieldValueInvalid"),
        ("spec.selector.matchExpressions[0].values", "FieldValueRequired"),
        ("spec.selector.matchExpressions[1].values", "FieldValueForbidden"),
        ("spec.selector.matchExpressions[2].values[1]", "FieldValueInvalid"),
    ]
    assert selector_matcher(selector) is None


def _cronjob(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schedule": "*/5 * * * *",
        "jobTemplate": {"spec": {"template": _template("OnFailure")}},
    }
    base.update(spec)
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": base,
    }


def test_a_valid_cronjob_has_no_errors() -> None:
    obj = _cronjob(timeZone="Asia/Shanghai", concurrencyPolicy="Forbid")
    assert _lines(obj) == []
    assert validate_objects([obj]) == []


def test_a_cronjob_in_gos_order() -> None:
    obj = _cronjob(
        schedule="TZ=UTC */5 * * * *",
        startingDeadlineSeconds=-1,
        timeZone="Local",
        concurrencyPolicy="Sometimes",
        successfulJobsHistoryLimit=-1,
    )
    job = obj["spec"]["jobTemplate"]["spec"]
    job["completions"] = -1
    job["selector"] = {"matchLabels": {"app": "web"}}
    job["template"]["spec"]["restartPolicy"] = "Always"
    obj["metadata"]["name"] = "n" * 53
    assert _lines(obj) == [
        'spec.schedule: Invalid value: "TZ=UTC */5 * * * *": cannot use TZ or CRON_TZ in '
        "schedule, use timeZone field instead",
        "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
        'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as '
        "defined in https://www.iana.org/time-zones",
        'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", '
        '"Forbid", "Replace"',
        "spec.jobTemplate.spec.completions: Invalid value: -1: must be greater than or equal to 0",
        "spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "
        '"OnFailure", "Never"',
        "spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
        'map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
        "`selector` will be auto-generated",
        "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        f'metadata.name: Invalid value: "{"n" * 53}": must be no more than 52 characters',
    ]


def _job(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"template": _template("Never")}
    base.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"}, "spec": base}


def test_a_jobs_own_selector_needs_manual_selector() -> None:
    copied = _job(selector={"matchLabels": {"app": "web"}})
    assert _lines(copied) == [
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"
        '"app":"web", "batch.kubernetes.io/controller-uid":"<uid>"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated"
    ]
    manual = _job(selector={"matchLabels": {"app": "web"}}, manualSelector=True)
    assert _lines(manual) == []
    missing = _job(manualSelector=True)
    assert _lines(missing) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
        "`selector` does not match template `labels`",
    ]
    own_name = _job(selector={"matchLabels": {"batch.kubernetes.io/job-name": "train"}})
    assert _lines(own_name) == []


def test_a_jobs_indexed_fields() -> None:
    obj = _job(backoffLimitPerIndex=1, maxFailedIndexes=3)
    assert _lines(obj) == [
        "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
        "spec.maxFailedIndexes: Invalid value: 3: requires indexed completion mode",
    ]
    indexed = _job(completionMode="Indexed", completions=2, maxFailedIndexes=3)
    assert _lines(indexed) == [
        "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
        "spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions",
    ]


def test_a_success_policy_needs_indexed_completion_printed_as_go_prints_it() -> None:
    # TestValidateJob: `spec.successPolicy: Invalid value:
    # batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{}}: requires indexed completion mode`
    empty = _job(successPolicy={"rules": []})
    assert _lines(empty) == [
        "spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{}}"
        ": requires indexed completion mode"
    ]
    ruled = _job(successPolicy={"rules": [{"succeededIndexes": "0-2"}]})
    assert _lines(ruled) == [
        "spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{"
        "batch.SuccessPolicyRule{SucceededIndexes:(*string)(0xc000…), "
        "SucceededCount:(*int32)(nil)}}}: requires indexed completion mode"
    ]
    assert _lines(_job(successPolicy={})) == [
        "spec.successPolicy: Invalid value: "
        "batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule(nil)}: "
        "requires indexed completion mode"
    ]


def test_a_pod_failure_policys_rules() -> None:
    obj = _job(
        podFailurePolicy={
            "rules": [
                {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [0, 2, 2, 1]}},
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                {
                    "action": "Count",
                    "onExitCodes": {"operator": "In", "values": [1], "containerName": "x"},
                },
            ]
        }
    )
    assert _lines(obj) == [
        'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the '
        "backoffLimitPerIndex to be set",
        "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 "
        "for the In operator",
        "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2",
        "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 2, 2, 1}: "
        "must be ordered",
        'spec.podFailurePolicy.rules[2].onExitCodes.containerName: Invalid value: "x": must be '
        "one of the container or initContainer names in the pod template",
    ]


def test_kinds_of_another_group_are_not_validated_as_these() -> None:
    obj = copy.deepcopy(_apps("StatefulSet", replicas=-1))
    obj["apiVersion"] = "example.com/v1"
    assert object_errors(obj) == ([], [])


GO_CASES = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "workload_go_cases.yaml").read_text()
)


@pytest.mark.parametrize(
    "case", GO_CASES, ids=[f"{c['object']['kind']}: {c['name']}" for c in GO_CASES]
)
def test_kubernetes_go_cases(case: dict[str, Any]) -> None:
    """Kubernetes' own test tables (pkg/apis/apps and batch validation_test.go, apimachinery's
    label selector tests) transcribed as manifests: every error, in Go's order, at Go's
    path, with Go's type, and Go's detail where it is a fixed string."""
    got = [(e.field, e.type, e.message) for _, e in validate_objects([case["object"]])]
    expected = case["errors"]
    assert [(f, t) for f, t, _ in got] == [(e[0], e[1]) for e in expected]
    for (_f, _t, message), e in zip(got, expected, strict=True):
        if len(e) > 2:
            assert message == e[2]


def test_statefulset_max_unavailable_follows_the_version() -> None:
    obj = _apps("StatefulSet", updateStrategy={"rollingUpdate": {"maxUnavailable": 0}})
    assert _lines(obj) == [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "
        'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: cannot be 0'
    ]
    # Alpha and off before 1.35: the API server drops the field and accepts the object.
    before, after = object_errors(obj, cluster_version("1.34"))
    assert before + after == []


def test_a_replication_controller() -> None:
    obj = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "web"},
        "spec": {"template": _template()},
    }
    # SetDefaults_ReplicationController: the selector (and labels) from the template's labels.
    assert _lines(obj) == []
    assert validate_objects([obj]) == []
    obj["spec"].update(selector={"app": "api"}, replicas=-2)
    obj["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert _lines(obj) == [
        "spec.replicas: Invalid value: -2: must be greater than or equal to 0",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
        "`selector` does not match template `labels`",
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: '
        '"Always"',
    ]
    unlabelled = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "web"},
        "spec": {"template": _template(labels={})},
    }
    assert _lines(unlabelled) == ["spec.selector: Required value"]


def test_a_jobs_template_labels_that_the_api_server_sets() -> None:
    obj = _job()
    obj["spec"]["template"]["metadata"]["labels"]["batch.kubernetes.io/job-name"] = "other"
    assert _lines(obj) == [
        "spec.template.metadata.labels[batch.kubernetes.io/job-name]: Invalid value: "
        'map[string]string{"app":"web", "batch.kubernetes.io/controller-uid":"<uid>", '
        '"batch.kubernetes.io/job-name":"other", "controller-uid":"<uid>", '
        '"job-name":"train"}: must be \'train\''
    ]


def test_a_jobs_defaults_come_before_its_validation() -> None:
    # SetDefaults_Job: completions and parallelism 1; a condition pattern's status True.
    indexed = _job(completionMode="Indexed")
    assert _lines(indexed) == []
    policy = _job(
        podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [{"type": "Ready"}]}]}
    )
    assert _lines(policy) == []
    # ... but a CronJob's job template is not defaulted as a Job.
    cron = _cronjob()
    cron["spec"]["jobTemplate"]["spec"]["completionMode"] = "Indexed"
    assert _lines(cron) == [
        "spec.jobTemplate.spec.completions: Required value: when completion mode is Indexed"
    ]


def test_a_success_policys_indexes() -> None:
    obj = _job(
        completionMode="Indexed",
        completions=3,
        successPolicy={
            "rules": [
                {"succeededIndexes": "0-9", "succeededCount": 2},
                {"succeededIndexes": "0,2", "succeededCount": 3},
                {"succeededIndexes": "2-1"},
            ]
        },
    )
    assert _lines(obj) == [
        'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-9": error parsing '
        'succeededIndexes: too large index: "9"',
        "spec.successPolicy.rules[0].succeededCount: Invalid value: 2: must be less than or "
        "equal to 0 (the number of indexes in the specified succeededIndexes field)",
        "spec.successPolicy.rules[1].succeededCount: Invalid value: 3: must be less than or "
        "equal to 2 (the number of indexes in the specified succeededIndexes field)",
        'spec.successPolicy.rules[2].succeededIndexes: Invalid value: "2-1": error parsing '
        "succeededIndexes: non-increasing order, previous: 2, current: 1",
    ]


def test_a_jobs_managed_by_follows_the_version() -> None:
    obj = _job(managedBy="bad")
    assert _lines(obj) == [
        'spec.managedBy: Invalid value: "bad": must be a domain-prefixed path (such as '
        '"acme.io/foo")'
    ]
    before, after = object_errors(obj, cluster_version("1.31"))  # JobManagedBy alpha: dropped
    assert before + after == []


def test_too_long_values_say_it_in_the_releases_words() -> None:
    # kubernetes#128553 (1.32): TooLongMaxLength became TooLong, "may not be more than N bytes".
    managed = _job(managedBy="example.com/" + "c" * 60)
    assert _lines(managed) == ["spec.managedBy: Too long: may not be more than 63 bytes"]
    annotated = _job()
    annotated["metadata"]["annotations"] = {"note": "x" * (256 * 1024)}
    assert _lines(annotated) == [
        "metadata.annotations: Too long: may not be more than 262144 bytes"
    ]
    before, after = object_errors(annotated, cluster_version("1.31"))
    assert [f"{e.field}: {e.body()}" for e in before + after] == [
        "metadata.annotations: Too long: must have at most 262144 bytes"
    ]


def test_an_unconvertible_selector_skips_the_template_checks() -> None:
    obj = _apps(
        "Deployment",
        selector={"matchExpressions": [{"key": "a", "operator": "Bogus"}]},
        template=_template("Never"),
    )
    lines = _lines(obj)
    assert lines[-1].endswith(": invalid label selector")
    assert not any("restartPolicy" in line for line in lines)


def test_progress_deadline_errors_both() -> None:
    assert _lines(_apps("Deployment", progressDeadlineSeconds=-1)) == [
        "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
        "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than minReadySeconds",
    ]


def test_leading_zeros_in_a_percent_count_for_nothing() -> None:
    obj = _apps(
        "Deployment", strategy={"rollingUpdate": {"maxUnavailable": "0000000000000000000001%"}}
    )
    assert _lines(obj) == []


def test_a_job_as_kubectl_get_prints_it_has_no_errors() -> None:
    """A dump's Job carries the selector and labels the API server generated, with its uid."""
    uid = "5d3c8f1e-7b2a-4c6d-9e0f-1a2b3c4d5e6f"
    generated = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "train",
        "controller-uid": uid,
        "job-name": "train",
    }
    obj = _job(
        selector={"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
        backoffLimit=6,
        completionMode="NonIndexed",
        completions=1,
        parallelism=1,
        podReplacementPolicy="TerminatingOrFailed",
        suspend=False,
    )
    obj["metadata"].update(uid=uid, labels=dict(generated), resourceVersion="42", generation=1)
    obj["spec"]["template"]["metadata"]["labels"] = dict(generated)
    assert _lines(obj) == []
    # The same Job created again (a new uid) is refused: its selector is not the generated one.
    del obj["metadata"]["uid"]
    assert [line.split(":")[0] for line in _lines(obj)] == [
        "spec.template.metadata.labels[controller-uid]",
        "spec.template.metadata.labels[batch.kubernetes.io/controller-uid]",
        "spec.selector",
    ]


DUMPED = {
    "Deployment": {
        "progressDeadlineSeconds": 600,
        "replicas": 3,
        "revisionHistoryLimit": 10,
        "strategy": {
            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
            "type": "RollingUpdate",
        },
    },
    "StatefulSet": {
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "podManagementPolicy": "OrderedReady",
        "replicas": 1,
        "revisionHistoryLimit": 10,
        "serviceName": "web",
        "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
    },
    "DaemonSet": {
        "revisionHistoryLimit": 10,
        "updateStrategy": {
            "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
            "type": "RollingUpdate",
        },
    },
    "ReplicaSet": {"replicas": 2},
}


@pytest.mark.parametrize("kind", sorted(DUMPED))
def test_objects_as_kubectl_get_prints_them_have_no_errors(kind: str) -> None:
    """What the API server stored (its defaults written out) validates again without errors."""
    obj = _apps(kind, **DUMPED[kind])
    obj["metadata"].update(uid="u-1", resourceVersion="7", generation=2, namespace="default")
    obj["spec"]["template"]["metadata"]["creationTimestamp"] = None
    assert _lines(obj) == []


def test_a_cronjob_as_kubectl_get_prints_it_has_no_errors() -> None:
    obj = _cronjob(
        concurrencyPolicy="Allow",
        failedJobsHistoryLimit=1,
        successfulJobsHistoryLimit=3,
        suspend=False,
    )
    obj["spec"]["jobTemplate"]["metadata"] = {"creationTimestamp": None}
    obj["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["creationTimestamp"] = None
    assert _lines(obj) == []
