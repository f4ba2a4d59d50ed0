"""Designing GPUs as a DRA claim: the ResourceClaimTemplate and the pod's claims, exported in
the same YAML as the pod (or its workload), valid for resource.k8s.io/v1, and read back with
the same claims."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from designer.k8s.check import check_texts
from designer.k8s.design import (
    ADD_ALTERNATIVE,
    MAX_DRA_ALTERNATIVES,
    REMOVE_ALTERNATIVE,
    Design,
    claim_choice_field,
    design_action,
    render_design,
)

VERSIONS = ("1.34.0", "1.35.0", "1.36.0", "1.37.0")


def render(gpu: dict[str, Any], **design: Any) -> Any:
    return render_design(
        Design.model_validate({"workload": "training", "gpu": {"mode": "dra", **gpu}, **design})
    )


def docs(rendered: Any) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(rendered.yaml))


def test_the_training_preset_renders_with_a_two_gpu_claim() -> None:
    rendered = render({"device_class": "gpu.nvidia.com"})
    template, pod = docs(rendered)
    assert template["kind"] == "ResourceClaimTemplate"
    assert template["apiVersion"] == "resource.k8s.io/v1"
    request = template["spec"]["spec"]["devices"]["requests"][0]
    assert request == {
        "name": "gpu",
        "exactly": {
            "deviceClassName": "gpu.nvidia.com",
            "allocationMode": "ExactCount",
            "count": 2,
        },
    }
    main = pod["spec"]["containers"][0]
    assert "nvidia.com/gpu" not in main["resources"]["limits"]
    assert main["resources"]["claims"] == [{"name": "gpu"}]
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "trainer-gpu"}
    ]
    assert rendered.ok, rendered.as_dict()["errors"]


def test_qos_and_requests_do_not_change_and_the_page_says_why() -> None:
    plugin = render_design(Design.model_validate({"workload": "training"}))
    claimed = render({})
    assert plugin.report.qos_class == claimed.report.qos_class == "Guaranteed"
    cpu_memory = {k: v for k, v in plugin.report.requests.items() if k in ("cpu", "memory")}
    assert {k: v for k, v in claimed.report.requests.items()} == cpu_memory
    texts = [m.text for m in claimed.explanation]
    assert any(t.startswith("Claims do not count toward the QoS class") for t in texts)
    assert claimed.report.qos is not None
    assert claimed.report.qos.reasons[-1].code == "claims_ignored"


@pytest.mark.parametrize("kind", ["Pod", "Deployment", "Job", "IndexedJob"])
@pytest.mark.parametrize("version", VERSIONS)
def test_every_export_kind_passes_kubernetes_validate_strict(kind: str, version: str) -> None:
    rendered = render(
        {
            "min_memory": "40Gi",
            "product": "NVIDIA H100 80GB HBM3",
            "first_available": [
                {"device_class": "mig.nvidia.com", "count": "2", "mig_profile": "3g.40gb"}
            ],
        },
        export={"kind": kind},
    )
    assert rendered.ok, rendered.as_dict()["errors"]
    objects = docs(rendered)
    assert objects[0]["kind"] == "ResourceClaimTemplate"
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


def test_a_shared_resource_claim_is_exported_and_explained_for_replicas() -> None:
    rendered = render(
        {"claim_source": "claim", "count": "1"},
        workload="inference",
        export={"kind": "Deployment", "replicas": 3},
    )
    claim, deployment = docs(rendered)
    assert claim["kind"] == "ResourceClaim"
    pod_spec = deployment["spec"]["template"]["spec"]
    assert pod_spec["resourceClaims"] == [{"name": "gpu", "resourceClaimName": "inference-gpu"}]
    texts = [m.text for m in rendered.explanation]
    assert any("all pods of this Deployment use the same devices" in t for t in texts)
    for obj in docs(rendered):
        kubernetes_validate.validate(obj, "1.34.0", strict=True)


def test_a_template_per_pod_multiplies_the_devices_by_the_replicas() -> None:
    rendered = render({}, workload="inference", export={"kind": "Deployment", "replicas": 3})
    texts = [m.text for m in rendered.explanation]
    assert any("so 3 pod(s) need 3 device(s) in all" in t for t in texts)
    # GPU replicas roll out one at a time (no surge pod waiting for free GPUs).
    deployment = docs(rendered)[1]
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 0, "maxUnavailable": 1}


def test_an_indexed_job_runs_one_process_per_claimed_gpu() -> None:
    rendered = render({"count": "4"}, workload="distributed")
    job = next(o for o in docs(rendered) if o["kind"] == "Job")
    env = {
        e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["NPROC_PER_NODE"] == "4"


def test_allocation_mode_all_has_no_count() -> None:
    rendered = render({"allocation_mode": "All"})
    request = docs(rendered)[0]["spec"]["spec"]["devices"]["requests"][0]
    assert request["exactly"] == {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}
    assert rendered.as_dict()["claims"][0]["count"] is None


def test_containers_share_the_claim_and_other_gpu_containers_get_their_own() -> None:
    design = {
        "containers": [
            {"name": "main", "image": "i", "gpus": "2"},
            {"name": "helper", "image": "i"},
            {"name": "other", "image": "i", "gpus": "1"},
        ]
    }
    rendered = render({"shared_by": ["helper"]}, **design)
    objects = docs(rendered)
    assert [o["metadata"]["name"] for o in objects[:2]] == ["trainer-gpu", "trainer-gpu-other"]
    pod = objects[2]
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "trainer-gpu"},
        {"name": "gpu-other", "resourceClaimTemplateName": "trainer-gpu-other"},
    ]
    claims = {c["name"]: c.get("resources", {}).get("claims") for c in pod["spec"]["containers"]}
    assert claims == {
        "main": [{"name": "gpu"}],
        "helper": [{"name": "gpu"}],
        "other": [{"name": "gpu-other"}],
    }
    assert rendered.ok


@pytest.mark.parametrize(
    ("gpu", "field", "start"),
    [
        ({"count": "two"}, "gpu.count", "The number of devices must be a whole number"),
        ({"min_memory": "lots"}, "gpu.min_memory", "Memory must be a size such as 40Gi"),
        (
            {"selectors": ["device.capacity['gpu.nvidia.com'].memory > 5"]},
            "gpu.selectors[0]",
            "The API server refuses this selector: compilation failed: ERROR: <input>:1:42:",
        ),
        ({"shared_by": ["nobody"]}, "gpu.shared_by", "The pod has no container named"),
        ({"device_class": "GPU!"}, "gpu.device_class", "A DeviceClass name is a DNS subdomain"),
    ],
)
def test_problems_are_kept_with_their_choice_field(
    gpu: dict[str, Any], field: str, start: str
) -> None:
    rendered = render(gpu)
    assert rendered.dra is not None
    assert rendered.dra.problems[field].text.startswith(start)


def test_a_bad_device_class_is_also_the_api_servers_error_on_the_template() -> None:
    rendered = render({"device_class": "GPU!"})
    assert not rendered.ok
    (problem,) = rendered.object_errors
    assert (problem.kind, problem.problem.field) == (
        "ResourceClaimTemplate",
        "spec.spec.devices.requests[0].exactly.deviceClassName",
    )


def test_a_designed_dra_pod_is_read_back_with_the_same_claims() -> None:
    rendered = render({"min_memory": "40"}, export={"kind": "Job"})
    result = check_texts([("export.yaml", rendered.yaml)])
    (job,) = result["objects"]
    assert job["errors"] == [] and job["warnings"] == []
    (claim,) = job["claims"]
    (designed,) = rendered.as_dict()["claims"]
    assert {k: claim[k] for k in designed} == designed
    assert claim["requests"][0]["selectors"] == [
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    ]
    assert result["draObjects"][0]["errors"] == []


def test_the_device_plugin_modes_are_unchanged() -> None:
    rendered = render_design(Design.model_validate({"workload": "training"}))
    (pod,) = docs(rendered)
    assert pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert "resourceClaims" not in pod["spec"]
    assert rendered.dra is None and rendered.as_dict()["claims"] == []


H100 = (
    __import__("pathlib").Path(__file__).parents[1] / "data" / "resourceslice_h100x8.yaml"
).read_text()


def test_the_node_panel_fits_the_claim_on_pasted_resource_slices() -> None:
    node = {
        "source": "catalog",
        "catalog_id": "p5.48xlarge",
        "provider": "eks",
        "resource_slices": H100,
    }
    rendered = render({"min_memory": "40Gi"}, node=node)
    fit = rendered.plan.fit
    assert fit is not None and fit.claims is not None
    assert fit.claims.pods == 4 and fit.pods_per_node == 4
    assert "node.resource_slices" in rendered.applicable
    too_much = render({"min_memory": "100Gi"}, node=node).plan.fit
    assert too_much is not None and too_much.pods_per_node == 0


def test_unreadable_resource_slices_are_a_problem_of_that_field() -> None:
    node = {
        "source": "catalog",
        "catalog_id": "p5.48xlarge",
        "resource_slices": "kind: Node\napiVersion: v1",
    }
    rendered = render({}, node=node)
    assert rendered.plan.problems["node.resource_slices"].text.startswith(
        "resourceSlices[0]: Node is not a resource.k8s.io object"
    )


def test_without_slices_the_node_panel_says_the_count_ignores_the_claims() -> None:
    rendered = render(
        {}, node={"source": "catalog", "catalog_id": "p5.48xlarge", "provider": "eks"}
    )
    fit = rendered.plan.fit
    assert fit is not None
    assert fit.notes[-1].text.startswith(
        "The pod's GPUs come from resource claims (gpu), which this count does not include"
    )


def test_advice_counts_the_claimed_gpus() -> None:
    plugin = render_design(Design.model_validate({"workload": "training", "size": "S"}))
    claimed = render({"count": "4"}, size="S")
    assert "cpu-per-gpu" not in {a.code for a in plugin.report.advice}
    # 8 CPUs for 4 claimed GPUs is below the 4-per-GPU advice, as it would be for nvidia.com/gpu: 4.
    assert "cpu-per-gpu" in {a.code for a in claimed.report.advice}


# --- what the designer page needs of the engine ----------------------------------------------


def test_a_catalog_node_with_a_dra_design_is_no_sharing_problem() -> None:
    # The device plugin's sharing modes do not apply to a claim: no "unknown GPU sharing mode".
    rendered = render({}, node={"source": "catalog", "catalog_id": "p5.48xlarge"})
    assert rendered.plan.problems == {}
    assert rendered.plan.fit is not None


def test_the_sharing_mode_applies_to_device_plugins_and_the_count_to_exact_counts() -> None:
    plugin = render_design(Design.model_validate({"workload": "training"}))
    assert "gpu.mode" in plugin.applicable and "gpu.device_class" not in plugin.applicable
    claimed = render({})
    assert "gpu.mode" not in claimed.applicable
    assert {"gpu.device_class", "gpu.count", "gpu.first_available"} <= claimed.applicable
    every = render({"allocation_mode": "All"})
    assert "gpu.count" not in every.applicable and "gpu.allocation_mode" in every.applicable


def test_the_alternative_buttons_add_and_remove_rows() -> None:
    design = Design.model_validate(
        {"workload": "training", "gpu": {"mode": "dra", "device_class": "mig.nvidia.com"}}
    )
    added = render_design(design, ADD_ALTERNATIVE).design
    assert [a.model_dump() for a in added.gpu.first_available] == [
        {
            "device_class": "mig.nvidia.com",
            "count": "1",
            "product": "",
            "min_memory": "",
            "mig_profile": "",
            "selectors": [],
        }
    ]
    two = design_action(added, ADD_ALTERNATIVE)
    two.gpu.first_available[0].count = "3"
    kept = design_action(two, f"{REMOVE_ALTERNATIVE}1").gpu.first_available
    assert [a.count for a in kept] == ["3"]
    # Out of range or not a number: nothing changes.
    assert design_action(two, f"{REMOVE_ALTERNATIVE}7") == two
    assert design_action(two, f"{REMOVE_ALTERNATIVE}x") == two


def test_no_more_alternatives_than_first_available_holds() -> None:
    design = Design.model_validate({"workload": "training", "gpu": {"mode": "dra"}})
    for _ in range(MAX_DRA_ALTERNATIVES + 2):
        design = design_action(design, ADD_ALTERNATIVE)
    assert len(design.gpu.first_available) == MAX_DRA_ALTERNATIVES
    assert render_design(design).ok


def test_an_alternatives_device_class_is_checked_like_the_claims() -> None:
    rendered = render({"first_available": [{"device_class": "", "count": "1"}]})
    assert rendered.dra is not None
    problem = rendered.dra.problems["gpu.first_available[0].device_class"]
    assert problem.text.endswith("must not be empty")


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("spec.spec.devices.requests[0].exactly.deviceClassName", "gpu.device_class"),
        ("spec.devices.requests[0].exactly.count", "gpu.count"),
        ("spec.spec.devices.requests[0].exactly.selectors[1].cel.expression", "gpu.selectors"),
        ("spec.spec.devices.requests[0].firstAvailable[0].allocationMode", "gpu.allocation_mode"),
        (
            "spec.spec.devices.requests[0].firstAvailable[2].deviceClassName",
            "gpu.first_available[1].device_class",
        ),
        (
            "spec.spec.devices.requests[0].firstAvailable[1].selectors[0].cel.expression",
            "gpu.first_available[0].selectors",
        ),
        ("spec.spec.devices.requests[0].firstAvailable[1].count", "gpu.first_available[0].count"),
        ("metadata.name", "gpu.mode"),
        ("spec.spec.devices.requests[0].name", "gpu.mode"),
    ],
)
def test_an_exported_claim_objects_error_names_its_choice_field(path: str, field: str) -> None:
    assert claim_choice_field(path) == field


def test_the_gpu_containers_count_says_it_is_the_claims() -> None:
    hints = {(h.container, h.field): h.message.text for h in render({}).hints}
    assert hints[(0, "gpus")].startswith(
        "With a DRA claim this container requests no nvidia.com/gpu: it gets the 2 device(s) "
        "of claim gpu (trainer-gpu)"
    )
    counted = {(h.container, h.field): h.message.text for h in render({"count": "4"}).hints}
    assert "asks for 4 device(s), the count set in the GPU section" in counted[(0, "gpus")]
    every = {
        (h.container, h.field): h.message.text for h in render({"allocation_mode": "All"}).hints
    }
    assert "every matching device of the node" in every[(0, "gpus")]
    assert render_design(Design.model_validate({"workload": "training"})).hints == []


MIG_A100 = (
    __import__("pathlib").Path(__file__).parents[1] / "data" / "resourceslice_a100_mig.yaml"
).read_text()


def test_a_mig_profile_asked_of_whole_gpus_is_hinted_and_fails_on_the_node() -> None:
    rendered = render(
        {"mig_profile": "1g.10gb"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "resource_slices": H100},
    )
    assert rendered.dra is not None
    assert rendered.dra.hints["gpu.mig_profile"].text.startswith("Only MIG devices have a profile")
    # What the hint says: whole GPUs have no profile attribute, the selector cannot evaluate.
    fit = rendered.plan.fit
    assert fit is not None and fit.pods_per_node == 0
    assert "CEL runtime error" in " ".join(r.message.text for r in fit.pending_reasons)
    # Of MIG partitions the profile picks: the A100 node has two 3g.40gb, one pod's worth.
    mig = render(
        {"device_class": "mig.nvidia.com", "mig_profile": "3g.40gb"},
        node={"source": "catalog", "catalog_id": "p4de.24xlarge", "resource_slices": MIG_A100},
    )
    assert mig.dra is not None and mig.dra.hints == {}
    assert mig.plan.fit is not None and mig.plan.fit.pods_per_node == 1


def test_the_claims_explanation_is_kept_apart_for_the_page() -> None:
    rendered = render({"min_memory": "40"}, export={"kind": "Deployment"})
    assert rendered.claim_explanation
    assert list(rendered.explanation[-len(rendered.claim_explanation) :]) == list(
        rendered.claim_explanation
    )
    assert render_design(Design.model_validate({"workload": "training"})).claim_explanation == ()
