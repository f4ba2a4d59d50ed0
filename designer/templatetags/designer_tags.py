"""The designer's message slots: one ``<div class="messages">`` per form field (and per pod and
container) that htmx updates out of band on every live answer. Built here in one place, as the
field rows and the live answers both need it many times per page."""

from __future__ import annotations

import functools
from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, ngettext, pgettext

from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS

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
    """One slot with its messages; ``oob``: its messages swapped out of band into the page's
    slot by htmx. innerHTML, not the element: the slot stays (its attributes never change),
    a screen reader hears the change in the live region it already knows, and htmx 2.0's
    out-of-band swaps fire an event per element swapped so far in the answer, for each swap
    (quadratic: 36 whole slots cost 702 events and ~20 ms a keystroke; empty slots now none)."""
    body = format_html_join("", "{}", ((_message(m),) for m in messages))
    swap = ' hx-swap-oob="innerHTML"' if oob else ""
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


# --- issue 16: the parts a live answer refreshes besides the slots --------------------------
# Built here rather than in included templates: every live answer renders them, and an
# include costs more than the whole of its HTML (bench/bench_live.py).


def _swap(oob: bool) -> SafeString:
    return SafeString(' hx-swap-oob="true"' if oob else "")


@register.simple_tag
def live_status(results: Any, error_count: int, oob: bool = False) -> SafeString:
    """A compact QoS class and error count, sticky on narrow screens while typing (app.css);
    app.js reads ``data-announce`` into the polite live region when it changes."""
    report = results.report if results else None
    invalid = results is None or results.form_invalid
    qos = None if invalid or report is None else report.qos_class
    shown = qos or gettext("unknown")
    if invalid:
        announce = gettext("The form has errors")
    else:
        announce = ngettext(
            "QoS class %(qos)s, %(n)s error", "QoS class %(qos)s, %(n)s errors", error_count
        ) % {"qos": shown, "n": error_count}
    errors = ngettext("%(n)s error", "%(n)s errors", error_count) % {"n": error_count}
    return format_html(
        '<div id="live-status" class="live-status qos-{}"{} data-announce="{}">'
        '<span class="live-qos">{} <strong>{}</strong></span>'
        '<span class="live-errors{}">{}</span>'
        '<a href="#results" class="live-jump">{} ↓</a></div>',
        (qos or "unknown").lower(),
        _swap(oob),
        announce,
        gettext("QoS class:"),
        shown,
        " status-bad" if error_count else "",
        errors,
        gettext("Results"),
    )


@register.simple_tag
def size_select(choices: Any, value: str, oob: bool = False) -> SafeString:
    """The size preset select. A live answer swaps it: it says "Custom" once the sized fields
    were edited. ``was`` tells the server what it showed, so choosing it again changes
    nothing."""
    return _size_select(tuple(choices), value, oob, get_language())


@functools.lru_cache(maxsize=64)
def _size_select(choices: tuple[Any, ...], value: str, oob: bool, language: str) -> SafeString:
    # Five options in a few languages: built once each (``language`` keys the cache).
    options = format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((v, SafeString(" selected") if v == value else "", label) for v, label in choices),
    )
    return format_html(
        '<select name="size" id="id_size" data-untracked{} hx-post="{}" hx-trigger="change" '
        'hx-target="#designer" hx-vals=\'{{"action": "preset", "changed": "size", '
        '"was": "{}"}}\'>{}</select>',
        _swap(oob),
        reverse("index"),
        value,
        options,
    )


ROLE_TITLES = {"sidecar": "Native sidecar", "init": "Init container", "app": "App container"}


@register.simple_tag
def container_legend(legend: dict[str, Any], oob: bool = False) -> SafeString:
    """A container fieldset's heading: its kind, its name and its field path."""
    title = gettext(ROLE_TITLES.get(legend["role"], "App container"))
    return format_html(
        '<legend id="legend-c-{}"{}>{} “{}” <code>{}</code></legend>',
        legend["index"],
        _swap(oob),
        title,
        legend["name"],
        legend["path"],
    )


@register.simple_tag
def kubernetes_versions() -> dict[str, str]:
    """The release answers default to and the range a user can choose from."""
    return {
        "default": DEFAULT_VERSION,
        "first": SUPPORTED_VERSIONS[0],
        "last": SUPPORTED_VERSIONS[-1],
    }


# Digits past which a whole number is shown by its first and last digits and its length (a
# GPU limit of thousands of digits is a valid quantity: written out, it made the Analyze
# page 72,000 px wide). The full number stays in the element's title.
LONG_NUMBER_DIGITS = 24


@register.filter
def long_number(value: Any) -> Any:
    """``value`` as is, or, for a run of more than LONG_NUMBER_DIGITS digits, its first and
    last digits and how many there are, the whole number in the title."""
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if len(text) <= LONG_NUMBER_DIGITS or not text.isascii() or not text.isdigit():
        return value
    count = len(text)
    digits = ngettext("%(count)s digit", "%(count)s digits", count) % {"count": f"{count:,}"}
    return format_html(
        '<span class="long-number" title="{}">{}…{} ({})</span>',
        text,
        text[:6],
        text[-3:],
        digits,
    )
