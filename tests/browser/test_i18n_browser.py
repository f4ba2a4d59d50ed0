"""Simplified Chinese in a real browser: the header switch, live updates in Chinese, the same
QoS class and YAML as in English, and a layout that holds Chinese text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {cpu: 500m, memory: 256Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources:
      requests: {cpu: 2, memory: 8Gi, nvidia.com/gpu: 1}
      limits: {cpu: 1, memory: 8Gi}
---
this: is: [broken
"""


def qos(page: Page):
    return page.locator("[data-qos-class]")


def field(page: Page, label: str):
    return page.get_by_label(label, exact=True).first


def no_horizontal_scroll(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


def english_view(browser: Browser, url: str) -> tuple[str, str]:
    """The QoS class and YAML a fresh English browser shows for ``url``."""
    context = browser.new_context()  # Playwright asks for en-US; no language cookie
    try:
        page = context.new_page()
        page.goto(url)
        expect(page.locator("html")).to_have_attribute("lang", "en")
        return (
            qos(page).get_attribute("data-qos-class") or "",
            page.locator("#manifest-yaml").text_content() or "",
        )
    finally:
        context.close()


def test_switch_to_chinese_and_design_a_pod(live_server, page: Page, browser: Browser) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + "/?preset=inference")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(field(page, "CPU request")).to_be_visible()

    page.get_by_role("button", name="简体中文").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    assert page.url.endswith("/?preset=inference")  # back on the same page
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies["django_language"] == "zh-hans"
    expect(page.get_by_role("button", name="简体中文")).to_have_attribute("aria-current", "true")
    expect(page.locator("#workload-heading")).to_have_text("工作负载")
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")

    # Design a pod: a live update, no reload, in Chinese.
    page.evaluate("window.__marker = 'no reload'")
    field(page, "内存 limit").fill("32Gi")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    assert page.evaluate("window.__marker") == "no reload"
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "32Gi"')
    expect(page.locator(".reasons")).to_contain_text(
        '容器 "main"（spec.containers[0]）：memory request 16Gi 与 limit 32Gi 不相等。'
    )
    expect(page.locator(".qos h2")).to_have_text("QoS 类别： Burstable")
    expect(page.locator(".eviction")).to_contain_text("实际上在 BestEffort Pod 之后")

    # An API server error: English text, Chinese explanation beside it.
    field(page, "CPU limit").fill("1")
    slot = page.locator("#err-id_c-0-cpu_request")
    expect(slot).to_contain_text("API 服务器拒绝：")
    expect(slot).to_contain_text("must be less than or equal to cpu limit of 1")
    expect(page.locator(".api-note").first).to_be_visible()
    field(page, "CPU limit").fill("4")
    expect(slot).to_be_empty()

    page.screenshot(path=ARTIFACTS / "designer-zh-desktop.png", full_page=True)

    # The same design in English: the same QoS class and the same YAML, byte for byte.
    assert "c-0-memory_limit=32Gi" in page.url  # htmx keeps the design in the address
    english_qos, english_yaml = english_view(browser, page.url)
    assert english_qos == "Burstable"
    assert english_yaml == page.locator("#manifest-yaml").text_content()

    # Phone width: Chinese text wraps inside the page.
    page.set_viewport_size({"width": 390, "height": 900})
    expect(qos(page)).to_be_visible()
    no_horizontal_scroll(page, 390)
    page.screenshot(path=ARTIFACTS / "designer-zh-phone.png", full_page=True)

    # Back to English from the edited design: the switch returns to the design as it is now.
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert "c-0-memory_limit=32Gi" in page.url
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "32Gi"')
    expect(field(page, "Memory limit")).to_have_value("32Gi")


def test_the_switch_works_without_javascript(live_server, browser: Browser) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        url = live_server.url + "/?preset=batch"
        page.goto(url)
        english_yaml = page.locator("#manifest-yaml").text_content()
        page.get_by_role("button", name="简体中文").click()
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        assert page.url == url
        assert page.locator("#manifest-yaml").text_content() == english_yaml
        expect(field(page, "内存 limit")).to_have_value("16Gi")
    finally:
        context.close()


def test_a_browser_asking_for_chinese_gets_chinese(live_server, browser: Browser) -> None:
    context = browser.new_context(locale="zh-CN")
    try:
        page = context.new_page()
        page.goto(live_server.url)
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        expect(field(page, "CPU request")).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_analyze_in_chinese(live_server, page: Page, width: int) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/analyze")
    page.get_by_role("button", name="简体中文").click()
    expect(page.locator("h1")).to_have_text("分析清单")
    page.get_by_label("粘贴清单").fill(MANIFESTS)
    page.get_by_role("button", name="分析", exact=True).click()
    rows = page.locator("tbody.an-workload")
    expect(rows).to_have_count(2)
    expect(page.locator("#summary-heading")).to_have_text("概览")
    trainer = page.locator('tbody[data-workload="ml/trainer"]')
    trainer.locator("summary").click()
    expect(trainer).to_contain_text("cpu request 2 与 limit 1 不相等")
    expect(trainer).to_contain_text("must be less than or equal to cpu limit of 1")
    no_horizontal_scroll(page, width)
    if width == 1280:
        page.screenshot(path=ARTIFACTS / "analyze-zh.png", full_page=True)
    else:
        page.screenshot(path=ARTIFACTS / "analyze-zh-phone.png", full_page=True)
