"""Presets never overwrite the user's edits; the size shows "Custom" once edited (issue 16)."""

from __future__ import annotations

from designer.k8s.design import (
    ContainerDesign,
    apply_action,
    apply_preset,
    matching_size,
    preset_design,
    render_design,
)


def edited_training():
    design = preset_design("training")
    design.containers[0].cpu_request = "8"
    return design


def test_changing_the_workload_type_keeps_an_edited_field_and_applies_the_rest() -> None:
    design = edited_training()
    design.workload = "inference"  # the select's new value; the fields are still training's
    result = apply_action(
        design, "preset", "workload", touched={"containers[0].cpu_request"}, was="training"
    )
    main = result.design.containers[0]
    assert main.cpu_request == "8"  # kept: the user typed it
    assert main.cpu_limit == "4"  # the inference preset's
    assert main.image.startswith("nvcr.io/nvidia/tritonserver")
    assert result.design.name == "inference"
    assert result.design.restart_policy == "Always"
    assert [(k.field, k.value, k.preset) for k in result.kept] == [
        ("containers[0].cpu_request", "8", "4")
    ]
    assert result.touched == {"containers[0].cpu_request"}


def test_a_preset_leaves_what_it_does_not_set_alone() -> None:
    design = preset_design("training")
    design.namespace = "ml"
    design.node.source = "catalog"
    design.node.catalog_id = "p5.48xlarge"
    design.containers.append(ContainerDesign(role="sidecar", name="proxy", image="envoy"))
    design.workload = "inference"
    applied = apply_action(design, "preset", "workload", was="training").design
    assert applied.namespace == "ml"
    assert applied.node.catalog_id == "p5.48xlarge"
    assert [c.name for c in applied.containers] == ["main", "proxy"]


def test_picking_the_workload_type_already_shown_changes_nothing() -> None:
    design = edited_training()
    result = apply_action(
        design, "preset", "workload", touched={"containers[0].cpu_request"}, was="training"
    )
    assert result.design == design
    # The edit it would keep is still said, so the whole preset can be asked for.
    assert [k.field for k in result.kept] == ["containers[0].cpu_request"]


def test_the_explicit_preset_applies_everything_and_forgets_the_edits() -> None:
    design = edited_training()
    design.name = "mine"
    design.labels = {"team": "a"}
    design.restart_policy = "OnFailure"
    design.containers[0].image = "mine:1"
    design.workload = "batch"
    result = apply_action(design, "preset", touched={"containers[0].cpu_request", "name"})
    assert result.design.name == "batch-inference"
    assert result.design.labels == {"app": "batch-inference"}
    assert result.design.restart_policy == "OnFailure"
    assert result.design.containers[0].image.startswith("nvcr.io/nvidia/tritonserver")
    assert result.design.containers[0].cpu_request == "2"
    assert result.kept == ()
    assert result.touched == frozenset()


def test_a_new_size_keeps_edited_sized_fields() -> None:
    design = edited_training()
    design.size = "L"
    result = apply_action(design, "preset", "size", touched={"containers[0].cpu_request"}, was="M")
    main = result.design.containers[0]
    assert (main.cpu_request, main.cpu_limit, main.memory_limit) == ("8", "32", "128Gi")
    assert result.design.name == "trainer"  # a size does not rename the pod


def test_removing_a_container_renumbers_the_edited_fields() -> None:
    design = preset_design("training")
    design.containers.insert(0, ContainerDesign(role="init", name="fetch", image="busybox"))
    touched = {"containers[0].image", "containers[1].cpu_request", "name"}
    result = apply_action(design, "remove-0", touched=touched)
    assert result.touched == {"containers[0].cpu_request", "name"}


def test_what_was_typed_since_the_whole_preset_was_asked_for_is_kept() -> None:
    """The page asks again when the user typed while an answer was on its way (``since``):
    the whole preset applies to every other field, edits before the click included, and
    lists the typed ones as kept (the notice offers the whole preset once more)."""
    design = edited_training()
    design.workload = "batch"
    design.containers[0].memory_limit = "999Gi"
    result = apply_action(
        design,
        "preset",
        touched={"containers[0].cpu_request", "containers[0].memory_limit"},
        since={"containers[0].memory_limit"},
    )
    main = result.design.containers[0]
    assert main.cpu_request == "2"  # edited before the click: the preset's
    assert main.memory_limit == "999Gi"  # typed since: kept
    assert result.design.name == "batch-inference"
    assert [(k.field, k.value) for k in result.kept] == [("containers[0].memory_limit", "999Gi")]
    assert result.touched == {"containers[0].memory_limit"}


def test_any_action_keeps_what_was_typed_since_it_was_asked_for() -> None:
    design = preset_design("inference")
    design.headroom.peak = "12Gi"
    design.containers[0].memory_limit = "20Gi"  # typed after the headroom button
    result = apply_action(design, "headroom", since={"containers[0].memory_limit"})
    assert result.design.containers[0].memory_limit == "20Gi"
    assert apply_action(design, "headroom").design.containers[0].memory_limit == "15Gi"
    # A removed container's typed fields go with it; the next one's follow it down.
    design.containers.insert(0, ContainerDesign(role="init", name="fetch", image="busybox"))
    design.containers[1].cpu_request = "7"
    since = {"containers[0].image", "containers[1].cpu_request", "name"}
    result = apply_action(design, "remove-0", since=since)
    assert [c.name for c in result.design.containers] == [design.containers[1].name]
    assert result.design.containers[0].cpu_request == "7"
    assert result.touched == {"containers[0].cpu_request", "name"}
    # A workload type chosen while typing keeps the typed field like any edit.
    chosen = edited_training()
    chosen.workload = "inference"
    chosen.containers[0].memory_limit = "3Gi"
    result = apply_action(
        chosen, "preset", "workload", was="training", since={"containers[0].memory_limit"}
    )
    assert result.design.containers[0].memory_limit == "3Gi"
    assert result.design.containers[0].cpu_request == "4"  # not edited: the preset's


def test_the_size_says_custom_after_edits_and_finds_a_preset_typed_by_hand() -> None:
    design = preset_design("training")
    assert matching_size(design) == "M"
    design.containers[0].cpu_request = "8"
    assert matching_size(design) == "custom"
    assert render_design(design).design.size == "custom"
    large = apply_preset(preset_design("training"), "L")[0]
    large.size = "custom"
    assert matching_size(large) == "L"
