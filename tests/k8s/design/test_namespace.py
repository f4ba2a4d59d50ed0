"""A design in its namespace (design.namespace, render_design's ``namespace_policy``): the pod
the node runs is the admitted one, and the designer agrees with ``podspec check`` for the same
pod, policy and Kubernetes version."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from designer.k8s.apiserver import SUPPORTED_VERSIONS, cluster_version
from designer.k8s.check import check_texts
from designer.k8s.design import (
    NAMESPACE_DEFAULT,
    NAMESPACE_FROM_DESIGN,
    NAMESPACE_FROM_POLICY,
    WORKLOAD_TYPES,
    ContainerDesign,
    Design,
    preset_design,
    render_design,
)

DEFAULTS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 256Mi}
"""
GPU_QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec:
  hard: {requests.nvidia.com/gpu: "8"}
status:
  hard: {requests.nvidia.com/gpu: "8"}
  used: {requests.nvidia.com/gpu: "6"}
"""
CPU_LIMIT_QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: team}
spec:
  hard: {limits.cpu: "64"}
"""
V135 = cluster_version("1.35")


def best_effort(**fields: Any) -> Design:
    """A one-container design that sets no resources (BestEffort as written)."""
    return Design(
        name="trainer",
        containers=[ContainerDesign(name="main", image="pytorch/pytorch")],
        **fields,
    )


def test_a_best_effort_design_runs_burstable_in_a_defaulting_namespace() -> None:
    rendered = render_design(best_effort(), version=V135, namespace_policy=DEFAULTS)
    assert rendered.report.qos_class == "BestEffort"  # as written
    assert rendered.qos_class == "Burstable"  # as the node runs it
    ns = rendered.namespace
    assert ns is not None and ns.namespace == "team" and ns.namespace_from == NAMESPACE_FROM_POLICY
    admission = ns.admission
    assert admission is not None and admission.allowed
    why = admission.explanation()
    assert why is not None
    assert why.text == (
        "written as BestEffort; admitted as Burstable because LimitRange/defaults sets cpu and "
        "memory"
    )
    assert [(d.field, d.value) for d in admission.defaulted] == [
        ("containers[0].resources.limits[cpu]", "500m"),
        ("containers[0].resources.limits[memory]", "512Mi"),
        ("containers[0].resources.requests[cpu]", "100m"),
        ("containers[0].resources.requests[memory]", "256Mi"),
    ]
    assert admission.annotations == {
        "kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu, memory request for container "
        "main; cpu, memory limit for container main"
    }
    # The node view is the admitted pod's: its memory limit and the Burstable QoS reasons.
    (main,) = rendered.plan.node_view.containers
    assert main.cgroup.memory_max == str(512 * 1024 * 1024)
    assert ns.qos is not None and ns.qos.qos_class == "Burstable"
    # The YAML is what the user wrote: admission happens in the cluster.
    assert "resources: {}" in rendered.yaml or "resources:" not in rendered.yaml


def test_a_gpu_quota_with_six_of_eight_used_fits_two_more() -> None:
    design = preset_design("training")
    design.containers[0].gpus = "1"
    rendered = render_design(design, version=V135, namespace_policy=GPU_QUOTA)
    admission = rendered.namespace.admission if rendered.namespace else None
    assert admission is not None and admission.quota is not None
    assert (admission.quota.fits, admission.quota.bottleneck) == (2, "requests.nvidia.com/gpu")


def test_a_pod_without_cpu_limits_is_refused_by_a_limits_cpu_quota_word_for_word() -> None:
    design = best_effort()
    design.containers[0].cpu_request = "1"
    rendered = render_design(design, version=V135, namespace_policy=CPU_LIMIT_QUOTA)
    admission = rendered.namespace.admission if rendered.namespace else None
    assert admission is not None and not admission.allowed
    assert admission.api_server_messages() == [
        'pods "trainer" is forbidden: failed quota: compute: must specify limits.cpu for: main'
    ]
    # Only a bare Pod has its name before it exists: a Deployment's pods get random ones.
    design.export.kind = "Deployment"
    wrapped = render_design(design, version=V135, namespace_policy=CPU_LIMIT_QUOTA)
    answer = wrapped.namespace.admission if wrapped.namespace else None
    assert answer is not None and answer.api_server_messages() == [None]
    assert answer.denials[0].message == "failed quota: compute: must specify limits.cpu for: main"


