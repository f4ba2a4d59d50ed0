"""Benchmark in a real browser: keystroke to new QoS class, first paint, page weight.

Starts gunicorn (the project's gunicorn.conf.py when there is one) on 127.0.0.1, opens the
designer in Debian's chromium through Playwright and, 50 times, types a new memory limit into
the main container's "Memory limit" field — alternately one that keeps the pod Guaranteed and
one that makes it Burstable — and measures, inside the page, the time from the input event to
the moment the results panel shows the new class. The page debounces typing (htmx
``delay:300ms``): the figures are printed with and without it.

Also prints the designer's first contentful paint (a fresh load) and the page weight: every
JS and CSS file the page loads, gzipped (the goal is under 25 KB).

    .venv/bin/python bench/bench_browser.py [--keystrokes 50]
"""

from __future__ import annotations

import argparse
import gzip
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import free_port, gunicorn, wait_for  # noqa: E402
from table import Row, render  # noqa: E402

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEBOUNCE_MS = 300

# Runs in the page: set the value, fire the input event htmx listens to, and resolve with the
# time until #results carries the expected class (the panel is swapped as a whole).
TYPE_AND_WAIT = """
async ([selector, value, expected]) => {
  const input = document.querySelector(selector);
  return await new Promise((resolve) => {
    const start = performance.now();
    const done = () => {
      const qos = document.querySelector("#results [data-qos-class]");
      if (qos && qos.dataset.qosClass === expected) {
        observer.disconnect();
        resolve(performance.now() - start);
      }
    };
    const observer = new MutationObserver(done);
    observer.observe(document.querySelector("#designer"), {childList: true, subtree: true});
    input.value = value;
    input.dispatchEvent(new Event("input", {bubbles: true}));
  });
}
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def page_weight(urls: list[str], static_root: Path) -> int:
    total = 0
    for url in urls:
        name = url.split("/static/", 1)[-1].split("?", 1)[0]
        path = static_root / name
        if path.exists():
            total += len(gzip.compress(path.read_bytes(), 9))
    return total


def run(argv: list[str] | None = None) -> list[Row]:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keystrokes", type=int, default=50)
    args = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
        }
        python = str(ROOT / ".venv/bin/python")
        subprocess.run(
            [python, "manage.py", "collectstatic", "--noinput"],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        server = gunicorn(port, env)
        try:
            wait_for(port)
            url = f"http://127.0.0.1:{port}/?workload=training"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                loaded: list[str] = []
                page.on(
                    "response",
                    lambda r: loaded.append(r.url) if r.url.endswith((".js", ".css")) else None,
                )
                page.goto(url)
                page.wait_for_load_state("networkidle")
                paint = page.evaluate(
                    "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
                )
                weight = page_weight(loaded, ROOT / "staticfiles")
                selector = "#id_c-0-memory_limit"
                latencies = []
                for i in range(args.keystrokes):
                    # 64Gi equals the request (Guaranteed); anything else makes it Burstable.
                    value, expected = (
                        ("64Gi", "Guaranteed") if i % 2 else (f"{65 + i}Gi", "Burstable")
                    )
                    latencies.append(page.evaluate(TYPE_AND_WAIT, [selector, value, expected]))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    beyond = [t - DEBOUNCE_MS for t in latencies]
    n = len(latencies)
    return [
        Row(
            f"keystroke to QoS class in chromium, p50 of {n} (300 ms debounce included)",
            statistics.median(latencies),
            "ms",
        ),
        Row(
            f"keystroke to QoS class in chromium, p95 of {n} (300 ms debounce included)",
            percentile(latencies, 95),
            "ms",
        ),
        Row("keystroke to QoS class beyond the debounce, p50", statistics.median(beyond), "ms"),
        Row(
            "keystroke to QoS class beyond the debounce, p95",
            percentile(beyond, 95),
            "ms",
            goal="< 50 ms",
        ),
        Row("designer's first contentful paint (fresh load)", paint or 0, "ms"),
        Row("JS + CSS the designer loads, gzipped", weight / 1024, "KB", goal="< 25 KB"),
    ]


def main() -> None:
    print(render(run()))


if __name__ == "__main__":
    main()
