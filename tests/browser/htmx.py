"""Waiting for htmx in browser tests."""

from __future__ import annotations

from playwright.sync_api import Page

# htmx is busy while a request is in flight and until the swapped content has settled
# (its triggers are attached then: a change before that sends nothing).
BUSY = (
    "document.querySelectorAll('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added').length"
)


def settle(page: Page) -> None:
    """Wait until htmx has no request in flight and the swapped content has settled (the
    designer re-renders on some changes). wait_for_function evaluates a string, which the
    page's CSP forbids: poll instead."""
    for _ in range(100):
        page.wait_for_timeout(50)
        if page.evaluate(BUSY) == 0:
            return
