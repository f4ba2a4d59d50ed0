"""Exporting a design as the objects people apply (designer.k8s.objects).

Checked three ways: the objects' shape (engine tests per kind), their schema (every export
passes kubernetes-validate 1.37 strict, and the real kubectl accepts it), and what the
engine itself says about them (read back through ``podspec check``; ``validate_objects``
with the API server's paths and messages, copied from the Go sources cited in objects.py).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from designer.k8s.apiserver import OmitValueError, validate_objects, validate_pod
from designer.k8s.check import check_texts
from designer.k8s.core import Message, Pod, go_map
from designer.k8s.design import (
    COMPLETION_INDEX_FIELD,
    EXPORT_KINDS,
    GPU_METRIC_ANNOTATION,
    GPU_METRIC_NAME,
    JOB_NAME_LABEL,
    MSG_HPA_NO_CPU,
    MSG_INDEXED_TOTAL_GPU,
    MSG_ONFAILURE,
    MSG_PFP,
    MSG_ROLLOUT_DEFAULT,
    MSG_ROLLOUT_GPU,
    OPERATOR_KINDS,
    SIZE_KEYS,
    WORKLOAD_TYPES,
    ContainerDesign,
    Design,
    ExportSettings,
    PodFacts,
    design_to_pod,
    duration_text,
    effective_kind,
    explain_export,
    export_objects,
    job_totals,
    pod_manifest,
    pod_report,
    preset_design,
    rollout_values,
    settings_field,
    warn_objects,
)
from designer.k8s.manifest import QuotedStr, dump_yaml_all, read_documents

DATA = Path(__file__).parents[1] / "data"
KUBECTL = shutil.which("kubectl")
K8S_VERSION = "1.37.0"
WORKLOAD_KEYS = tuple(WORKLOAD_TYPES)

# The core kinds (validated with the Kubernetes schema here); the ML operators' kinds are
# validated against their CRDs in tests/k8s/design/test_export_operators.py.
CORE_KINDS = [k for k in EXPORT_KINDS if k not in OPERATOR_KINDS]


def manifest(workload: str = "training", size: str | None = None, **changes: Any) -> dict:
    design = preset_design(workload, size).model_copy(update=changes)
    return pod_manifest(design_to_pod(design))


def export(workload: str, size: str | None = None, **kw: Any) -> list[dict]:
    """Export a preset; keywords are ExportSettings fields, or Design fields (name, labels...)."""
    settings_kw = {k: v for k, v in kw.items() if k in ExportSettings.model_fields}
    design_kw = {k: v for k, v in kw.items() if k not in settings_kw}
    pod = manifest(workload, size, **design_kw)
    return export_objects(PodFacts.of(pod), ExportSettings(**settings_kw), workload)


def errors(objects: list[dict]) -> list[tuple[int, str]]:
    return [(i, str(e)) for i, e in validate_objects(objects)]


def by_kind(objects: list[dict], kind: str) -> dict:
    (found,) = [o for o in objects if o["kind"] == kind]
    return found


# Every kind for every workload type, plus the variants with extra objects or fields.
EXPORT_CASES = (
    [pytest.param(w, {"kind": k}, id=f"{w}-{k}") for w in WORKLOAD_KEYS for k in CORE_KINDS]
    + [pytest.param(w, {}, id=f"{w}-default") for w in WORKLOAD_KEYS]
    + [
        pytest.param("inference", {"hpa": True}, id="inference-hpa"),
        pytest.param("inference", {"hpa": True, "hpa_gpu_metric": True}, id="inference-hpa-gpu"),
        pytest.param("preprocessing", {"job_restart_policy": "Never"}, id="preprocessing-never"),
        pytest.param(
            "batch",
            {"active_deadline_seconds": 3600, "ttl_seconds_after_finished": None},
            id="batch",
        ),
        pytest.param("distributed", {"workers": 8, "master_port": 23456}, id="distributed-8"),
    ]
)


# --- settings and kinds --------------------------------------------------------------------


def test_default_kind_follows_the_workload_type() -> None:
    defaults = {w.id: w.default_export_kind for w in WORKLOAD_TYPES.values()}
    assert defaults == {
        "training": "Pod",
        "distributed": "IndexedJob",
        "inference": "Deployment",
        "batch": "Job",
        "preprocessing": "Job",
    }
    for workload, kind in defaults.items():
        assert effective_kind(ExportSettings(), workload) == kind
        assert effective_kind(ExportSettings(kind="Job"), workload) == "Job"
    with pytest.raises(ValueError, match="unknown workload type 'unknown'"):
        effective_kind(ExportSettings(), "unknown")


def test_settings_are_small_json_with_defaults_and_no_extras() -> None:
    defaults = ExportSettings()
    data = json.loads(defaults.model_dump_json())
    assert data == {
        "kind": None,
        "replicas": 2,
        "max_surge": "",
        "max_unavailable": "",
        "hpa": False,
        "hpa_min": 2,
        "hpa_max": 10,
        "hpa_cpu_utilization": 70,
        "hpa_gpu_metric": False,
        "backoff_limit": 6,
        "job_restart_policy": "OnFailure",
        "ttl_seconds_after_finished": 86400,
        "active_deadline_seconds": None,
        "workers": 2,
        "master_port": 29500,
        "runtime": "torch-distributed",
        "model_format": "huggingface",
        "storage_uri": "",
    }
    assert ExportSettings.model_validate(data) == defaults
    with pytest.raises(ValidationError):
        ExportSettings.model_validate({"replica": 3})
    with pytest.raises(ValidationError):
        ExportSettings(kind="StatefulSet")  # type: ignore[arg-type]
    # Out-of-range numbers are the engine's business, not the model's.
    assert ExportSettings(replicas=-1, workers=0, master_port=70000).replicas == -1


# --- Pod -----------------------------------------------------------------------------------


def test_pod_export_is_the_pod_manifest_itself() -> None:
    pod = manifest("training")
    objects = export_objects(PodFacts.of(pod), ExportSettings(), "training")
    assert objects == [pod]
    assert objects[0] is not pod


def test_export_does_not_touch_its_input_and_keeps_quoted_quantities() -> None:
    pod = manifest("distributed", "L")
    before = copy.deepcopy(pod)
    for kind in CORE_KINDS:
        objects = export_objects(PodFacts.of(pod), ExportSettings(kind=kind), "distributed")
        workload = objects[-1] if kind == "IndexedJob" else objects[0]
        spec = workload["spec"]["template"]["spec"] if kind != "Pod" else workload["spec"]
        limits = spec["containers"][0]["resources"]["limits"]
        assert limits == {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"}
        assert all(type(v) is QuotedStr for v in limits.values())
        assert type(spec["volumes"][0]["emptyDir"]["sizeLimit"]) is QuotedStr
    assert pod == before


# --- Deployment ----------------------------------------------------------------------------


def test_deployment_wraps_the_pod() -> None:
    pod = manifest("inference", namespace="serving")
    (deployment,) = export_objects(PodFacts.of(pod), ExportSettings(replicas=3), "inference")
    assert deployment["apiVersion"] == "apps/v1"
    assert deployment["kind"] == "Deployment"
    assert deployment["metadata"] == {
        "name": "inference",
        "namespace": "serving",
        "labels": {"app": "inference"},
    }
    spec = deployment["spec"]
    assert spec["replicas"] == 3
    assert spec["selector"] == {"matchLabels": {"app": "inference"}}
    # Template metadata: labels only, no name or namespace.
    assert spec["template"]["metadata"] == {"labels": {"app": "inference"}}
    assert spec["template"]["spec"] == pod["spec"]


def test_deployment_without_pod_labels_selects_app_name() -> None:
    (deployment,) = export("inference", labels={})
    assert deployment["spec"]["selector"] == {"matchLabels": {"app": "inference"}}
    assert deployment["spec"]["template"]["metadata"]["labels"] == {"app": "inference"}
    assert errors([deployment]) == []


def test_deployment_forces_restart_policy_always_and_says_so() -> None:
    pod = manifest("training")  # restartPolicy Never
    settings_ = ExportSettings(kind="Deployment")
    (deployment,) = export_objects(PodFacts.of(pod), settings_, "training")
    assert deployment["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    lines = [line.text for line in explain_export(settings_, "training", PodFacts.of(pod))]
    assert "The pod's restartPolicy Never becomes Always" in " ".join(lines)


def test_gpu_deployment_rolls_out_without_surge() -> None:
    (deployment,) = export("inference")
    assert deployment["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
    }
    templates = [
        t
        for t, _ in explain_export(
            ExportSettings(), "inference", PodFacts.of(manifest("inference"))
        )
    ]
    assert MSG_ROLLOUT_GPU in templates


def test_cpu_deployment_rolls_out_with_kubernetes_defaults() -> None:
    (deployment,) = export("preprocessing", kind="Deployment")
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {
        "maxSurge": "25%",
        "maxUnavailable": "25%",
    }
    settings_ = ExportSettings(kind="Deployment")
    lines = explain_export(settings_, "preprocessing", PodFacts.of(manifest("preprocessing")))
    assert (MSG_ROLLOUT_DEFAULT, {}) in lines
    assert "maxSurge 25%, maxUnavailable 25%" in Message(MSG_ROLLOUT_DEFAULT, {}).text


@pytest.mark.parametrize(
    ("surge", "unavailable", "expected"),
    [
        ("", "", (0, 1)),
        ("1", "", (1, 1)),
        ("", "0", (0, 0)),
        (" 50% ", "2", ("50%", 2)),
        ("-1", "x", (-1, "x")),
    ],
)
def test_rollout_values_as_typed(surge: str, unavailable: str, expected: tuple) -> None:
    settings_ = ExportSettings(max_surge=surge, max_unavailable=unavailable)
    assert rollout_values(settings_, gpus=1) == expected


def test_hpa_follows_the_deployment() -> None:
    objects = export("inference", hpa=True, hpa_min=3, hpa_max=12, hpa_cpu_utilization=60)
    assert [o["kind"] for o in objects] == ["Deployment", "HorizontalPodAutoscaler"]
    deployment, hpa = objects
    # The HPA owns the replica count: kubectl apply must not reset it.
    assert "replicas" not in deployment["spec"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["metadata"] == {"name": "inference", "labels": {"app": "inference"}}
    assert hpa["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "inference"},
        "minReplicas": 3,
        "maxReplicas": 12,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60},
                },
            }
        ],
    }


def test_gpu_metric_is_an_obvious_placeholder() -> None:
    _, hpa = export("inference", hpa=True, hpa_gpu_metric=True)
    gpu = hpa["spec"]["metrics"][1]
    assert gpu == {
        "type": "Pods",
        "pods": {
            "metric": {"name": GPU_METRIC_NAME},
            "target": {"type": "AverageValue", "averageValue": "80"},
        },
    }
    assert GPU_METRIC_NAME == "DCGM_FI_DEV_GPU_UTIL"
    note = hpa["metadata"]["annotations"][GPU_METRIC_ANNOTATION]
    assert note.startswith("PLACEHOLDER") and "adapter" in note
    text = " ".join(
        x.text
        for x in explain_export(
            ExportSettings(hpa=True, hpa_gpu_metric=True),
            "inference",
            PodFacts.of(manifest("inference")),
        )
    )
    assert "placeholder" in text and "DCGM" in text and "adapter" in text


def test_hpa_explains_requests_and_warns_without_cpu_request() -> None:
    text = " ".join(
        x.text
        for x in explain_export(
            ExportSettings(hpa=True), "inference", PodFacts.of(manifest("inference"))
        )
    )
    assert "divided by the CPU request (4 per pod here)" in text
    assert "custom metric" in text  # GPU pods: CPU says little

    pod = manifest("preprocessing", "S")  # no requests at all
    settings_ = ExportSettings(kind="Deployment", hpa=True)
    assert (MSG_HPA_NO_CPU, {}) in explain_export(settings_, "preprocessing", PodFacts.of(pod))
    objects = export_objects(PodFacts.of(pod), settings_, "preprocessing")
    assert errors(objects) == []  # the API server accepts it ...
    warnings = [(i, str(w)) for i, w in warn_objects(objects)]
    assert warnings == [  # ... but the HPA cannot scale it
        (
            0,
            "spec.template.spec.containers[0].resources.requests[cpu]: no cpu request: the "
            "HorizontalPodAutoscaler measures CPU utilization against requests and cannot "
            'scale Deployment "preprocess" (missing request for cpu in container "main")',
        )
    ]
    # A CPU limit defaults the request: no warning then.
    assert warn_objects(export("preprocessing", "M", kind="Deployment", hpa=True)) == []


# --- Job -----------------------------------------------------------------------------------


def test_job_wraps_the_pod() -> None:
    (job,) = export("batch", active_deadline_seconds=7200)
    assert job["apiVersion"] == "batch/v1"
    assert job["metadata"] == {"name": "batch-inference", "labels": {"app": "batch-inference"}}
    spec = job["spec"]
    assert spec["backoffLimit"] == 6
    assert spec["ttlSecondsAfterFinished"] == 86400
    assert spec["activeDeadlineSeconds"] == 7200
    assert "selector" not in spec  # generated by the API server
    assert "podFailurePolicy" not in spec  # OnFailure: not allowed
    assert spec["template"]["metadata"] == {"labels": {"app": "batch-inference"}}
    assert spec["template"]["spec"]["restartPolicy"] == "OnFailure"


def test_job_with_restart_never_ignores_disruptions() -> None:
    settings_ = ExportSettings(job_restart_policy="Never", ttl_seconds_after_finished=None)
    (job,) = export_objects(PodFacts.of(manifest("preprocessing")), settings_, "preprocessing")
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    assert job["spec"]["podFailurePolicy"] == {
        "rules": [
            {
                "action": "Ignore",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            }
        ]
    }
    assert "ttlSecondsAfterFinished" not in job["spec"]
    templates = [
        t
        for t, _ in explain_export(
            settings_, "preprocessing", PodFacts.of(manifest("preprocessing"))
        )
    ]
    assert MSG_PFP in templates and MSG_ONFAILURE not in templates
    templates = [
        t for t, _ in explain_export(ExportSettings(), "batch", PodFacts.of(manifest("batch")))
    ]
    assert MSG_ONFAILURE in templates and MSG_PFP not in templates


def test_job_explains_eviction_retries() -> None:
    text = " ".join(
        x.text for x in explain_export(ExportSettings(), "batch", PodFacts.of(manifest("batch")))
    )
    assert "must tolerate" in text and "evicted" in text
    assert "backoffLimit 6" in text
    assert "podFailurePolicy" in text  # how to keep evictions from using up retries
    assert "deleted 24h after it finishes (ttlSecondsAfterFinished: 86400)" in text


# --- Indexed Job ---------------------------------------------------------------------------


def test_indexed_job_is_a_headless_service_then_the_job() -> None:
    objects = export("distributed", "XL", workers=4, master_port=23456, namespace="ml")
    assert [o["kind"] for o in objects] == ["Service", "Job"]
    service, job = objects
    assert service["metadata"]["name"] == "trainer-worker"
    assert service["spec"] == {
        "clusterIP": "None",
        "publishNotReadyAddresses": True,
        "selector": {JOB_NAME_LABEL: "trainer-worker"},
        "ports": [{"name": "rendezvous", "port": 23456, "targetPort": 23456, "protocol": "TCP"}],
    }
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"] == 4
    assert spec["backoffLimit"] == 6
    assert spec["podFailurePolicy"]["rules"][0]["action"] == "Ignore"
    pod_spec = spec["template"]["spec"]
    assert pod_spec["subdomain"] == "trainer-worker"
    assert pod_spec["restartPolicy"] == "Never"
    env = {e["name"]: e for e in pod_spec["containers"][0]["env"]}
    assert env["MASTER_ADDR"]["value"] == "trainer-worker-0.trainer-worker"
    assert env["MASTER_PORT"]["value"] == "23456"
    assert env["NNODES"]["value"] == "4"
    assert env["NPROC_PER_NODE"]["value"] == "8"  # XL: 8 GPUs per worker
    assert env["WORLD_SIZE"]["value"] == "32"
    assert env["NODE_RANK"]["valueFrom"] == {"fieldRef": {"fieldPath": COMPLETION_INDEX_FIELD}}
    assert COMPLETION_INDEX_FIELD == (
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    )
    assert "RANK" not in env  # per process: torchrun computes it
    assert env["PET_NODE_RANK"]["value"] == "$(NODE_RANK)"
    assert env["PET_NNODES"]["value"] == "$(NNODES)"
    # Service and Job are in the pod's namespace.
    assert {o["metadata"]["namespace"] for o in objects} == {"ml"}


def test_indexed_job_env_goes_on_every_app_container_only() -> None:
    design = preset_design("distributed")
    design.containers.append(ContainerDesign(name="logger", image="fluent-bit"))
    design.containers.append(ContainerDesign(role="init", name="fetch", image="busybox"))
    design.containers[0].base = {"env": [{"name": "NNODES", "value": "99"}, {"name": "X"}]}
    design.base = {"spec": {"hostname": "fixed", "subdomain": "old"}}
    pod = pod_manifest(design_to_pod(design))
    _, job = export_objects(PodFacts.of(pod), ExportSettings(), "distributed")
    pod_spec = job["spec"]["template"]["spec"]
    main, logger = pod_spec["containers"]
    names = [e["name"] for e in main["env"]]
    assert names[:6] == [
        "MASTER_ADDR",
        "MASTER_PORT",
        "NNODES",
        "NPROC_PER_NODE",
        "WORLD_SIZE",
        "NODE_RANK",
    ]
    assert names.count("NNODES") == 1 and names[-1] == "X"  # ours replace, theirs kept after
    assert [e["name"] for e in logger["env"]] == names[:-1]
    assert "env" not in pod_spec["initContainers"][0]
    # Workers get <job>-<index> hostnames from the Job controller, in our subdomain.
    assert "hostname" not in pod_spec and pod_spec["subdomain"] == "trainer-worker"
    assert errors([job]) == []


def test_one_process_per_worker_also_sets_rank() -> None:
    _, job = export("distributed", "S")  # 1 GPU per worker
    env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["NPROC_PER_NODE"]["value"] == "1"
    assert env["WORLD_SIZE"]["value"] == "2"
    assert env["RANK"]["valueFrom"] == env["NODE_RANK"]["valueFrom"]
    _, job = export("preprocessing", kind="IndexedJob", workers=3)  # no GPUs: one process
    env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert (env["NPROC_PER_NODE"]["value"], env["WORLD_SIZE"]["value"]) == ("1", "3")


def test_indexed_job_totals() -> None:
    pod = manifest("distributed", "XL")
    settings_ = ExportSettings(workers=4)
    assert job_totals(PodFacts.of(pod), settings_, "distributed") == {
        "cpu": "384",
        "memory": "4Ti",
        "nvidia.com/gpu": "32",
    }
    line = Message(MSG_INDEXED_TOTAL_GPU, {"workers": 4, "gpus": 8, "total": 32})
    assert line in explain_export(settings_, "distributed", PodFacts.of(pod))
    assert line.text == "4 workers × 8 GPUs = 32 GPUs"
    text = " ".join(x.text for x in explain_export(settings_, "distributed", PodFacts.of(pod)))
    assert "gang scheduler" in text and "32 GPUs fit at once" in text


def test_totals_count_replicas_and_single_pods() -> None:
    pod = manifest("inference", "M")
    assert job_totals(PodFacts.of(pod), ExportSettings(replicas=3), "inference") == {
        "cpu": "12",
        "memory": "48Gi",
        "nvidia.com/gpu": "3",
    }
    assert (
        job_totals(PodFacts.of(pod), ExportSettings(hpa=True, hpa_max=5), "inference")["cpu"]
        == "20"
    )
    assert job_totals(PodFacts.of(pod), ExportSettings(), "batch") == {
        "cpu": "4",
        "memory": "16Gi",
        "nvidia.com/gpu": "1",
    }
    assert job_totals(PodFacts.of(pod), ExportSettings(kind="IndexedJob", workers=2))["cpu"] == "8"
    assert job_totals(PodFacts.of(pod), ExportSettings(replicas=-4), "inference")["cpu"] == "0"


# --- explanations --------------------------------------------------------------------------


@pytest.mark.parametrize(("workload", "overrides"), EXPORT_CASES)
def test_every_explanation_renders(workload: str, overrides: dict) -> None:
    settings_ = ExportSettings(**overrides)
    lines = explain_export(settings_, workload, PodFacts.of(manifest(workload)))
    assert lines[0].template == EXPORT_KINDS[effective_kind(settings_, workload)].reason
    for line in lines:
        assert isinstance(line.template, str) and line.template
        json.dumps(line.as_dict())
        assert "%(" not in line.text


def test_a_non_default_kind_says_what_is_usual() -> None:
    lines = explain_export(ExportSettings(kind="Pod"), "batch", PodFacts.of(manifest("batch")))
    assert lines[1].text == (
        "Exported as Pod; the usual choice for Batch / offline inference is Job."
    )


def test_duration_text() -> None:
    assert [duration_text(s) for s in (0, 59, 60, 90, 3600, 86400, 90061)] == [
        "0s",
        "59s",
        "1m",
        "1m30s",
        "1h",
        "24h",
        "25h1m1s",
    ]


# --- every export is valid -----------------------------------------------------------------


@pytest.mark.parametrize(("workload", "overrides"), EXPORT_CASES)
@pytest.mark.parametrize("size", SIZE_KEYS)
def test_every_export_passes_the_schema_and_the_engine(
    workload: str, overrides: dict, size: str
) -> None:
    objects = export(workload, size, **overrides)
    for obj in objects:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    assert errors(objects) == []
    assert warn_objects(objects) == []


@pytest.mark.parametrize(("workload", "overrides"), EXPORT_CASES)
def test_read_back_gives_the_pods_qos_and_no_errors(workload: str, overrides: dict) -> None:
    pod = manifest(workload)
    objects = export_objects(PodFacts.of(pod), ExportSettings(**overrides), workload)
    report = pod_report(Pod.model_validate(pod))
    result = check_texts([("x.yaml", dump_yaml_all(objects))])
    assert result["errors"] == []
    (checked,) = result["objects"]  # Service and HPA have no pod template
    assert checked["kind"] in ("Pod", "Deployment", "Job")
    assert checked["qosClass"] == report.qos_class
    assert checked["errors"] == []
    assert checked["effectiveRequests"] == report.as_dict()["effectiveRequests"]
    # The YAML stream reads back to the same objects.
    docs = read_documents(dump_yaml_all(objects))
    assert [d.data for d in docs] == json.loads(json.dumps(objects))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    workload=st.sampled_from(WORKLOAD_KEYS),
    size=st.sampled_from(SIZE_KEYS),
    kind=st.sampled_from((None, *CORE_KINDS)),
    replicas=st.integers(0, 50),
    surge=st.sampled_from(("", "0", "1", "3", "10%", "100%")),
    unavailable=st.sampled_from(("", "1", "2", "25%", "100%")),
    hpa=st.booleans(),
    hpa_min=st.integers(1, 5),
    hpa_extra=st.integers(0, 20),
    gpu_metric=st.booleans(),
    utilization=st.integers(1, 100),
    backoff=st.integers(0, 20),
    restart=st.sampled_from(("OnFailure", "Never")),
    ttl=st.one_of(st.none(), st.integers(0, 10**6)),
    deadline=st.one_of(st.none(), st.integers(1, 10**6)),
    workers=st.integers(1, 64),
    port=st.integers(1, 65535),
)
def test_valid_settings_give_valid_objects(**kw: Any) -> None:
    settings_ = ExportSettings(
        kind=kw["kind"],
        replicas=kw["replicas"],
        max_surge=kw["surge"],
        max_unavailable=kw["unavailable"],
        hpa=kw["hpa"],
        hpa_min=kw["hpa_min"],
        hpa_max=kw["hpa_min"] + kw["hpa_extra"],
        hpa_gpu_metric=kw["gpu_metric"],
        hpa_cpu_utilization=kw["utilization"],
        backoff_limit=kw["backoff"],
        job_restart_policy=kw["restart"],
        ttl_seconds_after_finished=kw["ttl"],
        active_deadline_seconds=kw["deadline"],
        workers=kw["workers"],
        master_port=kw["port"],
    )
    pod = manifest(kw["workload"], kw["size"])
    objects = export_objects(PodFacts.of(pod), settings_, kw["workload"])
    assert errors(objects) == []
    for obj in objects:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    for template, params in explain_export(settings_, kw["workload"], PodFacts.of(pod)):
        assert Message(template, params).text


@settings(max_examples=80, deadline=None)
@given(
    kind=st.sampled_from(CORE_KINDS),
    numbers=st.lists(st.integers(-(2**40), 2**40), min_size=9, max_size=9),
    surge=st.text(max_size=6),
    unavailable=st.text(max_size=6),
    name=st.text(max_size=80),
)
def test_any_settings_never_crash(
    kind: str, numbers: list[int], surge: str, unavailable: str, name: str
) -> None:
    settings_ = ExportSettings(
        kind=kind,  # type: ignore[arg-type]
        replicas=numbers[0],
        hpa=True,
        hpa_min=numbers[1],
        hpa_max=numbers[2],
        hpa_cpu_utilization=numbers[3],
        backoff_limit=numbers[4],
        ttl_seconds_after_finished=numbers[5],
        active_deadline_seconds=numbers[6],
        workers=numbers[7],
        master_port=numbers[8],
        max_surge=surge,
        max_unavailable=unavailable,
    )
    pod = manifest("distributed", name=name)
    objects = export_objects(PodFacts.of(pod), settings_, "distributed")
    validate_objects(objects)
    warn_objects(objects)
    for line in explain_export(settings_, "distributed", PodFacts.of(pod)):
        assert line.text
    job_totals(PodFacts.of(pod), settings_, "distributed")


# --- golden files --------------------------------------------------------------------------

GOLDEN = {
    "objects_deployment_hpa.yaml": ("inference", "M", {"hpa": True, "hpa_gpu_metric": True}),
    "objects_job.yaml": ("batch", "M", {"job_restart_policy": "Never"}),
    "objects_indexed_job.yaml": ("distributed", "XL", {"workers": 4}),
}


@pytest.mark.parametrize("filename", sorted(GOLDEN))
def test_golden_yaml(filename: str) -> None:
    """The exact YAML users download (set UPDATE_GOLDEN=1 to rewrite after a deliberate change)."""
    workload, size, overrides = GOLDEN[filename]
    text = dump_yaml_all(export(workload, size, **overrides))
    path = DATA / filename
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


# --- validation table: the API server's paths and messages ----------------------------------

DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
MISMATCH = (
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"inference"}: '
    "`selector` does not match template `labels`"
)
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')"
)


def _set(path: str, value: Any) -> Any:
    """An edit of an exported object: ``spec.template.spec.restartPolicy`` = value."""

    def edit(obj: dict) -> None:
        *parents, last = path.split(".")
        for part in parents:
            obj = obj.setdefault(part, {})
        if value is _DELETE:
            obj.pop(last, None)
        else:
            obj[last] = value

    return edit


_DELETE = object()

# (workload, settings, [(object index, edit)], expected [(object index, error)])
TABLE = [
    # apps/validation ValidateDeploymentSpec
    (
        "inference",
        {"replicas": -1},
        [],
        [(0, "spec.replicas: Invalid value: -1: must be greater than or equal to 0")],
    ),
    (
        "inference",
        {"replicas": 2**31},
        [],
        [(0, "spec.replicas: Invalid value: 2147483648: must be a 32-bit integer")],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.selector", _DELETE))],
        [
            (0, "spec.selector: Required value"),
            (
                0,
                MISMATCH,
            ),
        ],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.selector.matchLabels", {"app": "other"}))],
        [
            (
                0,
                MISMATCH,
            ),
        ],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.selector", {}))],
        [
            (
                0,
                # The *LabelSelector is dereferenced and printed as %#v (its String()
                # has a pointer receiver), as users have reported it.
                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
                "map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
                "empty selector is invalid for deployment",
            ),
        ],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.template.spec.restartPolicy", "Never"))],
        [
            (
                0,
                'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: '
                '"Always"',
            ),
        ],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.template.spec.activeDeadlineSeconds", 60))],
        [
            (
                0,
                "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
                "ReplicaSet is not Supported",
            ),
        ],
    ),
    (
        "inference",
        {"max_surge": "0", "max_unavailable": "0"},
        [],
        [
            (
                0,
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString"
                '{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
            ),
        ],
    ),
    (
        "inference",
        {"max_surge": "0%", "max_unavailable": "0%"},
        [],
        [
            (
                0,
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString"
                '{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0',
            ),
        ],
    ),
    ("preprocessing", {"kind": "Deployment", "max_surge": "0"}, [], []),  # 25% unavailable
    (
        "inference",
        {"max_surge": "abc", "max_unavailable": "150%"},
        [],
        [
            (
                0,
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString"
                f'{{Type:1, IntVal:0, StrVal:"abc"}}: {PERCENT}',
            ),
            (
                0,
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString"
                '{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
            ),
        ],
    ),
    (
        "inference",
        {"max_surge": "150%", "max_unavailable": "-1"},
        [],
        [  # surge may exceed 100%
            (
                0,
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater "
                "than or equal to 0",
            ),
        ],
    ),
    (
        "inference",
        {},
        [(0, _set("metadata.name", "Inference_1"))],
        [(0, f'metadata.name: Invalid value: "Inference_1": {SUBDOMAIN}')],
    ),
    # the pod template, through validate_pod, at the template's paths
    (
        "inference",
        {},
        [(0, _set("spec.template.spec.containers", []))],
        [(0, "spec.template.spec.containers: Required value")],
    ),
    (
        "inference",
        {},
        [(0, _set("spec.template.metadata.labels", {"app": "inference", "bad key!": "y"}))],
        [
            (
                0,
                'spec.template.labels: Invalid value: "bad key!": name part must consist of '
                "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
        ],
    ),
    (
        "batch",
        {},
        [
            (
                0,
                _set(
                    "spec.template.spec.containers",
                    [
                        {
                            "name": "main",
                            "image": "i",
                            "resources": {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}},
                        }
                    ],
                ),
            )
        ],
        [
            (
                0,
                'spec.template.spec.containers[0].resources.requests: Invalid value: "8": must be '
                "less than or equal to cpu limit of 4",
            )
        ],
    ),
    # autoscaling/validation validateHorizontalPodAutoscalerSpec
    (
        "inference",
        {"hpa": True, "hpa_min": 0},
        [],
        [(1, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1")],
    ),
    (
        "inference",
        {"hpa": True, "hpa_min": 2, "hpa_max": 0},
        [],
        [
            (1, "spec.maxReplicas: Invalid value: 0: must be greater than 0"),
            (
                1,
                "spec.maxReplicas: Invalid value: 0: must be greater than or equal to "
                "`minReplicas`",
            ),
        ],
    ),
    (
        "inference",
        {"hpa": True, "hpa_min": 5, "hpa_max": 3},
        [],
        [(1, "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`")],
    ),
    (
        "inference",
        {"hpa": True, "hpa_cpu_utilization": 0},
        [],
        [
            (
                1,
                "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be "
                "greater than 0",
            ),
        ],
    ),
    (
        "inference",
        {"hpa": True, "hpa_gpu_metric": True},
        [
            (
                1,
                _set(
                    "spec.metrics",
                    [
                        {
                            "type": "Pods",
                            "pods": {
                                "metric": {"name": "a/b"},
                                "target": {"type": "AverageValue", "averageValue": "0"},
                            },
                        }
                    ],
                ),
            )
        ],
        [
            (1, "spec.metrics[0].pods.metric.name: Invalid value: \"a/b\": may not contain '/'"),
            (1, "spec.metrics[0].pods.target.averageValue: Invalid value: 0: must be positive"),
        ],
    ),
    (
        "inference",
        {"hpa": True},
        [(1, _set("spec.scaleTargetRef", {}))],
        [
            (1, "spec.scaleTargetRef.kind: Required value"),
            (1, "spec.scaleTargetRef.name: Required value"),
        ],
    ),
    # batch/validation validateJobSpec and ValidateJob
    (
        "batch",
        {"backoff_limit": -1, "ttl_seconds_after_finished": -5, "active_deadline_seconds": -1},
        [],
        [
            (
                0,
                "spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
            ),
            (0, "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
            (
                0,
                "spec.ttlSecondsAfterFinished: Invalid value: -5: must be greater than or "
                "equal to 0",
            ),
        ],
    ),
    ("batch", {"active_deadline_seconds": 0, "ttl_seconds_after_finished": 0}, [], []),
    (
        "batch",
        {},
        [(0, _set("spec.template.spec.restartPolicy", "Always"))],
        [
            (
                0,
                'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
                '"Never"',
            ),
        ],
    ),
    (
        "batch",
        {},
        [(0, _set("spec.template.spec.restartPolicy", "Sometimes"))],
        [
            (
                0,
                'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported '
                'values: "Always", "OnFailure", "Never"',
            ),
            (
                0,
                'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported '
                'values: "OnFailure", "Never"',
            ),
        ],
    ),
    (
        "batch",
        {"job_restart_policy": "Never"},
        [(0, _set("spec.template.spec.restartPolicy", "OnFailure"))],
        [
            (
                0,
                'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is '
                "supported when podFailurePolicy is specified",
            ),
        ],
    ),
    (
        "batch",
        {"job_restart_policy": "Never"},
        [(0, _set("spec.podFailurePolicy", {"rules": [{"action": "Skip"}]}))],
        [
            (
                0,
                'spec.podFailurePolicy.rules[0].action: Unsupported value: "Skip": supported '
                'values: "Count", "FailIndex", "FailJob", "Ignore"',
            ),
            (
                0,
                "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and "
                "OnPodConditions is required",
            ),
        ],
    ),
    (
        "batch",
        {},
        [(0, _set("metadata.name", "b" * 64))],
        [
            (
                0,
                f'spec.template.labels: Invalid value: "{"b" * 64}": must be no more than 63 '
                "characters",
            ),
        ],
    ),
    (
        "batch",
        {},
        [(0, _set("metadata.name", ""))],
        [(0, "metadata.name: Required value: name or generateName is required")],
    ),
    (
        "batch",
        {},
        [(0, _set("spec.completionMode", "Sequential"))],
        [
            (
                0,
                'spec.completionMode: Unsupported value: "Sequential": supported values: '
                '"NonIndexed", "Indexed"',
            ),
        ],
    ),
    (
        "distributed",
        {},
        [(1, _set("spec.completions", _DELETE))],
        [(1, "spec.completions: Required value: when completion mode is Indexed")],
    ),
    (
        "distributed",
        {"workers": -1},
        [],
        [
            (1, "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"),
            (1, "spec.completions: Invalid value: -1: must be greater than or equal to 0"),
        ],
    ),
    (
        "distributed",
        {"workers": 100001},
        [],
        [
            (
                1,
                "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 "
                "when completion mode is Indexed",
            ),
        ],
    ),
    (
        "distributed",
        {"workers": 10},
        [(1, _set("metadata.name", "a" * 62))],
        [
            (
                1,
                f'metadata.name: Invalid value: "{"a" * 62}": will not able to create pod with '
                f"invalid DNS label: {'a' * 62}-9",
            ),
        ],
    ),
    (
        "distributed",
        {},
        [(1, _set("spec.template.spec.subdomain", "a.b"))],
        [(1, 'spec.template.spec.subdomain: Invalid value: "a.b": must not contain dots')],
    ),
    # core/validation ValidateService
    (
        "distributed",
        {"master_port": 0},
        [],
        [
            (0, "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"),
            (
                0,
                "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, "
                "inclusive",
            ),
        ],
    ),
    (
        "distributed",
        {"master_port": 70000},
        [],
        [
            (0, "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"),
            (
                0,
                "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, "
                "inclusive",
            ),
        ],
    ),
    (
        "distributed",
        {},
        [(0, _set("metadata.name", "1trainer"))],
        [(0, f'metadata.name: Invalid value: "1trainer": {DNS1035}')],
    ),
    (
        "distributed",
        {},
        [(0, _set("metadata.name", "trainer.v2"))],
        [(0, f'metadata.name: Invalid value: "trainer.v2": {DNS1035}')],
    ),
    (
        "distributed",
        {},
        [(0, _set("spec.ports", [{"port": 1, "name": "Rdzv"}, {"port": 2}]))],
        [
            (0, f'spec.ports[0].name: Invalid value: "Rdzv": {LABEL}'),
            (0, "spec.ports[1].name: Required value"),
        ],
    ),
    # metadata on every object
    (
        "distributed",
        {},
        [(0, _set("metadata.namespace", "Team_A")), (1, _set("metadata.namespace", "Team_A"))],
        [
            (0, f'metadata.namespace: Invalid value: "Team_A": {LABEL}'),
            (1, f'metadata.namespace: Invalid value: "Team_A": {LABEL}'),
        ],
    ),
]


@pytest.mark.parametrize(
    ("workload", "overrides", "edits", "expected"),
    TABLE,
    ids=[f"{i}-{row[0]}" for i, row in enumerate(TABLE)],
)
def test_validation_table(
    workload: str, overrides: dict, edits: list, expected: list[tuple[int, str]]
) -> None:
    objects = export(workload, **overrides)
    for i, edit in edits:
        edit(objects[i])
    assert errors(objects) == expected


def test_errors_point_at_the_settings_field() -> None:
    cases = [
        ("inference", {"replicas": -1}, "replicas"),
        ("inference", {"max_surge": "x"}, "max_surge"),
        ("inference", {"max_surge": "0", "max_unavailable": "0"}, "max_unavailable"),
        ("inference", {"hpa": True, "hpa_min": 0}, "hpa_min"),
        ("inference", {"hpa": True, "hpa_max": 0, "hpa_min": 1}, "hpa_max"),
        ("inference", {"hpa": True, "hpa_cpu_utilization": -3}, "hpa_cpu_utilization"),
        ("batch", {"backoff_limit": -1}, "backoff_limit"),
        ("batch", {"ttl_seconds_after_finished": -1}, "ttl_seconds_after_finished"),
        ("batch", {"active_deadline_seconds": -1}, "active_deadline_seconds"),
        ("distributed", {"workers": -2}, "workers"),
        ("distributed", {"master_port": 0}, "master_port"),
    ]
    for workload, overrides, field in cases:
        objects = export(workload, **overrides)
        found = {settings_field(objects[i], e.field) for i, e in validate_objects(objects)}
        assert found == {field}, (overrides, found)


def test_template_errors_are_validate_pods_with_the_objects_index() -> None:
    pod = manifest("distributed", namespace="ml")
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = QuotedStr("64")  # > limit
    pod_errors = validate_pod(Pod.model_validate(pod)).errors
    assert [str(e) for e in pod_errors] == [
        'spec.containers[0].resources.requests: Invalid value: "64": must be less than or '
        "equal to cpu limit of 32"
    ]
    for kind, at in (("Pod", 0), ("Deployment", 0), ("Job", 0), ("IndexedJob", 1)):
        objects = export_objects(PodFacts.of(pod), ExportSettings(kind=kind), "distributed")
        prefix = "spec." if kind == "Pod" else "spec.template.spec."
        expected = [(at, str(e).replace("spec.", prefix, 1)) for e in pod_errors]
        assert errors(objects) == expected, kind


def test_omitted_values_print_no_value() -> None:
    error = OmitValueError("spec.podFailurePolicy.rules[0]", "FieldValueInvalid", "detail")
    assert str(error) == "spec.podFailurePolicy.rules[0]: Invalid value: detail"


def test_go_map_prints_like_go() -> None:
    assert go_map({"b": "2", "a": 'q"'}) == 'map[string]string{"a":"q\\"", "b":"2"}'
    assert go_map(None) == "map[string]string(nil)"
    assert go_map({}) == "map[string]string{}"


def test_warnings_for_an_indexed_job_without_workers() -> None:
    objects = export("distributed", workers=0)
    assert errors(objects) == []  # 0 completions is valid: the Job just completes
    assert [(i, w.field) for i, w in warn_objects(objects)] == [(1, "spec.completions")]


def test_template_warnings_carry_the_objects_index() -> None:
    pod = manifest("batch")
    pod["spec"]["containers"][0]["resources"]["limits"]["memory"] = "1500m"
    objects = export_objects(PodFacts.of(pod), ExportSettings(), "batch")
    assert [(i, str(w)) for i, w in warn_objects(objects)] == [
        (
            0,
            "spec.template.spec.containers[0].resources.limits[memory]: fractional byte value "
            '"1500m" is invalid, must be an integer',
        )
    ]


def test_design_round_trip_keeps_the_export_valid() -> None:
    """A design started from an imported pod still exports valid objects of each kind."""
    from designer.k8s.design import design_from_pod

    imported = Pod.model_validate(
        {
            "metadata": {
                "name": "serve",
                "labels": {"app": "serve", "tier": "gpu"},
                "annotations": {
                    "prometheus.io/scrape": "true",
                    "kubectl.kubernetes.io/last-applied-configuration": "{}",
                },
            },
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "srv",
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"cpu": "2", "memory": "4Gi"}},
                    }
                ]
            },
        }
    )
    design: Design = design_from_pod(imported, "inference")
    pod = pod_manifest(design_to_pod(design))
    for kind in CORE_KINDS:
        objects = export_objects(PodFacts.of(pod), ExportSettings(kind=kind), "inference")
        assert errors(objects) == []
        for obj in objects:
            kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    (deployment,) = export_objects(PodFacts.of(pod), ExportSettings(), "inference")
    assert deployment["spec"]["selector"]["matchLabels"] == {"app": "serve", "tier": "gpu"}
    # The pod's own annotations stay on the pods; kubectl's bookkeeping does not.
    assert deployment["spec"]["template"]["metadata"]["annotations"] == {
        "prometheus.io/scrape": "true"
    }


# --- kubectl -------------------------------------------------------------------------------


def _resource(name: str, kind: str) -> dict[str, Any]:
    return {"name": name, "singularName": "", "namespaced": True, "kind": kind, "verbs": ["create"]}


# Just enough discovery for kubectl to map kinds to resources: `kubectl create
# --dry-run=client` needs a REST mapping, i.e. a server to ask. Nothing is stored.
DISCOVERY = {
    "/version": {"major": "1", "minor": "32", "gitVersion": "v1.32.0"},
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/api/v1": {
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": [_resource("pods", "Pod"), _resource("services", "Service")],
    },
    "/apis": {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {
                "name": group,
                "versions": [{"groupVersion": f"{group}/{version}", "version": version}],
                "preferredVersion": {"groupVersion": f"{group}/{version}", "version": version},
            }
            for group, version in (("apps", "v1"), ("batch", "v1"), ("autoscaling", "v2"))
        ],
    },
    "/apis/apps/v1": {
        "kind": "APIResourceList",
        "groupVersion": "apps/v1",
        "resources": [_resource("deployments", "Deployment")],
    },
    "/apis/batch/v1": {
        "kind": "APIResourceList",
        "groupVersion": "batch/v1",
        "resources": [_resource("jobs", "Job")],
    },
    "/apis/autoscaling/v2": {
        "kind": "APIResourceList",
        "groupVersion": "autoscaling/v2",
        "resources": [_resource("horizontalpodautoscalers", "HorizontalPodAutoscaler")],
    },
}


class _Discovery(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        doc = DISCOVERY.get(self.path.split("?")[0])
        body = json.dumps(doc if doc is not None else {"kind": "Status", "code": 404}).encode()
        self.send_response(200 if doc is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def discovery_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Discovery)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _kubectl(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    env["KUBECONFIG"] = str(tmp_path / "none")
    return subprocess.run(
        [KUBECTL or "kubectl", *args], capture_output=True, text=True, timeout=120, env=env
    )


KUBECTL_CASES = [
    pytest.param("training", {}, id="pod"),
    pytest.param("inference", {"hpa": True, "hpa_gpu_metric": True}, id="deployment-hpa"),
    pytest.param("batch", {}, id="job"),
    pytest.param("preprocessing", {"job_restart_policy": "Never"}, id="job-never"),
    pytest.param("distributed", {"workers": 4}, id="indexed-job"),
]


@pytest.mark.kubectl
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize(("workload", "overrides"), KUBECTL_CASES)
def test_kubectl_creates_each_export(
    workload: str, overrides: dict, tmp_path: Path, discovery_server: str
) -> None:
    objects = export(workload, "L", namespace="ml", **overrides)
    path = tmp_path / "export.yaml"
    path.write_text(dump_yaml_all(objects))
    args = ["create", "--dry-run=client", "--validate=false", "-o", "json", "-f", str(path)]
    result = _kubectl([*args, "--server", discovery_server], tmp_path)
    assert result.returncode == 0, result.stderr
    created, text, decoder = [], result.stdout.strip(), json.JSONDecoder()
    while text:  # one JSON document per object
        obj, end = decoder.raw_decode(text)
        created.append(obj)
        text = text[end:].strip()
    # The namespace is set, so kubectl has nothing to fill in: it sends what we wrote.
    assert created == json.loads(json.dumps(objects))


@pytest.mark.kubectl
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize(("workload", "overrides"), KUBECTL_CASES)
def test_kubectl_decodes_the_workload_typed(workload: str, overrides: dict, tmp_path: Path) -> None:
    """``kubectl set resources --local`` decodes into the Go types (an int32 field written as
    a string, a misspelt env source... fail there) and needs no server."""
    workload_object = export(workload, "L", **overrides)[-1]
    if workload_object["kind"] == "HorizontalPodAutoscaler":
        workload_object = export(workload, "L", **overrides)[0]
    path = tmp_path / "workload.yaml"
    path.write_text(dump_yaml_all([workload_object]))
    args = ["set", "resources", "--local", "-f", str(path), "-o", "json", "--requests=cpu=1"]
    result = _kubectl(args, tmp_path)
    assert result.returncode == 0, result.stderr
    decoded = json.loads(result.stdout)
    assert decoded["kind"] == workload_object["kind"]
    if decoded["kind"] != "Pod":
        assert (
            decoded["spec"]["template"]["spec"]["restartPolicy"]
            == (workload_object["spec"]["template"]["spec"]["restartPolicy"])
        )
