"""Benchmark: reading a whole-cluster ``kubectl get pods -A -o yaml`` dump.

Generates realistic ``List`` dumps of 5,000 and 10,000 pods in YAML (kubectl's
layout) and JSON (``-o json``: 4-space indent), then prints sizes and the best
of 7 timings (the contenders taking turns) of bare parses (PyYAML CSafeLoader,
yaml-rs, json, orjson) and of our pipeline (``read_documents`` +
``find_workloads``), with the ratio of our pipeline to the fastest bare parse
of the same text (the target: under 1.5x).  Timings are of the work itself,
with the garbage collector off (see ``race``).

    .venv/bin/python bench/bench_parse.py [--pods 5000 10000] [--runs 7] [--no-pyyaml]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402
import yaml  # noqa: E402
import yaml_rs  # noqa: E402

from designer.k8s.manifest import _needs_quotes, find_workloads, read_documents

_HEX = "0123456789abcdef"
# k8s.io/apimachinery/pkg/util/rand SafeEncodeString: no vowels, no 0/1/3.
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _hex(rnd: random.Random, n: int) -> str:
    return "".join(rnd.choice(_HEX) for _ in range(n))


def _uid(rnd: random.Random) -> str:
    return "-".join(_hex(rnd, n) for n in (8, 4, 4, 4, 12))


def _safe(rnd: random.Random, n: int) -> str:
    return "".join(rnd.choice(_SAFE_ALPHABET) for _ in range(n))


def make_pod(i: int, rnd: random.Random) -> dict[str, Any]:
    """One pod as ``kubectl get pods -A -o yaml`` shows it (managedFields hidden)."""
    app = f"app-{i % 211}"
    rs_hash = _safe(rnd, 10)
    name = f"{app}-{rs_hash}-{_safe(rnd, 5)}"
    ts = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}Z"
    cpu = rnd.choice(["100m", "250m", "500m", "1", "2"])
    memory = rnd.choice(["128Mi", "256Mi", "512Mi", "1Gi"])
    image = f"registry.example.com/team/{app}:v1.{i % 20}.{i % 7}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": ts,
            "generateName": f"{app}-{rs_hash}-",
            "labels": {"app": app, "pod-template-hash": rs_hash},
            "name": name,
            "namespace": f"ns-{i % 37}",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "ReplicaSet",
                    "name": f"{app}-{rs_hash}",
                    "uid": _uid(rnd),
                }
            ],
            "resourceVersion": str(1000000 + i * 13),
            "uid": _uid(rnd),
        },
        "spec": {
            "containers": [
                {
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "name": app,
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "resources": {
                        "limits": {"cpu": cpu, "memory": memory},
                        "requests": {"cpu": cpu, "memory": memory},
                    },
                }
            ],
            "nodeName": f"node-{i % 50}",
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
        },
        "status": {
            "containerStatuses": [
                {
                    "containerID": f"containerd://{_hex(rnd, 64)}",
                    "image": image,
                    "name": app,
                    "ready": True,
                    "restartCount": i % 3,
                    "started": True,
                    "state": {"running": {"startedAt": ts}},
                }
            ],
            "hostIP": f"10.0.{i % 50}.{i % 200 + 1}",
            "phase": "Running",
            "podIP": f"10.244.{i % 250}.{i % 251 + 1}",
            "qosClass": "Guaranteed",
            "startTime": ts,
        },
    }


def make_pod_list(n: int, seed: int = 1) -> dict[str, Any]:
    rnd = random.Random(seed)
    return {
        "apiVersion": "v1",
        "items": [make_pod(i, rnd) for i in range(n)],
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if _needs_quotes(value) or value[:1] in "-?:,[]{}#&*!|>'\"%@`":
        return json.dumps(value)
    return value


def _emit(value: Any, indent: str, out: list[str]) -> None:
    """kubectl's YAML layout for the simple values above (fast, for big dumps)."""
    if isinstance(value, dict):
        for key in sorted(value):
            item = value[key]
            if isinstance(item, dict) and item:
                out.append(f"{indent}{key}:\n")
                _emit(item, indent + "  ", out)
            elif isinstance(item, list) and item:
                out.append(f"{indent}{key}:\n")
                _emit(item, indent, out)
            else:
                out.append(f"{indent}{key}: {_inline(item)}\n")
    else:
        for item in value:
            if isinstance(item, dict) and item:
                lines: list[str] = []
                _emit(item, indent + "  ", lines)
                lines[0] = indent + "- " + lines[0][len(indent) + 2 :]
                out.extend(lines)
            else:
                out.append(f"{indent}- {_inline(item)}\n")


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def to_yaml(obj: dict[str, Any]) -> str:
    out: list[str] = []
    _emit(obj, "", out)
    return "".join(out)


