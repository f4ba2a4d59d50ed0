"""Load and soak: N users for D seconds on the realistic mix; throughput, latency, errors.

Starts its own server with the production configuration (gunicorn.conf.py) on a free port
and the database of DATABASE_URL (a fresh SQLite file when unset), so it can also watch the
server's memory and kill one worker mid-run (``--kill-worker-at 30``: SIGKILL to one worker;
gunicorn starts another). ``--url`` load-tests a server that is already running instead.

Each user is a browser session: it opens the designer, types (htmx live updates of the
results), downloads the YAML, shares the design, and analyzes a manifest and opens the
results, with think times of 0 (as fast as the server answers) by default.

    .venv/bin/python bench/load.py --users 50 --duration 60
    DATABASE_URL=postgres://... .venv/bin/python bench/load.py --kill-worker-at 30
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")

import django  # noqa: E402

django.setup()

from designer.forms import design_query  # noqa: E402
from designer.k8s.design import preset_design  # noqa: E402

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-%(n)d, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        resources:
          requests: {cpu: %(cpu)dm, memory: 256Mi}
          limits: {memory: 256Mi}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-%(n)d, namespace: ml}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: pytorch/pytorch
        resources:
          limits: {cpu: "8", memory: 64Gi, nvidia.com/gpu: 2}
"""
# What a session does, and how often (weights): typing dominates.
MIX = {
    "page": 10,  # GET / (the whole designer)
    "live": 55,  # GET /?... HX-Target: results (every keystroke, debounced)
    "download": 10,  # GET /export.yaml?...
    "share": 10,  # POST /share (htmx)
    "analyze": 10,  # POST /analyze (htmx), a two-workload manifest
    "results": 5,  # GET /analyze/r/<id>?qos=...
}
PRESETS = ["training", "distributed", "inference", "batch", "preprocessing"]


