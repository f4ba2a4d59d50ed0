"""The ML operators' kinds, read as their operators read them: every pod template of the
38 example files (copied from the projects with their sources in data/operators/crs) at
its path, with the pods it stands for, its QoS and errors; mutated copies give the API
server's errors at the full path and the operators' own messages."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.k8s.check import check_texts
from designer.k8s.core import Quantity
from designer.k8s.manifest import KINDS, TRAINJOB_RECORD, builtin_runtimes, load

DATA = Path(__file__).parents[1] / "data" / "operators"
CRS = DATA / "crs"
EXAMPLES = json.loads((DATA / "examples.json").read_text())
FILES = sorted(p.name for p in CRS.glob("*.yaml"))
TRUTH = {(f["file"], d["document"]): d for f in EXAMPLES["files"] for d in f["documents"]}

# Errors the core rules give on the examples, beside the defects the research flagged
# (kserve__cifar10: YAML float quantities and the removed explainer "alibi").
# jobset-sidecar-container-mode uses container restart rules (KEP-5307, alpha in 1.34):
# without the ContainerRestartRules gate the API server forbids restartPolicy there.
EXPECTED_ERRORS = {
    (
        "jobset__jobset-sidecar-container-mode.yaml",
        0,
        "spec.replicatedJobs[0].template.spec.template",
    ): ["spec.replicatedJobs[0].template.spec.template.spec.containers[0].restartPolicy"],
    ("kserve__cifar10.yaml", 0, "spec.predictor"): [
        "spec.predictor.tensorflow.resources.requests.cpu"
    ],
    ("kserve__cifar10.yaml", 0, "spec.explainer"): [
        "spec.explainer.alibi",
        "spec.explainer.alibi.resources.requests.cpu",
    ],
}


def check(name: str, text: str | bytes | None = None) -> dict[str, Any]:
    return check_texts([(name, text if text is not None else (CRS / name).read_bytes())])


def docs(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((CRS / name).read_text()) if d]


def dump(documents: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False)


# --- an independent QoS oracle (the research notes' container resources) ----------------


def _q(value: Any) -> Fraction:
    return Quantity.from_json(value).as_fraction()


def oracle_qos(containers: list[dict[str, Any]]) -> str:
    """QoS from the containers as written: requests default to limits."""
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        limits = dict(res.get("limits") or {})
        requests = {**limits, **(res.get("requests") or {})}
        for name in ("cpu", "memory"):
            if name in requests and _q(requests[name]) > 0 or name in limits:
                any_set = True
            if name not in limits or name not in requests or _q(limits[name]) != _q(requests[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def truth_templates(name: str, document: int) -> list[tuple[str, Any, Any, Any, str]]:
    """(template, replicas, min, max, QoS) per pod template, from the research notes."""
    d = TRUTH[(name, document)]
    if d["kind"] == "TrainJob":
        resolution = d["trainJob"]["resolution"]
        return [
            (
                {"trainer": "spec.trainer", "dataset-initializer": "spec.initializer.dataset"}[
                    rj["ancestor"]
                ],
                rj["pods"],
                None,
                None,
                oracle_qos(rj["containers"]),
            )
            for rj in resolution["replicatedJobs"]
        ]
    out = []
    for t in d["podTemplates"]:
        containers = [c for c in t["containers"] if c["type"] == "container" or c.get("sidecar")]
        containers += t.get("operatorInjectedContainers") or []
        inits = [
            c for c in t["containers"] if c["type"] == "initContainer" and not c.get("sidecar")
        ]
        qos = oracle_qos(containers + inits)
        out.append((t["path"], t.get("replicas"), t.get("replicasMin"), t.get("replicasMax"), qos))
    return out


# --- every example file -----------------------------------------------------------------


def test_the_examples_are_all_there() -> None:
    assert len(FILES) == 38
    assert {f["file"] for f in EXAMPLES["files"]} == set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_every_pod_template_is_at_its_path_with_its_pods_and_qos(name: str) -> None:
    report = check(name)
    assert report["errors"] == []
    documents = {d for (f, d) in TRUTH if f == name}
    for document in sorted(documents):
        got = [
            (o["template"], o["replicas"], o["replicasMin"], o["replicasMax"], o["qosClass"])
            for o in report["objects"]
            if o["document"] == document
        ]
        assert got == truth_templates(name, document), document


@pytest.mark.parametrize("name", FILES)
def test_nothing_is_silently_dropped(name: str) -> None:
    """Every document is in objects or skipped, once (none is both, none is neither)."""
    report = check(name)
    with_templates = {o["document"] for o in report["objects"]}
    skipped = [s["document"] for s in report["skipped"]]
    assert len(skipped) == len(set(skipped))
    assert with_templates.isdisjoint(skipped)
    assert with_templates | set(skipped) == {d for (f, d) in TRUTH if f == name}
    for s in report["skipped"]:
        truth = TRUTH[(name, s["document"])]
        assert (s["kind"], s["name"]) == (truth["kind"], truth["name"])
        assert s["reason"] == f"{s['kind']}: no pod template"


@pytest.mark.parametrize("name", FILES)
def test_errors_are_the_flagged_defects_at_their_full_paths(name: str) -> None:
    report = check(name)
    for o in report["objects"]:
        key = (name, o["document"], o["template"])
        assert [e["field"] for e in o["errors"]] == EXPECTED_ERRORS.get(key, []), key


def test_the_float_quantity_error_is_the_crd_schemas() -> None:
    (predictor, explainer) = check("kserve__cifar10.yaml")["objects"]
    assert predictor["errors"] == [
        {
            "field": "spec.predictor.tensorflow.resources.requests.cpu",
            "type": "FieldValueTypeInvalid",
            "message": "spec.predictor.tensorflow.resources.requests.cpu in body must be of "
            'type integer,string: "number"',
            "text": 'Invalid value: "number": spec.predictor.tensorflow.resources.requests.cpu '
            'in body must be of type integer,string: "number"',
            "origin": "kube-apiserver (CRD schema)",
        }
    ]
    assert explainer["errors"][0]["message"] == (
        'strict decoding error: unknown field "spec.explainer.alibi"'
    )
    # The same quantity in a core Pod is valid: the CRD's int-or-string schema refuses it.
    pod = (
        "kind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 0.1}}}]}\n"
    )
    assert check("pod.yaml", pod)["objects"][0]["errors"] == []


def test_a_kserve_inline_container_takes_its_image_from_the_runtime() -> None:
    (predictor,) = check("kserve__hf_isvc.yaml")["objects"]
    assert not any(e["field"].endswith(".image") for e in predictor["errors"])
    assert predictor["role"] == "predictor"


def test_a_trainjob_is_the_runtime_pod_with_resources_per_node() -> None:
    (obj,) = check("trainer__02-runtime-patches.yaml")["objects"]
    assert obj["template"] == "spec.trainer"
    assert obj["replicas"] == 2
    assert obj["effectiveRequests"] == {"cpu": "2", "memory": "4Gi"}
    assert obj["effectiveLimits"] == {"cpu": "4", "memory": "8Gi"}
    assert obj["runtime"]["name"] == "torch-distributed"
    assert obj["runtime"]["builtin"].startswith(
        "kubeflow/trainer manifests/base/runtimes/torch_distributed.yaml@"
    )
    # The runtime patch's node selector reached the pod (strategic merge by job name).
    (workload,) = load((CRS / "trainer__02-runtime-patches.yaml").read_bytes()).workloads
    assert workload.pod_spec["nodeSelector"] == {"node-type": "training"}
    assert workload.pod_spec["serviceAccountName"] == "training-sa"


def test_a_trainjob_uses_the_runtime_in_the_same_input_first() -> None:
    report = check("trainer__05-multi-step.yaml")
    trainjob = [o for o in report["objects"] if o["kind"] == "TrainJob"]
    assert [(o["template"], o["replicas"]) for o in trainjob] == [
        ("spec.initializer.dataset", 1),
        ("spec.trainer", 2),
    ]
    assert trainjob[1]["runtime"] == {
        "kind": "TrainingRuntime",
        "name": "torch-with-dataset-init",
        "file": "trainer__05-multi-step.yaml",
        "document": 0,
        "template": "spec.template.spec.replicatedJobs[1].template.spec.template",
    }


def test_a_trainjob_runtime_may_be_in_another_file() -> None:
    runtime, trainjob = docs("trainer__05-multi-step.yaml")
    report = check_texts([("job.yaml", dump([trainjob])), ("runtime.yaml", dump([runtime]))])
    assert report["skipped"] == []
    assert {o["runtime"]["file"] for o in report["objects"] if o["kind"] == "TrainJob"} == {
        "runtime.yaml"
    }


def test_a_trainjob_without_its_runtime_is_skipped_saying_which() -> None:
    (trainjob,) = docs("trainer__02-runtime-patches.yaml")
    trainjob["spec"]["runtimeRef"]["name"] = "my-runtime"
    report = check("job.yaml", dump([trainjob]))
    assert report["objects"] == []
    assert report["skipped"] == [
        {
            "file": "job.yaml",
            "document": 0,
            "path": "",
            "kind": "TrainJob",
            "name": "runtime-patches-example",
            "reason": "TrainJob: runtime ClusterTrainingRuntime/my-runtime is not in the input "
            "(nor one Kubeflow Trainer installs)",
        }
    ]


def test_resources_per_node_replace_the_runtime_resources_as_a_whole() -> None:
    """torchtune-llama3.2-1b's node container has nvidia.com/gpu: 2; resourcesPerNode
    without GPUs drops them (Resources = *ResourcesPerNode.DeepCopy())."""
    job = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "tune"},
        "spec": {
            "runtimeRef": {"name": "torchtune-llama3.2-1b"},
            "trainer": {"resourcesPerNode": {"requests": {"cpu": "4"}}},
        },
    }
    objects = check("job.yaml", dump([job]))["objects"]
    trainer = next(o for o in objects if o["template"] == "spec.trainer")
    assert trainer["effectiveRequests"] == {"cpu": "4"}
    job["spec"]["trainer"] = {}
    trainer = next(
        o for o in check("job.yaml", dump([job]))["objects"] if o["template"] == "spec.trainer"
    )
    assert trainer["effectiveLimits"] == {"nvidia.com/gpu": "2"}


def test_the_builtin_runtimes_are_readable_and_named_by_their_source() -> None:
    runtimes = builtin_runtimes()
    assert "torch-distributed" in runtimes and len(runtimes) == 11
    for runtime in runtimes.values():
        assert runtime.origin["builtin"].startswith("kubeflow/trainer manifests/base/runtimes/")


def test_the_kinds_table_has_a_record_per_kind_with_its_source() -> None:
    kinds = {(sorted(r.groups)[0], r.kind) for r in (*KINDS, TRAINJOB_RECORD)}
    for kind in (
        ("kubeflow.org", "PyTorchJob"),
        ("kubeflow.org", "TFJob"),
        ("kubeflow.org", "MPIJob"),
        ("kubeflow.org", "XGBoostJob"),
        ("kubeflow.org", "PaddleJob"),
        ("kubeflow.org", "JAXJob"),
        ("trainer.kubeflow.org", "TrainJob"),
        ("trainer.kubeflow.org", "TrainingRuntime"),
        ("trainer.kubeflow.org", "ClusterTrainingRuntime"),
        ("jobset.x-k8s.io", "JobSet"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ("ray.io", "RayCluster"),
        ("ray.io", "RayJob"),
        ("ray.io", "RayService"),
        ("serving.kserve.io", "InferenceService"),
        ("serving.kserve.io", "ServingRuntime"),
        ("serving.kserve.io", "ClusterServingRuntime"),
        ("batch.volcano.sh", "Job"),
    ):
        assert kind in kinds
    assert all(r.source and r.versions and r.templates and r.pods for r in KINDS)


# --- mutated copies: the API server's error at the full path ------------------------------


def core_errors_of_pod(container: dict[str, Any]) -> list[tuple[str, str, str]]:
    pod = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [container]}}
    (obj,) = check("pod.yaml", dump([pod]))["objects"]
    return [(e["field"], e["type"], e["message"]) for e in obj["errors"]]


def prefixed(errors: list[tuple[str, str, str]], prefix: str) -> list[tuple[str, str, str]]:
    return [(prefix + f.removeprefix("spec"), t, m) for f, t, m in errors]


def test_a_gpu_request_without_limit_in_a_worker_is_refused_at_the_full_path() -> None:
    (job,) = docs("trainer__pytorch_job_mnist_nccl.yaml")
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    worker["resources"] = {"requests": {"nvidia.com/gpu": 1}}
    master, worker_obj = check("job.yaml", dump([job]))["objects"]
    assert master["errors"] == []
    errors = [(e["field"], e["type"], e["message"]) for e in worker_obj["errors"]]
    expected = prefixed(core_errors_of_pod(worker), "spec.pytorchReplicaSpecs.Worker.template.spec")
    assert errors == expected
    assert (
        errors[0][0]
        == "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits"
    )
    assert errors[0][2] == "Limit must be set for non overcommitable resources"


def test_a_memory_limit_below_its_request_in_a_ray_head_is_refused_at_the_full_path() -> None:
    documents = docs("kuberay__ray-cluster.kai-gpu-sharing.yaml")
    head = documents[2]["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["resources"] = {
        "requests": {"cpu": "1", "memory": "2Gi"},
        "limits": {"cpu": "1", "memory": "1Gi"},
    }
    head_obj = check("ray.yaml", dump(documents))["objects"][0]
    errors = [(e["field"], e["type"], e["message"]) for e in head_obj["errors"]]
    assert errors == prefixed(core_errors_of_pod(head), "spec.headGroupSpec.template.spec")
    assert errors == [
        (
            "spec.headGroupSpec.template.spec.containers[0].resources.requests",
            "FieldValueInvalid",
            "must be less than or equal to memory limit of 1Gi",
        )
    ]


def test_a_trainjob_error_is_at_resources_per_node() -> None:
    (job,) = docs("trainer__02-runtime-patches.yaml")
    job["spec"]["trainer"]["resourcesPerNode"] = {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}}
    (obj,) = check("job.yaml", dump([job]))["objects"]
    assert [(e["field"], e["message"]) for e in obj["errors"]] == [
        ("spec.trainer.resourcesPerNode.requests", "must be less than or equal to cpu limit of 4")
    ]
    # The container itself is the runtime's: QoS reasons name it there.
    assert any("spec.template.spec.replicatedJobs[0]" in r for r in obj["qosReasons"])


def test_a_kserve_model_error_is_at_the_inline_container() -> None:
    (isvc,) = docs("kserve__mnist_kafka_new.yaml")
    isvc["spec"]["predictor"]["model"]["resources"] = {
        "requests": {"memory": "2Gi"},
        "limits": {"memory": "1Gi"},
    }
    predictor = check("isvc.yaml", dump([isvc]))["objects"][0]
    assert [e["field"] for e in predictor["errors"]] == ["spec.predictor.model.resources.requests"]
    assert any("spec.predictor.model" in r for r in predictor["qosReasons"])


def test_a_pytorchjob_without_a_pytorch_container_is_refused_by_its_webhook() -> None:
    (job,) = docs("trainer__pytorch_job_mnist_nccl.yaml")
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] = (
        "main"
    )
    job["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = 2
    master, worker = check("job.yaml", dump([job]))["objects"]
    assert master["errors"] == [
        {
            "field": "spec.pytorchReplicaSpecs[Master].replicas",
            "type": "FieldValueForbidden",
            "message": "must be 1",
            "text": "Forbidden: must be 1",
            "origin": "Kubeflow Training Operator webhook",
        }
    ]
    assert worker["errors"] == [
        {
            "field": "spec.pytorchReplicaSpecs[Worker].template.spec.containers",
            "type": "FieldValueRequired",
            "message": "must have at least one container with name pytorch",
            "text": "Required value: must have at least one container with name pytorch",
            "origin": "Kubeflow Training Operator webhook",
        }
    ]


def test_volcano_min_available_above_replicas_is_refused_with_its_message() -> None:
    (job,) = docs("volcano__job.yaml")
    job["spec"]["minAvailable"] = 100
    job["spec"]["tasks"][0]["minAvailable"] = 50
    (obj,) = check("job.yaml", dump([job]))["objects"]
    messages = [e["message"] for e in obj["errors"]]
    assert " job 'minAvailable' should not be greater than total replicas in tasks;" in messages
    assert any(
        m.startswith(" 'minAvailable' is greater than 'replicas' in task:") for m in messages
    )


def test_an_lws_leader_without_a_gpu_when_workers_have_one_is_warned() -> None:
    (lws, _svc) = docs("lws__vllm-GPU-lws.yaml")
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    leader["resources"] = {"limits": {"cpu": "4", "memory": "16Gi"}}
    leader_obj = check("lws.yaml", dump([lws]))["objects"][0]
    assert leader_obj["role"] == "leader"
    assert any("leader requests no GPU" in w["message"] for w in leader_obj["warnings"])
    assert check("lws.yaml", dump(docs("lws__vllm-GPU-lws.yaml")))["objects"][0]["warnings"] == []


def test_ray_containers_without_limits_are_warned_that_ray_sizes_itself_from_them() -> None:
    documents = docs("kuberay__ray-cluster.kai-gpu-sharing.yaml")
    worker = documents[2]["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"] = {"requests": {"cpu": "1", "memory": "1Gi"}}
    objects = check("ray.yaml", dump(documents))["objects"]
    fields = {w["field"] for w in objects[1]["warnings"]}
    assert fields == {"spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits"}
    assert len(objects[1]["warnings"]) == 2  # cpu and memory


def test_the_ray_autoscaler_sidecar_is_part_of_the_head_pod() -> None:
    head = check("kuberay__ray-cluster.autoscaler.yaml")["objects"][0]
    # head 1 CPU / 2Gi + KubeRay's autoscaler 500m / 512Mi.
    assert head["effectiveRequests"] == {"cpu": "1500m", "memory": "2560Mi"}
    assert any(n["field"] == "spec.autoscalerOptions.resources" for n in head["notes"])
    (workload, *_rest) = load((CRS / "kuberay__ray-cluster.autoscaler.yaml").read_bytes()).workloads
    assert workload.pod_spec["containers"][-1]["name"] == "autoscaler"


def test_kai_fraction_with_a_whole_gpu_is_refused_with_kais_message() -> None:
    (pod,) = docs("KAI-Scheduler__gpu-sharing-init-container.yaml")
    pod["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    (obj,) = check("pod.yaml", dump([pod]))["objects"]
    assert {
        "field": "metadata.annotations[gpu-fraction]",
        "message": "cannot have both GPU fraction request and whole GPU resource request/limit",
        "text": "cannot have both GPU fraction request and whole GPU resource request/limit",
        "origin": "KAI-Scheduler",
    } in obj["errors"]


def test_gpu_reality_notes_are_given_per_template() -> None:
    hami = check("kueue__sample-hami.yaml")["objects"][0]
    origins = {n["origin"] for n in hami["notes"]}
    assert origins == {"HAMi", "Kueue"}
    assert "in total nvidia.com/gpumem 2048 MiB" in next(
        n["message"] for n in hami["notes"] if n["origin"] == "HAMi"
    )
    shared = check("gpu-operator__plugin-test.yaml")["objects"][0]
    assert [n["origin"] for n in shared["notes"]] == ["NVIDIA device plugin"]


def test_an_unknown_kind_is_read_by_shape_and_says_so() -> None:
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t"},
        "spec": {
            "workers": [
                {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
            ]
        },
    }
    (found,) = check("x.yaml", dump([obj]))["objects"]
    assert (found["template"], found["foundBy"], found["replicas"]) == (
        "spec.workers[0].template",
        "shape",
        None,
    )
    none = check("x.yaml", dump([{"apiVersion": "example.com/v1", "kind": "Thing"}]))
    assert none["skipped"][0]["reason"] == "Thing: no pod template"


def test_a_wrongly_typed_template_field_is_a_read_error_not_a_crash() -> None:
    (job,) = docs("trainer__pytorch_job_mnist_nccl.yaml")
    job["spec"]["pytorchReplicaSpecs"] = ["Master"]
    report = check("job.yaml", dump([job]))
    assert report["objects"] == []
    assert (
        "spec.pytorchReplicaSpecs is a list, expected a mapping" in report["errors"][0]["message"]
    )


def test_multiplicity_of_core_kinds() -> None:
    deployment = copy.deepcopy(docs("gpu-operator__plugin-test.yaml")[0])
    (obj,) = check("d.yaml", dump([deployment]))["objects"]
    assert (obj["template"], obj["replicas"], obj["replicasFrom"]) == (
        "spec.template",
        5,
        "spec.replicas",
    )
