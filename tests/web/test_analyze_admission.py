"""The Analyze page with namespace policies and a chosen Kubernetes version: admission per
row (admitted class, defaulted fields, denials, quota room), the policies section, the
version picker, and the filter by admission."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

POLICY_AND_PODS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 256Mi}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec: {hard: {requests.nvidia.com/gpu: "8"}}
status: {hard: {requests.nvidia.com/gpu: "8"}, used: {requests.nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: team}
spec:
  containers: [{name: main, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team}
spec:
  containers: [{name: main, image: pytorch, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere, namespace: prod}
spec:
  containers: [{name: main, image: nginx}]
"""


@pytest.fixture(autouse=True)
def _private_store(settings, tmp_path) -> None:
    settings.ANALYSIS_STORE_DIR = tmp_path / "analyses"


def post(client: Client, text: str, **fields: str) -> str:
    response = client.post("/analyze", {"text": text, **fields})
    assert response.status_code == 303, response.content.decode()[:500]
    return response["Location"]


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html_lib.unescape(response.content.decode())


def workload(html: str, name: str) -> str:
    match = re.search(
        rf'<tbody class="an-workload" data-workload="[^"]*/{name}".*?</tbody>', html, re.S
    )
    assert match, name
    return match.group(0)


def test_rows_show_the_admitted_class_defaults_denials_and_quota_room(client: Client) -> None:
    html = page(client, post(client, POLICY_AND_PODS))
    plain = workload(html, "plain")
    assert 'data-admitted-qos="Burstable"' in plain
    assert (
        "written as BestEffort; admitted as Burstable because LimitRange/defaults sets cpu and "
        "memory"
    ) in plain
    assert "spec.containers[0].resources.requests[cpu]: 100m" in plain
    assert "kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request" in plain
    trainer = workload(html, "trainer")
    assert "data-denied" in trainer
    assert (
        'pods "trainer" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, '
        "used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8"
    ) in trainer
    assert 'data-quota-fits="0"' in trainer
    assert "data-admitted-qos" not in workload(html, "elsewhere")  # no policy in prod
    assert re.search(r'data-stat="denied"[^>]*>1<', html)
    assert (
        'data-policy="LimitRange/defaults"' in html and 'data-policy="ResourceQuota/gpus"' in html
    )


def test_the_admission_filter_keeps_denied_rows(client: Client) -> None:
    url = post(client, POLICY_AND_PODS)
    denied = page(client, f"{url}?admission=denied")
    assert re.findall(r'data-workload="([^"]*)"', denied) == ["team/trainer"]
    none = page(client, f"{url}?admission=none")
    assert re.findall(r'data-workload="([^"]*)"', none) == ["prod/elsewhere"]


def test_the_version_picker_answers_for_the_chosen_release_and_is_kept(client: Client) -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: plr}
spec:
  resources: {limits: {cpu: "1", memory: 1Gi}}
  containers: [{name: main, image: nginx}]
"""
    new = page(client, post(client, pod))
    assert 'data-qos="Guaranteed"' in new
    old = page(client, post(client, pod, kubernetes_version="1.33"))
    assert 'data-qos="BestEffort"' in old
    assert 'data-analysis-version="1.33"' in old
    assert "On Kubernetes 1.33" in old and "drops spec.resources" in old
    assert '<option value="1.33" selected>1.33</option>' in old


def test_the_namespace_field_places_objects_without_one(client: Client) -> None:
    text = POLICY_AND_PODS.replace(", namespace: team", "")
    html = page(client, post(client, text, namespace="team"))
    assert "objects without a namespace are in “team”" in html
    assert 'data-admitted-qos="Burstable"' in workload(html, "plain")


def test_an_invalid_namespace_is_refused_with_kubernetes_words(client: Client) -> None:
    response = client.post("/analyze", {"text": POLICY_AND_PODS, "namespace": "Team_A"})
    assert response.status_code == 400
    assert "The namespace is not valid" in response.content.decode()


def test_an_invalid_limit_range_is_listed_as_not_applied(client: Client) -> None:
    bad = POLICY_AND_PODS.replace(
        "default: {cpu: 500m, memory: 512Mi}", "default: {cpu: 1, memory: lots}"
    )
    html = page(client, post(client, bad))
    assert "not applied" in html
    assert 'LimitRange "defaults" is invalid: spec.limits[0].default[memory]' in html
    assert "data-admitted-qos" not in workload(html, "plain")


def test_the_footer_names_the_default_release(client: Client) -> None:
    html = page(client, "/analyze")
    assert 'data-kubernetes-version="1.35"' in html
    assert "course" not in html
