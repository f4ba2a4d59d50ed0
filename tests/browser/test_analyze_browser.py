"""The Analyze page in a real browser: paste, see rows, filter, open in the designer,
export, and the exported YAML still holds the original's non-resource fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, tier: frontend}
      annotations: {prometheus.io/scrape: "true"}
    spec:
      volumes:
      - name: config
        configMap: {name: web-config}
      containers:
      - name: main
        image: nginx:1.27
        env:
        - {name: LOG_LEVEL, value: debug}
        - {name: PORT, value: "8080"}
        volumeMounts:
        - {name: config, mountPath: /etc/web}
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


def rows(page: Page):
    return page.locator("tbody.an-workload")


def analyze(page: Page, url: str, text: str = MANIFESTS) -> None:
    page.goto(url + "/analyze")
    page.get_by_label("Paste manifests").fill(text)
    page.get_by_role("button", name="Analyze", exact=True).click()
    expect(rows(page)).to_have_count(2)


def test_paste_filter_open_in_designer_and_export_keeps_the_manifest(
    live_server, page: Page, tmp_path
) -> None:
    analyze(page, live_server.url)
    page.evaluate("window.__marker = 'no reload'")
    expect(page).to_have_url(re.compile(r"/analyze/r/[A-Za-z0-9_-]{22}$"))
    # The rows, with the QoS class as text, and the unreadable document with its line.
    web = page.locator('tbody[data-workload="shop/web"]')
    trainer = page.locator('tbody[data-workload="ml/trainer"]')
    expect(web.locator(".an-qos")).to_have_text("Guaranteed")
    expect(trainer.locator(".an-qos")).to_have_text("Burstable")
    expect(trainer.locator("[data-errors]")).to_have_text("2")
    expect(page.locator(".an-unreadable")).to_contain_text("Document 2")
    expect(page.locator(".an-unreadable")).to_contain_text("line 41")
    expect(page.locator('[data-stat="gpus"]')).to_have_text("1")
    # Expanding a row shows the field paths.
    trainer.locator("summary").click()
    expect(trainer.locator("ul.errors")).to_contain_text("spec.containers[0].resources.requests")

    # Filters, over htmx: no reload, the address follows.
    page.get_by_label("Errors").select_option("yes")
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_have_attribute("data-workload", "ml/trainer")
    expect(page).to_have_url(re.compile(r"errors=yes"))
    page.get_by_label("Errors").select_option("")
    page.get_by_label("Namespace", exact=True).select_option("shop")
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_have_attribute("data-workload", "shop/web")
    page.get_by_label("QoS class").select_option("BestEffort")
    expect(rows(page)).to_have_count(0)
    expect(page.locator("#rows")).to_contain_text("No workload matches")
    page.get_by_label("QoS class").select_option("Guaranteed")
    expect(rows(page)).to_have_count(1)
    assert page.evaluate("window.__marker") == "no reload"

    ARTIFACTS.mkdir(exist_ok=True)
    page.get_by_label("Namespace", exact=True).select_option("")
    expect(rows(page)).to_have_count(1)
    page.screenshot(path=ARTIFACTS / "analyze.png", full_page=True)

    # Open in designer: the pod template, as a Pod.
    expect(web).to_contain_text("exported as a Pod")
    web.get_by_role("button", name="Open in designer").click()
    expect(page.locator("[data-qos-class]")).to_have_attribute("data-qos-class", "Guaranteed")
    expect(page.get_by_label("Pod name", exact=True)).to_have_value("web")
    expect(page.get_by_label("Namespace", exact=True)).to_have_value("shop")
    expect(page.get_by_label("CPU request", exact=True).first).to_have_value("500m")

    with page.expect_download() as info:
        page.locator("a[download]").click()
    path = tmp_path / "pod.yaml"
    info.value.save_as(path)
    pod = yaml.safe_load(path.read_text())
    assert pod["kind"] == "Pod"
    assert pod["metadata"]["name"] == "web"
    assert pod["metadata"]["labels"] == {"app": "web", "tier": "frontend"}
    assert pod["metadata"]["annotations"] == {"prometheus.io/scrape": "true"}
    assert pod["spec"]["volumes"] == [{"name": "config", "configMap": {"name": "web-config"}}]
    main = pod["spec"]["containers"][0]
    assert main["env"] == [
        {"name": "LOG_LEVEL", "value": "debug"},
        {"name": "PORT", "value": "8080"},
    ]
    assert main["volumeMounts"] == [{"name": "config", "mountPath": "/etc/web"}]
    assert main["resources"]["limits"] == {"cpu": "500m", "memory": "256Mi"}


def test_dropping_a_file_analyzes_it(live_server, page: Page) -> None:
    page.goto(live_server.url + "/analyze")
    page.evaluate(
        """(text) => {
          const zone = document.querySelector('[data-dropzone]');
          const transfer = new DataTransfer();
          transfer.items.add(new File([text], 'dropped.yaml', {type: 'application/yaml'}));
          zone.dispatchEvent(new DragEvent('dragover', {bubbles: true, dataTransfer: transfer}));
          zone.dispatchEvent(new DragEvent('drop', {bubbles: true, dataTransfer: transfer}));
        }""",
        MANIFESTS,
    )
    expect(rows(page)).to_have_count(2)
    expect(page.locator(".an-summary")).to_contain_text("dropped.yaml")


def test_upload_shows_a_busy_state_and_then_the_results(live_server, page: Page, tmp_path) -> None:
    file = tmp_path / "cluster.yaml"
    file.write_text(MANIFESTS)
    page.goto(live_server.url + "/analyze")
    page.get_by_label("Or upload a file").set_input_files(file)
    # Hold the answer back to see the busy indicator.
    page.route("**/analyze", lambda route: (page.wait_for_timeout(600), route.continue_()))
    page.get_by_role("button", name="Analyze", exact=True).click()
    expect(page.locator("#analyze-busy")).to_be_visible()
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#analyze-busy")).to_be_hidden()


def test_the_page_works_without_javascript(live_server, browser) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        analyze(page, live_server.url)
        page.get_by_label("Errors").select_option("yes")
        page.get_by_role("button", name="Filter").click()
        expect(rows(page)).to_have_count(1)
        expect(page).to_have_url(re.compile(r"errors=yes"))
        rows(page).first.get_by_role("button", name="Open in designer").click()
        expect(page.locator("[data-qos-class]")).to_have_attribute("data-qos-class", "Burstable")
    finally:
        context.close()


@pytest.mark.parametrize("width,name", [(1280, "desktop"), (390, "phone")])
def test_no_horizontal_scrolling(live_server, page: Page, width: int, name: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    analyze(page, live_server.url)
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    if name == "phone":
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "analyze-phone.png", full_page=True)
