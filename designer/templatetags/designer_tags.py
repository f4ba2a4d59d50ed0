"""The designer's message slots: one ``<div class="messages">`` per form field (and per pod and
container) that htmx updates out of band on every live answer. Built here in one place, as the
field rows and the live answers both need it many times per page."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, pgettext

register = template.Library()


@register.filter
def slot(results: Any, slot_id: str) -> list:
    """Messages for one error slot (``err-<input id>``) of the designer."""
    return results.slots.get(f"err-{slot_id}", []) if results else []


@register.filter
def container_slot(results: Any, index: int) -> list:
    return results.slots.get(f"err-c-{index}", []) if results else []


def _kind(message: Any) -> str:
    if message.api:
        if message.level == "error":
            return pgettext("the API server refuses the pod", "Error:")
        return pgettext("Kubernetes warns (the API server or a controller)", "Warning:")
    if message.level == "error":
        return gettext("Error:")
    if message.level == "warning":
        return gettext("Warning:")
    return gettext("Hint:")


def _message(message: Any) -> SafeString:
    # The API server's own text stays English (as kubectl prints it): say so to the browser.
    text = format_html('<span lang="en">{}</span>', message.text) if message.api else message.text
    return format_html(
        '<p class="msg msg-{}"><span class="msg-kind">{}</span> {}</p>',
        message.level,
        _kind(message),
        text,
    )


@register.simple_tag
def field_input(field: Any) -> SafeString:
    """A form field's input, described by its help text and its message slot (so a screen
    reader reads the field's errors and hints with it, as the live answers change them)."""
    ids = [f"help-{field.auto_id}"] if field.help_text else []
    ids.append(f"err-{field.auto_id}")
    return field.as_widget(attrs={"aria-describedby": " ".join(ids)})


@register.simple_tag
def messages_slot(slot_id: str, messages: list, oob: bool = False) -> SafeString:
    """One slot with its messages; ``oob``: swapped out of band into the page by htmx."""
    body = format_html_join("", "{}", ((_message(m),) for m in messages))
    swap = ' hx-swap-oob="true"' if oob else ""
    return format_html(
        '<div class="messages" id="{}"{} aria-live="polite">{}</div>',
        slot_id,
        SafeString(swap),
        body,
    )


@register.simple_tag
def messages_slots(slots: list[dict[str, Any]]) -> SafeString:
    """Every slot of the page, out of band: a live answer refreshes (or clears) each of them."""
    return format_html_join(
        "", "{}", ((messages_slot(s["id"], s["messages"], True),) for s in slots)
    )
