"""The CPUs this process may use, and the ones the web's requests share.

``podspec check --jobs`` and ``ANALYZE_JOBS`` default to :func:`default_jobs`: the cores the
process may run on, at most its cgroup's CPU limit (in a pod limited to 2 CPUs on a 64-core
node, 2). The server's workers share :func:`tokens`, one per CPU, created in gunicorn's
master before it forks them (gunicorn.conf.py; in another server each process has its
own): a request whose check would fork takes the tokens it can get without waiting and
forks that many (with one or none it checks in its own process), so two large requests at
once do not run four processes on two CPUs and parse a dump twice for nothing.
"""

from __future__ import annotations

import atexit
import fcntl
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
    """``count`` tokens shared by every process that knows their directory, taken without
    waiting: token ``i`` is an exclusive ``flock`` on file ``i`` there. The kernel drops a
    process's locks when it dies, so a worker killed while it checks (out of memory, its
    timeout) gives its tokens back; a POSIX semaphore's would stay taken until the master
    restarts. Without a writable directory the tokens are this process's alone."""

    def __init__(self, count: int, directory: Path | None = None) -> None:
        self.count = max(1, count)
        self.directory: Path | None = None
        try:
            self.directory = directory or Path(tempfile.mkdtemp(prefix="designer-cpus-"))
            for i in range(self.count):
                (self.directory / str(i)).touch()
        except OSError:
            self.directory = None
        if directory is None and self.directory is not None:
            atexit.register(_remove, self.directory, os.getpid())
        self._lock = threading.Lock()
        self._held: set[int] = set()
        self._fds: dict[int, int] = {}
        self._pid = os.getpid()

    def _try(self, i: int) -> bool:
        """Take token ``i`` (under self._lock)."""
        if self._pid != os.getpid():
            # Forked: the inherited descriptors share the parent's locks. Closed, never
            # unlocked (that would release the parent's); this process opens its own.
            for fd in self._fds.values():
                os.close(fd)
            self._fds, self._held, self._pid = {}, set(), os.getpid()
        if i in self._held:
            return False
        if self.directory is not None:
            try:
                fd = self._fds.get(i)
                if fd is None:
                    fd = self._fds[i] = os.open(self.directory / str(i), os.O_RDWR | os.O_CLOEXEC)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # taken by another process (or the file is gone)
                return False
        self._held.add(i)
        return True

    @contextmanager
    def take(self, wanted: int) -> Iterator[int]:
        """At most ``wanted`` tokens, as many as are free now; yields the processes to use
        (the tokens taken, at least 1: a request without one still runs, in its own
        process) and gives the tokens back at the end."""
        taken: list[int] = []
        with self._lock:
            for i in range(self.count):
                if len(taken) >= wanted:
                    break
                if self._try(i):
                    taken.append(i)
        try:
            yield max(1, len(taken))
        finally:
            with self._lock:
                for i in taken:
                    if i in self._fds:
                        fcntl.flock(self._fds[i], fcntl.LOCK_UN)
                    self._held.discard(i)


def _remove(directory: Path, creator: int) -> None:
    """The tokens' directory, removed when the process that made it exits (not when a
    worker forked from it does)."""
    if os.getpid() == creator:
        shutil.rmtree(directory, ignore_errors=True)


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
