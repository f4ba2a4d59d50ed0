"""What only a browser shows: live updates without a reload, focus kept, downloads, sharing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def qos(page: Page):
    return page.locator("[data-qos-class]")


def first(page: Page, label: str):
    return page.get_by_label(label, exact=True).first


def test_training_is_guaranteed_and_a_memory_limit_change_makes_it_burstable(
    live_server, page: Page
) -> None:
    page.goto(live_server.url)
    page.get_by_label("Workload type").select_option("training")
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    page.evaluate("window.__marker = 'no reload'")

    memory_limit = first(page, "Memory limit")
    memory_limit.click()
    memory_limit.press("End")
    memory_limit.press("Backspace")
    memory_limit.press("Backspace")
    memory_limit.type("Mi")  # 64Gi → 64Mi: limit below the request is an error, and not equal
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    assert page.evaluate("window.__marker") == "no reload"
    # Typing never loses focus or caret.
    assert page.evaluate("document.activeElement.name") == "c-0-memory_limit"
    assert page.evaluate("document.activeElement.selectionStart") == len("64Mi")
    expect(page.locator(".reasons")).to_contain_text("main")


def test_a_sidecar_without_limits_makes_the_pod_burstable(live_server, page: Page) -> None:
    page.goto(live_server.url + "/?preset=inference")
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    page.get_by_role("button", name="Add native sidecar").click()
    expect(page.locator('input[name="c-1-name"]')).to_have_value("sidecar-1")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(page.locator(".reasons")).to_contain_text("sidecar-1")


def test_half_a_gpu_shows_the_error_at_the_gpu_field(live_server, page: Page) -> None:
    page.goto(live_server.url)
    gpus = first(page, "GPUs")
    gpus.fill("0.5")
    slot = page.locator("#err-id_c-0-gpus")
    expect(slot).to_contain_text("must be an integer")
    expect(page.locator("a[download]")).to_have_attribute("aria-disabled", "true")


def test_downloaded_yaml_is_valid_for_kubernetes_and_kubectl(
    live_server, page: Page, tmp_path
) -> None:
    page.goto(live_server.url + "/?preset=inference")
    first(page, "CPU request").fill("1.5")
    first(page, "CPU limit").fill("1.5")
    expect(page.locator("#manifest-yaml")).to_contain_text('cpu: "1500m"')
    with page.expect_download() as info:
        page.locator("a[download]").click()
    path = tmp_path / "pod.yaml"
    info.value.save_as(path)
    text = path.read_text()
    assert text == page.locator("#manifest-yaml").text_content()
    manifest = yaml.safe_load(text)
    kubernetes_validate.validate(manifest, "1.37.0", strict=True)
    result = subprocess.run(
        [
            "kubectl",
            "set",
            "resources",
            "--local",
            "-f",
            str(path),
            "--requests=memory=1Gi",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    deployment = json.loads(result.stdout)
    assert deployment["kind"] == "Deployment"  # online inference exports as a Deployment
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["cpu"] == "1500m"


def test_the_share_link_opens_the_same_design_in_a_fresh_context(
    live_server, page: Page, browser
) -> None:
    page.goto(live_server.url + "/?preset=batch")
    first(page, "Memory limit").fill("20Gi")
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "20Gi"')
    page.get_by_role("button", name="Share link").click()
    link = page.locator("#share-link a")
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert "/s/" in href
    preview = page.locator("#manifest-yaml").text_content()
    address = page.url  # the address bar holds the whole design too

    other = browser.new_context()
    try:
        fresh = other.new_page()
        for url in (href, address):
            fresh.goto(url)
            assert fresh.locator("#manifest-yaml").text_content() == preview
    finally:
        other.close()


@pytest.mark.parametrize("width,name", [(1280, "desktop"), (390, "phone")])
def test_screenshot_of_the_designer(live_server, page: Page, width: int, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url)
    expect(qos(page)).to_be_visible()
    # No horizontal scrolling at phone width.
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=ARTIFACTS / f"designer-{name}.png", full_page=True)


def test_pressing_enter_in_a_field_keeps_what_was_typed(live_server, page: Page) -> None:
    page.goto(live_server.url)
    cpu_limit = first(page, "CPU limit")
    cpu_limit.fill("32")
    cpu_limit.press("Enter")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(first(page, "CPU limit")).to_have_value("32")


def test_live_updates_log_no_console_errors(live_server, page: Page) -> None:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(live_server.url + "/?preset=inference")
    first(page, "CPU limit").fill("8")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    first(page, "GPUs").fill("0.5")
    expect(page.locator("#err-id_c-0-gpus")).to_contain_text("must be an integer")
    assert errors == []