def race(contenders: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Best time of each, the contenders taking turns so that load on a shared
    machine falls on all of them alike.

    The cyclic garbage collector is off while a contender runs: when it runs is
    chaotic with millions of new objects (a bare parse returns before the full
    collection its objects make due, which whatever allocates next then pays),
    so with it on the ratios swing by +-0.3.  Each run starts from a collected
    heap, and freeing the result is part of the cost, for everyone.
    """
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(runs):
        for name, fn in contenders.items():
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            result = fn()
            del result
            best[name] = min(best[name], time.perf_counter() - start)
            gc.enable()
    return best


def pipeline(text: str | bytes) -> object:
    scan = find_workloads(read_documents(text, max_bytes=1 << 30))
    workloads, errors = scan
    assert not errors and workloads, errors[:3]
    return scan


def _compare(fmt: str, bare: dict, ours: dict, runs: int) -> None:
    times = race({**bare, **ours}, runs)
    fastest = min(times[name] for name in bare)
    for name, seconds in times.items():
        ratio = f"  {seconds / fastest:.2f}x the fastest bare parse" if name in ours else ""
        print(f"  {fmt:5s} {name:30s} {seconds:7.3f} s{ratio}")


def bench_one(n: int, *, runs: int, pyyaml: bool) -> None:
    obj = make_pod_list(n)
    yaml_text = to_yaml(obj)
    json_text = json.dumps(obj, indent=4)
    yaml_bytes = yaml_text.encode()
    json_bytes = json_text.encode()
    assert read_documents(yaml_text, max_bytes=1 << 30)[0].data == obj  # same objects
    print(f"\n{n:,} pods: YAML {len(yaml_bytes) / 1e6:.1f} MB, JSON {len(json_bytes) / 1e6:.1f} MB")
    if pyyaml:
        seconds = race({"": lambda: yaml.load(yaml_text, Loader=yaml.CSafeLoader)}, 1)[""]
        print(f"  YAML  {'PyYAML CSafeLoader (1 run)':30s} {seconds:7.3f} s")
    _compare(
        "YAML",
        {"yaml-rs loads(str)": lambda: yaml_rs.loads(yaml_text, parse_datetime=False)},
        {
            "ours, str input": lambda: pipeline(yaml_text),
            "ours, bytes input": lambda: pipeline(yaml_bytes),
        },
        runs,
    )
    _compare(
        "JSON",
        {
            "orjson loads(bytes)": lambda: orjson.loads(json_bytes),
            "json loads(str)": lambda: json.loads(json_text),
        },
        {"ours, bytes input": lambda: pipeline(json_bytes)},
        runs,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--pods", type=int, nargs="+", default=[5000, 10000])
    parser.add_argument("--runs", type=int, default=7, help="best of this many runs")
    parser.add_argument("--no-pyyaml", action="store_true", help="skip the slow PyYAML parse")
    args = parser.parse_args()
    for n in args.pods:
        bench_one(n, runs=args.runs, pyyaml=not args.no_pyyaml)


if __name__ == "__main__":
    main()
