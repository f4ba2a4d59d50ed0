"""Workload presets and the design ↔ Pod mapping."""

from __future__ import annotations

import pytest

from designer.k8s.apiserver import validate_pod
from designer.k8s.core import Pod
from designer.k8s.design import (
    SIZE_KEYS,
    WORKLOAD_TYPES,
    ContainerDesign,
    apply_size,
    design_from_pod,
    design_to_pod,
    pod_manifest,
    preset_design,
)
from designer.k8s.kubelet import pod_qos

EXPECTED_QOS = {
    "training": {"Guaranteed"},
    "distributed": {"Guaranteed"},
    "inference": {"Guaranteed"},
    "batch": {"Burstable"},
    "preprocessing": {"BestEffort", "Burstable"},
}


@pytest.mark.parametrize("workload", list(WORKLOAD_TYPES))
@pytest.mark.parametrize("size", SIZE_KEYS)
def test_every_preset_is_valid_and_has_the_qos_its_rationale_promises(
    workload: str, size: str
) -> None:
    pod = design_to_pod(preset_design(workload, size))
    assert validate_pod(pod).errors == []
    assert pod_qos(pod).qos_class in EXPECTED_QOS[workload]


def test_training_mounts_a_memory_backed_dev_shm_in_every_app_container() -> None:
    manifest = pod_manifest(design_to_pod(preset_design("training", "L")))
    (volume,) = manifest["spec"]["volumes"]
    assert volume == {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}}
    assert {"name": "dshm", "mountPath": "/dev/shm"} in manifest["spec"]["containers"][0][
        "volumeMounts"
    ]


def test_gpus_are_written_as_limits_only_with_the_gpu_toleration() -> None:
    manifest = pod_manifest(design_to_pod(preset_design("inference")))
    resources = manifest["spec"]["containers"][0]["resources"]
    assert resources["limits"]["nvidia.com/gpu"] == "1"
    assert "nvidia.com/gpu" not in resources["requests"]
    assert manifest["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_no_gpu_toleration_without_gpus() -> None:
    manifest = pod_manifest(design_to_pod(preset_design("preprocessing")))
    assert "tolerations" not in manifest["spec"]


def test_native_sidecar_is_an_init_container_with_restart_policy_always() -> None:
    design = preset_design("inference")
    design.containers.append(ContainerDesign(role="sidecar", name="proxy", image="envoy"))
    design.containers.append(ContainerDesign(role="init", name="fetch", image="busybox"))
    spec = pod_manifest(design_to_pod(design))["spec"]
    assert [c["name"] for c in spec["initContainers"]] == ["proxy", "fetch"]
    assert spec["initContainers"][0]["restartPolicy"] == "Always"
    assert "restartPolicy" not in spec["initContainers"][1]
    assert design.container_paths() == [
        "spec.containers[0]",
        "spec.initContainers[0]",
        "spec.initContainers[1]",
    ]


def test_quantities_are_exported_in_canonical_form() -> None:
    design = preset_design("inference")
    design.containers[0].cpu_request = "0.5"
    design.containers[0].cpu_limit = "0.5"
    design.containers[0].memory_request = "1.5Gi"
    design.containers[0].memory_limit = "1.5Gi"
    resources = pod_manifest(design_to_pod(design))["spec"]["containers"][0]["resources"]
    assert resources["requests"] == {"cpu": "500m", "memory": "1536Mi"}


def test_command_is_split_like_a_shell_and_kept_as_argv() -> None:
    design = preset_design("training")
    design.containers[0].command = "torchrun --nproc-per-node 8 'train script.py'"
    container = pod_manifest(design_to_pod(design))["spec"]["containers"][0]
    assert container["command"] == ["torchrun", "--nproc-per-node", "8", "train script.py"]


def test_apply_size_changes_only_the_main_container() -> None:
    design = preset_design("training", "S")
    design.containers.append(ContainerDesign(role="sidecar", name="log", cpu_limit="100m"))
    bigger = apply_size(design, "XL")
    assert bigger.containers[0].gpus == "8"
    assert bigger.containers[1].cpu_limit == "100m"
    assert bigger.shm_size == "64Gi"


MANIFEST = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "trainer",
        "namespace": "ml",
        "labels": {"team": "vision"},
        "annotations": {"owner": "ana"},
    },
    "spec": {
        "serviceAccountName": "trainer",
        "containers": [
            {
                "name": "main",
                "image": "pytorch",
                "command": ["python", "train.py"],
                "args": ["--epochs", "3"],
                "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "resources": {
                    "requests": {"cpu": 4, "memory": "16Gi", "hugepages-2Mi": "1Gi"},
                    "limits": {
                        "cpu": 4,
                        "memory": "16Gi",
                        "nvidia.com/gpu": 1,
                        "hugepages-2Mi": "1Gi",
                    },
                },
            }
        ],
        "initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
    },
}


