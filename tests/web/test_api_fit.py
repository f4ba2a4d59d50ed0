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


# --- issue 16: MIG-aware fit, the kubelet view as data, unreadable values ----------------------

TRAINER = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "trainer"},
    "spec": {
        "containers": [
            {
                "name": "main",
                "image": "pytorch",
                "resources": {"limits": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "2"}},
            }
        ]
    },
}
MIG_SINGLE = {"mode": "mig-single", "profile": "1g.10gb"}


def test_mig_single_slices_are_what_the_node_advertises_so_cpu_runs_out_first(
    client: Client,
) -> None:
    # The example: 8 H100 80GB sliced 1g.10gb advertise 56 nvidia.com/gpu; the GPUs
    # allow 28 pods and cpu (191450m / 16) only 11.
    node = {"catalog": "p5.48xlarge", "gpuSharing": MIG_SINGLE}
    status, body = post(client, {"pod": TRAINER, "node": node})
    assert status == 200
    assert body["podsPerNode"] == 11
    assert body["bottleneck"] == "cpu"
    assert body["allocatable"]["nvidia.com/gpu"] == "56"
    assert any("single strategy" in n and "56" in n for n in body["notes"])


def test_mig_mixed_counts_each_profile_from_the_node_layout(client: Client) -> None:
    pod = json.loads(json.dumps(TRAINER))
    limits = pod["spec"]["containers"][0]["resources"]["limits"]
    del limits["nvidia.com/gpu"]
    limits["nvidia.com/mig-3g.40gb"] = "1"
    node = {
        "catalog": "p5.48xlarge",
        "gpuSharing": {"mode": "mig-mixed", "migLayout": "4: 3g.40gb=2; 4: 1g.10gb=7"},
    }
    status, body = post(client, {"pod": pod, "node": node})
    assert status == 200
    assert body["allocatable"]["nvidia.com/mig-3g.40gb"] == "8"
    assert body["allocatable"]["nvidia.com/mig-1g.10gb"] == "28"
    assert "nvidia.com/gpu" not in body["allocatable"]
    assert body["podsPerNode"] == 8 and body["bottleneck"] == "nvidia.com/mig-3g.40gb"
    # The same layout as JSON groups.
    node["gpuSharing"]["migLayout"] = [
        {"gpus": 4, "profiles": {"3g.40gb": 2}},
        {"gpus": 4, "profiles": {"1g.10gb": 7}},
    ]
    assert post(client, {"pod": pod, "node": node})[1]["allocatable"] == body["allocatable"]


def test_time_slicing_replicas_and_the_shared_rename(client: Client) -> None:
    pod = json.loads(json.dumps(TRAINER))
    limits = pod["spec"]["containers"][0]["resources"]["limits"]
    limits["nvidia.com/gpu.shared"] = limits.pop("nvidia.com/gpu")
    node = {
        "capacity": {"cpu": "96", "memory": "1152Gi", "nvidia.com/gpu": "8"},
        "gpuSharing": {"mode": "time-slicing", "replicas": 4, "renameByDefault": True},
    }
    status, body = post(client, {"pod": pod, "node": node})
    assert status == 200
    assert body["allocatable"]["nvidia.com/gpu.shared"] == "32"
    assert "nvidia.com/gpu" not in body["allocatable"]
    assert any("renameByDefault" in n for n in body["notes"])


@pytest.mark.parametrize(
    ("sharing", "words"),
    [
        ({"mode": "mig-single", "profile": "1g.5gb"}, "not a MIG profile of the NVIDIA H100 80GB"),
        ({"mode": "mig-mixed", "migLayout": "1g.10gb=8"}, "do not fit on one"),
        ({"mode": "mig-mixed", "migLayout": "lots"}, "cannot be read"),
        ({"mode": "time-slicing", "replicas": 0}, "replicas per GPU"),
        ({"mode": "sliced"}, "unknown GPU sharing mode"),
        ({"mode": "mig-single", "profile": "1g.10gb", "colour": "red"}, "unknown field"),
    ],
)
def test_a_sharing_the_node_cannot_have_is_a_400_naming_it(
    client: Client, sharing: dict, words: str
) -> None:
    status, body = post(
        client, {"pod": TRAINER, "node": {"catalog": "p5.48xlarge", "gpuSharing": sharing}}
    )
    assert status == 400
    assert words in body["error"]


