"""Marking engine strings for translation without importing Django.

The engine speaks English (the CLI and JSON API print it as is). The web layer passes
the same template through Django's gettext and fills in the params, so the strings are
marked here with ``gettext_noop`` (a keyword ``makemessages`` extracts) and stored with
their params apart from the filled-in English: a ``Message``.
"""

from __future__ import annotations

from typing import Any, NamedTuple


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
        return self.template % {
            k: v.text if isinstance(v, Message) else v for k, v in self.params.items()
        }

    def as_dict(self) -> dict[str, Any]:
        params = {k: v.text if isinstance(v, Message) else v for k, v in self.params.items()}
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
