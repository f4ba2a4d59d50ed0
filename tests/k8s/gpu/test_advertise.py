"""What a node's device plugin advertises for each way of sharing its GPUs (gpu/advertise.py)."""

from __future__ import annotations

import pytest

from designer.k8s.gpu import (
    MigGroup,
    MigLayout,
    SharingError,
    advertised_gpus,
    gpu_sharing,
    mig_models,
    mig_profile,
    mig_profiles,
    parse_mig_layout,
)


def test_only_the_models_own_profiles_are_offered() -> None:
    names = [p.name for p in mig_profiles("H100 80GB")]
    assert names == ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]
    assert "1g.5gb" not in names
    assert [p.name for p in mig_profiles("a100-40gb")][0] == "1g.5gb"


def test_a_profile_of_another_model_is_refused_naming_the_models_profiles() -> None:
    with pytest.raises(SharingError) as info:
        mig_profile("h100-80gb", "1g.5gb")
    assert info.value.part == "profile"
    assert str(info.value) == (
        "'1g.5gb' is not a MIG profile of the NVIDIA H100 80GB; its profiles are 1g.10gb, "
        "1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb."
    )
    assert mig_profile("h100-80gb", "nvidia.com/mig-3g.40gb").name == "3g.40gb"


def test_whole_gpus_are_advertised_as_they_are() -> None:
    assert advertised_gpus(8, gpu_sharing()).resources == {"nvidia.com/gpu": 8}


@pytest.mark.parametrize(
    ("model", "profile", "count"),
    [
        ("h100-80gb", "1g.10gb", 56),
        ("h100-80gb", "3g.40gb", 16),
        ("a100-40gb", "1g.5gb", 56),
        ("a100-40gb", "1g.10gb", 32),
        ("h100-80gb", "7g.80gb", 8),
    ],
)
def test_mig_single_advertises_every_slice_as_a_gpu(model: str, profile: str, count: int) -> None:
    advertised = advertised_gpus(8, gpu_sharing("mig-single", profile=profile), model)
    assert advertised.resources == {"nvidia.com/gpu": count}
    assert "single strategy" in advertised.notes[0].text


def test_mig_mixed_counts_each_profile_of_the_layout() -> None:
    sharing = gpu_sharing("mig-mixed", layout="1g.10gb=2, 2g.20gb=1, 3g.40gb=1")
    assert advertised_gpus(8, sharing, "h100-80gb").resources == {
        "nvidia.com/mig-1g.10gb": 16,
        "nvidia.com/mig-2g.20gb": 8,
        "nvidia.com/mig-3g.40gb": 8,
    }


def test_gpus_left_out_of_a_mixed_layout_stay_whole() -> None:
    sharing = gpu_sharing("mig-mixed", layout="2: 3g.40gb=2")
    advertised = advertised_gpus(8, sharing, "h100-80gb")
    assert advertised.resources == {"nvidia.com/mig-3g.40gb": 4, "nvidia.com/gpu": 6}
    assert any("stay whole" in n.text for n in advertised.notes)


def test_named_mig_parted_layouts_follow_the_model() -> None:
    balanced = gpu_sharing("mig-mixed", layout="all-balanced")
    assert advertised_gpus(1, balanced, "a100-40gb").resources == {
        "nvidia.com/mig-1g.5gb": 2,
        "nvidia.com/mig-2g.10gb": 1,
        "nvidia.com/mig-3g.20gb": 1,
    }
    every = gpu_sharing("mig-mixed", layout="all-1g.20gb")
    assert advertised_gpus(2, every, "h100-80gb").resources == {"nvidia.com/mig-1g.20gb": 8}


def test_mixed_without_a_layout_splits_every_gpu_in_the_profile_and_says_so() -> None:
    advertised = advertised_gpus(8, gpu_sharing("mig-mixed", profile="1g.20gb"), "h100-80gb")
    assert advertised.resources == {"nvidia.com/mig-1g.20gb": 32}
    assert any("No MIG layout was given" in n.text for n in advertised.notes)
    with pytest.raises(SharingError) as info:
        advertised_gpus(8, gpu_sharing("mig-mixed"), "h100-80gb")
    assert info.value.part == "layout"


@pytest.mark.parametrize(
    "layout",
    [
        "1g.10gb=7",
        "1g.20gb=4",
        "2g.20gb=3, 1g.10gb=1",
        "3g.40gb=2",
        "4g.40gb=1, 3g.40gb=1",
        "4g.40gb=1, 2g.20gb=1, 1g.10gb=1",
        "2g.20gb=2, 3g.40gb=1",
        "1g.20gb=3, 1g.10gb=1",
        "7g.80gb=1",
    ],
)
def test_layouts_nvidia_smi_can_place_are_accepted(layout: str) -> None:
    advertised_gpus(1, gpu_sharing("mig-mixed", layout=layout), "h100-80gb")


