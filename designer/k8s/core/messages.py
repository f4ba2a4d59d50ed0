"""Marking engine strings for translation without importing Django.

The engine speaks English (the CLI and JSON API print it as is). The web layer passes
the same template through Django's gettext and fills in the params, so the strings are
marked here with ``gettext_noop`` (a keyword ``makemessages`` extracts) and stored with
their params apart from the filled-in English: a ``Message``.
"""

from __future__ import annotations

import decimal
from typing import Any, NamedTuple

# Python refuses str() of an int past 4300 digits (sys.int_max_str_digits); a count read
# from a quantity of thousands of digits is written through decimal instead.
_LONG_INT_BITS = 13_000


def int_text(n: int) -> str:
    """str(n), also for an integer past str()'s 4300 digits."""
    return str(decimal.Decimal(n)) if n.bit_length() > _LONG_INT_BITS else str(n)


def param_value(value: Any) -> Any:
    """A param as a sentence (and JSON) shows it: an integer too long for str() as its
    digits, a nested Message as its text; anything else as it is."""
    if isinstance(value, Message):
        return value.text
    if type(value) is int and value.bit_length() > _LONG_INT_BITS:  # noqa: E721
        return int_text(value)
    return value


def gettext_noop(message: str) -> str:
    """Return ``message`` unchanged; marks it for extraction into the translation catalog."""
    return message


class Message(NamedTuple):
    """An English sentence kept as (template, params) so the web layer can translate it.

    Templates use ``%(name)s`` placeholders and write a literal percent sign as ``%%``. A
    param may itself be a ``Message`` (a sentence part such as 'container "main"'), which
    is rendered (and, on the web, translated) before it is filled in.
    """

    template: str
    params: dict[str, Any]

    @property
    def text(self) -> str:
        return self.template % {k: param_value(v) for k, v in self.params.items()}

    def as_dict(self) -> dict[str, Any]:
        params = {k: param_value(v) for k, v in self.params.items()}
        return {"template": self.template, "params": params, "text": self.text}


def plain(text: str) -> Message:
    """Text that is not translated (a field path, a value) as a Message."""
    return Message("%(text)s", {"text": text})


class MessageError(ValueError):
    """A ValueError whose text is a ``Message``: ``str(error)`` is the English, ``message``
    keeps (template, params) so the web layer can show it translated."""

    def __init__(self, template: str, params: dict[str, Any] | None = None) -> None:
        self.message = Message(template, params or {})
        super().__init__(self.message.text)
