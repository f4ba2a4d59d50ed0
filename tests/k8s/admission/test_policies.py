"""Reading a pasted namespace policy (the designer's panel): LimitRanges and ResourceQuotas
decoded and validated as the API server would, running Pods kept for a quota without status,
everything else named."""

from __future__ import annotations

from designer.k8s.admission import read_policy_text
from designer.k8s.apiserver import cluster_version

V135 = cluster_version("1.35")

KUBECTL_LIST = """\
apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: LimitRange
  metadata:
    name: defaults
    namespace: team
    uid: 0b6e1f3a-2c4d-4e5f-8a9b-0c1d2e3f4a5b
    resourceVersion: "1234"
  spec:
    limits:
    - type: Container
      default: {cpu: 500m, memory: 512Mi}
      defaultRequest: {cpu: 100m, memory: 256Mi}
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: compute, namespace: team}
  spec:
    hard: {requests.cpu: "4"}
- apiVersion: v1
  kind: Pod
  metadata: {name: running, namespace: team, uid: 1f2e3d4c}
  spec:
    containers:
    - name: main
      image: x
      resources: {requests: {cpu: "3"}}
  status: {phase: Running}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: team}
"""


def test_a_kubectl_get_list_gives_its_policies_its_running_pods_and_names_the_rest() -> None:
    text = read_policy_text(KUBECTL_LIST, version=V135)
    assert [f.skipped.kind for f in text.found] == ["LimitRange", "ResourceQuota"]
    assert text.namespaces == ["team"]
    assert len(text.pods) == 1 and text.pods[0][0] == "team"
    (note,) = text.notes
    assert note.document == 0
    assert note.message.text == (
        "Document 0 (items[3]): ConfigMap settings is not read here (only LimitRanges, "
        "ResourceQuotas and, for a quota without status, running Pods are)."
    )
    assert text.unreadable == []


def test_a_quota_without_status_counts_the_running_pods_of_the_text() -> None:
    text = read_policy_text(KUBECTL_LIST, version=V135)
    policies, reports = text.policies(V135, None)
    (quota,) = policies["team"].quotas
    assert str(quota.status_used["requests.cpu"]) == "3"
    assert [r.used_from for r in reports] == [None, "input"]


def test_objects_without_a_namespace_are_in_the_namespace_asked_for() -> None:
    text = read_policy_text(
        "kind: LimitRange\nmetadata: {name: d}\nspec:\n  limits:\n  - type: Container\n"
        "    default: {cpu: 1}\n",
        version=V135,
    )
    assert text.namespaces == []
    policies, reports = text.policies(V135, "ml")
    assert list(policies) == ["ml"] and reports[0].policy.namespace == "ml"


def test_an_invalid_limit_range_is_reported_as_the_api_server_does_and_not_applied() -> None:
    text = read_policy_text(
        "kind: LimitRange\nmetadata: {name: bad, namespace: team}\nspec:\n  limits:\n"
        "  - type: Container\n    min: {cpu: '2'}\n    max: {cpu: '1'}\n",
        version=V135,
    )
    policies, (report,) = text.policies(V135, None)
    assert policies == {}
    assert report.policy.message is not None
    assert report.policy.message.startswith('LimitRange "bad" is invalid: ')
    assert "min value 2 is greater than max value 1" in report.policy.message


def test_a_pod_that_is_not_running_is_named_not_counted() -> None:
    text = read_policy_text(
        "kind: Pod\nmetadata: {name: draft}\nspec: {containers: [{name: a, image: x}]}\n",
        version=V135,
    )
    assert text.pods == []
    assert [n.message.text for n in text.notes] == [
        "Document 0: Pod draft is not running (it has no status), so it does not count in any "
        "quota's usage."
    ]


def test_unreadable_text_and_documents_are_named_with_the_readers_message() -> None:
    whole = read_policy_text(b"\xff\xfe", version=V135)
    assert whole.found == [] and whole.unreadable and whole.unreadable[0][0] is None
    partial = read_policy_text(
        "kind: [\n---\nkind: LimitRange\nmetadata: {name: x}\n", version=V135
    )
    assert [d for d, _m in partial.unreadable] == [0]
    assert [f.skipped.kind for f in partial.found] == ["LimitRange"]
