"""Advice rules fire for the pods they describe, and only for their workload types."""

from __future__ import annotations

from designer.k8s.design import ContainerDesign, design_to_pod, pod_report, preset_design


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
