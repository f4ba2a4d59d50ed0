"""Slow and idle clients against a running server: does anyone else still get served?

Opens ``--idle`` TCP connections that send nothing, ``--partial`` connections that send
half a request line and stall (slowloris), and ``--kept`` connections that make one request
and then sit on the kept-alive connection; then times ``--probes`` fresh ``GET /`` requests.

    .venv/bin/python bench/slow_clients.py --url http://127.0.0.1:8000/ --idle 50
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
import sys
import time
from urllib.parse import urlsplit


def open_idle(host: str, port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection((host, port), timeout=5) for _ in range(count)]


def open_partial(host: str, port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        socks.append(s)
    return socks


def open_kept(host: str, port: int, count: int) -> list[http.client.HTTPConnection]:
    conns = []
    for _ in range(count):
        c = http.client.HTTPConnection(host, port, timeout=10)
        c.request("GET", "/livez")
        c.getresponse().read()
        conns.append(c)
    return conns


def probe(host: str, port: int, path: str) -> float:
    started = time.perf_counter()
    c = http.client.HTTPConnection(host, port, timeout=60)
    c.request("GET", path)
    response = c.getresponse()
    response.read()
    c.close()
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status}")
    return time.perf_counter() - started


def measure(url: str, idle: int, partial: int, kept: int, probes: int) -> list[float]:
    parts = urlsplit(url)
    host, port, path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/"
    probe(host, port, path)  # warm up
    held = open_idle(host, port, idle) + open_partial(host, port, partial)
    keep = open_kept(host, port, kept)
    time.sleep(0.2)  # let the server accept them all
    try:
        return [probe(host, port, path) for _ in range(probes)]
    finally:
        for s in held:
            s.close()
        for c in keep:
            c.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/")
    parser.add_argument("--idle", type=int, default=50)
    parser.add_argument("--partial", type=int, default=0)
    parser.add_argument("--kept", type=int, default=0)
    parser.add_argument("--probes", type=int, default=10)
    args = parser.parse_args()
    times = measure(args.url, args.idle, args.partial, args.kept, args.probes)
    ms = sorted(t * 1000 for t in times)
    print(
        f"{args.idle} idle, {args.partial} partial, {args.kept} kept-alive connections: "
        f"GET {urlsplit(args.url).path or '/'} median {statistics.median(ms):.1f} ms, "
        f"max {ms[-1]:.1f} ms over {len(ms)} requests"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
