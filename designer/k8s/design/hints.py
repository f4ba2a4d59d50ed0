"""Hints for quantities people commonly mistype: what they meant, in Kubernetes syntax.

The API server only says a value does not match its regular expression, or (for memory
``128m``) that it is a fractional byte; users need the fix.
"""

from __future__ import annotations

import re
from typing import Any

from designer.k8s.core import gettext_noop

# "8GB", "8 Gi", "512mb", "1.5gib"
UNIT_TYPO = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*([kKmMgGtTpPeE])(i?)[bB]?\s*$")
DECIMAL = {"k": "k", "m": "M", "g": "G", "t": "T", "p": "P", "e": "E"}
BINARY = {"k": "Ki", "m": "Mi", "g": "Gi", "t": "Ti", "p": "Pi", "e": "Ei"}


def quantity_hint(resource: str, text: Any) -> tuple[str, dict[str, str]] | None:
    """A (message template, params) suggesting the intended quantity, or None.

    Only for values the user most likely meant as bytes or cores with a misspelt unit.
    """
    if not isinstance(text, str):
        return None
    match = UNIT_TYPO.match(text)
    if not match:
        return None
    number, unit, binary = match.groups()
    letter = unit.lower()
    spelled = text.strip()
    if resource == "cpu":
        # "500m" is fine for CPU; "2G" is not a CPU amount anyone means.
        if letter == "m" and unit == "m" and not binary and spelled.endswith("m"):
            return None
        return (
            gettext_noop("CPU is counted in cores: did you mean %(cores)s or %(milli)s?"),
            {"cores": number, "milli": f"{number}m" if "." not in number else number},
        )
    if unit == "m" and not binary and spelled == f"{number}m":
        if resource != "memory" and resource != "ephemeral-storage":
            return None
        # "128m" is 0.128 bytes: valid syntax, almost never what was meant.
        return (
            gettext_noop("“%(value)s” means milli-bytes: did you mean %(binary)s or %(decimal)s?"),
            {"value": spelled, "binary": f"{number}Mi", "decimal": f"{number}M"},
        )
    decimal, binary_unit = f"{number}{DECIMAL[letter]}", f"{number}{BINARY[letter]}"
    if spelled in (decimal, binary_unit):
        return None
    return (
        gettext_noop("Did you mean %(decimal)s or %(binary)s?"),
        {"decimal": decimal, "binary": binary_unit},
    )
