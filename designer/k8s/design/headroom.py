"""A memory limit from an observed peak: 20-30% headroom, /dev/shm included, rounded up.

Memory is not compressible: a container that crosses its limit is OOM-killed, so the limit
sits above the highest usage seen (a common rule of thumb: 20-30% over the observed peak).
Pages written to a memory-backed emptyDir (/dev/shm for PyTorch DataLoader workers and NCCL)
are charged to the memory cgroup of the container that writes them, so a full /dev/shm comes
on top of the process's own peak:

    limit = peak x (1 + headroom) + shm, rounded up to a clean value

Rounding (our choice): below 1Gi, up to a whole Mi; from 1Gi on, up to a multiple of 512Mi
(0.5Gi), which reads well (1536Mi = 1.5Gi, 2Gi, 2560Mi = 2.5Gi) and never adds more than
512Mi on top of the headroom. Results are canonical quantities, as the API server stores them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from designer.k8s.core import BINARY_SI, Message, Quantity, QuantityError, gettext_noop

__all__ = ["Headroom", "HeadroomError", "memory_headroom"]

MIB = 1024**2
GIB = 1024**3
HALF_GIB = GIB // 2
MAX_BYTES = 2**63 - 1  # the kubelet holds memory limits in an int64
_MAX_QUANTITY = Quantity.from_fraction(MAX_BYTES)
ADVISED = (Fraction(20, 100), Fraction(30, 100))

F_PEAK = gettext_noop("Observed peak")
F_SHM = gettext_noop("/dev/shm size")
F_LIMIT = gettext_noop("Limit")
E_NOT_QUANTITY = gettext_noop(
    "%(field)s %(value)s is not a Kubernetes quantity; write memory as 512Mi, 8Gi or 8G."
)
E_UNIT_HINT = gettext_noop(
    "%(field)s %(value)s is not a Kubernetes quantity: Kubernetes writes it as %(decimal)s "
    "(powers of 1000) or %(binary)s (powers of 1024)."
)
E_NEGATIVE = gettext_noop("%(field)s %(value)s must not be negative.")
E_ZERO = gettext_noop("%(field)s %(value)s must be more than zero.")
E_TOO_LARGE = gettext_noop("%(field)s %(value)s is too large for a memory limit.")
E_HEADROOM = gettext_noop(
    "Headroom %(value)s must be a fraction between 0 and 1, such as 0.25 for 25%%."
)

L_PEAK = gettext_noop("Observed peak %(peak)s plus %(percent)s%% headroom = %(with_headroom)s.")
L_SHM = gettext_noop(
    "Plus %(shm)s of memory-backed /dev/shm, whose pages are charged to the container's memory "
    "cgroup = %(total)s."
)
L_ROUND_MI = gettext_noop("Rounded up to a whole Mi: %(limit)s.")
L_ROUND_HALF_GI = gettext_noop("Rounded up to a multiple of 512Mi (0.5Gi): %(limit)s.")
L_OUTSIDE_ADVICE = gettext_noop(
    "%(percent)s%% headroom is outside the usual 20-30%%: below it a spike can OOM-kill the "
    "container, above it the node reserves memory nobody uses."
)

_UNIT_TYPO = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtTpPeE])i?[bB]\s*")


class HeadroomError(ValueError):
    """Bad input; ``str(e)`` names the value, ``message`` keeps (template, params)."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.text)
        self.message = message


@dataclass(frozen=True)
class Headroom:
    limit: str  # canonical, e.g. "1536Mi"
    limit_bytes: int
    peak: str  # canonical
    shm: str | None  # canonical
    headroom: Fraction
    unrounded: str  # peak x (1 + headroom) + shm, before rounding (whole bytes, rounded up)
    lines: tuple[Message, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "limitBytes": self.limit_bytes,
            "peak": self.peak,
            "shm": self.shm,
            "headroom": float(self.headroom),
            "unrounded": self.unrounded,
            "explanation": [line.text for line in self.lines],
            "explanationDetails": [line.as_dict() for line in self.lines],
        }


def _bytes_text(n: int | Fraction) -> str:
    return Quantity.from_fraction(Fraction(n), BINARY_SI).canonical()


def _approx_text(n: Fraction) -> str:
    """An intermediate amount for reading: exact when it is whole Mi (7680Mi), else rounded
    for the eye (15.62Gi) rather than a byte count."""
    if n.denominator == 1 and n % MIB == 0:
        return _bytes_text(n)
    if n >= GIB:
        return f"{float(n / GIB):.2f}Gi"
    return f"{float(n / MIB):.1f}Mi"


