"""Accessibility (issue 16): an axe-core audit of the designer, Analyze (with results) and API
pages in both languages, at desktop and phone width, finds no serious or critical violation;
the designer works by keyboard alone, with visible focus, a polite live region for the QoS
class and errors tied to their inputs.

axe-core comes with axe-playwright-python (a test dependency, pinned in pyproject.toml; it
ships axe.min.js, axe-core 4.12.1, MPL-2.0)."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from designer.forms import design_query
from designer.k8s.design import preset_design

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Axe()
LOCALES = {"en": "en-US", "zh-hans": "zh-CN"}
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  template:
    spec:
      containers:
      - name: main
        image: triton
        resources:
          limits: {nvidia.com/gpu: 1}
        volumeMounts: [{name: cache, mountPath: /cache}]
      volumes:
      - {name: cache, emptyDir: {medium: Memory}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources:
      requests: {cpu: 2, memory: 8Gi}
      limits: {cpu: 1, memory: 8Gi}
"""


def busy_design_url(base: str) -> str:
    """A designer page with most of its parts showing: MIG on a catalog node, an unreadable
    memory (errors, panels that cannot compute), advice."""
    design = preset_design("training")
    design.gpu.mode = "mig-mixed"
    design.gpu.model = "h100-80gb"
    design.gpu.profile = "1g.10gb"
    design.node.source = "catalog"
    design.node.catalog_id = "p5.48xlarge"
    design.containers[0].memory_request = "8GB"
    return f"{base}/?{urlencode(design_query(design))}"


def serious(page: Page) -> list[str]:
    results = AXE.run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:5]]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", [1280, 390])
def test_axe_finds_no_serious_violation_on_any_page(
    live_server, browser: Browser, language: str, width: int
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": 900}, locale=LOCALES[language]
    )
    try:
        page = context.new_page()
        # The designer, busy, after a preset kept an edit (the kept-edits notice shows).
        page.goto(busy_design_url(live_server.url))
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.locator('[name="c-0-cpu_request"]').fill("8")
        page.locator("#id_workload").select_option("inference")
        expect(page.locator("#kept-edits")).to_be_visible()
        page.locator("details.kubelet-config summary").click()
        assert serious(page) == [], "designer"

        page.goto(live_server.url + "/analyze")
        page.locator("textarea").first.fill(MANIFESTS)
        page.locator("form.an-form [type=submit]").first.click()
        expect(page.locator("tbody.an-workload")).to_have_count(2)
        for summary in page.locator("tbody.an-workload summary").all():
            summary.click()
        expect(page.locator("ul.advice").first).to_be_visible()
        assert serious(page) == [], "analyze"

        page.goto(live_server.url + "/api/")
        assert serious(page) == [], "api"
    finally:
        context.close()


FOCUSABLE = "input:not([type=hidden]), select, textarea, button, a[href], summary, [tabindex='0']"


def test_every_control_of_the_designer_is_reachable_by_keyboard_with_visible_focus(
    live_server, page: Page
) -> None:
    page.goto(busy_design_url(live_server.url))
    expected = page.evaluate(
        """selector => Array.from(document.querySelectorAll(selector))
            .filter(el => el.checkVisibility() && !el.disabled
                    && el.getAttribute('tabindex') !== '-1')
            // A radio group is one Tab stop (the arrow keys move within it): its checked one.
            .filter(el => el.type !== 'radio' || el.checked)
            .map((el, i) => { el.dataset.kbd = String(i); return el.dataset.kbd; })""",
        FOCUSABLE,
    )
    reached: set[str] = set()
    unfocused: list[str] = []
    page.locator("body").focus()
    for _ in range(len(expected) + 40):
        page.keyboard.press("Tab")
        info = page.evaluate(
            """() => { const el = document.activeElement; const s = getComputedStyle(el);
                return {id: el.dataset ? el.dataset.kbd || '' : '', tag: el.tagName,
                        name: el.getAttribute('name') || el.id || el.textContent.slice(0, 30),
                        outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0}; }"""
        )
        if info["id"]:
            reached.add(info["id"])
            if not info["outline"]:
                unfocused.append(f"{info['tag']} {info['name']}")
    missing = set(expected) - reached
    names = page.evaluate(
        """ids => ids.map(id => { const el = document.querySelector(`[data-kbd="${id}"]`);
            const name = el.getAttribute('name') || el.id || el.textContent.trim().slice(0, 30);
            return el.tagName + ' ' + name; })""",
        sorted(missing),
    )
    assert names == [], "not reachable by Tab"
    assert unfocused == [], "focus not visible"


def test_the_live_region_announces_qos_changes_and_errors_describe_their_input(
    live_server, page: Page
) -> None:
    page.goto(live_server.url + "/?preset=training")
    region = page.locator("#qos-announcer")
    expect(region).to_have_attribute("aria-live", "polite")
    memory_limit = page.locator('[name="c-0-memory_limit"]')
    memory_limit.fill("128Gi")
    expect(region).to_have_text(re.compile("Burstable"))
    memory_limit.fill("8GB")
    expect(region).to_have_text(re.compile("error"))
    expect(memory_limit).to_have_accessible_description(re.compile("must match the regular"))
    expect(memory_limit).to_have_accessible_description(re.compile("Did you mean 8G or 8Gi"))
