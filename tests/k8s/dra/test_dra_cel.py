"""DRA device selectors compiled and evaluated with cel-expr-python, against the devices of
real-shaped ResourceSlices (an EKS node with 8x H100, an A100 node in MIG mode)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.dra import (
    Device,
    ResourceSlice,
    SelectorCompileError,
    SelectorRuntimeError,
    compile_selector,
)

DATA = Path(__file__).parents[1] / "data"


def slice_of(name: str) -> ResourceSlice:
    doc = yaml.safe_load((DATA / name).read_text())
    if doc.get("kind") == "List":
        doc = doc["items"][0]
    return ResourceSlice.model_validate(doc)


H100 = slice_of("resourceslice_h100x8.yaml")
MIG = slice_of("resourceslice_a100_mig.yaml")


def matching(expression: str, rs: ResourceSlice) -> list[str]:
    selector = compile_selector(expression)
    return [d.name or "" for d in rs.spec.devices or [] if selector.matches(rs.spec.driver, d)]


ALL_H100 = [f"gpu-{i}" for i in range(8)]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # The gpu.nvidia.com DeviceClass of NVIDIA's chart.
        (
            "device.driver == 'gpu.nvidia.com' && "
            "device.attributes['gpu.nvidia.com'].type == 'gpu'",
            ALL_H100,
        ),
        ("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'", ALL_H100),
        # Quantity comparisons: 81559Mi is more than 40Gi and less than 80Gi (= 81920Mi).
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", ALL_H100),
        ("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))", []),
        ("device.capacity['gpu.nvidia.com'].memory == quantity('81559Mi')", ALL_H100),
        ("device.capacity['gpu.nvidia.com'].memory == quantity('83516416Ki')", ALL_H100),
        ("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('80G'))", []),
        # Versions are semver.
        (
            "device.attributes['gpu.nvidia.com'].cudaComputeCapability"
            ".isGreaterThan(semver('8.9.0'))",
            ALL_H100,
        ),
        ("device.attributes['gpu.nvidia.com'].driverVersion.major() >= 580", ALL_H100),
        # Standard attributes live in their own domain.
        (
            "device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:55'",
            ["gpu-2", "gpu-3"],
        ),
        (
            "device.attributes['resource.kubernetes.io'].pciBusID.startsWith('0000:5')",
            ["gpu-0"],
        ),
        # An unknown domain is an empty map, so has() is false and no error is raised.
        ("has(device.attributes['example.com'].productName)", []),
        ("cel.bind(g, device.attributes['gpu.nvidia.com'], g.architecture == 'Hopper')", ALL_H100),
        ("device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('h100')", ALL_H100),
    ],
)
def test_selectors_on_the_h100_node(expression: str, expected: list[str]) -> None:
    assert matching(expression, H100) == expected


def test_a_mig_profile_selects_the_mig_devices_of_that_profile() -> None:
    assert len(matching("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'", MIG)) == 7
    assert matching("device.attributes['gpu.nvidia.com'].profile == '3g.40gb'", MIG) == [
        "gpu-1-mig-9-0-4",
        "gpu-1-mig-9-4-4",
    ]
    # MIG memory is its own capacity: 40192Mi is at least 20Gi, 9856Mi is not.
    memory = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0"
    assert len(matching(memory, MIG)) == 2
    assert matching("device.attributes['gpu.nvidia.com'].type == 'gpu'", MIG) == []


def test_the_api_servers_compile_error_is_reproduced_byte_for_byte() -> None:
    # validation_resourceclaim_test.go "CEL-compile-errors".
    with pytest.raises(SelectorCompileError) as exc:
        compile_selector("device.attributes[true].someBoolean")
    assert exc.value.detail == (
        "compilation failed: ERROR: <input>:1:18: found no matching overload for '_[_]' applied "
        "to '(map(string, map(string, any)), bool)'\n"
        " | device.attributes[true].someBoolean\n"
        " | .................^"
    )


@pytest.mark.parametrize(
    ("expression", "detail"),
    [
        ("1 + 1", "must evaluate to bool or the unknown type, not int"),
        ("device.driver", "must evaluate to bool or the unknown type, not string"),
        (
            "device.nosuch == 1",
            "compilation failed: ERROR: <input>:1:7: undefined field 'nosuch'\n"
            " | device.nosuch == 1\n | ......^",
        ),
        (
            "device.capacity['gpu.nvidia.com'].memory > 5",
            "compilation failed: ERROR: <input>:1:42: found no matching overload for '_>_' "
            "applied to '(kubernetes.Quantity, int)'\n"
            " | device.capacity['gpu.nvidia.com'].memory > 5\n"
            " | .........................................^",
        ),
    ],
)
def test_selectors_that_do_not_compile_name_the_problem(expression: str, detail: str) -> None:
    with pytest.raises(SelectorCompileError) as exc:
        compile_selector(expression)
    assert exc.value.detail == detail


def test_a_selector_over_10_kib_is_too_long_before_compiling() -> None:
    with pytest.raises(SelectorCompileError) as exc:
        compile_selector("true && " * 1300 + "true")
    assert (exc.value.error_type, exc.value.detail) == (
        "FieldValueTooLong",
        "may not be more than 10240 bytes",
    )


def test_a_missing_attribute_in_a_known_domain_is_a_runtime_error() -> None:
    selector = compile_selector("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'")
    device = (H100.spec.devices or [])[0]
    with pytest.raises(SelectorRuntimeError, match="no such key: profile"):
        selector.matches("gpu.nvidia.com", device)


def test_a_bad_quantity_literal_is_a_runtime_error_in_kubernetes_words() -> None:
    selector = compile_selector("device.capacity['gpu.nvidia.com'].memory == quantity('lots')")
    with pytest.raises(SelectorRuntimeError, match="quantities must match the regular expression"):
        selector.matches("gpu.nvidia.com", (H100.spec.devices or [])[0])


@given(st.integers(min_value=0, max_value=2**40), st.integers(min_value=0, max_value=2**40))
def test_quantity_comparison_agrees_with_the_numbers(a: int, b: int) -> None:
    device = Device.model_validate({"name": "d", "capacity": {"memory": {"value": str(a)}}})
    expression = f"device.capacity['x.example.com'].memory.compareTo(quantity('{b}')) > 0"
    assert compile_selector(expression).matches("x.example.com", device) is (a > b)


@given(st.text(max_size=40))
def test_any_text_either_compiles_or_is_refused_with_a_detail(text: str) -> None:
    try:
        compile_selector(text)
    except SelectorCompileError as exc:
        assert exc.detail


@pytest.mark.parametrize("name", ["resourceslice_h100x8.yaml", "resourceslice_a100_mig.yaml"])
def test_the_slice_fixtures_are_valid_resource_k8s_io_v1(name: str) -> None:
    import kubernetes_validate

    doc = yaml.safe_load((DATA / name).read_text())
    for item in doc["items"] if doc["kind"] == "List" else [doc]:
        kubernetes_validate.validate(item, "1.34.0", strict=True)
