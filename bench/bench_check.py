"""Benchmark: ``podspec check`` and ``POST /api/v1/analyze`` on whole-cluster dumps.

Generates ``kubectl get pods -A -o yaml`` / ``-o json`` dumps (bench_parse's generator: every
pod has its own name, uid, generateName, pod-template-hash, image tag, node and status, as
real dumps do; resources drawn from a few sizes) and prints, best of N runs, side by side:

* the bare parse of the same text by the fastest parser (yaml-rs for YAML, orjson for JSON);
* ``check_texts`` in this process (what the API computes: read, find, check, report; one core);
* the ``podspec check --format json`` command with ``--jobs 1`` and ``--jobs N`` (the
  machine's cores), start-up excluded (a check of a one-pod file, run just before, is
  subtracted: the median over the runs), and its peak memory;
* ``POST /api/v1/analyze`` through Django's test client (no network; a dump's slices on
  ANALYZE_JOBS processes, default the CPUs this process may use; the API takes 20 MB, so a
  JSON dump over that is sent on one line, and compared with the bare parse of that line);

for the dump where every pod differs, then for one where the pods of each ReplicaSet share
their template and image (211 templates). Then the speed-up of ``--jobs N`` on 4 files of
10,000 pods, and a 100,000-pod dump checked in bounded memory (its peak beside the 10,000-pod
one's).

    .venv/bin/python bench/bench_check.py [--pods 10000] [--runs 3] [--big 100000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")

import django  # noqa: E402

django.setup()

import orjson  # noqa: E402
import yaml_rs  # noqa: E402
from bench_parse import make_pod_list, to_yaml  # noqa: E402
from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from table import Row, render  # noqa: E402

from designer.cpus import default_jobs  # noqa: E402
from designer.k8s.check import check_texts  # noqa: E402

API_LIMIT = 20 * 1024 * 1024


def replicated(pods: dict, templates: int) -> dict:
    """A dump as clusters have them: pods of one ReplicaSet share their template (resources
    and image), so ``templates`` distinct pod templates among all the pods."""
    for i, pod in enumerate(pods["items"]):
        app = i % templates
        container = pod["spec"]["containers"][0]
        size = (
            ["100m", "250m", "500m", "1", "2"][app % 5],
            ["128Mi", "256Mi", "512Mi", "1Gi"][app % 4],
        )
        container["resources"] = {
            "limits": {"cpu": size[0], "memory": size[1]},
            "requests": {"cpu": size[0], "memory": size[1]},
        }
        pod_hash = f"{app:05d}hash"
        pod["metadata"]["labels"] = {"app": f"app-{app}", "pod-template-hash": pod_hash}
        pod["metadata"]["generateName"] = f"app-{app}-{pod_hash}-"
        pod["metadata"]["namespace"] = f"ns-{app % 37}"
        container["image"] = f"registry.example.com/team/app-{app}:v1.{app % 20}"
        container["name"] = f"app-{app}"
        pod["status"]["containerStatuses"][0]["image"] = container["image"]
        pod["status"]["containerStatuses"][0]["name"] = container["name"]
    return pods


def best(fn: Callable[[], object], runs: int) -> float:
    """Best of ``runs``, each with the cyclic GC paused (check_texts pauses it itself; the
    bare parses get the same treatment so the ratio compares like with like)."""
    times = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


# The command is started by a bare Python that forks and execs it and prints its peak RSS:
# a child keeps the peak of the process it was forked from (this one holds the dumps, some
# hundreds of MB), so waiting on the command from here would report this process's size.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_pid, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def cli(paths: list[Path], jobs: int) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of the command's own process; its --jobs workers are
    forks that each hold one slice)."""
    command = [sys.executable, str(ROOT / "manage.py"), "podspec", "check", "--format", "json"]
    command += ["--jobs", str(jobs), *map(str, paths)]
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, *command], stdout=subprocess.PIPE, text=True
    )
    wall = time.perf_counter() - start
    return wall, int(run.stdout.split()[-1]) / 1024


def best_cli(paths: list[Path], jobs: int, runs: int) -> tuple[float, float]:
    results = [cli(paths, jobs) for _ in range(runs)]
    return min(t for t, _ in results), max(m for _, m in results)


def cli_work(paths: list[Path], one: Path, jobs: int, runs: int) -> tuple[float, float]:
    """(the command's time on ``paths`` less its start-up, the start-up): each run checks the
    one-pod file and then ``paths``, the median of the differences (the start-up, ~0.7 s,
    swings by a tenth of a second from run to run on this machine: the best of each taken
    apart once printed a check faster than the bare parse)."""
    pairs = [(cli([one], jobs)[0], cli(paths, jobs)[0]) for _ in range(max(runs, 5))]
    return (
        max(statistics.median(dump - start for start, dump in pairs), 0.0),
        statistics.median(start for start, _dump in pairs),
    )


