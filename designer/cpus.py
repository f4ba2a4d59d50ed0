"""The CPUs this process may use, and the ones the web's requests share.

``podspec check --jobs`` and ``ANALYZE_JOBS`` default to :func:`default_jobs`: the cores the
process may run on, at most its cgroup's CPU limit (in a pod limited to 2 CPUs on a 64-core
node, 2). The server's workers share :func:`tokens`, one per CPU, created in gunicorn's
master before it forks them (gunicorn.conf.py): a request that would check a dump on
several processes takes the tokens it can get without waiting and forks that many (one
or none: it checks in its own process), so two large requests at once do not run four
processes on two CPUs and parse a dump twice for nothing (measured: 1.43 s each instead
of 0.9 s, 928 MB instead of 688 MB for two 20 MB one-line JSON dumps).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def default_jobs() -> int:
    """The CPUs this process may use: the cores it may run on, at most its cgroup's CPU
    limit rounded up (a container with ``limits: {cpu: 2}`` on a 64-core node: 2, not 64)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    return max(1, min(cores, math.ceil(limit))) if limit is not None else cores


def cgroup_cpu_limit(
    proc: Path = Path("/proc/self/cgroup"), root: Path = Path("/sys/fs/cgroup")
) -> float | None:
    """The CPU limit (quota over period) of this process's cgroup and of those above it,
    the lowest one, or None without one: cgroup v2's ``cpu.max`` ("max 100000": none), v1's
    ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` (-1: none). Read by hand: Python reads
    the affinity alone (os.process_cpu_count) and no maintained library reads the quota;
    Go's runtime (1.25) and the JVM read these same files."""
    try:
        lines = proc.read_text().splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        _id, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if controllers == "":  # v2
            dirs = [root]
            version = 2
        elif "cpu" in controllers.split(","):
            dirs = [root / controllers, root / "cpu", root / "cpu,cpuacct"]
            version = 1
        else:
            continue
        for base in dict.fromkeys(dirs):
            limits += _limits_above(base, path, version)
    return min(limits) if limits else None


def _limits_above(base: Path, path: str, version: int) -> list[float]:
    """The limits of cgroup ``path`` under ``base`` and of its parents (inside a container
    the path is often "/" and ``base`` is the container's own cgroup)."""
    found: list[float] = []
    parts = [p for p in path.split("/") if p]
    for depth in range(len(parts), -1, -1):
        directory = base.joinpath(*parts[:depth])
        try:
            if version == 2:
                quota, _, period = (directory / "cpu.max").read_text().partition(" ")
                if quota.strip() != "max":
                    found.append(int(quota) / int(period))
            else:
                quota = (directory / "cpu.cfs_quota_us").read_text()
                if int(quota) > 0:
                    found.append(int(quota) / int((directory / "cpu.cfs_period_us").read_text()))
        except (OSError, ValueError, ZeroDivisionError):
            continue
    return found


class CpuTokens:
    """``count`` tokens shared by the processes forked after their creation (a POSIX
    semaphore: multiprocessing's), taken without waiting."""

    def __init__(self, count: int) -> None:
        self.count = max(1, count)
        try:
            self._semaphore: Any = multiprocessing.get_context("fork").BoundedSemaphore(self.count)
        except (OSError, ImportError):  # no /dev/shm: this process's threads share them
            self._semaphore = threading.BoundedSemaphore(self.count)

    @contextmanager
    def take(self, wanted: int) -> Iterator[int]:
        """At most ``wanted`` tokens, as many as are free now; yields the processes to use
        (the tokens taken, at least 1: a request without one still runs, in its own
        process) and gives the tokens back at the end."""
        taken = 0
        try:
            while taken < wanted and self._semaphore.acquire(False):
                taken += 1
            yield max(1, taken)
        finally:
            for _ in range(taken):
                self._semaphore.release()


_TOKENS: CpuTokens | None = None
_TOKENS_LOCK = threading.Lock()


def tokens() -> CpuTokens:
    """This server's tokens, one per CPU (:func:`default_jobs`), created at the first call:
    gunicorn.conf.py calls it in the master, so every worker shares the same ones."""
    global _TOKENS
    with _TOKENS_LOCK:
        if _TOKENS is None:
            _TOKENS = CpuTokens(default_jobs())
        return _TOKENS
