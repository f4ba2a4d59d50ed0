"""podspec check with Dynamic Resource Allocation: claims, templates and device classes of the
input are read, validated and linked to the pods that use them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from designer.k8s.check import check_texts

JOBSET = Path(__file__).parents[1] / "data" / "jobset_dra.yaml"

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
"""


def pod_spec(claims: list[dict[str, Any]], users: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "resourceClaims": claims,
        "containers": [
            {
                "name": name,
                "image": "busybox",
                "resources": {
                    "requests": {"cpu": "1", "memory": "1Gi"},
                    "limits": {"cpu": "1", "memory": "1Gi"},
                    "claims": [{"name": c} for c in uses],
                },
            }
            for name, uses in users.items()
        ],
    }


def doc(obj: dict[str, Any]) -> str:
    return yaml.safe_dump(obj)


def check(*texts: str) -> dict[str, Any]:
    return check_texts([(f"f{i}.yaml", t) for i, t in enumerate(texts)])


def by_kind(result: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(o for o in result["objects"] if o["kind"] == kind)


GPU_CLAIM = [{"name": "gpu", "resourceClaimTemplateName": "two-gpus"}]
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "trainer", "namespace": "ml"},
    "spec": pod_spec(GPU_CLAIM, {"main": ["gpu"]}),
}


def test_a_pod_is_linked_to_its_template_with_class_count_and_containers() -> None:
    result = check(TEMPLATE + "---\n" + doc(POD))
    (claim,) = by_kind(result, "Pod")["claims"]
    assert {k: claim[k] for k in ("name", "source", "object", "found", "deviceClass", "count")} == {
        "name": "gpu",
        "source": "template",
        "object": "two-gpus",
        "found": True,
        "deviceClass": "gpu.nvidia.com",
        "count": 2,
    }
    assert claim["containers"] == ["main"]
    (template,) = result["draObjects"]
    assert template["kind"] == "ResourceClaimTemplate" and template["errors"] == []
    assert template["usedBy"] == [
        {"kind": "Pod", "name": "trainer", "namespace": "ml", "claim": "gpu"}
    ]


def test_claims_change_neither_qos_nor_the_effective_requests() -> None:
    plain = copy.deepcopy(POD)
    del plain["spec"]["resourceClaims"]
    for c in plain["spec"]["containers"]:
        del c["resources"]["claims"]
    with_claims = by_kind(check(TEMPLATE + "---\n" + doc(POD)), "Pod")
    without = by_kind(check(doc(plain)), "Pod")
    assert with_claims["qosClass"] == without["qosClass"] == "Guaranteed"
    assert with_claims["effectiveRequests"] == without["effectiveRequests"]
    assert with_claims["effectiveLimits"] == without["effectiveLimits"]
    assert with_claims["qosReasons"][-1] == (
        "The pod's resource claims (gpu) get devices through Dynamic Resource Allocation; "
        "devices are not cpu or memory, so the claims do not change the QoS class."
    )


def test_a_template_in_another_file_is_linked_too() -> None:
    result = check(doc(POD), TEMPLATE)
    assert by_kind(result, "Pod")["claims"][0]["found"] is True
    assert result["draObjects"][0]["file"] == "f1.yaml"


def test_a_missing_template_is_a_warning_at_its_field_not_an_error() -> None:
    result = check(doc(POD))
    pod = by_kind(result, "Pod")
    assert pod["errors"] == []
    assert pod["warnings"] == [
        {
            "field": "spec.resourceClaims[0].resourceClaimTemplateName",
            "message": "ResourceClaimTemplate two-gpus is not in the input: the pod cannot start "
            "until it exists in namespace ml (apply it with the pod, or check it is already in "
            "the cluster)",
        }
    ]
    assert pod["claims"][0]["found"] is False and pod["claims"][0]["count"] is None


def test_a_template_of_another_namespace_does_not_serve_the_pod() -> None:
    other = TEMPLATE.replace("namespace: ml", "namespace: other")
    assert by_kind(check(other + "---\n" + doc(POD)), "Pod")["claims"][0]["found"] is False
    unset = TEMPLATE.replace(", namespace: ml", "")
    assert by_kind(check(unset + "---\n" + doc(POD)), "Pod")["claims"][0]["found"] is True


def test_a_deployment_and_a_job_are_linked_and_told_what_templates_mean_for_replicas() -> None:
    template = {
        "metadata": {"labels": {"app": "a"}},
        "spec": pod_spec(GPU_CLAIM, {"main": ["gpu"]}),
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "serve", "namespace": "ml"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "a"}}, "template": template},
    }
    job_template = copy.deepcopy(template)
    job_template["spec"]["restartPolicy"] = "Never"
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": {"template": job_template},
    }
    result = check(TEMPLATE, doc(deployment), doc(job))
    for kind in ("Deployment", "Job"):
        (claim,) = by_kind(result, kind)["claims"]
        assert claim["found"] and claim["count"] == 2
        assert claim["notes"][1] == (
            f"Every pod this {kind} creates gets its own claim from the template, so each pod "
            "asks for its own devices."
        )
    assert [u["kind"] for u in result["draObjects"][0]["usedBy"]] == ["Deployment", "Job"]


