"""Marking engine strings for translation without importing Django.

The engine speaks English (the CLI and JSON API print it as is). The web layer passes
the same template through Django's gettext and fills in the params, so the strings are
marked here with ``gettext_noop`` (a keyword ``makemessages`` extracts) and stored with
their params apart from the filled-in English.
"""

from __future__ import annotations


def gettext_noop(message: str) -> str:
    """Return ``message`` unchanged; marks it for extraction into the translation catalog."""
    return message
