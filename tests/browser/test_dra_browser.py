"""GPUs as a DRA claim in the browser (issue 13): a training design switches from
``nvidia.com/gpu: 2`` to a claim for 2 GPUs with at least 40Gi, live; the downloaded YAML is
valid for Kubernetes 1.34 and reads back through ``podspec check`` with the same claims."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from playwright.sync_api import Page, expect

from tests.browser.htmx import settle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
H100 = (ROOT / "tests" / "k8s" / "data" / "resourceslice_h100x8.yaml").read_text()
DRA = "DRA claim (resource.k8s.io/v1, Kubernetes 1.34+)"


def qos(page: Page):
    return page.locator("[data-qos-class]")


def test_a_training_design_switches_to_a_dra_claim_for_two_40gi_gpus(
    live_server, page: Page, tmp_path: Path
) -> None:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(live_server.url + "/?preset=training")
    preview = page.locator("#manifest-yaml")
    expect(preview).to_contain_text('nvidia.com/gpu: "2"')
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    page.evaluate("window.__marker = 'no reload'")

    page.get_by_label(DRA).check()
    settle(page)
    expect(preview).to_contain_text("kind: ResourceClaimTemplate")
    expect(preview).to_contain_text("count: 2")
    expect(preview).not_to_contain_text("nvidia.com/gpu: ")
    memory = page.get_by_label("GPU memory at least", exact=True)
    memory.fill("40Gi")
    expect(preview).to_contain_text("memory.compareTo(quantity('40Gi')) >= 0")
    # The claim changes neither the QoS class nor the scheduler's sums, and the page says so.
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    claims = page.locator("#gpu-claims")
    expect(claims).to_contain_text("Claims do not count toward the QoS class")
    expect(claims).to_contain_text("trainer-gpu")
    expect(page.locator("#err-id_c-0-gpus")).to_contain_text("this field is that count")
    assert page.evaluate("window.__marker") == "no reload"
    # Typing kept focus in the field.
    assert page.evaluate("document.activeElement.name") == "gpu_min_memory"
    assert "gpu_source=dra" in page.url and "gpu_min_memory=40Gi" in page.url

    with page.expect_download() as info:
        page.locator("a[download]").click()
    path = tmp_path / "trainer.yaml"
    info.value.save_as(path)
    text = path.read_text()
    assert text == preview.text_content()
    documents = list(yaml.safe_load_all(text))
    assert [d["kind"] for d in documents] == ["ResourceClaimTemplate", "Pod"]
    for document in documents:
        kubernetes_validate.validate(document, "1.34.0", strict=True)

    # podspec check reads the file back with the claims the page shows.
    result = subprocess.run(
        [sys.executable, "manage.py", "podspec", "check", "--format", "json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    (pod,) = report["objects"]
    assert pod["qosClass"] == "Guaranteed" and pod["errors"] == []
    (claim,) = pod["claims"]
    assert {k: claim[k] for k in ("name", "source", "object", "deviceClass", "count")} == {
        "name": "gpu",
        "source": "template",
        "object": "trainer-gpu",
        "deviceClass": "gpu.nvidia.com",
        "count": 2,
    }
    assert claim["containers"] == ["main"]
    assert claim["requests"][0]["selectors"] == [
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    ]

    # The address bar holds the claim: opening it again shows the same design.
    address = page.url
    page.goto(address)
    expect(page.get_by_label(DRA)).to_be_checked()
    expect(page.get_by_label("GPU memory at least", exact=True)).to_have_value("40Gi")
    assert page.locator("#manifest-yaml").text_content() == text
    assert errors == []


def test_pasted_resource_slices_show_the_claims_fit_live(live_server, page: Page) -> None:
    page.goto(live_server.url + "/?preset=training")
    page.get_by_label(DRA).check()
    settle(page)
    page.get_by_label("Node", exact=True).select_option("catalog")
    settle(page)
    page.get_by_label("Node shape").select_option("p5.48xlarge")
    page.get_by_label("The node's ResourceSlices").fill(H100)
    fit = page.locator("#node-fit")
    expect(fit.locator("#claims-fit")).to_contain_text("ip-10-0-180-136.ec2.internal")
    expect(fit).to_contain_text("4 pods fit per node")
    expect(fit.locator("[data-matching]").first).to_have_attribute("data-matching", "8")
    # A memory need no H100 has: no device matches, the pod stays Pending.
    page.get_by_label("GPU memory at least", exact=True).fill("100Gi")
    expect(fit).to_contain_text("This pod would stay Pending on this node")
    expect(fit.locator("[data-matching]").first).to_have_attribute("data-matching", "0")


def test_alternatives_are_added_and_removed_without_a_reload(live_server, page: Page) -> None:
    page.goto(live_server.url + "/?preset=training")
    page.get_by_label(DRA).check()
    settle(page)
    page.evaluate("window.__marker = 'no reload'")
    page.get_by_role("button", name="Add an alternative").click()
    settle(page)
    expect(page.locator("#dra-alternative-0")).to_be_visible()
    page.locator("#id_gpu_first_available-0-mig_profile").fill("3g.40gb")
    page.locator("#id_gpu_first_available-0-device_class").fill("mig.nvidia.com")
    preview = page.locator("#manifest-yaml")
    expect(preview).to_contain_text("firstAvailable:")
    expect(preview).to_contain_text("profile == '3g.40gb'")
    page.locator("#id_gpu_first_available-0-count").fill("zero")
    expect(page.locator("#err-id_gpu_first_available-0-count")).to_contain_text(
        "whole number of at least 1"
    )
    page.locator("#id_gpu_first_available-0-count").fill("1")
    expect(page.locator("#err-id_gpu_first_available-0-count")).to_be_empty()
    page.get_by_role("button", name="Remove alternative 1").click()
    settle(page)
    expect(preview).not_to_contain_text("firstAvailable:")
    assert page.evaluate("window.__marker") == "no reload"


@pytest.mark.parametrize("width,name", [(1280, "desktop"), (390, "phone")])
def test_screenshot_of_a_dra_design(live_server, page: Page, width: int, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/?preset=training")
    page.get_by_label(DRA).check()
    settle(page)
    page.get_by_label("GPU memory at least", exact=True).fill("40Gi")
    page.get_by_role("button", name="Add an alternative").click()
    settle(page)
    page.get_by_label("Node", exact=True).select_option("catalog")
    settle(page)
    page.get_by_label("Node shape").select_option("p5.48xlarge")
    page.get_by_label("The node's ResourceSlices").fill(H100)
    expect(page.locator("#claims-fit")).to_be_visible()
    # No horizontal scrolling at phone width.
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=ARTIFACTS / f"designer-dra-{name}.png", full_page=True)