def test_mig_on_a_gpu_without_mig_is_refused(client: Client) -> None:
    node = {"catalog": "g5.xlarge", "gpuSharing": MIG_SINGLE}
    status, body = post(client, {"pod": TRAINER, "node": node})
    assert status == 400 and "do not support MIG" in body["error"]


def test_a_pasted_node_does_not_take_a_gpu_sharing(client: Client) -> None:
    node = {**NODE, "gpuSharing": MIG_SINGLE}
    status, body = post(client, {"pod": POD, "node": node})
    assert status == 400 and "already shows" in body["error"]


def test_the_kubelet_answer_has_the_documented_shape_with_integers(client: Client) -> None:
    status, body = post(client, {"pod": POD, "node": NODE})
    assert status == 200
    kubelet = body["kubelet"]
    assert set(kubelet) == {"pod", "containers"}
    assert set(kubelet["pod"]) == {"cpuShares", "cpuWeight", "cpuQuota", "cpuPeriod", "memoryLimit"}
    (main,) = kubelet["containers"]
    assert set(main) == {"name", "cpuShares", "cpuQuota", "cpuPeriod", "memoryLimit", "oomScoreAdj"}
    # limits only: requests default to them, so the pod is Guaranteed.
    assert kubelet["pod"] == {
        "cpuShares": 40960,
        "cpuWeight": 1 + (40958 * 9999) // 262142,
        "cpuQuota": 4000000,
        "cpuPeriod": 100000,
        "memoryLimit": 200 * 1024**3,
    }
    assert main == {
        "name": "main",
        "cpuShares": 40960,
        "cpuQuota": 4000000,
        "cpuPeriod": 100000,
        "memoryLimit": 200 * 1024**3,
        "oomScoreAdj": -997,
    }


def test_a_best_effort_pod_leaves_the_pod_cgroup_fields_null(client: Client) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }
    status, body = post(client, {"pod": pod, "node": NODE})
    assert body["kubelet"]["pod"] == {
        "cpuShares": 2,
        "cpuWeight": 1,
        "cpuQuota": None,
        "cpuPeriod": None,
        "memoryLimit": None,
    }
    assert body["kubelet"]["containers"][0] == {
        "name": "c",
        "cpuShares": 2,
        "cpuQuota": 0,
        "cpuPeriod": 100000,
        "memoryLimit": 0,
        "oomScoreAdj": 1000,
    }


def test_the_kubelet_answer_comes_even_when_the_pod_does_not_fit(client: Client) -> None:
    pod = json.loads(json.dumps(TRAINER))
    pod["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "500", "memory": "1Gi"},
        "limits": {"memory": "2Gi"},
    }
    status, body = post(client, {"pod": pod, "node": NODE})
    assert status == 200 and body["podsPerNode"] == 0
    main = body["kubelet"]["containers"][0]
    # Burstable: 1000 - 1000 x 1Gi / 1152Gi (the node's memory capacity) = 1000 - 0 -> 999.
    assert main["oomScoreAdj"] == 1000 - (1000 * 1024**3) // (1152 * 1024**3) - 1
    assert body["kubelet"]["pod"]["cpuQuota"] is None and main["cpuQuota"] == 0


def test_kubelet_config_turns_quota_off_and_sets_the_period(client: Client) -> None:
    body = {"pod": POD, "node": NODE, "kubelet": {"cpuCFSQuota": False}}
    kubelet = post(client, body)[1]["kubelet"]
    assert kubelet["pod"]["cpuQuota"] == -1 and kubelet["pod"]["cpuPeriod"] == 100000
    assert (kubelet["containers"][0]["cpuQuota"], kubelet["containers"][0]["cpuPeriod"]) == (0, 0)
    body = {"pod": POD, "node": NODE, "kubelet": {"cpuCFSQuotaPeriod": "5000us"}}
    status, answer = post(client, body)
    kubelet = answer["kubelet"]
    # 40 CPUs over a 5ms period (CustomCPUCFSQuotaPeriod on): 40 * 5000 = 200000µs.
    assert kubelet["pod"]["cpuQuota"] == 200000 and kubelet["pod"]["cpuPeriod"] == 5000
    assert kubelet["containers"][0]["cpuQuota"] == 200000
    assert any("CustomCPUCFSQuotaPeriod" in n for n in answer["kubeletNotes"])


