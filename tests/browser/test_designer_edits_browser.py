"""What users stumbled on, in a real browser (issue 16): MIG-aware node fit (1), typed values
never lost to a late answer or a preset, the whole preset included (3), sharing and presets
without JavaScript (4), the address bar on a shared design (8), the QoS class in sight while
typing on a phone (11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.htmx import settle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def qos(page: Page):
    return page.locator("[data-qos-class]")


def field(page: Page, name: str):
    return page.locator(f'[name="{name}"]')


def test_node_fit_counts_the_mig_slices_and_offers_the_models_profiles_only(
    live_server, page: Page
) -> None:
    page.goto(live_server.url + "/?preset=training")
    page.get_by_label("GPU sharing mode").select_option("mig-single")
    settle(page)
    page.get_by_label("GPU model (for MIG)").select_option("h100-80gb")
    settle(page)
    profiles = page.get_by_label("MIG profile").locator("option")
    names = profiles.evaluate_all("options => options.map(o => o.value)")
    assert "1g.10gb" in names and "1g.5gb" not in names  # no A100 40GB profile
    page.get_by_label("MIG profile").select_option("1g.10gb")
    settle(page)
    page.get_by_label("Node", exact=True).select_option("catalog")
    settle(page)
    page.get_by_label("Node shape").select_option("p5.48xlarge")
    fit = page.locator("#node-fit")
    expect(fit).to_contain_text("11 pods fit per node")  # cpu, not the 8 whole GPUs
    expect(fit).to_contain_text("56 in all")
    # Mixed strategy asks for the node's MIG layout, and says what is wrong with one.
    page.get_by_label("GPU sharing mode").select_option("mig-mixed")
    settle(page)
    layout = page.get_by_label("MIG layout of the node")
    layout.fill("3g.40gb=3")
    expect(page.locator("#err-id_node_mig_layout")).to_contain_text("do not fit")
    layout.fill("4: 3g.40gb=2; 4: 1g.10gb=7")
    expect(page.locator("#err-id_node_mig_layout")).to_be_empty()
    expect(fit).to_contain_text("nvidia.com/mig-1g.10gb")


def hold_first(page: Page, marker: str) -> list[Route]:
    """Hold the first designer request whose form (the page posts it) or URL contains
    ``marker`` until the test lets it go."""
    held: list[Route] = []

    def handle(route: Route) -> None:
        request = route.request
        if marker in (request.post_data or "") + request.url and not held:
            held.append(route)
            return
        route.continue_()

    page.route(re.compile(r"^https?://[^/]+/(\?.*)?$"), handle)
    return held


def wait_held(page: Page, held: list[Route]) -> None:
    """Until hold_first holds the request (2 s at most)."""
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the preset request was not sent"


def test_a_late_preset_answer_does_not_overwrite_what_was_typed_since(
    live_server, page: Page
) -> None:
    page.goto(live_server.url + "/?preset=training")
    held = hold_first(page, "action=preset")
    page.get_by_label("Workload type").select_option("inference")
    wait_held(page, held)
    memory_limit = field(page, "c-0-memory_limit")
    memory_limit.fill("999Gi")
    page.wait_for_timeout(700)  # the live answer for 999Gi comes back first
    held[0].continue_()  # ...then the preset's, asked before the typing
    expect(field(page, "name")).to_have_value("inference")  # the preset did apply
    expect(memory_limit).to_have_value("999Gi")  # but not over the typed value
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(page.locator("#kept-edits")).to_contain_text("999Gi")


def test_a_new_workload_type_keeps_edits_and_offers_the_whole_preset(
    live_server, page: Page
) -> None:
    page.goto(live_server.url + "/?preset=training")
    field(page, "c-0-cpu_request").fill("8")
    expect(page.locator("#id_size")).to_have_value("custom")  # no longer the M preset
    page.get_by_label("Workload type").select_option("training")  # the one already chosen
    settle(page)
    expect(field(page, "c-0-cpu_request")).to_have_value("8")
    page.get_by_label("Workload type").select_option("inference")
    expect(field(page, "c-0-image")).to_have_value(re.compile("tritonserver"))
    expect(field(page, "c-0-cpu_request")).to_have_value("8")  # kept: the user typed it
    expect(field(page, "c-0-cpu_limit")).to_have_value("4")  # untouched: the preset's
    notice = page.locator("#kept-edits")
    expect(notice).to_contain_text("CPU request")
    notice.get_by_role("button", name="Apply the whole preset").click()
    expect(field(page, "c-0-cpu_request")).to_have_value("4")
    expect(page.locator("#kept-edits")).to_have_count(0)
    settle(page)  # the preset's answer has settled (its swap re-renders the form)
    # A renamed container's heading follows its name.
    field(page, "c-0-name").fill("server")
    expect(page.locator("#legend-c-0")).to_contain_text("“server”")


def test_what_is_typed_while_the_whole_preset_is_on_its_way_is_kept(
    live_server, page: Page
) -> None:
    """ "Apply the whole preset", then a value typed before its answer came: the answer is
    asked again with the form on screen, the preset applies to everything else and the
    typed value stays, listed as kept."""
    page.goto(live_server.url + "/?preset=training")
    field(page, "c-0-cpu_request").fill("8")
    page.get_by_label("Workload type").select_option("inference")
    notice = page.locator("#kept-edits")
    expect(notice).to_contain_text("CPU request")
    settle(page)
    held = hold_first(page, "action=preset")
    notice.get_by_role("button", name="Apply the whole preset").click()
    wait_held(page, held)
    memory_limit = field(page, "c-0-memory_limit")
    memory_limit.fill("999Gi")
    page.wait_for_timeout(700)  # the live answer for 999Gi comes back first
    held[0].continue_()
    expect(field(page, "c-0-cpu_request")).to_have_value("4")  # the whole preset applied
    expect(memory_limit).to_have_value("999Gi")  # ...but not over what was typed since
    expect(notice).to_contain_text("999Gi")
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "999Gi"')
    settle(page)
    expect(memory_limit).to_have_value("999Gi")


def test_without_javascript_sharing_works_and_apply_preset_applies_it_all(
    live_server, browser: Browser
) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/?preset=inference")
        page.get_by_label("Workload type").select_option("batch")
        page.get_by_role("button", name="Apply preset").click()
        expect(field(page, "name")).to_have_value("batch-inference")
        expect(field(page, "labels")).to_have_value("app=batch-inference")
        expect(field(page, "c-0-image")).to_have_value(re.compile("tritonserver"))
        expect(field(page, "restart_policy")).to_have_value("OnFailure")
        expect(page.locator(".rationale")).to_contain_text("restartPolicy OnFailure")
        preview = page.locator("#manifest-yaml").text_content()
        page.get_by_role("button", name="Share link").click()
        expect(page).to_have_url(re.compile(r"/s/[0-9a-f]+$"))
        assert page.locator("#manifest-yaml").text_content() == preview
    finally:
        context.close()


def test_the_address_bar_of_a_shared_design_follows_edits(live_server, page: Page) -> None:
    page.goto(live_server.url + "/?preset=batch")
    page.get_by_role("button", name="Share link").click()
    href = page.locator("#share-link a").get_attribute("href")
    page.goto(href)
    assert "/s/" in page.url
    field(page, "c-0-memory_limit").fill("20Gi")
    expect(page.locator("#manifest-yaml")).to_contain_text('memory: "20Gi"')
    expect(page).to_have_url(re.compile(r"/\?.*c-0-memory_limit=20Gi"))
    # Copying the address shares what is on screen.
    other = page.context.new_page()
    other.goto(page.url)
    expect(other.locator("#manifest-yaml")).to_contain_text('memory: "20Gi"')
    other.close()


def test_on_a_phone_the_qos_class_and_errors_stay_in_sight_while_typing(
    live_server, page: Page
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/?preset=training")
    status = page.locator("#live-status")
    expect(status).to_contain_text("Guaranteed")
    memory_limit = field(page, "c-0-memory_limit")
    memory_limit.scroll_into_view_if_needed()
    memory_limit.fill("128Gi")
    expect(status).to_contain_text("Burstable")
    box = status.bounding_box()
    assert box is not None and 0 <= box["y"] < 5  # stuck to the top of the screen
    assert page.evaluate("window.scrollY") > 800  # far down the form
    memory_limit.fill("oops")
    expect(status).to_contain_text("1 error")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "designer-phone-typing.png")
    status.get_by_role("link", name=re.compile("Results")).click()
    results = page.locator("#results").bounding_box()
    assert results is not None and results["y"] < 844  # the results are on screen


def test_a_live_answer_fills_the_slots_the_page_has_and_keeps_no_page_snapshot(
    live_server, page: Page
) -> None:
    """The message slots are filled in place (the same element, the live region a screen
    reader knows; bench/bench_browser.py: 702 htmx events a keystroke when each slot was
    swapped whole), and htmx copies no snapshot of the page into sessionStorage on each
    answer (the address holds the design)."""
    page.goto(live_server.url + "/?preset=training")
    page.evaluate("document.getElementById('err-id_c-0-cpu_request').dataset.marker = 'kept'")
    field(page, "c-0-cpu_limit").fill("1")  # under the request: the API server refuses it
    slot = page.locator("#err-id_c-0-cpu_request")
    expect(slot).to_contain_text("must be less than or equal to cpu limit of 1")
    assert slot.evaluate("el => el.dataset.marker") == "kept"
    assert page.evaluate("sessionStorage.getItem('htmx-history-cache')") is None
    expect(slot).to_have_count(1)
    field(page, "c-0-cpu_limit").fill("16")
    expect(slot).to_be_empty()


def test_back_and_forward_to_the_designer_load_the_whole_page(live_server, page: Page) -> None:
    """Without a snapshot htmx asks the server for the address on back/forward; it gets the
    whole page (header, form and footer), not the part an htmx request would get."""
    page.goto(live_server.url + "/?preset=training")
    field(page, "c-0-memory_limit").fill("65Gi")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    settle(page)
    page.get_by_role("link", name="Analyze").click()
    expect(page).to_have_url(re.compile(r"/analyze$"))
    page.go_back()
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
    expect(field(page, "c-0-memory_limit")).to_have_value("65Gi")
    expect(page.locator("header.site-header")).to_have_count(1)
    expect(page.locator("footer.site-footer")).to_have_count(1)
    expect(page.locator("#designer")).to_have_count(1)


def test_a_refused_csrf_token_says_so_in_the_results_and_a_reload_goes_on(
    live_server, page: Page
) -> None:
    """The live updates are POSTs: when the CSRF cookie is gone (cleared while the page was
    open), the answer is not silently dropped — the results panel says why, and its link
    reloads the page as the address has it."""
    page.goto(live_server.url + "/?preset=training")
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    page.context.clear_cookies()
    field(page, "c-0-memory_limit").fill("65Gi")
    alert = page.locator("#results #csrf-expired")
    expect(alert).to_contain_text("The page expired")
    expect(field(page, "c-0-memory_limit")).to_have_value("65Gi")  # the form is kept
    page.get_by_role("link", name="Reload the page").click()
    expect(qos(page)).to_have_attribute("data-qos-class", "Guaranteed")
    field(page, "c-0-memory_limit").fill("65Gi")
    expect(qos(page)).to_have_attribute("data-qos-class", "Burstable")