def test_a_shared_resource_claim_says_every_replica_shares_its_devices() -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared-gpu"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]
            }
        },
    }
    spec = pod_spec(
        [{"name": "gpu", "resourceClaimName": "shared-gpu"}], {"a": ["gpu"], "b": ["gpu"]}
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "serve"},
        "spec": {
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}, "spec": spec},
        },
    }
    (entry,) = by_kind(check(doc(claim), doc(deployment)), "Deployment")["claims"]
    assert entry["source"] == "claim" and entry["count"] == 1
    assert entry["containers"] == ["a", "b"]
    assert entry["notes"] == [
        "ResourceClaim shared-gpu is one object: every pod that names it shares the same "
        "allocated devices, and those pods can only run where the devices are reachable.",
        "Every pod this Deployment creates names the same ResourceClaim shared-gpu: they all "
        "share its devices instead of getting their own (use a ResourceClaimTemplate for "
        "devices per pod).",
        "Containers a, b use the same claim: they see the same devices.",
    ]


def test_count_is_null_for_all_and_the_first_alternative_for_first_available() -> None:
    template = yaml.safe_load(TEMPLATE)
    template["spec"]["spec"]["devices"]["requests"] = [
        {"name": "all", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}}
    ]
    (claim,) = by_kind(check(doc(template), doc(POD)), "Pod")["claims"]
    assert claim["count"] is None and claim["deviceClass"] == "gpu.nvidia.com"
    template["spec"]["spec"]["devices"]["requests"] = [
        {
            "name": "gpu",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.nvidia.com", "count": 1},
                {"name": "small", "deviceClassName": "mig.nvidia.com", "count": 2},
            ],
        }
    ]
    (claim,) = by_kind(check(doc(template), doc(POD)), "Pod")["claims"]
    assert claim["count"] == 1 and claim["deviceClass"] == "gpu.nvidia.com"
    assert [a["count"] for a in claim["requests"][0]["alternatives"]] == [1, 2]


def test_an_invalid_template_is_reported_with_the_api_servers_paths() -> None:
    bad = TEMPLATE.replace("count: 2", "count: -1")
    (template,) = check(bad)["draObjects"]
    assert template["errors"] == [
        {
            "field": "spec.spec.devices.requests[0].exactly.count",
            "type": "FieldValueInvalid",
            "message": "must be greater than zero",
            "text": "Invalid value: -1: must be greater than zero",
        }
    ]


def test_a_v1beta1_template_is_read_as_v1_with_a_warning() -> None:
    old = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.nvidia.com, count: 2}
"""
    result = check(old, doc(POD))
    assert by_kind(result, "Pod")["claims"][0]["count"] == 2
    assert result["draObjects"][0]["warnings"][0]["field"] == "apiVersion"


def test_device_classes_know_who_uses_them_and_extended_resources_are_explained() -> None:
    cls = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.nvidia.com"},
        "spec": {"extendedResourceName": "nvidia.com/gpu"},
    }
    plugin_pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "old-style"},
        "spec": {
            "containers": [
                {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 2}}}
            ]
        },
    }
    result = check(doc(cls), TEMPLATE, doc(plugin_pod))
    (entry,) = by_kind(result, "Pod")["claims"]
    assert (entry["source"], entry["resource"], entry["count"], entry["containers"]) == (
        "extendedResource",
        "nvidia.com/gpu",
        2,
        ["c"],
    )
    assert entry["notes"][0].startswith(
        "nvidia.com/gpu: 2 can be served by Dynamic Resource Allocation: DeviceClass "
        "gpu.nvidia.com maps the extended resource nvidia.com/gpu to its devices"
    )
    device_class = next(o for o in result["draObjects"] if o["kind"] == "DeviceClass")
    assert device_class["usedBy"] == [
        {"kind": "ResourceClaimTemplate", "name": "two-gpus", "namespace": "ml"}
    ]


def test_the_jobset_dra_example_links_its_claim() -> None:
    # The finder does not read JobSet on this branch yet: its pod template, as a Job.
    jobset = yaml.safe_load(JOBSET.read_text())
    job_spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    # JobSet's webhook defaults the restart policy; a Job must set one (the API server
    # refuses a Job without it: test_podspec's test_a_jobs_own_errors_are_reported).
    job_spec["template"]["spec"].setdefault("restartPolicy", "OnFailure")
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "workers"},
        "spec": job_spec,
    }
    result = check(doc(job))
    job_report = by_kind(result, "Job")
    (claim,) = job_report["claims"]
    assert (claim["name"], claim["source"], claim["object"], claim["containers"]) == (
        "shared-gpu",
        "template",
        "gpu-claim-template",
        ["worker"],
    )
    assert claim["found"] is False  # the example ships without its template
    assert job_report["warnings"][-1]["field"] == (
        "spec.template.spec.resourceClaims[0].resourceClaimTemplateName"
    )
    assert job_report["errors"] == []
    # With a template for it, it is linked.
    template = yaml.safe_load(TEMPLATE)
    template["metadata"] = {"name": "gpu-claim-template"}
    (claim,) = by_kind(check(doc(job), doc(template)), "Job")["claims"]
    assert claim["found"] is True and claim["count"] == 2


def test_objects_without_claims_get_an_empty_list() -> None:
    result = check(
        doc(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            }
        )
    )
    assert result["objects"][0]["claims"] == [] and result["draObjects"] == []
