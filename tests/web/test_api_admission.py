"""/api/v1/analyze with namespace policies and the cluster's version as query parameters;
/api/v1/render with ``kubernetesVersion`` next to the design's fields."""

from __future__ import annotations

import json

import pytest
import yaml
from django.test import Client

from designer.api import CheckResultOut, RenderOut
from designer.k8s.check import check_texts
from designer.k8s.design import preset_design

MANIFEST = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  resources: {limits: {cpu: "1", memory: 1Gi}}
  containers:
  - {name: main, image: nginx}
"""


def analyze(client: Client, query: str = "", body: str = MANIFEST):
    return client.post(f"/api/v1/analyze{query}", data=body, content_type="application/yaml")


def test_analyze_answers_what_the_cli_prints_for_the_same_version_and_namespace(
    client: Client,
) -> None:
    response = analyze(client, "?kubernetesVersion=1.33&namespace=team")
    assert response.status_code == 200
    body = response.json()
    CheckResultOut.model_validate(body)
    expected = check_texts([("request", MANIFEST)], kubernetes_version="1.33", namespace="team")
    assert body == json.loads(json.dumps(expected))
    (obj,) = body["objects"]
    assert body["kubernetesVersion"] == "1.33"
    assert body["policies"][0]["namespace"] == "team"
    assert obj["admission"]["qosClass"] == "Guaranteed"  # pod-level dropped; defaults fill
    assert obj["versionNotes"][0]["field"] == "spec.resources"


def test_analyze_defaults_to_the_newest_release_and_the_default_namespace(client: Client) -> None:
    body = analyze(client).json()
    assert body["kubernetesVersion"] == "1.35"
    assert body["policies"][0]["namespace"] == "default"
    (obj,) = body["objects"]
    assert obj["qosClass"] == "Guaranteed" and obj["versionNotes"] == []
    # Container defaults are injected even though the pod sets pod-level resources.
    assert {d["field"] for d in obj["admission"]["defaulted"]} == {
        "spec.containers[0].resources.limits[cpu]",
        "spec.containers[0].resources.limits[memory]",
        "spec.containers[0].resources.requests[cpu]",
        "spec.containers[0].resources.requests[memory]",
    }


@pytest.mark.parametrize(
    ("query", "needle"),
    [
        ("?kubernetesVersion=1.29", "choose one of 1.31, 1.32, 1.33, 1.34, 1.35"),
        ("?namespace=Team_A", "namespace 'Team_A' is not valid"),
    ],
)
def test_a_bad_version_or_namespace_is_400(client: Client, query: str, needle: str) -> None:
    response = analyze(client, query)
    assert response.status_code == 400
    assert needle in response.json()["error"]


def test_a_body_with_only_policies_answers_200_and_lists_them(client: Client) -> None:
    response = analyze(client, body=MANIFEST.split("---")[0])
    assert response.status_code == 200
    body = response.json()
    assert body["objects"] == [] and [p["kind"] for p in body["policies"]] == ["LimitRange"]


def test_render_takes_the_version_next_to_the_design(client: Client) -> None:
    design = json.loads(preset_design("inference").model_dump_json())
    new = client.post("/api/v1/render", data=json.dumps(design), content_type="application/json")
    old = client.post(
        "/api/v1/render",
        data=json.dumps({**design, "kubernetesVersion": "1.31"}),
        content_type="application/json",
    )
    assert new.status_code == old.status_code == 200
    assert new.json()["kubernetesVersion"] == "1.35"
    assert old.json()["kubernetesVersion"] == "1.31"
    bad = client.post(
        "/api/v1/render",
        data=json.dumps({**design, "kubernetesVersion": "9.9"}),
        content_type="application/json",
    )
    assert bad.status_code == 422
    assert "choose one of" in bad.json()["detail"][0]["msg"]


def test_the_docs_describe_the_query_parameters(client: Client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    description = spec["paths"]["/api/v1/analyze"]["post"]["description"]
    assert "kubernetesVersion" in description and "namespace" in description
    assert "admission" in description


BEST_EFFORT = {
    "workload": "training",
    "name": "trainer",
    "containers": [{"name": "main", "image": "pytorch/pytorch"}],
}
TEAM_DEFAULTS = MANIFEST.split("---")[0].replace(
    "name: defaults}", "name: defaults, namespace: team}"
)


def render(client: Client, body: dict):
    return client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")


def test_render_takes_a_namespace_policy_next_to_the_design(client: Client) -> None:
    response = render(client, {**BEST_EFFORT, "namespacePolicy": TEAM_DEFAULTS})
    assert response.status_code == 200
    body = response.json()
    RenderOut.model_validate(body)
    assert body["qosClass"] == "BestEffort"  # as written
    assert body["namespace"] == "team"
    admission = body["admission"]
    # Only default limits: LimitRanger sets the requests to them too.
    assert admission["qosClass"] == "Guaranteed"
    assert admission["qosChange"] == (
        "written as BestEffort; admitted as Guaranteed because LimitRange/defaults sets cpu "
        "and memory"
    )
    assert {d["field"] for d in admission["defaulted"]} >= {
        "spec.containers[0].resources.limits[cpu]"
    }
    assert [p["applied"] for p in body["policies"]] == [True]
    assert body["policyNotes"] == body["policyErrors"] == []


def test_render_takes_the_policy_as_objects_too_and_answers_the_same(client: Client) -> None:
    obj = yaml.safe_load(TEAM_DEFAULTS)
    as_text = render(client, {**BEST_EFFORT, "namespacePolicy": TEAM_DEFAULTS}).json()
    for value in (obj, [obj], {"kind": "List", "apiVersion": "v1", "items": [obj]}):
        answer = render(client, {**BEST_EFFORT, "namespacePolicy": value}).json()
        assert answer["admission"] == as_text["admission"]


def test_render_without_a_policy_has_no_namespace_keys(client: Client) -> None:
    body = render(client, BEST_EFFORT).json()
    assert not {"namespace", "admission", "policies", "policyNotes"} & set(body)


def test_render_reports_an_invalid_policy_as_the_api_server_and_applies_nothing(
    client: Client,
) -> None:
    bad = (
        "kind: LimitRange\nmetadata: {name: bad}\nspec:\n  limits:\n  - type: Pod\n"
        "    default: {cpu: 1}\n"
    )
    body = render(client, {**BEST_EFFORT, "namespacePolicy": bad}).json()
    assert body["admission"] is None
    (policy,) = body["policies"]
    assert policy["applied"] is False
    assert policy["message"].startswith('LimitRange "bad" is invalid: ')
    unreadable = render(client, {**BEST_EFFORT, "namespacePolicy": "kind: ["}).json()
    assert unreadable["policyErrors"] and unreadable["policyErrors"][0]["document"] == 0


def test_the_render_docs_describe_the_namespace_policy(client: Client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    description = spec["paths"]["/api/v1/render"]["post"]["description"]
    assert "namespacePolicy" in description
    schemas = spec["components"]["schemas"]
    assert "admission" in schemas["RenderOut"]["properties"]
