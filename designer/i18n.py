"""Engine messages in the page's language.

The engine (``designer.k8s``) speaks English and keeps each sentence as a ``Message``: a
template marked with ``gettext_noop`` and its params. The pages translate the template with
Django's gettext and fill in the params; a param that is itself a Message (a sentence part
such as 'container "main" (spec.containers[0])') is translated in turn. The CLI and the JSON
API print the English ``Message.text``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from designer.k8s.core import Message, param_value


def _param(value: Any) -> Any:
    """A param as the page shows it: a Message (a sentence part, such as a device plugin's
    name or 'container "main" (spec.containers[0])') is translated in turn; any other
    value (a quantity, a field path, a resource name) is shown exactly as the engine gives it."""
    if isinstance(value, Message):
        return translate(value)
    return param_value(value)


def translate_template(template: str, params: dict[str, Any] | None = None) -> str:
    """``template`` translated, then filled with ``params`` (always %-formatted: write a
    literal percent sign as ``%%``)."""
    if not template:
        return ""
    return gettext(template) % {k: _param(v) for k, v in (params or {}).items()}


def translate(message: Message | tuple[str, dict[str, Any]]) -> str:
    """A Message (or a (template, params) pair) in the active language."""
    template, params = message
    return translate_template(template, params)


def message_data(message: Message) -> dict[str, Any]:
    """A Message as JSON-ready data (kept in stored analyses), nested Messages included."""
    return {
        "template": message.template,
        "params": {
            k: message_data(v) if isinstance(v, Message) else param_value(v)
            for k, v in message.params.items()
        },
    }


def message_from_data(data: Any) -> Message | None:
    """The inverse of ``message_data``; None when ``data`` is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("template"), str):
        return None
    params = data.get("params")
    if not isinstance(params, dict):
        return None
    return Message(
        data["template"],
        {k: (message_from_data(v) or v) if isinstance(v, dict) else v for k, v in params.items()},
    )