def api(client: Client, text: str, content_type: str) -> None:
    response = client.post("/api/v1/analyze", data=text, content_type=content_type)
    assert response.status_code == 200, response.content[:200]


def texts(pods: dict) -> dict[str, str]:
    """The dump as kubectl prints it: ``-o yaml`` and ``-o json`` (4-space indent)."""
    return {"YAML": to_yaml(pods), "JSON": json.dumps(pods, indent=4)}


def dump_rows(pods: dict, shape: str, tmp: Path, args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    client = Client()
    jobs = default_jobs()
    one = write(tmp / "one.yaml", one_pod())
    for fmt, text in texts(pods).items():
        size = len(text.encode()) / 1e6
        what = f"{args.pods:,} pods, {shape}, {fmt} {size:.1f} MB"
        if fmt == "YAML":
            name, fastest = "yaml-rs", best(lambda t=text: yaml_rs.loads(t), args.runs)
        else:
            name, fastest = "orjson", best(lambda t=text: orjson.loads(t), args.runs)
        check = best(lambda t=text: check_texts([("bench", t)], max_bytes=1 << 30), args.runs)
        rows.append(Row(f"check_texts, {what}", check, "s", fastest, name, "<= 1.5"))
        path = write(tmp / f"dump.{fmt.lower()}", text)
        for n in sorted({1, jobs}):
            work, startup = cli_work([path], one, n, args.runs)
            rows.append(
                Row(
                    f"podspec check --jobs {n} (start-up {startup:.2f} s excluded), {what}",
                    work,
                    "s",
                    fastest,
                    name,
                    "<= 1.5",
                )
            )
        body, kind = text, f"application/{fmt.lower()}"
        note = ""
        reference = fastest
        if len(body.encode()) > API_LIMIT:
            body, note = json.dumps(pods), " (sent on one line: the API takes 20 MB)"
            # The bare parse of the text sent (a line parses faster than the indented text).
            reference = best(lambda b=body: orjson.loads(b), args.runs)
        served = best(lambda b=body, c=kind: api(client, b, c), args.runs)
        jobs_note = f" (ANALYZE_JOBS={settings.ANALYZE_JOBS or default_jobs()})"
        rows.append(
            Row(
                f"POST /api/v1/analyze{jobs_note}{note}, {what}",
                served,
                "s",
                reference,
                name,
                "<= 1.5",
            )
        )
    return rows


def one_pod() -> str:
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def run(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--big", type=int, default=100_000, help="pods of the bounded-memory dump (0: skip)"
    )
    args = parser.parse_args(argv)
    jobs = default_jobs()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        rows += dump_rows(make_pod_list(args.pods), "every pod different", tmp, args)
        repeated = replicated(make_pod_list(args.pods), 211)
        rows += dump_rows(repeated, "211 templates", tmp, args)

        # --jobs: 4 files of 10,000 different pods.
        files = [
            write(tmp / f"part{i}.yaml", to_yaml(make_pod_list(10_000, seed=i))) for i in range(4)
        ]
        one, _ = best_cli(files, 1, 1)
        many, _ = best_cli(files, jobs, 1)
        rows.append(Row("podspec check --jobs 1, 4 files x 10,000 pods", one, "s"))
        rows.append(
            Row(f"podspec check --jobs {jobs}, 4 files x 10,000 pods", many, "s", one, "--jobs 1")
        )

        # Bounded memory: peak RSS for 10,000 and for the big dump.
        small = write(tmp / "small.yaml", to_yaml(make_pod_list(10_000)))
        _, small_peak = cli([small], 1)
        rows.append(Row("peak memory, podspec check --jobs 1, 10,000 pods", small_peak, "MB"))
        if args.big:
            big = tmp / "big.yaml"
            with big.open("w") as out:
                for start in range(0, args.big, 10_000):
                    part = to_yaml(make_pod_list(min(10_000, args.big - start), seed=start))
                    # One List: the first part's head, every part's items, the last's tail.
                    head, _, rest = part.partition("items:\n")
                    items, _, tail = rest.rpartition("kind: List\n")
                    out.write((head + "items:\n" if start == 0 else "") + items)
                out.write("kind: List\n" + tail)
            mb = big.stat().st_size / 1e6
            wall, peak = cli([big], jobs)
            rows.append(
                Row(
                    f"podspec check --jobs {jobs}, {args.big:,} pods ({mb:.0f} MB YAML)",
                    wall,
                    "s",
                )
            )
            rows.append(
                Row(
                    f"peak memory, podspec check --jobs {jobs}, {args.big:,} pods",
                    peak,
                    "MB",
                    small_peak,
                    "10,000 pods",
                    "bounded",
                )
            )
    return rows


def main() -> None:
    print(render(run()))


if __name__ == "__main__":
    main()
