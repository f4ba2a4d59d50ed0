"""One table for every benchmark: figure, ours, reference, ratio (ours / reference), goal.

Each bench script's ``run(argv) -> list[Row]`` measures; its ``main`` prints the rows;
bench/all.py (``make bench``) runs them all and prints one table.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Row:
    figure: str
    ours: float
    unit: str = "s"
    reference: float | None = None
    reference_name: str = ""
    goal: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference in (None, 0):
            return None
        return self.ours / self.reference  # type: ignore[operator]


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "ms":
        return f"{value:.0f} ms"
    if unit == "MB":
        return f"{value:,.0f} MB"
    if unit == "KB":
        return f"{value:.1f} KB"
    if unit == "req/s":
        return f"{value:,.0f} req/s"
    return f"{value:.2f}{unit}"


def render(rows: list[Row]) -> str:
    header = ("figure", "ours", "reference", "ratio", "goal")
    table = [header]
    for r in rows:
        ref = _value(r.reference, r.unit)
        if r.reference_name:
            ref = f"{ref} ({r.reference_name})" if ref else r.reference_name
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        table.append((r.figure, _value(r.ours, r.unit), ref, ratio, r.goal))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = []
    for n, row in enumerate(table):
        lines.append(" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def machine() -> str:
    cores = len(__import__("os").sched_getaffinity(0))
    return f"{platform.node()}: {cores} cores, Python {platform.python_version()}"


def dump(rows: list[Row]) -> str:
    return json.dumps([asdict(r) | {"ratio": r.ratio} for r in rows], indent=2)
