"""A workload type is one record: register one, and the page, the API, the CLI and the export
all offer it — no branch to edit anywhere else."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from designer.k8s.design import (
    Size,
    WorkloadType,
    preset_design,
    register_workload_type,
    render_design,
    unregister_workload_type,
)

pytestmark = pytest.mark.django_db

LORA = WorkloadType(
    id="lora",
    label="LoRA fine-tuning",
    image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
    restart_policy="Never",
    default_export_kind="Job",
    default_name="lora-tune",
    traits=frozenset({"evicting-loses-work", "data-loading", "shared-memory"}),
    rationale=("One GPU is enough for adapter weights.",),
    presets={"M": Size("8", "8", "32Gi", "32Gi", "1", "8Gi")},
)


@pytest.fixture
def lora() -> Iterator[WorkloadType]:
    register_workload_type(LORA)
    yield LORA
    unregister_workload_type(LORA.id)


def test_the_designer_offers_a_registered_type_and_starts_from_its_preset(
    client: Client, lora: WorkloadType
) -> None:
    html = client.get("/?workload=lora").content.decode()
    assert '<option value="lora" selected>LoRA fine-tuning</option>' in html
    assert 'value="lora-tune"' in html
    assert "One GPU is enough for adapter weights." in html
    assert "kind: Job" in html


def test_the_api_renders_a_registered_type_with_its_default_export(
    client: Client, lora: WorkloadType
) -> None:
    body = client.post(
        "/api/v1/render", data=json.dumps({"workload": "lora"}), content_type="application/json"
    ).json()
    assert body["kind"] == "Job"
    job = yaml.safe_load(body["yaml"])
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert body["qosClass"] == "Guaranteed"


def test_the_cli_and_the_export_offer_it_too(lora: WorkloadType, tmp_path) -> None:
    rendered = render_design(preset_design("lora"))
    assert rendered.kind == "Job" and rendered.ok
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(rendered.yaml)
    out = io.StringIO()
    call_command("podspec", "render", str(manifest), "--workload", "lora", stdout=out)
    assert "kind: Pod" in out.getvalue()  # a manifest's pod opens as a Pod, as documented


def test_an_unknown_type_is_an_error_not_a_silent_default(client: Client) -> None:
    response = client.post(
        "/api/v1/render", data=json.dumps({"workload": "lora"}), content_type="application/json"
    )
    assert response.status_code == 422
    assert "unknown workload type 'lora'" in response.content.decode()
    html = client.get("/?workload=lora").content.decode()
    assert "unknown workload type" in html
