"""``make bench``: every benchmark, one table (figure, ours, reference, ratio, goal), with
the date and the machine, and the test suite's time.

    .venv/bin/python bench/all.py [--quick] [--no-suite]

``--quick``: fewer pods and seconds (a smoke run, not figures to quote).
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_browser  # noqa: E402
import bench_check  # noqa: E402
import bench_live  # noqa: E402
from table import Row, machine, render  # noqa: E402


def suite() -> list[Row]:
    """The whole test suite's wall time, as `make test` runs it (lint excluded)."""
    start = time.perf_counter()
    run = subprocess.run(
        [str(ROOT / ".venv/bin/pytest"), "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ, "DJANGO_ALLOW_ASYNC_UNSAFE": "true"},
    )
    if run.returncode != 0:
        # The failures, not only the exit status: the table is not printed without the suite.
        sys.stdout.write(run.stdout[-20_000:])
        raise SystemExit(f"the test suite failed (exit status {run.returncode})")
    return [
        Row(
            "the whole test suite (pytest, browser and kubectl tests included)",
            time.perf_counter() - start,
            "s",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-suite", action="store_true")
    args = parser.parse_args()
    check = ["--pods", "2000", "--runs", "1", "--big", "20000"] if args.quick else []
    live = ["--rounds", "3"] if args.quick else []
    browser = ["--keystrokes", "10"] if args.quick else []
    rows = bench_check.run(check) + bench_live.run(live) + bench_browser.run(browser)
    if not args.no_suite:
        rows += suite()
    print(f"{datetime.date.today().isoformat()}, {machine()}")
    print(render(rows))


if __name__ == "__main__":
    main()