@pytest.mark.parametrize(
    ("kubelet", "words"),
    [
        ({"cpuCFSQuotaPeriod": "fast"}, 'time: invalid duration "fast"'),
        ({"cpuCFSQuotaPeriod": "100"}, 'time: missing unit in duration "100"'),
        ({"cpuCFSQuotaPeriod": "2s"}, "2s must be between 1ms and 1sec, inclusive"),
        ({"cpuCFSQuotaPeriod": "500us"}, "500µs must be between 1ms and 1sec, inclusive"),
    ],
)
def test_a_kubelet_config_the_kubelet_refuses_is_a_400_with_its_message(
    client: Client, kubelet: dict, words: str
) -> None:
    status, body = post(client, {"pod": POD, "node": NODE, "kubelet": kubelet})
    assert status == 400 and words in body["error"]


def test_a_kubelet_config_of_the_wrong_type_is_a_422(client: Client) -> None:
    for kubelet in ({"cpuCFSQuota": "no"}, {"cpuCFSQuotaPeriod": 100}):
        status, _ = post(client, {"pod": POD, "node": NODE, "kubelet": kubelet})
        assert status == 422


def test_an_unreadable_memory_is_named_not_taken_for_zero(client: Client) -> None:
    # Issue 16: memory 8GB (not a quantity) fitted 4 pods as if the pod asked for no memory.
    pod = json.loads(json.dumps(TRAINER))
    pod["spec"]["containers"][0]["resources"]["limits"]["memory"] = "8GB"
    status, body = post(client, {"pod": pod, "node": {"catalog": "p5.48xlarge"}})
    assert status == 200
    assert body["podsPerNode"] is None and body["bottleneck"] is None
    assert body["kubelet"] is None
    assert body["cannotCompute"] == [
        {
            "field": "spec.containers[0].resources.limits[memory]",
            "resource": "memory",
            "value": "8GB",
        }
    ]
    assert "cannot be worked out" in body["notes"][0]


def test_a_cpu_limit_of_1e999_shows_what_the_kubelet_writes_and_is_flagged(client: Client) -> None:
    # Go's MilliValue() of 1e999 overflows int64 to 0: no quota, 2 shares (the request
    # defaults to the limit), not cpu.max 922337203685477580700.
    pod = json.loads(json.dumps(TRAINER))
    pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1e999"
    status, body = post(client, {"pod": pod, "node": {"catalog": "p5.48xlarge"}})
    assert status == 200
    main = body["kubelet"]["containers"][0]
    assert (main["cpuShares"], main["cpuQuota"], main["cpuPeriod"]) == (2, 0, 100000)
    assert body["kubelet"]["pod"]["cpuQuota"] == 0
    assert any("1e999" in n and "MilliValue() reads it as 0" in n for n in body["kubeletNotes"])


def test_the_fit_answer_is_described_in_the_openapi_document(client: Client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    schemas = spec["components"]["schemas"]
    fit_out = schemas["FitOut"]["properties"]
    for key in ("kubelet", "kubeletNotes", "cannotCompute", "notes"):
        assert key in fit_out
    pod = schemas["KubeletPodOut"]["properties"]
    assert set(pod) == {"cpuShares", "cpuWeight", "cpuQuota", "cpuPeriod", "memoryLimit"}
    assert "-1" in pod["cpuQuota"]["description"] and "null" in pod["cpuQuota"]["description"]
    assert "oomScoreAdj" in schemas["KubeletContainerOut"]["properties"]
    assert "cpuCFSQuotaPeriod" in schemas["KubeletIn"]["properties"]
    assert "ResourceConfigForPod" in spec["paths"]["/api/v1/fit"]["post"]["description"]


def test_the_designer_node_view_and_the_api_give_the_same_kubelet_numbers(client: Client) -> None:
    from designer.k8s.design import Design, pod_manifest, render_design

    design = Design.model_validate(
        {
            "workload": "inference",
            "containers": [
                {
                    "name": "main",
                    "image": "triton",
                    "cpu_request": "4",
                    "cpu_limit": "6",
                    "memory_request": "16Gi",
                    "memory_limit": "24Gi",
                    "gpus": "1",
                },
                {
                    "role": "sidecar",
                    "name": "proxy",
                    "image": "envoy",
                    "cpu_request": "100m",
                    "memory_request": "64Mi",
                },
            ],
            "node": {
                "source": "catalog",
                "catalog_id": "g5.12xlarge",
                "cpu_cfs_quota_period": "5ms",
            },
        }
    )
    rendered = render_design(design)
    view = rendered.plan.node_view
    assert view.kubelet is not None
    body = {
        "pod": pod_manifest(rendered.pod),
        "node": {"catalog": "g5.12xlarge"},
        "kubelet": {"cpuCFSQuotaPeriod": "5ms"},
    }
    status, answer = post(client, body)
    assert status == 200
    assert answer["kubelet"] == view.kubelet.as_dict()
    assert [c.cgroup.cpu_shares for c in view.containers] == [
        c["cpuShares"] for c in answer["kubelet"]["containers"]
    ]
    assert [c.oom_score_adj for c in view.containers] == [
        c["oomScoreAdj"] for c in answer["kubelet"]["containers"]
    ]


# --- Dynamic Resource Allocation: resourceSlices ---------------------------------------------

H100_SLICES = (
    __import__("pathlib").Path(__file__).parents[1] / "k8s" / "data" / "resourceslice_h100x8.yaml"
).read_text()
DRA_POD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          count: 2
          selectors:
          - cel:
              expression: >-
                device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: two-gpus}]
  containers:
  - name: main
    image: pytorch
    resources:
      requests: {cpu: "8", memory: 64Gi}
      limits: {cpu: "8", memory: 64Gi}
      claims: [{name: gpu}]
