"""GPU sharing modes, MIG profile selection and GPU counts (designer.k8s.gpu).

Profile tables are NVIDIA's (MIG user guide, "Supported MIG Profiles", and the instance counts
of mig-parted's default config); see designer/k8s/gpu/mig_table.py.
"""

from __future__ import annotations

import json

import pytest

from designer.k8s.core import Message
from designer.k8s.gpu import (
    FRACTIONAL_GPU,
    MigProfile,
    gpu_count_problem,
    gpu_resource_for,
    is_gpu_resource,
    mig_model,
    mig_models,
    sharing_modes,
    smallest_mig_profile,
    vendors,
)

# --- MIG profile selection -------------------------------------------------------------------


def test_twenty_gigabytes_on_an_a100_40gb_picks_3g_20gb() -> None:
    profile = smallest_mig_profile("A100 40GB", 20)
    assert profile is not None
    assert (profile.name, profile.compute_slices, profile.max_instances) == ("3g.20gb", 3, 2)
    assert profile.resource_name == "nvidia.com/mig-3g.20gb"


def test_twenty_gigabytes_on_an_h100_80gb_picks_the_1g_20gb_slice_with_one_compute_slice() -> None:
    # H100 80GB has both 1g.20gb (4 per GPU) and 2g.20gb (3 per GPU): same memory, the
    # smaller compute share wins.
    assert smallest_mig_profile("H100 80GB", 20).name == "1g.20gb"  # type: ignore[union-attr]


def test_asking_for_two_compute_slices_on_an_h100_80gb_picks_2g_20gb() -> None:
    profile = smallest_mig_profile("h100-80gb", 20, min_compute_slices=2)
    assert profile is not None and profile.name == "2g.20gb"


@pytest.mark.parametrize(
    ("model", "gib", "expected"),
    [
        ("A100 40GB", 4, "1g.5gb"),
        ("A100 40GB", 5, "1g.5gb"),
        ("A100 40GB", 5.5, "1g.10gb"),
        ("A100 40GB", 20.5, "7g.40gb"),
        ("A100 80GB", 10, "1g.10gb"),
        ("A100 80GB", 30, "3g.40gb"),
        ("H100 NVL", 20, "1g.24gb"),
        ("H100 NVL", 40, "3g.47gb"),
        ("H200", 20, "1g.35gb"),
        ("H200", 70, "3g.71gb"),
        ("B200", 20, "1g.23gb"),
        ("B200", 100, "7g.180gb"),
    ],
)
def test_the_smallest_profile_with_enough_memory_is_chosen(
    model: str, gib: float, expected: str
) -> None:
    assert smallest_mig_profile(model, gib).name == expected  # type: ignore[union-attr]


def test_more_memory_than_the_whole_gpu_has_no_profile() -> None:
    assert smallest_mig_profile("A100 40GB", 41) is None
    assert smallest_mig_profile("B200", 181) is None


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("a100-40gb", "a100-40gb"),
        ("A100", "a100-40gb"),
        ("A100-SXM4-80GB", "a100-80gb"),
        ("h100", "h100-80gb"),
        ("H100 NVL", "h100-nvl-94gb"),
        ("H100 94GB", "h100-nvl-94gb"),
        ("H200 141GB", "h200-141gb"),
        ("b200", "b200-180gb"),
    ],
)
def test_gpu_models_are_found_by_their_common_spellings(spelling: str, key: str) -> None:
    assert mig_model(spelling).key == key


def test_an_unknown_gpu_model_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'T4'"):
        smallest_mig_profile("T4", 8)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "lots", None])
def test_gpu_memory_must_be_a_positive_number(bad: object) -> None:
    with pytest.raises(ValueError):
        smallest_mig_profile("A100 40GB", bad)  # type: ignore[arg-type]


def test_every_mig_table_fits_its_gpu_and_names_its_source() -> None:
    assert [m.key for m in mig_models()] == [
        "a100-40gb",
        "a100-80gb",
        "h100-80gb",
        "h100-nvl-94gb",
        "h200-141gb",
        "b200-180gb",
    ]
    for model in mig_models():
        assert model.source.startswith("https://docs.nvidia.com/datacenter/tesla/mig-user-guide/")
        whole = model.profiles[-1]
        assert (whole.compute_slices, whole.max_instances) == (7, 1)
        assert whole.memory_gb == model.memory_gb
        for p in model.profiles:
            assert p.compute_slices * p.max_instances <= 7
            assert p.name == f"{p.compute_slices}g.{p.memory_gb}gb"
            assert p.memory_gb <= model.memory_gb
        # the smallest slice is 1/8 of the memory and 7 of them fit
        first = model.profiles[0]
        assert (first.compute_slices, first.max_instances) == (1, 7)


def test_mig_profiles_serialise_to_json() -> None:
    data = json.loads(json.dumps([m.as_dict() for m in mig_models()]))
    assert data[0]["profiles"][3] == {
        "gpuModel": "a100-40gb",
        "name": "3g.20gb",
        "memoryGB": 20,
        "computeSlices": 3,
        "maxInstances": 2,
        "resourceName": "nvidia.com/mig-3g.20gb",
        "source": data[0]["source"],
    }


