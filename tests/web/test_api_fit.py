"""POST /api/v1/fit: pods per node, bottleneck, stranded resources and Pending reasons."""

from __future__ import annotations

import json

import pytest
from django.test import Client

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "trainer"},
    "spec": {
        "containers": [
            {
                "name": "main",
                "image": "pytorch",
                "resources": {"limits": {"cpu": "40", "memory": "200Gi", "nvidia.com/gpu": "2"}},
            }
        ],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    },
}
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "gpu-1", "labels": {"kubernetes.io/hostname": "gpu-1"}},
    "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "96", "memory": "1152Gi", "nvidia.com/gpu": "8", "pods": "110"},
        "allocatable": {"cpu": "95", "memory": "1100Gi", "nvidia.com/gpu": "8", "pods": "110"},
    },
}


def post(client: Client, body: dict) -> tuple[int, dict]:
    response = client.post("/api/v1/fit", data=json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def test_cpu_runs_out_first_and_gpus_are_stranded(client: Client) -> None:
    status, body = post(client, {"pod": POD, "node": NODE})
    assert status == 200
    assert body["podsPerNode"] == 2
    assert body["bottleneck"] == "cpu"
    assert body["stranded"]["nvidia.com/gpu"] == "4"
    assert body["allocatable"]["cpu"] == "95"
    assert body["pendingReasons"] == []


def test_pod_as_yaml_text_and_a_catalog_node(client: Client) -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - name: c\n    image: i\n"
        "    resources: {limits: {nvidia.com/gpu: 1, cpu: 4, memory: 16Gi}}\n"
    )
    status, body = post(
        client, {"pod": text, "node": {"catalog": "p4d.24xlarge", "provider": "eks"}}
    )
    assert status == 200
    assert body["podsPerNode"] == 8
    assert body["bottleneck"] == "nvidia.com/gpu"


def test_missing_toleration_and_device_plugin_are_pending_reasons(client: Client) -> None:
    pod = json.loads(json.dumps(POD))
    del pod["spec"]["tolerations"]
    node = json.loads(json.dumps(NODE))
    for key in ("capacity", "allocatable"):
        del node["status"][key]["nvidia.com/gpu"]
    status, body = post(client, {"pod": pod, "node": node})
    assert status == 200
    assert body["podsPerNode"] == 0
    reasons = " ".join(body["pendingReasons"])
    assert "nvidia.com/gpu" in reasons and "taint" in reasons.lower()


def test_custom_capacity_estimates_allocatable(client: Client) -> None:
    node = {"capacity": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"}, "provider": "gke"}
    status, body = post(client, {"pod": POD, "node": node})
    assert status == 200
    assert body["allocatable"]["cpu"] != "8"  # kube-reserved is taken off


@pytest.mark.parametrize(
    "body",
    [
        {"pod": POD, "node": {"catalog": "no-such-shape"}},
        {"pod": POD, "node": {"capacity": "lots"}},
        {"pod": POD, "node": {"capacity": {"cpu": "8GB"}}},
        {"pod": "kind: [broken", "node": NODE},
        {"pod": POD, "node": {"kind": "Node"}},
        {"pod": POD, "node": NODE, "daemonsetOverhead": {"cpu": "lots"}},
        {"pod": POD, "node": {"catalog": "p4d.24xlarge", "provider": "openshift"}},
    ],
)
def test_bad_input_is_a_400_with_a_message(client: Client, body: dict) -> None:
    status, answer = post(client, body)
    assert status == 400
    assert answer["error"]


def test_fit_is_in_the_openapi_document(client: Client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    fit = spec["paths"]["/api/v1/fit"]["post"]
    assert set(fit["responses"]) >= {"200", "400", "413", "422"}
    schemas = spec["components"]["schemas"]
    out = fit["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/")[-1]
    assert set(schemas[out]["properties"]) >= {
        "podsPerNode",
        "bottleneck",
        "allocatable",
        "stranded",
        "pendingReasons",
    }


def test_a_pod_kept_off_by_a_taint_has_no_resource_bottleneck(client: Client) -> None:
    node = json.loads(json.dumps(NODE))
    node["spec"]["taints"].append({"key": "dedicated", "value": "ml", "effect": "NoExecute"})
    status, body = post(client, {"pod": POD, "node": node})
    assert status == 200
    assert body["podsPerNode"] == 0
    assert body["bottleneck"] is None
    assert "dedicated" in " ".join(body["pendingReasons"])