def test_design_from_a_manifest_keeps_every_field_the_form_does_not_edit() -> None:
    design = design_from_pod(Pod.model_validate(MANIFEST))
    assert [c.role for c in design.containers] == ["app", "sidecar"]
    main = design.containers[0]
    assert (main.cpu_request, main.gpus, main.command) == ("4", "1", "python train.py")
    assert [(e.name, e.request, e.limit) for e in main.extra] == [("hugepages-2Mi", "1Gi", "1Gi")]
    exported = pod_manifest(design_to_pod(design))
    assert exported["metadata"]["annotations"] == {"owner": "ana"}
    assert exported["spec"]["serviceAccountName"] == "trainer"
    assert exported["spec"]["volumes"] == MANIFEST["spec"]["volumes"]
    container = exported["spec"]["containers"][0]
    assert container["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert container["args"] == ["--epochs", "3"]
    assert container["command"] == ["python", "train.py"]
    assert container["resources"]["limits"] == {
        "cpu": "4",
        "memory": "16Gi",
        "nvidia.com/gpu": "1",
        "hugepages-2Mi": "1Gi",
    }
    assert exported["spec"]["initContainers"][0]["restartPolicy"] == "Always"


def test_a_statefulset_pod_gets_its_claim_volumes_when_opened_as_a_pod() -> None:
    from designer.k8s.check import pod_template_manifest
    from designer.k8s.manifest import load

    text = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: pg
        image: postgres
        volumeMounts: [{name: pgdata, mountPath: /var/lib/postgresql}]
  volumeClaimTemplates:
  - metadata: {name: pgdata}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
"""
    workloads, _errors = load(text)
    manifest = pod_template_manifest(workloads[0])
    assert manifest["metadata"]["name"] == "db"
    assert manifest["spec"]["volumes"] == [
        {"name": "pgdata", "persistentVolumeClaim": {"claimName": "pgdata-db-0"}}
    ]


def test_design_actions_add_and_remove_containers_but_keep_the_last_app_container() -> None:
    from designer.k8s.design import design_action

    design = design_action(preset_design("inference"), "add-sidecar")
    assert [(c.role, c.name) for c in design.containers] == [
        ("app", "main"),
        ("sidecar", "sidecar-1"),
    ]
    design = design_action(design, "remove-0")  # the only app container stays
    assert [c.name for c in design.containers] == ["main", "sidecar-1"]
    design = design_action(design, "remove-1")
    assert [c.name for c in design.containers] == ["main"]
    assert design_action(design, "no-such-action") == design


def test_the_headroom_action_uses_the_same_proposal_the_page_shows() -> None:
    from designer.k8s.design import design_action, headroom_proposal

    design = preset_design("inference")
    design.headroom.peak = "12Gi"
    proposal, problem = headroom_proposal(design.headroom, design.shm_size)
    assert problem is None and proposal is not None
    applied = design_action(design, "headroom")
    assert applied.containers[0].memory_limit == proposal.limit == "15Gi"