@pytest.mark.parametrize(
    "layout",
    [
        "1g.10gb=8",
        "1g.20gb=5",
        "3g.40gb=3",
        "4g.40gb=2",
        "7g.80gb=1, 1g.10gb=1",
        "3g.40gb=1, 2g.20gb=1, 1g.10gb=3",
        "4g.40gb=1, 1g.20gb=2, 1g.10gb=1",
    ],
)
def test_layouts_that_do_not_fit_one_gpu_are_refused(layout: str) -> None:
    with pytest.raises(SharingError) as info:
        advertised_gpus(8, gpu_sharing("mig-mixed", layout=layout), "h100-80gb")
    assert info.value.part == "layout" and "do not fit on one NVIDIA H100 80GB" in str(info.value)


def test_layouts_parse_from_text_and_json() -> None:
    assert parse_mig_layout("4: 3g.40gb=2; 1g.10gb=7") == MigLayout(
        (MigGroup(4, (("3g.40gb", 2),)), MigGroup(None, (("1g.10gb", 7),)))
    )
    assert parse_mig_layout({"nvidia.com/mig-1g.10gb": 7}) == MigLayout(
        (MigGroup(None, (("1g.10gb", 7),)),)
    )
    assert parse_mig_layout([{"gpus": 2, "profiles": {"7g.80gb": 1}}]) == MigLayout(
        (MigGroup(2, (("7g.80gb", 1),)),)
    )


@pytest.mark.parametrize(
    "layout",
    ["lots", "1g.10gb", "x: 1g.10gb=1", "1g.10gb=-1", [], [{"gpus": "4"}], 7, {"1g.10gb": "2"}],
)
def test_unreadable_layouts_are_refused_with_the_syntax(layout: object) -> None:
    with pytest.raises(SharingError) as info:
        parse_mig_layout(layout)
    assert info.value.part == "layout" and "profile=count" in str(info.value)


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        ("4: 1g.10gb=7; 8: 1g.10gb=7", "names 12 GPUs, but the node has 8"),
        ("1g.10gb=7; 3g.40gb=2", "only one group"),
        ("1g.5gb=7", "not a MIG profile of the NVIDIA H100 80GB"),
    ],
)
def test_a_layout_the_node_cannot_have_is_refused(layout: str, words: str) -> None:
    with pytest.raises(SharingError) as info:
        advertised_gpus(8, gpu_sharing("mig-mixed", layout=layout), "h100-80gb")
    assert words in str(info.value)


def test_replicas_multiply_and_rename() -> None:
    sharing = gpu_sharing("time-slicing", replicas="4")
    assert advertised_gpus(8, sharing).resources == {"nvidia.com/gpu": 32}
    renamed = gpu_sharing("mps", replicas=2, rename_by_default=True)
    advertised = advertised_gpus(8, renamed)
    assert advertised.resources == {"nvidia.com/gpu.shared": 16}
    assert any("renameByDefault" in n.text for n in advertised.notes)


def test_missing_replicas_count_one_per_gpu_and_say_so() -> None:
    advertised = advertised_gpus(8, gpu_sharing("time-slicing"))
    assert advertised.resources == {"nvidia.com/gpu": 8}
    assert "were not given" in advertised.notes[0].text


@pytest.mark.parametrize("replicas", ["0", "-2", "1.5", "many", True, "100000"])
def test_bad_replicas_are_refused(replicas: object) -> None:
    with pytest.raises(SharingError) as info:
        gpu_sharing("mps", replicas=replicas)
    assert info.value.part == "replicas"


def test_mig_needs_a_mig_gpu() -> None:
    with pytest.raises(SharingError) as info:
        advertised_gpus(
            4, gpu_sharing("mig-single", profile="1g.10gb"), None, model_label="L4 24GB"
        )
    assert info.value.part == "model" and "L4 24GB GPUs do not support MIG" in str(info.value)


def test_every_model_fills_its_gpu_with_each_profile_exactly() -> None:
    # The placements agree with the tables' instance counts: n fit, n + 1 do not.
    for model in mig_models():
        for profile in model.profiles:
            n = profile.max_instances
            advertised_gpus(1, gpu_sharing("mig-mixed", layout=f"{profile.name}={n}"), model.key)
            with pytest.raises(SharingError):
                advertised_gpus(
                    1, gpu_sharing("mig-mixed", layout=f"{profile.name}={n + 1}"), model.key
                )
