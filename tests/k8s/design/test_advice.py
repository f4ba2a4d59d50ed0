"""Advice rules fire for the pods they describe, and only for their workload types."""

from __future__ import annotations

from designer.k8s.design import ContainerDesign, design_to_pod, pod_report, preset_design
from tests.builders import pod_from_spec


def codes(design) -> list[str]:
    return [a.code for a in pod_report(design_to_pod(design), workload=design.workload).advice]


def test_presets_need_no_advice_beyond_their_trade_offs() -> None:
    assert codes(preset_design("training")) == []
    assert codes(preset_design("inference")) == []


def test_training_pod_that_is_not_guaranteed_is_advised() -> None:
    design = preset_design("training")
    design.containers[0].memory_limit = "128Gi"
    assert "training-not-guaranteed" in codes(design)


def test_inference_with_requests_below_limits_is_advised() -> None:
    design = preset_design("inference")
    design.containers[0].cpu_request = "1"
    assert "inference-requests-differ" in codes(design)


def test_gpu_pod_that_is_best_effort_is_advised() -> None:
    design = preset_design("batch")
    main = design.containers[0]
    main.cpu_request = main.memory_request = main.memory_limit = ""
    assert "gpu-best-effort" in codes(design)


def test_too_few_cpus_and_too_little_memory_per_gpu_are_advised() -> None:
    design = preset_design("training", "XL")
    main = design.containers[0]
    main.cpu_request = main.cpu_limit = "8"
    main.memory_request = main.memory_limit = "64Gi"
    design.shm_size = "8Gi"
    assert {"cpu-per-gpu", "memory-per-gpu"} <= set(codes(design))


def test_batch_memory_limit_without_headroom_is_advised() -> None:
    design = preset_design("batch")
    design.containers[0].memory_limit = design.containers[0].memory_request
    assert "no-memory-headroom" in codes(design)


def test_batch_pod_reserved_as_guaranteed_is_advised() -> None:
    design = preset_design("batch")
    main = design.containers[0]
    main.cpu_limit = main.cpu_request
    main.memory_limit = main.memory_request
    assert "batch-guaranteed" in codes(design)
    assert "training-not-guaranteed" not in codes(design)


def test_gpus_without_toleration_are_advised() -> None:
    design = preset_design("inference")
    design.gpu_toleration = False
    assert "gpu-without-toleration" in codes(design)


def test_training_without_dev_shm_is_advised() -> None:
    design = preset_design("training")
    design.shm_size = ""
    assert "missing-shm" in codes(design)


def test_a_sidecar_does_not_confuse_the_rules() -> None:
    design = preset_design("inference")
    design.containers.append(ContainerDesign(role="sidecar", name="proxy", image="envoy"))
    assert "inference-requests-differ" not in codes(design)


# --- issue 16: unreadable values, /dev/shm and emptyDir sizes, values beyond int64 ---------


def test_an_unreadable_memory_is_not_taken_for_zero_and_the_advice_says_why() -> None:
    design = preset_design("training")
    design.containers[0].memory_request = design.containers[0].memory_limit = "8GB"
    advice = pod_report(design_to_pod(design), workload="training").advice
    assert [a.code for a in advice] == ["advice-withheld"]
    assert "8GB" in advice[0].message.text
    assert "memory-per-gpu" not in [a.code for a in advice]


def test_an_unreadable_cpu_withholds_only_the_rules_that_read_cpu() -> None:
    design = preset_design("inference")
    design.containers[0].cpu_request = "two"
    design.gpu_toleration = False
    found = codes(design)
    assert found[0] == "advice-withheld"
    assert "inference-requests-differ" not in found
    assert "gpu-without-toleration" in found  # reads no quantity


def test_dev_shm_above_the_memory_limit_is_advised() -> None:
    design = preset_design("training")  # 64Gi memory limit
    design.shm_size = "128Gi"
    found = codes(design)
    assert "shm-above-limit" in found
    assert "shm-over-half-limit" not in found  # the stronger advice says it


def test_a_memory_backed_empty_dir_without_size_limit_is_advised() -> None:
    pod = pod_from_spec(
        {
            "containers": [
                {
                    "name": "main",
                    "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
                    "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
                }
            ],
            "volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory"}}],
        }
    )
    advice = pod_report(pod, advise=True).advice
    found = {a.code: a for a in advice}
    assert "memory-emptydir-without-size-limit" in found
    assert "spec.volumes[0].emptyDir" in found["memory-emptydir-without-size-limit"].message.text
    # Not mounted at /dev/shm: it is no /dev/shm, and the size rules leave it alone.
    assert "shm-above-limit" not in found


def test_a_cpu_limit_beyond_int64_is_advised() -> None:
    design = preset_design("training")
    design.containers[0].cpu_limit = "1e999"
    advice = {a.code: a for a in pod_report(design_to_pod(design), workload="training").advice}
    assert "1e999" in advice["beyond-int64"].message.text


def test_without_a_workload_type_only_the_rules_for_every_type_apply() -> None:
    design = preset_design("training")
    design.containers[0].memory_limit = "128Gi"  # Burstable: training advice would fire
    report = pod_report(design_to_pod(design), advise=True)
    assert "training-not-guaranteed" not in [a.code for a in report.advice]
    assert pod_report(design_to_pod(design)).advice == []  # no advice asked for
