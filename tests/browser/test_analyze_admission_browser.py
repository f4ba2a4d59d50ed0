"""The Analyze page in a real browser with namespace policies: pick a Kubernetes version,
see the admitted class next to the written one, expand a denied row; screenshots at desktop
and phone width."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

TEXT = """\
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
spec: {hard: {requests.nvidia.com/gpu: "8"}}
status: {hard: {requests.nvidia.com/gpu: "8"}, used: {requests.nvidia.com/gpu: "7"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: team}
spec:
  replicas: 2
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec:
      containers:
      - {name: main, image: triton, resources: {limits: {nvidia.com/gpu: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: plr, namespace: team}
spec:
  resources: {limits: {cpu: "2", memory: 2Gi}}
  containers: [{name: main, image: nginx}]
"""


@pytest.mark.parametrize(("width", "name"), [(1280, "desktop"), (390, "phone")])
def test_admission_is_shown_per_row_for_the_chosen_version(
    live_server, page: Page, width: int, name: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/analyze")
    page.get_by_label("Paste manifests").fill(TEXT)
    page.get_by_label("Kubernetes version").select_option("1.33")
    page.get_by_role("button", name="Analyze", exact=True).click()
    rows = page.locator("tbody.an-workload")
    expect(rows).to_have_count(2)
    serve = page.locator('tbody[data-workload="team/serve"]')
    expect(serve.locator("[data-admitted-qos]")).to_have_attribute("data-admitted-qos", "Burstable")
    expect(serve.locator("[data-denied]")).to_be_visible()
    serve.locator("summary").click()
    expect(serve.locator(".an-admission")).to_contain_text("exceeded quota: gpus")
    expect(serve.locator("[data-quota-fits]")).to_have_attribute("data-quota-fits", "1")
    plr = page.locator('tbody[data-workload="team/plr"]')
    plr.locator("summary").click()
    expect(plr.locator(".an-notes")).to_contain_text("drops spec.resources")
    expect(page.locator(".an-policies")).to_contain_text("LimitRange team/defaults")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"analyze-admission-{name}.png", full_page=True)
    serve.screenshot(path=ARTIFACTS / f"analyze-admission-row-{name}.png")
