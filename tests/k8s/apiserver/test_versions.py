"""The cluster's Kubernetes version: the table of differences and the engine's answers per
release (apiserver.versions, passed down to defaulting, validation and QoS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.k8s.apiserver import (
    DEFAULT_VERSION,
    LATEST,
    SUPPORTED_VERSIONS,
    VERSION_DIFFERENCES,
    ClusterVersion,
    cluster_version,
    dra_api_version,
    dra_api_versions,
    parse_kubernetes_version,
    pod_with_defaults,
    validate_pod,
    version_notes,
)
from designer.k8s.core import Pod
from designer.k8s.kubelet import pod_qos


def make_pod(spec: dict) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p"}, "spec": spec})


def test_every_difference_has_a_source_and_a_release() -> None:
    keys = [d.key for d in VERSION_DIFFERENCES]
    assert len(keys) == len(set(keys))
    for d in VERSION_DIFFERENCES:
        assert d.source.strip() and d.topic and d.before and d.after
        assert d.since == "-" or d.since.startswith("1.")


def test_the_default_is_the_newest_supported_release() -> None:
    assert SUPPORTED_VERSIONS == ("1.31", "1.32", "1.33", "1.34", "1.35")
    assert SUPPORTED_VERSIONS[-1] == DEFAULT_VERSION
    assert parse_kubernetes_version(None) == parse_kubernetes_version("") == "1.35"


@pytest.mark.parametrize(
    ("text", "version"),
    [("1.33", "1.33"), ("v1.33", "1.33"), ("v1.34.2", "1.34"), ("1.32.0-gke.1", "1.32")],
)
def test_versions_are_read_as_kubectl_version_prints_them(text: str, version: str) -> None:
    assert parse_kubernetes_version(text) == version


@pytest.mark.parametrize("text", ["1.30", "1.36", "2.0", "latest", "1"])
def test_an_unsupported_version_names_the_supported_ones(text: str) -> None:
    with pytest.raises(ValueError, match="choose one of 1.31, 1.32, 1.33, 1.34, 1.35"):
        parse_kubernetes_version(text)


def test_what_each_release_has() -> None:
    flags = {
        v: (
            cluster_version(v).pod_level_resources,
            cluster_version(v).in_place_resize,
            cluster_version(v).default_pod_limits,
            cluster_version(v).qos_requires_pod_level_values,
        )
        for v in SUPPORTED_VERSIONS
    }
    assert flags == {
        "1.31": (False, False, False, False),
        "1.32": (False, False, False, False),
        "1.33": (False, True, False, False),
        "1.34": (True, True, False, False),
        "1.35": (True, True, False, False),
    }
    # No version: the newest behaviour the engine models (today's answers).
    assert ClusterVersion(None) == LATEST
    assert LATEST.pod_level_resources and LATEST.default_pod_limits
    assert LATEST.qos_requires_pod_level_values


def test_dra_serves_v1_by_default_from_1_34() -> None:
    assert [dra_api_version(v) for v in SUPPORTED_VERSIONS] == [
        None,
        None,
        None,
        "resource.k8s.io/v1",
        "resource.k8s.io/v1",
    ]
    assert dra_api_versions("1.32") == {"default": None, "optIn": ["resource.k8s.io/v1beta1"]}
    assert dra_api_version(None) == "resource.k8s.io/v1"


POD_LEVEL = {
    "resources": {
        "requests": {"cpu": "1", "memory": "1Gi"},
        "limits": {"cpu": "1", "memory": "1Gi"},
    },
    "containers": [{"name": "a", "image": "x"}],
}


@pytest.mark.parametrize("version", ["1.31", "1.32", "1.33"])
def test_before_1_34_the_api_server_drops_spec_resources(version: str) -> None:
    v = cluster_version(version)
    pod = make_pod(POD_LEVEL)
    assert pod_with_defaults(pod, version=v).spec.resources is None
    assert pod_qos(pod, version=v).qos_class == "BestEffort"
    (note,) = version_notes(pod, v)
    assert note.field == "spec.resources"
    expected = "has no spec.resources field" if version == "1.31" else "drops spec.resources"
    assert expected in note.message.text


def test_from_1_34_spec_resources_is_validated_and_decides_qos() -> None:
    v = cluster_version("1.34")
    bad = make_pod({**POD_LEVEL, "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}})
    errors = validate_pod(bad, defaulted=pod_with_defaults(bad, version=v)).errors
    assert any(e.field == "spec.resources.requests[nvidia.com/gpu]" for e in errors)
    older = cluster_version("1.33")
    assert not validate_pod(bad, defaulted=pod_with_defaults(bad, version=older)).errors
    assert pod_qos(make_pod(POD_LEVEL), version=v).qos_class == "Guaranteed"


def test_1_34_and_1_35_do_not_default_pod_level_limits_from_the_containers() -> None:
    pod = make_pod(
        {
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
            "containers": [
                {"name": "a", "image": "x", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
            ],
        }
    )
    assert pod_qos(pod).qos_class == "Guaranteed"  # today's default: the 1.36 fix
    v = cluster_version("1.35")
    assert pod_qos(pod, version=v).qos_class == "Burstable"
    assert [n.key for n in version_notes(pod, v)] == ["pod_level_limit_defaulting"]


def test_no_version_keeps_todays_answers() -> None:
    pod = make_pod(POD_LEVEL)
    assert (
        pod_with_defaults(pod)
        == pod_with_defaults(pod, version=None)
        == pod_with_defaults(pod, version=LATEST)
    )
    assert version_notes(pod, LATEST) == []


def test_the_readme_documents_every_difference_with_its_source() -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    for d in VERSION_DIFFERENCES:
        row = next(
            (line for line in readme.splitlines() if line.startswith(f"| {d.topic} |")), None
        )
        assert row is not None, d.topic
        assert d.source in row
