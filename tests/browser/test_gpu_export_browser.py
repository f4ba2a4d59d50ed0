"""GPU sharing, node fit and export kinds change the page live, without a reload."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

from tests.browser.htmx import settle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def test_picking_a_node_and_a_mig_profile_updates_fit_and_yaml_live(
    live_server, page: Page
) -> None:
    page.goto(live_server.url + "/?preset=inference")
    page.evaluate("window.__marker = 'no reload'")

    page.get_by_label("Node", exact=True).select_option("catalog")
    settle(page)
    page.get_by_label("Node shape").select_option("p4d.24xlarge")
    fit = page.locator("#node-fit")
    expect(fit).to_contain_text("8 pods fit per node")
    expect(fit).to_contain_text("bottleneck")

    page.get_by_label("GPU sharing mode").select_option("mig-mixed")
    settle(page)
    page.get_by_label("GPU model (for MIG)").select_option("a100-40gb")
    settle(page)
    memory = page.get_by_label("GPU memory needed (GB)")
    memory.fill("20")
    memory.press("Tab")
    expect(page.locator("#manifest-yaml")).to_contain_text('nvidia.com/mig-3g.20gb: "1"')
    # The memory need chose the profile; the profile field stays unpicked and says so.
    expect(page.get_by_label("MIG profile")).to_have_value("")
    expect(page.locator("#err-id_gpu_profile")).to_contain_text("3g.20gb is the smallest profile")
    # The p4d's A100s are sliced as the device plugin would: every GPU in 3g.20gb by default.
    expect(fit).to_contain_text("MIG, mixed strategy")
    expect(fit).to_contain_text("No MIG layout was given")
    expect(fit).not_to_contain_text("Pending")
    # A profile picked by hand wins over the memory need, which then says they disagree.
    page.get_by_label("MIG profile").select_option("1g.10gb")
    expect(page.locator("#manifest-yaml")).to_contain_text('nvidia.com/mig-1g.10gb: "1"')
    expect(page.locator("#err-id_gpu_memory_gb")).to_contain_text("less than the 20 GB needed")
    assert page.evaluate("window.__marker") == "no reload"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "designer-gpu-node.png", full_page=True)


def test_switching_inference_to_deployment_with_hpa_updates_and_downloads_both(
    live_server, page: Page, tmp_path
) -> None:
    page.goto(live_server.url + "/?preset=inference")
    page.evaluate("window.__marker = 'no reload'")
    page.get_by_label("Export as").select_option("Pod")
    expect(page.locator("#manifest-yaml")).to_contain_text("kind: Pod")
    page.get_by_label("Export as").select_option("Deployment")
    expect(page.locator("#manifest-yaml")).to_contain_text("kind: Deployment")
    settle(page)
    page.get_by_label("Add a HorizontalPodAutoscaler").check()
    preview = page.locator("#manifest-yaml")
    expect(preview).to_contain_text("kind: HorizontalPodAutoscaler")
    expect(page.locator(".export-notes")).to_contain_text("CPU request")
    assert page.evaluate("window.__marker") == "no reload"

    with page.expect_download() as info:
        page.locator("a[download]").click()
    path = tmp_path / "export.yaml"
    info.value.save_as(path)
    kinds = [doc["kind"] for doc in yaml.safe_load_all(path.read_text())]
    assert kinds == ["Deployment", "HorizontalPodAutoscaler"]
    assert path.read_text() == preview.text_content()


def test_fractional_gpus_offer_the_sharing_modes(live_server, page: Page) -> None:
    page.goto(live_server.url + "/?preset=inference")
    page.get_by_label("GPUs", exact=True).first.fill("0.5")
    slot = page.locator("#err-id_c-0-gpus")
    expect(slot).to_contain_text("must be an integer")
    expect(slot).to_contain_text("MIG")
