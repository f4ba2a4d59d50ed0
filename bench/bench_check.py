"""Benchmark: ``podspec check`` and ``POST /api/v1/analyze`` on a whole-cluster dump.

Generates a ``kubectl get pods -A -o yaml``-style List of 10,000 pods (the generator of
bench_parse.py) as YAML and as JSON, and prints, best of N runs:

- the bare parse of the same text by the fastest parser (yaml-rs for YAML, orjson for JSON)
  and by PyYAML's CSafeLoader;
- ``check_texts`` (what ``podspec check --format json`` computes: read, find, report);
- the ``podspec check --format json`` command end to end (a subprocess, Django start-up
  included);
- ``POST /api/v1/analyze`` through Django's test client (no network);

Pods of one ReplicaSet share their template, and the check reports each distinct template
once: by default the dump holds 211 templates (``--templates 0``: every pod different, the
worst case).

and the figure: check time / fastest bare parse (the target is under 1.5).

    .venv/bin/python bench/bench_check.py [--pods 10000] [--runs 3] [--no-pyyaml]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
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
import yaml  # noqa: E402
import yaml_rs  # noqa: E402
from bench_parse import make_pod_list, to_yaml  # noqa: E402
from django.test import Client  # noqa: E402

from designer.k8s.check import check_texts  # noqa: E402


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


def cli(path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "podspec",
            "check",
            "--format",
            "json",
            str(path),
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )


def api(client: Client, text: str, content_type: str) -> None:
    response = client.post("/api/v1/analyze", data=text, content_type=content_type)
    assert response.status_code == 200, response.content[:200]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pyyaml", action="store_true", help="skip the slow CSafeLoader")
    parser.add_argument(
        "--templates",
        type=int,
        default=211,
        help="distinct pod templates among the pods (default 211, as in bench_parse's apps); "
        "0 = every pod different (the worst case: nothing can be shared)",
    )
    args = parser.parse_args()

    pods = make_pod_list(args.pods)
    if args.templates:
        pods = replicated(pods, args.templates)
    texts = {"YAML": to_yaml(pods), "JSON": json.dumps(pods)}
    client = Client()
    shape = f"{args.templates} distinct pod templates" if args.templates else "all pods different"
    print(f"{args.pods:,} pods ({shape}), best of {args.runs} runs\n")
    for fmt, text in texts.items():
        size = len(text.encode())
        print(f"{fmt}: {size / 1e6:.1f} MB")
        if fmt == "YAML":
            fastest_name = "yaml-rs"
            fastest = best(lambda t=text: yaml_rs.loads(t), args.runs)
        else:
            fastest_name = "orjson"
            fastest = best(lambda t=text: orjson.loads(t), args.runs)
        print(f"  bare parse, {fastest_name:<18} {fastest:7.3f} s")
        if fmt == "YAML" and not args.no_pyyaml:
            csafe = best(lambda t=text: yaml.load(t, Loader=yaml.CSafeLoader), 1)
            print(f"  bare parse, PyYAML CSafeLoader   {csafe:7.3f} s")
        check = best(lambda t=text: check_texts([("bench", t)]), args.runs)
        print(f"  check_texts                      {check:7.3f} s   ratio {check / fastest:.2f}")
        with tempfile.NamedTemporaryFile("w", suffix=f".{fmt.lower()}") as handle:
            handle.write(text)
            handle.flush()
            command = best(lambda p=Path(handle.name): cli(p), 1)
        print(
            f"  podspec check (process)          {command:7.3f} s   ratio {command / fastest:.2f}"
        )
        content_type = "application/yaml" if fmt == "YAML" else "application/json"
        served = best(lambda t=text, c=content_type: api(client, t, c), 1)
        print(f"  POST /api/v1/analyze             {served:7.3f} s   ratio {served / fastest:.2f}")
        print()


if __name__ == "__main__":
    main()
