"""Hints for quantities people commonly mistype: what they meant, in Kubernetes syntax.

The API server only says a value does not match its regular expression, or (for memory
``128m``) that it is a fractional byte; users need the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from designer.k8s.core import Message, gettext_noop
from designer.k8s.design.convert import command_argv
from designer.k8s.design.model import Design
from designer.k8s.gpu import gpu_count_problem

# "8GB", "8 Gi", "512mb", "1.5gib"
UNIT_TYPO = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*([kKmMgGtTpPeE])(i?)[bB]?\s*$")
DECIMAL = {"k": "k", "m": "M", "g": "G", "t": "T", "p": "P", "e": "E"}
BINARY = {"k": "Ki", "m": "Mi", "g": "Gi", "t": "Ti", "p": "Pi", "e": "Ei"}


def quantity_hint(resource: str, text: Any) -> Message | None:
    """A sentence suggesting the intended quantity, or None.

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
        return Message(
            gettext_noop("CPU is counted in cores: did you mean %(cores)s or %(milli)s?"),
            {"cores": number, "milli": f"{number}m" if "." not in number else number},
        )
    if unit == "m" and not binary and spelled == f"{number}m":
        if resource != "memory" and resource != "ephemeral-storage":
            return None
        # "128m" is 0.128 bytes: valid syntax, almost never what was meant.
        return Message(
            gettext_noop("“%(value)s” means milli-bytes: did you mean %(binary)s or %(decimal)s?"),
            {"value": spelled, "binary": f"{number}Mi", "decimal": f"{number}M"},
        )
    decimal, binary_unit = f"{number}{DECIMAL[letter]}", f"{number}{BINARY[letter]}"
    if spelled in (decimal, binary_unit):
        return None
    return Message(
        gettext_noop("Did you mean %(decimal)s or %(binary)s?"),
        {"decimal": decimal, "binary": binary_unit},
    )


@dataclass(frozen=True)
class FieldHint:
    """Help shown beside one field of a design container: what the user probably meant."""

    container: int  # index in Design.containers
    field: str  # a ContainerDesign field, e.g. "memory_limit"
    message: Message
    level: str = "hint"  # "hint", or "error" when the value cannot be used as typed


UNCLOSED_QUOTE = gettext_noop(
    "A quote in the command is not closed, so the command cannot be split into arguments "
    "and is left out of the pod; close the quote (the command runs without a shell)."
)

HINTED_FIELDS = (
    ("cpu", ("cpu_request", "cpu_limit")),
    ("memory", ("memory_request", "memory_limit")),
    ("ephemeral-storage", ("ephemeral_request", "ephemeral_limit")),
)


def design_hints(design: Design) -> list[FieldHint]:
    """Mistyped quantities and impossible GPU counts, field by field."""
    hints: list[FieldHint] = []
    for i, container in enumerate(design.containers):
        if container.command.strip() and command_argv(container.command) is None:
            hints.append(FieldHint(i, "command", Message(UNCLOSED_QUOTE, {}), "error"))
        if container.gpus.strip():
            resource = container.gpu_resource.strip() or "nvidia.com/gpu"
            problem = gpu_count_problem(container.gpus, resource)
            if problem is not None:
                hints.append(FieldHint(i, "gpus", problem))
        for resource, names in HINTED_FIELDS:
            for name in names:
                hint = quantity_hint(resource, getattr(container, name))
                if hint is not None:
                    hints.append(FieldHint(i, name, hint))
    return hints
