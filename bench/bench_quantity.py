"""Benchmark: designer.k8s.quantity on hostile and everyday input.

Prints the best of N timings for parsing + printing values that are cheap to write
but expensive to compute naively (``1e999999999``, ``1e-999999999``, a 100,000-digit
number, million-character strings), for arithmetic and as_fraction on them, and the
throughput on everyday values.  With ``--kubectl`` it also times kubectl v1.32 on the
hostile values it can finish (Go builds 10**k on its inf.Dec path: ``1e-999999999``
would take it hours, so those are skipped).

    .venv/bin/python bench/bench_quantity.py [--runs 5] [--kubectl]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from designer.k8s.core import Quantity, go_parse_work

HOSTILE = {
    "1e999999999": "1e999999999",
    "1e-999999999": "1e-999999999",
    "1e2147483648 (int32 wrap)": "1e2147483648",
    "100,000 digits": "7" * 100_000,
    "1,000,000 digits": "7" * 1_000_000,
    "1,000,000 digits . Ki": "7" * 500_000 + "." + "3" * 499_997 + "Ki",
    "1,000,000 chars, bad at the end": "1" * 999_999 + "x",
    "1e + 1,000,000-digit exponent": "1e" + "9" * 1_000_000,
    "1e-0...03 (1,000,000 chars)": "1e-" + "0" * 999_996 + "3",
    "0.0...01 (1,000,000 chars)": "0." + "0" * 999_997 + "1",
}
EVERYDAY = ["100m", "0.5", "1.5Gi", "2048Mi", "1", "250m", "1e3", "512Mi", "1000m", "+1"]


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_and_print(text: str) -> str:
    try:
        return Quantity.parse(text).canonical()
    except ValueError as e:
        return f"error: {e}"


def attempt(fn: Callable[[], object]) -> str:
    try:
        result = fn()
    except (OverflowError, ValueError) as e:
        return f"{type(e).__name__}: {e}"[:60]
    if isinstance(result, Fraction):
        return f"Fraction of {result.numerator.bit_length():,} bits"
    return str(result)[:30]


def kubectl_seconds(text: str) -> str:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {}}}]},
    }
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = text
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(pod, f)
    cmd = ["kubectl", "set", "resources", "--local", "-f", f.name, "--requests=memory=1"]
    start = time.perf_counter()
    subprocess.run([*cmd, "-o", "json"], capture_output=True, check=False, timeout=120)
    Path(f.name).unlink()
    return f"{time.perf_counter() - start:8.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kubectl", action="store_true", help="also time kubectl")
    args = parser.parse_args()
    with_kubectl = args.kubectl and shutil.which("kubectl") is not None

    print(f"{'hostile input':36} {'parse+print':>12}  {'Go work':>11}  result")
    for label, text in HOSTILE.items():
        seconds = best(lambda text=text: parse_and_print(text), args.runs)
        try:
            work = f"{go_parse_work(text):11,}"
        except ValueError:
            work = f"{'-':>11}"
        line = f"{label:36} {seconds * 1000:9.3f} ms  {work}  {parse_and_print(text)[:40]}"
        if with_kubectl:
            slow = work.strip() != "-" and int(work.replace(",", "")) > 2_000_000
            line += "  kubectl " + ("skipped (minutes to hours)" if slow else kubectl_seconds(text))
        print(line)

    print()
    big, one = Quantity.parse("7" * 100_000), Quantity.parse("1")
    huge = Quantity.parse("1e999999")
    for label, fn in {
        "100,000 digits + 1": lambda: big + one,
        "100,000 digits as_fraction": big.as_fraction,
        "100,000 digits milli_value": lambda: attempt(big.milli_value),
        "1e999999 + 1 (a million-digit sum)": lambda: huge + one,
        "1e999999999 + 1": lambda: attempt(lambda: Quantity.parse("1e999999999") + one),
        "1e999999999 as_fraction": lambda: attempt(Quantity.parse("1e999999999").as_fraction),
        "1Gi + 1e999999 printed in BinarySI": lambda: (Quantity.parse("1Gi") + huge).canonical(),
    }.items():
        print(f"{label:36} {best(fn, args.runs) * 1000:9.3f} ms  {attempt(fn)}")

    print()
    n = 20_000
    seconds = best(lambda: [Quantity.parse(t).canonical() for t in EVERYDAY * (n // 10)], 3)
    print(f"everyday values: {n / seconds:,.0f} parse+print per second")
    seconds = best(lambda: [Quantity.from_json(t) for t in EVERYDAY * (n // 10)], 3)
    print(f"everyday values: {n / seconds:,.0f} from_json per second")


if __name__ == "__main__":
    main()
