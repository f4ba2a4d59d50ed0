"""render_design: the one engine call behind the designer page, POST /api/v1/render and
``podspec render``."""

from __future__ import annotations

import pytest
import yaml

from designer.k8s.design import (
    EXPORT_KINDS,
    WORKLOAD_TYPES,
    ContainerDesign,
    preset_design,
    render_design,
)
from designer.k8s.manifest import dump_yaml_all


@pytest.mark.parametrize("workload", list(WORKLOAD_TYPES))
def test_every_preset_renders_without_errors_and_follows_its_own_advice(workload: str) -> None:
    for size in WORKLOAD_TYPES[workload].presets:
        rendered = render_design(preset_design(workload, size))
        assert rendered.ok, [str(e) for e in rendered.report.errors]
        assert rendered.report.advice == [], (size, [a.code for a in rendered.report.advice])


def test_the_yaml_is_the_exported_objects_and_names_the_default_kind() -> None:
    rendered = render_design(preset_design("inference"))
    assert rendered.kind == "Deployment"
    assert rendered.yaml == dump_yaml_all(rendered.objects)
    assert [o["kind"] for o in yaml.safe_load_all(rendered.yaml)] == ["Deployment"]
    assert rendered.explanation[0].template == EXPORT_KINDS["Deployment"].reason


def test_an_action_is_applied_before_rendering() -> None:
    rendered = render_design(preset_design("training"), "add-sidecar")
    assert [c.role for c in rendered.design.containers] == ["app", "sidecar"]
    assert "initContainers" in rendered.objects[0]["spec"]


@pytest.mark.parametrize(
    ("changes", "applies", "does_not"),
    [
        ({}, set(), {"gpu.model", "node.cpu", "export.replicas"}),
        ({"gpu": {"mode": "mig-single"}}, {"gpu.model", "gpu.profile", "gpu.memory_gb"}, set()),
        ({"gpu": {"mode": "time-slicing"}}, {"gpu.rename_shared"}, {"gpu.model"}),
        (
            {"node": {"source": "custom"}},
            {"node.cpu", "node.memory", "node.max_pods"},
            {"node.manifest"},
        ),
        ({"node": {"source": "manifest"}}, {"node.manifest"}, {"node.cpu"}),
        ({"export": {"kind": "Deployment"}}, {"export.replicas"}, {"export.hpa_min"}),
        ({"export": {"kind": "Deployment", "hpa": True}}, {"export.hpa_min"}, {"export.workers"}),
        ({"export": {"kind": "IndexedJob"}}, {"export.workers", "export.backoff_limit"}, set()),
    ],
)
def test_the_engine_says_which_choice_fields_apply(
    changes: dict, applies: set, does_not: set
) -> None:
    design = preset_design("training").model_copy(deep=True)
    for group, values in changes.items():
        setattr(design, group, getattr(design, group).model_copy(update=values))
    rendered = render_design(design)
    assert applies <= rendered.applicable
    assert not does_not & rendered.applicable


def test_hints_name_the_field_and_say_what_was_meant() -> None:
    design = preset_design("training")
    design.containers[0] = ContainerDesign(
        name="main", image="x", memory_limit="8GB", gpus="0.5", command="python 'x"
    )
    hints = {(h.container, h.field): h for h in render_design(design).hints}
    assert "8G or 8Gi" in hints[(0, "memory_limit")].message.text
    assert "cannot be split by a fraction" in hints[(0, "gpus")].message.text
    assert hints[(0, "command")].level == "error"


def test_the_api_answer_is_the_json_of_the_rendering() -> None:
    rendered = render_design(preset_design("batch", "L"))
    answer = rendered.as_dict()
    assert answer["yaml"] == rendered.yaml
    assert answer["qosClass"] == rendered.report.qos_class == "Burstable"
    assert answer["qosReasons"] == [r.text for r in rendered.report.qos.reasons]
    assert answer["errors"] == [] and answer["kind"] == "Job"


def test_a_max_surge_of_thousands_of_digits_is_an_error_at_its_field() -> None:
    """Found by the fuzz test: the export converted it with int() (a ValueError in Python's
    words past 4,300 digits); it is written as typed and refused beside the field."""
    from designer.k8s.design import preset_design
    from designer.k8s.design.render import render_design

    design = preset_design("inference")
    export = design.export.model_copy(update={"max_surge": "1" * 5000})
    errors = render_design(design.model_copy(update={"export": export})).as_dict()["errors"]
    assert [e["field"] for e in errors] == ["spec.strategy.rollingUpdate.maxSurge"]
    assert "a valid percent string" in errors[0]["text"]