"""
DRA_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "ip-10-0-180-136.ec2.internal"},
    "status": {"allocatable": {"cpu": "191", "memory": "2000Gi", "pods": "110"}},
}


def test_resource_slices_decide_how_many_dra_pods_fit(client: Client) -> None:
    status, body = post(client, {"pod": DRA_POD, "node": DRA_NODE, "resourceSlices": H100_SLICES})
    assert status == 200, body
    assert body["podsPerNode"] == 4
    assert body["bottleneck"] == "resourceClaims"
    claims = body["claims"]
    assert claims["node"] == "ip-10-0-180-136.ec2.internal"
    assert len(claims["devices"]) == 8 and claims["podsPerNode"] == 4
    (claim,) = claims["claims"]
    assert claim["allocated"] and len(claim["requests"][0]["matchingDevices"]) == 8
    assert any("not part of the node's allocatable" in n for n in body["notes"])


def test_slices_as_objects_and_a_catalog_node_without_a_name(client: Client) -> None:
    import yaml

    slices = list(yaml.safe_load_all(H100_SLICES))
    status, body = post(
        client,
        {
            "pod": DRA_POD,
            "node": {"catalog": "p5.48xlarge", "provider": "eks"},
            "resourceSlices": slices,
        },
    )
    assert status == 200, body
    assert body["claims"]["node"] == "ip-10-0-180-136.ec2.internal"
    assert body["claims"]["podsPerNode"] == 4


def test_a_claim_no_device_satisfies_keeps_the_pod_pending(client: Client) -> None:
    pod = DRA_POD.replace("count: 2", "count: 9")
    status, body = post(client, {"pod": pod, "node": DRA_NODE, "resourceSlices": H100_SLICES})
    assert status == 200
    assert body["podsPerNode"] == 0
    assert body["pendingReasons"][-1].startswith(
        "The pod's resource claims cannot be allocated on this node"
    )


@pytest.mark.parametrize(
    ("slices", "message"),
    [
        ("kind: Node\napiVersion: v1\n", "resourceSlices[0]: Node is not a resource.k8s.io object"),
        ("a: [", "resourceSlices document 0: line"),
        (
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "spec": {"devices": 3}},
            "resourceSlices[0]: ResourceSlice  cannot be read: spec.devices",
        ),
    ],
)
def test_unreadable_slices_are_a_400_naming_them(
    client: Client, slices: object, message: str
) -> None:
    status, body = post(client, {"pod": DRA_POD, "node": DRA_NODE, "resourceSlices": slices})
    assert status == 400
    assert body["error"].startswith(message), body


def test_the_openapi_description_documents_resource_slices(client: Client) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    assert "resourceSlices" in json.dumps(schema["components"]["schemas"]["FitIn"])
    assert (
        "kubectl get resourceslices -o yaml"
        in schema["paths"]["/api/v1/fit"]["post"]["description"]
    )
