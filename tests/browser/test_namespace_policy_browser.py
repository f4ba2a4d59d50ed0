"""The designer's Namespace policy panel in a browser (issue #12): paste a LimitRange and watch
the QoS class change live; the version picker and the policy live in the address and in share
links; screenshots at desktop and phone widths."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import Page, expect

from designer.forms import design_query
from designer.k8s.design import ContainerDesign, Design

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
POLICY_LABEL = "LimitRanges and ResourceQuotas of the namespace"

DEFAULTS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 256Mi}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec:
  hard: {requests.nvidia.com/gpu: "8"}
status:
  hard: {requests.nvidia.com/gpu: "8"}
  used: {requests.nvidia.com/gpu: "6"}
"""


def best_effort_url(base: str) -> str:
    design = Design(
        name="trainer", containers=[ContainerDesign(name="main", image="pytorch/pytorch", gpus="1")]
    )
    return f"{base}/?{urlencode(design_query(design))}"


def qos(page: Page):
    return page.locator("[data-qos-class]")


def test_pasting_a_limit_range_changes_the_qos_class_live(live_server, page: Page) -> None:
    page.goto(best_effort_url(live_server.url))
    expect(qos(page)).to_have_attribute("data-qos-class", "BestEffort")
    page.evaluate("window.__marker = 'no reload'")

    page.get_by_label(POLICY_LABEL).fill(DEFAULTS)
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    assert page.evaluate("window.__marker") == "no reload"
    expect(page.locator(".qos .qos-change")).to_have_text(
        "written as BestEffort; admitted as Burstable because LimitRange/defaults sets cpu and "
        "memory"
    )
    card = page.locator("#admission-result")
    expect(card).to_have_attribute("data-admission", "allowed")
    expect(card).to_contain_text("spec.containers[0].resources.requests[cpu]: 100m")
    expect(card).to_contain_text("kubernetes.io/limit-ranger: LimitRanger plugin set:")
    expect(card.locator("[data-quota-fits]")).to_have_attribute("data-quota-fits", "2")
    # The value LimitRanger sets, beside the field it sets.
    expect(page.locator("#err-id_c-0-cpu_request")).to_contain_text(
        "On admission, LimitRange/defaults sets 100m here."
    )
    # The node runs the admitted pod: the memory limit is the LimitRange's default.
    expect(page.locator("#node-view")).to_contain_text(str(512 * 1024 * 1024))
    # The address holds the policy, so a reload shows the same page.
    query = parse_qs(urlsplit(page.url).query)
    assert query["namespace_policy"] == [DEFAULTS]
    page.reload()
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")

    for width, name in ((1280, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#namespace-policy").screenshot(path=ARTIFACTS / f"policy-panel-{name}.png")
        card.screenshot(path=ARTIFACTS / f"policy-admission-{name}.png")
        page.screenshot(path=ARTIFACTS / f"policy-page-{name}.png", full_page=True)


def test_an_invalid_limit_range_is_reported_beside_the_panel(live_server, page: Page) -> None:
    page.goto(best_effort_url(live_server.url))
    page.get_by_label(POLICY_LABEL).fill(
        "kind: LimitRange\nmetadata: {name: bad, namespace: team}\nspec:\n  limits:\n"
        "  - type: Container\n    min: {cpu: '2'}\n    max: {cpu: '1'}\n"
    )
    slot = page.locator("#err-id_namespace_policy")
    expect(slot).to_contain_text('LimitRange "bad" is invalid: ')
    expect(slot).to_contain_text("min value 2 is greater than max value 1")
    expect(qos(page)).to_have_attribute("data-qos-class", "BestEffort")  # not applied


def test_the_version_and_the_policy_travel_in_the_share_link(
    live_server, page: Page, browser
) -> None:
    page.goto(best_effort_url(live_server.url))
    page.get_by_label("Kubernetes version").select_option("1.33")
    expect(page).to_have_url(re.compile(r"kubernetes_version=1\.33"))
    page.get_by_label(POLICY_LABEL).fill(DEFAULTS)
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    page.get_by_role("button", name="Share link").click()
    link = page.locator("#share-link a")
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href and "/s/" in href and "?" not in href
    other = browser.new_context()
    try:
        fresh = other.new_page()
        fresh.goto(href)
        expect(fresh.locator("[data-qos-class]")).to_have_attribute("data-qos-class", "Burstable")
        expect(fresh.get_by_label("Kubernetes version")).to_have_value("1.33")
        expect(fresh.get_by_label(POLICY_LABEL)).to_have_value(DEFAULTS)
    finally:
        other.close()
