"""Issue 12 on the server as deployed: a real gunicorn (gunicorn.conf.py, whose request line
is capped at 8,190 bytes) behind a real browser. Pasting a `kubectl get -o yaml` namespace
policy of ~15 KB into the panel updates the results live, the address bar shows a short
stored page, and a reload, further edits and a fresh browser all get the same page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.htmx import settle
from tests.browser.test_namespace_policy_browser import POLICY_LABEL, best_effort_url, qos
from tests.web.servers import database_env, gunicorn
from tests.web.test_addresses import LONG_POLICY

pytestmark = [pytest.mark.browser, pytest.mark.server]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("long-address")
    with gunicorn(database_env(tmp), tmp / "a") as port:
        yield f"http://127.0.0.1:{port}"


def test_a_long_policy_updates_live_and_its_address_reloads(
    server_url: str, page: Page, browser
) -> None:
    assert len(LONG_POLICY) > 8190
    page.goto(best_effort_url(server_url))
    expect(qos(page)).to_have_attribute("data-qos-class", "BestEffort")
    failed: list[int] = []
    page.on("response", lambda r: failed.append(r.status) if r.status >= 400 else None)

    page.get_by_label(POLICY_LABEL).fill(LONG_POLICY)
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(page).to_have_url(re.compile(r"/\?page=[0-9a-f]{20}$"))
    # Editing goes on with the policy in place: each answer is a new short address.
    first = page.url
    page.locator("#id_c-0-memory_limit").fill("2Gi")
    expect(page).not_to_have_url(first)
    expect(page).to_have_url(re.compile(r"/\?page=[0-9a-f]{20}$"))
    settle(page)
    # The answer is after admission with the policy the update carried: the API server
    # now defaults the memory request from the limit (2Gi), so LimitRanger only fills cpu.
    expect(page.locator("#err-id_c-0-memory_request")).not_to_contain_text("LimitRange")
    expect(page.locator("#err-id_c-0-cpu_request")).to_contain_text(
        "On admission, LimitRange/defaults sets 100m here."
    )
    assert failed == []

    page.reload()
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(page.get_by_label(POLICY_LABEL)).to_have_value(LONG_POLICY)
    expect(page.locator("#id_c-0-memory_limit")).to_have_value("2Gi")

    # Another browser (no cookie, no history) opens the copied address.
    other = browser.new_context()
    try:
        fresh = other.new_page()
        fresh.goto(page.url)
        expect(qos(fresh)).to_have_attribute("data-qos-class", "Burstable")
        expect(fresh.get_by_label(POLICY_LABEL)).to_have_value(LONG_POLICY)
    finally:
        other.close()
    artifacts = Path(__file__).resolve().parents[2] / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=artifacts / "long-policy-desktop.png")
