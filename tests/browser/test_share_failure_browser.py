"""What only a browser shows: htmx swaps no 5xx by itself, so a Share the database refuses
must still say so beside the button (static/app.js swaps answers marked X-Swap-Error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def share_table_refuses_writes():
    """Every insert into the share table fails in the database itself, for every connection
    (the live server's thread has its own), as a full disk would fail it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TRIGGER refuse_shares BEFORE INSERT ON designer_shareddesign "
            "BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
        )
    yield
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER refuse_shares")


@pytest.mark.parametrize("width,name", [(1280, "desktop"), (390, "phone")])
def test_a_refused_share_says_so_beside_the_button_and_keeps_the_design(
    live_server, page: Page, share_table_refuses_writes, width: int, name: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/?preset=inference")
    address = page.url
    page.get_by_role("button", name="Share link").click()
    message = page.locator("#share-link [role=alert]")
    expect(message).to_contain_text("The share link could not be saved")
    expect(message).to_contain_text("in this page’s address")
    assert page.url == address or "c-0-" in page.url
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    ARTIFACTS.mkdir(exist_ok=True)
    message.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / f"share-refused-{name}.png")