def test_the_pods_namespace_is_the_designs_else_the_only_one_the_policy_names() -> None:
    other = DEFAULTS.replace("namespace: team", "namespace: ml").replace("defaults", "ml-defaults")
    cases = [
        (best_effort(namespace="team"), DEFAULTS, "team", NAMESPACE_FROM_DESIGN, [], True),
        (best_effort(namespace="prod"), DEFAULTS, "prod", NAMESPACE_FROM_DESIGN, ["team"], False),
        (best_effort(), DEFAULTS, "team", NAMESPACE_FROM_POLICY, [], True),
        (
            best_effort(),
            f"{DEFAULTS}---\n{other}",
            "default",
            NAMESPACE_DEFAULT,
            ["ml", "team"],
            False,
        ),
        (
            best_effort(),
            DEFAULTS.replace("namespace: team", ""),
            "default",
            NAMESPACE_DEFAULT,
            [],
            True,
        ),
    ]
    for design, text, namespace, source, others, applied in cases:
        ns = render_design(design, version=V135, namespace_policy=text).namespace
        assert ns is not None
        assert (ns.namespace, ns.namespace_from, ns.other_namespaces) == (namespace, source, others)
        assert (ns.admission is not None) is applied


def test_no_policy_text_means_no_admission_step() -> None:
    for text in (None, "", "  \n"):
        assert render_design(best_effort(), version=V135, namespace_policy=text).namespace is None


def _pod_yaml(design: Design) -> str:
    """The exported Pod, in the design's namespace (as kubectl apply -n would put it)."""
    return render_design(design).yaml


def _comparable(admission: dict[str, Any] | None) -> dict[str, Any] | None:
    if admission is None:
        return None
    return {k: v for k, v in admission.items() if k != "policies"}


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
@pytest.mark.parametrize("workload", sorted(WORKLOAD_TYPES))
def test_the_designer_and_podspec_check_agree_for_the_same_pod_policy_and_version(
    workload: str, version: str
) -> None:
    policy = f"{DEFAULTS}---\n{GPU_QUOTA}"
    designs = [preset_design(workload), best_effort(workload=workload)]
    # Pod-level resources: dropped before 1.34, deciding the QoS class from 1.34.
    pod_level = best_effort(workload=workload)
    both = {"cpu": "1", "memory": "1Gi"}
    pod_level.base = {"spec": {"resources": {"requests": both, "limits": both}}}
    designs.append(pod_level)
    for design in designs:
        design.namespace = "team"
        design.export.kind = "Pod"
        rendered = render_design(design, version=cluster_version(version), namespace_policy=policy)
        text = rendered.yaml
        assert yaml.safe_load(text)["kind"] == "Pod"
        (checked,) = check_texts(
            [("pod.yaml", text + "---\n" + policy)], kubernetes_version=version
        )["objects"]
        assert checked["qosClass"] == rendered.report.qos_class
        assert checked["effectiveRequests"] == rendered.report.as_dict()["effectiveRequests"]
        assert checked["errors"] == [e.as_dict() for e in rendered.report.errors]
        assert checked["versionNotes"] == [n.as_dict() for n in rendered.version_notes]
        if design is pod_level:
            # 1.33 drops spec.resources (BestEffort), 1.34 honours it (Guaranteed).
            assert rendered.report.qos_class == ("BestEffort" if version < "1.34" else "Guaranteed")
            assert bool(rendered.version_notes) is (version < "1.34")
        ns = rendered.namespace
        assert ns is not None
        assert _comparable(checked["admission"]) == _comparable(
            ns.admission.as_dict() if ns.admission else None
        )


def test_the_advice_is_the_admitted_pods() -> None:
    design = best_effort(workload="training")
    design.containers[0].gpus = "1"
    written = render_design(design, version=V135)
    admitted = render_design(design, version=V135, namespace_policy=DEFAULTS)
    assert "BestEffort" in written.report.advice[0].message.text
    ns = admitted.namespace
    assert ns is not None and ns.advice
    assert not any("BestEffort" in a.message.text for a in ns.advice)
