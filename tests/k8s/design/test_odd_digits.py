"""Text that str.isdigit() calls digits but int() refuses ("²", "٣" is fine, "①" is not), and
integers longer than Python converts (4,300 digits): every place that reads a count from
the user takes ASCII digits and a bounded length."""

from __future__ import annotations

import pytest

from designer.k8s.design import (
    ContainerDesign,
    NodeChoice,
    design_action,
    preset_design,
    render_design,
)

ODD = ["²", "①", "1²", "1" * 5000, "0" * 5000 + "1", "-1", "+1", " 1 "]


@pytest.mark.parametrize("index", ["²", "①", "1" * 5000, "٣"])
def test_remove_with_a_non_ascii_or_endless_index_changes_nothing(index: str) -> None:
    design = design_action(preset_design("inference"), "add-sidecar")
    assert design_action(design, f"remove-{index}") == design


@pytest.mark.parametrize("count", ODD)
def test_a_gpu_sharing_choice_with_an_odd_gpu_count_makes_it_one_gpu(count: str) -> None:
    design = preset_design("inference")
    design.gpu.mode = "time-slicing"
    design.containers[0].gpus = count
    changed = design_action(design, "gpu")
    assert changed.containers[0].gpus in ("1", count)


@pytest.mark.parametrize("count", ODD)
def test_an_odd_gpu_count_renders_with_an_error_not_a_crash(count: str) -> None:
    design = preset_design("training")
    design.containers = [
        ContainerDesign(name="main", image="busybox", gpus=count, cpu_limit="1", memory_limit="1Gi")
    ]
    render_design(design)


@pytest.mark.parametrize(
    ("max_pods", "readable"),
    [("²", False), ("①", False), ("1²", False), ("1" * 5000, False), ("-1", False)]
    + [("+1", False), ("0" * 5000 + "1", True), (" 1 ", True), ("110", True)],
)
def test_an_odd_max_pods_is_named_as_the_problem(max_pods: str, readable: bool) -> None:
    design = preset_design("training")
    design.node = NodeChoice(source="custom", cpu="64", memory="512Gi", max_pods=max_pods)
    problems = render_design(design).plan.problems
    assert ("node.max_pods" not in problems) == readable