class Session:
    def __init__(self, host: str, port: int, rng: random.Random) -> None:
        self.host, self.port, self.rng = host, port, rng
        self.connection: http.client.HTTPConnection | None = None
        self.cookie = ""
        self.token = ""
        self.analysis = ""
        self.design = design_query(preset_design(rng.choice(PRESETS)))
        self.retries = 0

    def request(
        self, method: str, path: str, body: str | None = None, headers: dict | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        all_headers = {"Cookie": self.cookie, **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.connection.request(method, path, body=body, headers=all_headers)
                response = self.connection.getresponse()
                data = response.read()
                answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
                if answer[1].get("connection") == "close":
                    self.connection.close()
                    self.connection = None
                return answer
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed meanwhile (keep-alive timeout,
                # a killed worker): a browser retries an idempotent request once.
                self.connection.close()
                self.connection = None
                if attempt == 2 or method != "GET":
                    raise
                self.retries += 1
        raise AssertionError("unreachable")

    def page(self) -> int:
        status, headers, body = self.request("GET", "/?" + urlencode(self.design))
        cookie = headers.get("set-cookie", "")
        if "csrftoken=" in cookie:
            self.cookie = cookie.split(";")[0]
        match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
        if match:
            self.token = match.group(1).decode()
        return status

    def live(self) -> int:
        self.design["c-0-cpu_limit"] = str(self.rng.randint(1, 32))
        self.design["c-0-memory_limit"] = f"{self.rng.randint(1, 256)}Gi"
        headers = {"HX-Request": "true", "HX-Target": "results"}
        return self.request("GET", "/?" + urlencode(self.design), headers=headers)[0]

    def download(self) -> int:
        status = self.request("GET", "/export.yaml?" + urlencode(self.design))[0]
        return 200 if status == 409 else status  # 409: the random design has errors

    def share(self) -> int:
        if not self.token:
            self.page()
        headers = {"HX-Request": "true", "HX-Target": "share-link", "X-CSRFToken": self.token}
        return self.request("POST", "/share", urlencode(self.design), headers)[0]

    def analyze(self) -> int:
        if not self.token:
            self.page()
        text = MANIFEST % {"n": self.rng.randint(0, 10**6), "cpu": self.rng.randint(1, 4000)}
        headers = {"HX-Request": "true", "X-CSRFToken": self.token}
        status, answer, _ = self.request("POST", "/analyze", urlencode({"text": text}), headers)
        self.analysis = answer.get("hx-push-url", self.analysis)
        return status

    def results(self) -> int:
        if not self.analysis:
            return self.analyze()
        query = urlencode({"qos": self.rng.choice(["Guaranteed", "Burstable", ""])})
        return self.request("GET", f"{self.analysis}?{query}")[0]


def user(
    host: str, port: int, seed: int, until: float, think: float, results: dict, lock: threading.Lock
) -> None:
    rng = random.Random(seed)
    session = Session(host, port, rng)
    kinds, weights = list(MIX), list(MIX.values())
    while time.monotonic() < until:
        kind = rng.choices(kinds, weights)[0]
        started = time.monotonic()
        try:
            status = getattr(session, kind)()
            error = status >= 500 or status in (403, 404, 413)
        except (OSError, http.client.HTTPException) as exc:
            status, error = type(exc).__name__, True
            if session.connection is not None:
                session.connection.close()
                session.connection = None
        elapsed = time.monotonic() - started
        with lock:
            results[kind].append(elapsed)
            if error:
                results["errors"].append(f"{kind}: {status}")
        if think:
            time.sleep(rng.expovariate(1 / think))
    with lock:
        results["retries"].append(session.retries)


def server_processes(master: int) -> list[int]:
    children = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True
    ).stdout.split()
    return [master, *map(int, children)]


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def start_server(port: int, workdir: Path) -> subprocess.Popen:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'load.sqlite3'}")
    env.update(
        PORT=str(port),
        TMPDIR=str(workdir),
        DJANGO_SECRET_KEY="load-" + "k" * 40,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        GUNICORN_LOG_LEVEL="warning",
    )
    env.pop("DJANGO_DEBUG", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    log = (workdir / "gunicorn.log").open("wb")
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "-c", "gunicorn.conf.py"], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/livez")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit((workdir / "gunicorn.log").read_text()[-2000:])


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def report(results: dict, seconds: float, peak_rss: float | None, killed: int | None) -> None:
    everything = [t for kind in MIX for t in results[kind]]
    print(f"{len(everything):,} requests in {seconds:.0f} s: {len(everything) / seconds:.1f}/s")
    print(f"{'':10} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind in [*MIX, "all"]:
        values = everything if kind == "all" else results[kind]
        if not values:
            continue
        row = [statistics.median(values), percentile(values, 95), percentile(values, 99)]
        cells = " ".join(f"{v * 1000:8.0f}" for v in [*row, max(values)])
        print(f"{kind:10} {len(values):7,} {cells}")
    errors = results["errors"]
    print(f"errors: {len(errors)}" + (f" ({', '.join(sorted(set(errors))[:8])})" if errors else ""))
    retried = sum(results["retries"])
    print(f"GETs retried once on a connection the server closed (as browsers do): {retried}")
    if peak_rss is not None:
        print(f"server memory (master + workers, RSS): peak {peak_rss:.0f} MB")
    if killed:
        print(f"killed worker {killed} with SIGKILL mid-run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--think", type=float, default=0.0, help="mean think time, seconds")
    parser.add_argument("--url", help="an already running server (no memory, no kill)")
    parser.add_argument("--kill-worker-at", type=float, help="seconds into the run")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="designer-load-"))
    process = None
    if args.url:
        parts = urlsplit(args.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
    else:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        host = "127.0.0.1"
        process = start_server(port, workdir)
    database = os.environ.get("DATABASE_URL", "sqlite (a fresh file)").split("@")[-1]
    print(f"{args.users} users, {args.duration:.0f} s, database {database}")

    results: dict[str, list] = defaultdict(list)
    lock = threading.Lock()
    started = time.monotonic()
    until = started + args.duration
    threads = [
        threading.Thread(
            target=user, args=(host, port, seed, until, args.think, results, lock), daemon=True
        )
        for seed in range(args.users)
    ]
    for thread in threads:
        thread.start()
    peak, killed = 0.0, None
    try:
        while any(t.is_alive() for t in threads):
            now = time.monotonic() - started
            if process is not None:
                pids = server_processes(process.pid)
                peak = max(peak, rss_mb(pids))
                due = args.kill_worker_at is not None and now >= args.kill_worker_at
                if due and killed is None:
                    killed = pids[1] if len(pids) > 1 else None
                    if killed:
                        os.kill(killed, signal.SIGKILL)
            time.sleep(0.25)
        report(results, time.monotonic() - started, peak if process else None, killed)
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


if __name__ == "__main__":
    main()