def _memory(value: object, field: str, *, allow_zero: bool) -> tuple[Quantity, Fraction]:
    shown = value if isinstance(value, str) else repr(value)
    params = {"field": Message(field, {}), "value": shown}
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise HeadroomError(Message(E_NOT_QUANTITY, params))
    try:
        q = Quantity.parse(str(value).strip())
    except QuantityError:
        typo = _UNIT_TYPO.fullmatch(value) if isinstance(value, str) else None
        if typo:  # 8GB, 8 GiB, 1.5gb: say how Kubernetes spells it
            number, letter = typo[1], typo[2].upper()
            decimal = number + ("k" if letter == "K" else letter)
            hint = {"decimal": decimal, "binary": f"{number}{letter}i"}
            raise HeadroomError(Message(E_UNIT_HINT, {**params, **hint})) from None
        raise HeadroomError(Message(E_NOT_QUANTITY, params)) from None
    if q.sign() < 0:
        raise HeadroomError(Message(E_NEGATIVE, params))
    if q.is_zero() and not allow_zero:
        raise HeadroomError(Message(E_ZERO, params))
    # Compared before as_fraction(), which would build a huge int for 1e999999 (or give up).
    if q > _MAX_QUANTITY:
        raise HeadroomError(Message(E_TOO_LARGE, params))
    return q, q.as_fraction()


def _headroom(value: object) -> Fraction:
    params = {"value": repr(value)}
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction | str):
        raise HeadroomError(Message(E_HEADROOM, params))
    try:
        # via str so 0.3 means 3/10, not the binary float nearest to it
        h = Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise HeadroomError(Message(E_HEADROOM, params)) from None
    if not 0 <= h <= 1:
        raise HeadroomError(Message(E_HEADROOM, params))
    return h


def _percent(h: Fraction) -> str:
    p = h * 100
    return str(p.numerator) if p.denominator == 1 else f"{float(p):g}"


def memory_headroom(
    observed_peak: str | int, headroom: float = 0.25, shm: str | int | None = None
) -> Headroom:
    """A memory limit for a container whose usage peaked at ``observed_peak``.

    ``headroom`` is the fraction added on top (0.25 = 25%); ``shm`` is the size of a
    memory-backed /dev/shm the container fills, added after the headroom. Raises HeadroomError
    (a ValueError) naming the value for anything that is not a positive memory quantity
    (``8GB``, ``-1Gi``) or a headroom outside 0..1.
    """
    peak_q, peak = _memory(observed_peak, F_PEAK, allow_zero=False)
    h = _headroom(headroom)
    shm_q, shm_bytes = (None, Fraction(0))
    if shm is not None:
        shm_q, shm_bytes = _memory(shm, F_SHM, allow_zero=True)

    with_headroom = peak * (1 + h)
    total = with_headroom + shm_bytes
    if total < GIB:
        limit = math.ceil(total / MIB) * MIB
        round_line = L_ROUND_MI
    else:
        limit = math.ceil(total / HALF_GIB) * HALF_GIB
        round_line = L_ROUND_HALF_GI
    if limit > MAX_BYTES:
        params = {"field": Message(F_LIMIT, {}), "value": _bytes_text(limit)}
        raise HeadroomError(Message(E_TOO_LARGE, params))

    percent = _percent(h)
    unrounded = _bytes_text(math.ceil(total))
    lines = [
        Message(
            L_PEAK,
            {
                "peak": peak_q.canonical(),
                "percent": percent,
                "with_headroom": _approx_text(with_headroom),
            },
        )
    ]
    if shm_q is not None and not shm_q.is_zero():
        lines.append(Message(L_SHM, {"shm": shm_q.canonical(), "total": unrounded}))
    lines.append(Message(round_line, {"limit": _bytes_text(limit)}))
    if not ADVISED[0] <= h <= ADVISED[1]:
        lines.append(Message(L_OUTSIDE_ADVICE, {"percent": percent}))

    return Headroom(
        limit=_bytes_text(limit),
        limit_bytes=limit,
        peak=peak_q.canonical(),
        shm=shm_q.canonical() if shm_q is not None else None,
        headroom=h,
        unrounded=unrounded,
        lines=tuple(lines),
    )
