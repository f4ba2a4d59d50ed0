"""A design opened from an object exports that object: only the container resources the
design changes are written back, everything else it changes is named at its pod field, and
the object's problems land beside the field they are about."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.k8s.design import (
    EXPORT_KINDS,
    WORKLOAD_TYPES,
    ContainerDesign,
    Design,
    Origin,
    applicable_object,
    design_action,
    design_from_origin,
    offered_export_kinds,
    pod_path,
    preset_design,
    render_design,
    settings_field,
)
from designer.k8s.design.roundtrip import object_path, workload_of
from designer.k8s.manifest import load
from tests.builders import differences

CRS = Path(__file__).parents[1] / "data" / "operators" / "crs"
FILES = sorted(p.name for p in CRS.glob("*.yaml"))


def documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((CRS / name).read_text()) if d]


def origins() -> list[tuple[str, int, str]]:
    return [
        (name, w.document, w.template)
        for name in FILES
        for w in load((CRS / name).read_bytes()).workloads
    ]


def origin_of(name: str, index: int, template: str) -> Origin:
    docs = documents(name)
    context = [d for i, d in enumerate(docs) if i != index]
    return Origin(object=docs[index], template=template, context=context)


ORIGINS = origins()
PYTORCHJOB = "trainer__pytorch_job_mnist_nccl.yaml"
WORKER = "spec.pytorchReplicaSpecs.Worker.template"


@pytest.mark.parametrize(("name", "index", "template"), ORIGINS)
def test_every_example_template_opens_and_exports_its_object_unchanged(
    name: str, index: int, template: str
) -> None:
    origin = origin_of(name, index, template)
    rendered = render_design(design_from_origin(origin))
    assert rendered.origin is not None
    assert rendered.origin.diff == "" and rendered.origin.changed == []
    assert rendered.origin.unwritten == []
    assert rendered.kind == origin.object["kind"]
    expected, _dropped = applicable_object(origin.object)
    assert rendered.objects == [expected]
    # An unchanged object is never kept back by errors the edit did not cause.
    assert not rendered.object_errors, [str(p.problem) for p in rendered.object_errors]


@pytest.mark.parametrize(("name", "index", "template"), ORIGINS)
def test_a_cpu_limit_raised_in_the_designer_changes_only_that_containers_resources(
    name: str, index: int, template: str
) -> None:
    origin = origin_of(name, index, template)
    design = design_from_origin(origin)
    main = next((c for c in design.containers if c.role == "app"), None)
    if main is None:
        pytest.skip("no app container")
    main.cpu_limit = "7"
    main.cpu_request = "7"
    rendered = render_design(design)
    assert rendered.origin is not None
    before, _dropped = applicable_object(origin.object)
    changed = differences(before, rendered.origin.document)
    if rendered.origin.changed == []:
        # A TrainJob initializer's container is its runtime's: named, not written.
        assert origin.object["kind"] == "TrainJob" and template != "spec.trainer"
        assert rendered.origin.unwritten and changed == []
        return
    (written,) = rendered.origin.changed
    assert changed and all(p.startswith(written) for p in changed), changed
    assert rendered.origin.unwritten == []
    assert "cpu" in rendered.origin.diff


def test_raising_a_workers_gpus_changes_that_one_field_and_says_so() -> None:
    origin = origin_of(PYTORCHJOB, 0, WORKER)
    design = design_from_origin(origin)
    assert design.workload == "distributed" and design.export.kind == "PyTorchJob"
    assert [c.name for c in design.containers] == ["pytorch"]
    design.containers[0].gpus = "2"
    rendered = render_design(design)
    assert differences(origin.object, rendered.objects[0]) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]
    assert rendered.ok and rendered.kind == "PyTorchJob"
    assert rendered.origin.changed == [f"{WORKER}.spec.containers[0].resources"]
    assert '+                nvidia.com/gpu: "2"' in rendered.origin.diff
    texts = [m.text for m in rendered.explanation]
    assert texts[0].startswith("This is the PyTorchJob pytorch-dist-mnist-nccl you opened")
    assert "Written back: " + rendered.origin.changed[0] + "." in texts
    # One Worker: the totals count one pod.
    assert rendered.totals == {"nvidia.com/gpu": "2"}


def test_a_gpu_request_the_object_spells_out_follows_its_new_limit() -> None:
    docs = documents("kserve__hf_isvc.yaml")
    design = design_from_origin(Origin(object=docs[0], template="spec.predictor"))
    (main,) = design.containers
    assert main.gpus == "1" and not main.extra  # the form drops a request equal to the limit
    main.gpus = "2"
    rendered = render_design(design)
    resources = rendered.objects[0]["spec"]["predictor"]["model"]["resources"]
    assert resources["limits"]["nvidia.com/gpu"] == "2"
    assert resources["requests"]["nvidia.com/gpu"] == "2"
    assert resources["requests"]["cpu"] == "6" and resources["limits"]["memory"] == "24Gi"
    assert rendered.origin.changed == ["spec.predictor.model.resources"]
    assert rendered.ok


def paths(rendered: Any) -> dict[str, str]:
    return {u.path: u.message.text for u in rendered.origin.unwritten}


def test_what_the_object_does_not_take_is_named_at_its_pod_field() -> None:
    design = design_from_origin(origin_of(PYTORCHJOB, 0, WORKER))
    design.restart_policy = "Always"
    design.name = "renamed"
    design.shm_size = "8Gi"
    design.containers[0].image = "other:1"
    design.containers.append(ContainerDesign(name="sidecar", image="busybox"))
    rendered = render_design(design)
    unwritten = paths(rendered)
    assert set(unwritten) == {
        "metadata.name",
        "spec.restartPolicy",
        "spec.volumes",
        "spec.containers[0].image",
        "spec.containers[0].volumeMounts",
        "spec.containers[1]",
    }
    assert unwritten["spec.restartPolicy"] == (
        "Not written to the PyTorchJob: only container resources are written back. To change "
        f"it, edit {WORKER}.spec.restartPolicy in your manifest."
    )
    assert "edit metadata.name in your manifest" in unwritten["metadata.name"]
    assert unwritten["spec.containers[1]"].startswith("Container sidecar is not in the PyTorchJob")
    # None of it is written: the object is as it was.
    assert (
        rendered.origin.diff == ""
        and rendered.objects[0] == origin_of(PYTORCHJOB, 0, WORKER).object
    )


def test_a_removed_container_and_a_dra_claim_are_named() -> None:
    docs = documents("lws__vllm-GPU-lws.yaml")
    template = "spec.leaderWorkerTemplate.leaderTemplate"
    design = design_from_origin(Origin(object=docs[0], template=template))
    design.gpu.mode = "dra"
    design.gpu.device_class = "gpu.nvidia.com"
    rendered = render_design(design)
    unwritten = paths(rendered)
    assert "spec.resourceClaims" in unwritten
    assert "DRA claim" in unwritten["spec.resourceClaims"]
    assert rendered.dra is None and len(rendered.objects) == 1  # no ResourceClaimTemplate
    assert "claims" not in str(rendered.objects[0])

    name = "jobset__jobset-sidecar-container-mode.yaml"
    docs = documents(name)
    w = next(
        w for w in load((CRS / name).read_bytes()).workloads if w.pod_spec.get("initContainers")
    )
    design = design_from_origin(Origin(object=docs[w.document], template=w.template))
    removed = next(i for i, c in enumerate(design.containers) if c.role != "app")
    sidecar = design.containers.pop(removed).name
    rendered = render_design(design)
    assert (
        "",
        f"Container {sidecar} was removed in the designer, but the JobSet keeps it: "
        "only resources are written back.",
    ) in [(u.path, u.message.text) for u in rendered.origin.unwritten]
    assert rendered.origin.diff == ""


def test_a_trainjob_writes_resources_per_node_and_names_the_runtimes_fields() -> None:
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "llm", "namespace": "ml"},
        "spec": {
            "runtimeRef": {"name": "torch-distributed"},
            "trainer": {"numNodes": 4, "image": "ghcr.io/me/train:1"},
        },
    }
    design = design_from_origin(Origin(object=trainjob, template="spec.trainer"))
    node = next(c for c in design.containers if c.name == "node")
    node.gpus = "8"
    node.cpu_request = node.cpu_limit = "32"
    node.memory_request = node.memory_limit = "256Gi"
    design.node_selector = {"pool": "h100"}
    node.image = "ghcr.io/me/train:2"
    rendered = render_design(design)
    assert rendered.kind == "TrainJob"
    exported = rendered.objects[0]
    assert exported["spec"]["trainer"]["resourcesPerNode"] == {
        "requests": {"cpu": "32", "memory": "256Gi"},
        "limits": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"},
    }
    assert differences(trainjob, exported) == ["spec.trainer.resourcesPerNode"]
    unwritten = paths(rendered)
    # The image is the TrainJob's (spec.trainer.image); the node selector, its runtime's.
    assert (
        "edit spec.trainer.image in your manifest"
        in unwritten[f"spec.containers[{design.containers.index(node)}].image"]
    )
    assert unwritten["spec.nodeSelector"].startswith(
        "Not written: this pod field comes from the runtime ClusterTrainingRuntime "
        "torch-distributed"
    )
    # Four nodes: the totals count them.
    assert rendered.totals["nvidia.com/gpu"] == "32"


def test_a_trainjob_whose_runtime_is_in_the_input_opens_with_it() -> None:
    name = "trainer__05-multi-step.yaml"
    docs = documents(name)
    index = next(i for i, d in enumerate(docs) if d["kind"] == "TrainJob")
    origin = origin_of(name, index, "spec.trainer")
    assert design_from_origin(origin).containers
    with pytest.raises(Exception, match="no pod template"):
        design_from_origin(origin.model_copy(update={"context": []}))


def test_an_inherited_error_is_shown_but_does_not_keep_the_download_back() -> None:
    docs = documents("kserve__cifar10.yaml")
    origin = Origin(object=docs[0], template="spec.predictor")
    rendered = render_design(design_from_origin(origin))
    # cpu: 0.1 (a YAML float) is refused by the CRD schema in the object as pasted, and
    # so is its explainer's removed alibi field.
    assert rendered.inherited_errors and rendered.ok and not rendered.object_errors
    fields = {p.problem.field: p.pod_field for p in rendered.inherited_errors}
    cpu = "spec.predictor.tensorflow.resources.requests.cpu"
    assert fields[cpu] == "spec.containers[0].resources.requests[cpu]"
    assert fields["spec.explainer.alibi"] is None  # outside the edited template
    # Changing that container rewrites the float in the designer's spelling: fixed.
    design = design_from_origin(origin)
    design.containers[0].memory_limit = "16Gi"
    fixed = render_design(design)
    assert cpu not in {p.problem.field for p in fixed.inherited_errors + fixed.object_errors}
    assert fixed.ok
    resources = fixed.objects[0]["spec"]["predictor"]["tensorflow"]["resources"]
    assert resources["requests"]["cpu"] == "100m"


def test_an_error_the_edit_causes_blocks_and_lands_at_its_field() -> None:
    docs = documents("kuberay__ray-cluster.autoscaler.yaml")
    w = next(
        w
        for w in load((CRS / "kuberay__ray-cluster.autoscaler.yaml").read_bytes()).workloads
        if "workerGroupSpecs" in w.template
    )
    design = design_from_origin(Origin(object=docs[w.document], template=w.template))
    main = design.containers[0]
    main.cpu_limit = ""
    main.memory_limit = ""
    rendered = render_design(design)
    found = [p for p in rendered.object_errors + rendered.object_warnings if p.pod_field]
    assert found, [str(p.problem) for p in rendered.object_warnings]
    assert all(p.pod_field.startswith("spec.containers[0].resources") for p in found)


def test_the_server_written_fields_are_left_out_and_named() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "uid": "123",
            "resourceVersion": "42",
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "main", "image": "nginx", "resources": {}}]},
            },
        },
        "status": {"replicas": 3},
    }
    design = design_from_origin(Origin(object=deployment, template="spec.template"))
    assert design.workload == "inference" and design.export.kind == "Deployment"
    design.containers[0].memory_limit = design.containers[0].memory_request = "1Gi"
    rendered = render_design(design)
    exported = rendered.objects[0]
    assert "status" not in exported and set(exported["metadata"]) == {"name"}
    assert rendered.origin.dropped == [
        "status",
        "metadata.managedFields",
        "metadata.uid",
        "metadata.resourceVersion",
    ]
    assert exported["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "requests": {"memory": "1Gi"},
        "limits": {"memory": "1Gi"},
    }
    # The diff is against the object without them: only the resources.
    assert "managedFields" not in rendered.origin.diff and "memory: 1Gi" in rendered.origin.diff
    # Three replicas: the totals count them.
    assert rendered.totals == {"memory": "3Gi"}
    assert any("3 pod(s) (spec.replicas)" in m.text for m in rendered.explanation)


def test_an_item_of_a_list_is_exported_on_its_own() -> None:
    item = documents(PYTORCHJOB)[0]
    listing = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap"}, item]}
    design = design_from_origin(Origin(object=listing, path="items[1]", template=WORKER))
    design.containers[0].gpus = "4"
    rendered = render_design(design)
    assert rendered.objects[0]["kind"] == "PyTorchJob"
    assert differences(item, rendered.objects[0]) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]


def test_a_design_given_as_its_origin_alone_is_the_template_and_set_fields_win() -> None:
    doc = documents(PYTORCHJOB)[0]
    alone = Design.model_validate({"origin": {"object": doc, "template": WORKER}})
    assert alone.containers == []
    rendered = render_design(alone)
    assert rendered.origin.diff == "" and rendered.design.containers[0].name == "pytorch"
    given = Design.model_validate(
        {"origin": {"object": doc, "template": WORKER}, "workload": "training"}
    )
    assert render_design(given).design.workload == "training"


def test_dropping_the_origin_exports_a_new_object_of_its_kind() -> None:
    design = design_from_origin(origin_of(PYTORCHJOB, 0, WORKER))
    dropped = design_action(design, "drop-origin")
    assert dropped.origin is None
    rendered = render_design(dropped)
    assert rendered.origin is None and rendered.kind == "PyTorchJob"
    assert "export.workers" in rendered.applicable
    # With the origin, no export setting applies (the object is exported as it is).
    assert not {f for f in render_design(design).applicable if f.startswith("export.")}


def test_changing_the_workload_type_keeps_the_containers_of_an_origin_design() -> None:
    design = design_from_origin(origin_of(PYTORCHJOB, 0, WORKER))
    design.workload = "training"
    after = design_action(design, "preset", "workload")
    assert after.origin is not None and after.containers == design.containers


@pytest.mark.parametrize(("name", "index", "template"), ORIGINS)
def test_pod_paths_and_object_paths_translate_back_and_forth(
    name: str, index: int, template: str
) -> None:
    origin = origin_of(name, index, template)
    w = workload_of(origin.object, template, context=origin.context)
    for i, _container in enumerate(w.pod_spec.get("containers") or []):
        if i in set(w.facts.get("injected") or ()):
            continue
        field = f"spec.containers[{i}].resources.limits[cpu]"
        written = object_path(w, f"spec.containers[{i}].resources") + ".limits.cpu"
        if w.kind == "TrainJob" and not written.startswith("spec.trainer"):
            continue  # the runtime's container: another object
        assert pod_path(origin.object, written, template, origin.context) == field, written


def test_operator_settings_problems_map_to_their_settings() -> None:
    isvc = {"kind": "InferenceService"}
    assert settings_field(isvc, "spec.predictor.model.storageUri") == "storage_uri"
    assert settings_field(isvc, "spec.predictor.minReplicas") == "replicas"
    design = preset_design("inference")
    design.export.hpa = True
    assert settings_field(isvc, "spec.predictor.minReplicas", design.export) == "hpa_min"
    assert settings_field({"kind": "TrainJob"}, "spec.runtimeRef.name") == "runtime"
    assert settings_field({"kind": "LeaderWorkerSet"}, "spec.leaderWorkerTemplate.size") == (
        "workers"
    )


def test_a_runtime_name_the_crd_refuses_lands_at_the_runtime_setting() -> None:
    design = preset_design("distributed")
    design.export.kind = "TrainJob"
    design.export.runtime = "r" * 300
    rendered = render_design(design)
    assert not rendered.ok
    (problem,) = [p for p in rendered.object_errors if p.problem.field.startswith("spec.runtime")]
    assert settings_field(rendered.objects[0], problem.problem.field) == "runtime"
    assert rendered.setting_hints["runtime"].params["runtime"] == "r" * 300


def test_operator_settings_say_what_is_missing_beside_the_field() -> None:
    design = preset_design("inference")
    design.export.kind = "InferenceService"
    rendered = render_design(design)
    assert set(rendered.setting_hints) == {"storage_uri"}
    assert {"export.model_format", "export.storage_uri"} <= rendered.applicable
    design.export.storage_uri = "hf://meta-llama/Llama-3.1-8B-Instruct"
    assert render_design(design).setting_hints == {}
    design.export.kind = "TrainJob"
    design.export.runtime = "deepspeed-distributed"
    assert render_design(design).setting_hints == {}
    assert "export.runtime" in render_design(design).applicable


def test_distributed_training_and_inference_offer_the_operators_first() -> None:
    first, rest = offered_export_kinds("distributed")
    assert [k.id for k in first[:3]] == ["PyTorchJob", "TrainJob", "JobSet"]
    first, rest = offered_export_kinds("inference")
    assert [k.id for k in first[:2]] == ["InferenceService", "LeaderWorkerSet"]
    for workload in WORKLOAD_TYPES:
        first, rest = offered_export_kinds(workload)
        assert sorted(k.id for k in first + rest) == sorted(EXPORT_KINDS)


@pytest.mark.parametrize(
    "kind",
    ["PyTorchJob", "TrainJob", "JobSet", "LeaderWorkerSet", "RayCluster", "InferenceService"],
)
def test_each_operator_kind_explains_itself(kind: str) -> None:
    design = preset_design("distributed")
    design.export.kind = kind
    rendered = render_design(design)
    first = rendered.explanation[0]
    assert first.template == EXPORT_KINDS[kind].reason
    assert len(rendered.explanation) >= 2


def test_an_origin_that_is_not_an_object_is_a_design_error() -> None:
    from designer.k8s.design import DesignError

    bad = Design.model_validate({"origin": {"object": {"kind": "Pod"}, "template": "spec.x"}})
    with pytest.raises(DesignError, match="no pod template"):
        render_design(bad)
    listing = copy.deepcopy({"kind": "List", "items": []})
    with pytest.raises(DesignError, match="no object at items"):
        render_design(Design.model_validate({"origin": {"object": listing, "path": "items[3]"}}))