# --- resource names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        (("whole",), {}, "nvidia.com/gpu"),
        (("mig-single",), {}, "nvidia.com/gpu"),
        (("mig-mixed", "1g.10gb"), {}, "nvidia.com/mig-1g.10gb"),
        (("mig-mixed", "nvidia.com/mig-3g.40gb"), {}, "nvidia.com/mig-3g.40gb"),
        (("time-slicing",), {}, "nvidia.com/gpu"),
        (("time-slicing",), {"rename_by_default": True}, "nvidia.com/gpu.shared"),
        (("mps",), {}, "nvidia.com/gpu"),
        (("mps",), {"rename_by_default": True}, "nvidia.com/gpu.shared"),
        (("whole", None, "amd"), {}, "amd.com/gpu"),
        (("whole", None, "intel-i915"), {}, "gpu.intel.com/i915"),
        (("whole", None, "intel-xe"), {}, "gpu.intel.com/xe"),
        (("whole", None, "aws-neuron"), {}, "aws.amazon.com/neuron"),
        (("whole", None, "aws-neuroncore"), {}, "aws.amazon.com/neuroncore"),
        (("whole", None, "habana"), {}, "habana.ai/gaudi"),
    ],
)
def test_each_sharing_mode_and_vendor_has_its_resource_name(
    args: tuple, kwargs: dict, expected: str
) -> None:
    assert gpu_resource_for(*args, **kwargs) == expected


def test_a_mig_profile_object_gives_its_mixed_strategy_resource() -> None:
    profile = smallest_mig_profile("H200", 30)
    assert isinstance(profile, MigProfile)
    assert gpu_resource_for("mig-mixed", profile) == "nvidia.com/mig-1g.35gb"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("mig-mixed",), "needs a profile"),
        (("mig-mixed", "big"), "not a MIG profile"),
        (("time-slicing", None, "amd"), "shares whole devices"),
        (("whole", None, "acme"), "unknown vendor"),
        (("fractional",), "unknown sharing mode"),
    ],
)
def test_impossible_resource_choices_are_refused(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gpu_resource_for(*args)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nvidia.com/gpu", True),
        ("nvidia.com/gpu.shared", True),
        ("nvidia.com/mig-1g.10gb", True),
        ("amd.com/gpu", True),
        ("habana.ai/gaudi", True),
        ("aws.amazon.com/neuroncore", True),
        ("cpu", False),
        ("example.com/foo", False),
    ],
)
def test_gpu_resources_are_recognised(name: str, expected: bool) -> None:
    assert is_gpu_resource(name) is expected


# --- sharing data ----------------------------------------------------------------------------


def test_sharing_modes_say_what_they_do_not_isolate_with_sources() -> None:
    modes = {m.key: m for m in sharing_modes()}
    assert set(modes) == {"whole", "mig-single", "mig-mixed", "time-slicing", "mps"}
    slicing = " ".join(modes["time-slicing"].does_not_isolate)
    assert "Memory" in slicing and "fault" in slicing
    assert "nvidia.com/gpu.shared" in modes["time-slicing"].resources
    assert any("Memory" in s for s in modes["mps"].isolates)
    assert any("fault" in s.lower() for s in modes["mps"].does_not_isolate)
    assert any("hardware" in s for s in modes["mig-mixed"].isolates)
    for mode in modes.values():
        assert mode.sources and all(s.startswith("https://") for s in mode.sources)
    json.dumps([m.as_dict() for m in modes.values()])


def test_every_vendor_names_its_resources_and_device_plugin_docs() -> None:
    names = {r for v in vendors() for r in v.resources}
    assert names == {
        "nvidia.com/gpu",
        "amd.com/gpu",
        "gpu.intel.com/i915",
        "gpu.intel.com/xe",
        "aws.amazon.com/neuron",
        "aws.amazon.com/neuroncore",
        "habana.ai/gaudi",
    }
    assert all(v.source.startswith("https://") for v in vendors())


# --- GPU counts ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.5, "0.5", "500m", "1.5", 2.25])
def test_a_fractional_gpu_is_refused_with_the_sharing_modes_offered(value: object) -> None:
    problem = gpu_count_problem(value)  # type: ignore[arg-type]
    assert isinstance(problem, Message)
    assert problem.template == FRACTIONAL_GPU
    assert problem.params["value"] == str(value)
    text = problem.text
    assert text.startswith("GPUs cannot be split by a fraction in Kubernetes")
    assert "MIG" in text and "time-slicing" in text and "MPS" in text
    assert "nvidia.com/gpu.shared" in text


def test_the_fraction_message_keeps_the_canonical_value_for_the_web_layer() -> None:
    problem = gpu_count_problem("0.5", "amd.com/gpu")
    assert problem is not None
    assert problem.params == {"resource": "amd.com/gpu", "value": "0.5", "canonical": "500m"}
    assert problem.as_dict()["text"] == problem.text


@pytest.mark.parametrize("value", [0, 1, "1", 8, "8", "1k", "1e999999999"])
def test_whole_gpu_counts_are_fine(value: object) -> None:
    assert gpu_count_problem(value) is None  # type: ignore[arg-type]


def test_a_negative_gpu_count_is_refused() -> None:
    problem = gpu_count_problem("-1")
    assert problem is not None and "zero or more" in problem.text


@pytest.mark.parametrize("value", ["one", "1 GPU", True, ""])
def test_an_unreadable_gpu_count_is_named(value: object) -> None:
    problem = gpu_count_problem(value)  # type: ignore[arg-type]
    assert problem is not None and "not a quantity" in problem.text
