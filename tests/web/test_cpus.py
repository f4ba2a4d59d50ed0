"""The CPUs the CLI and the server use: the container's CPU limit, and tokens the server's
workers share."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from designer.cpus import CpuTokens, cgroup_cpu_limit


def test_the_cpu_limit_is_read_from_cgroup_v2_and_v1_the_lowest_on_the_way_up(
    tmp_path: Path,
) -> None:
    """default_jobs is at most the container's CPU limit: cgroup v2's cpu.max of the
    process's cgroup or one above it (the lowest), v1's CFS quota over period; no limit
    ("max", -1, no file, unreadable text) is None."""

    def tree(files: dict[str, str], cgroup: str) -> float | None:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        root.mkdir()
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        (root / "proc").write_text(cgroup)
        return cgroup_cpu_limit(root / "proc", root / "fs")

    # v2 in a container (cgroup namespace: the path is "/").
    assert tree({"fs/cpu.max": "200000 100000\n"}, "0::/\n") == 2
    assert tree({"fs/cpu.max": "150000 100000\n"}, "0::/\n") == 1.5
    assert tree({"fs/cpu.max": "max 100000\n"}, "0::/\n") is None
    # v2 without a namespace: the pod's limit above the container's.
    nested = {
        "fs/kubepods/pod1/cpu.max": "100000 100000\n",
        "fs/kubepods/pod1/c1/cpu.max": "max 100000\n",
    }
    assert tree(nested, "0::/kubepods/pod1/c1\n") == 1
    # v1: the cpu controller's quota and period; -1 is no limit.
    v1 = {
        "fs/cpu,cpuacct/cpu.cfs_quota_us": "400000\n",
        "fs/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    }
    assert tree(v1, "5:memory:/\n4:cpu,cpuacct:/\n") == 4
    unlimited = {"fs/cpu/cpu.cfs_quota_us": "-1\n", "fs/cpu/cpu.cfs_period_us": "100000\n"}
    assert tree(unlimited, "1:cpu:/\n2:cpuacct:/\n") is None
    assert tree({"fs/cpu.max": "garbage"}, "0::/\n") is None
    assert tree({}, "0::/\n") is None
    assert cgroup_cpu_limit(tmp_path / "missing", tmp_path) is None


def test_tokens_are_taken_without_waiting_and_given_back() -> None:
    tokens = CpuTokens(2)
    with tokens.take(2) as first:
        assert first == 2
        with tokens.take(2) as second:
            assert second == 1  # none left: checked in its own process
    with tokens.take(1) as one, tokens.take(3) as rest:
        assert (one, rest) == (1, 1)
    with tokens.take(5) as again:
        assert again == 2


def test_tokens_are_shared_with_the_processes_forked_after_them() -> None:
    """As gunicorn's workers, forked from the master that created them: while a forked
    process holds the tokens, this one gets none; a process killed while it holds them
    (out of memory, a timeout) gives them back."""
    tokens = CpuTokens(2)
    for death in (False, True):
        ready_r, ready_w = os.pipe()
        done_r, done_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            with tokens.take(2) as got:
                os.write(ready_w, str(got).encode())
                if death:
                    os.kill(os.getpid(), signal.SIGKILL)
                os.read(done_r, 1)
            os._exit(0)
        assert os.read(ready_r, 8) == b"2"
        if not death:
            with tokens.take(2) as got:
                assert got == 1  # none free: the child holds both
            os.write(done_w, b"x")
        os.waitpid(pid, 0)
        with tokens.take(2) as got:
            assert got == 2, death
    # A child forked while this process holds a token does not hold it as its own.
    with tokens.take(1):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            with tokens.take(2) as got:
                os._exit(got)
        _pid, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 1


def test_tokens_without_a_directory_are_this_process_s_own(tmp_path: Path) -> None:
    tokens = CpuTokens(2, tmp_path / "missing" / "dir")
    assert tokens.directory is None
    with tokens.take(2) as got, tokens.take(2) as more:
        assert (got, more) == (2, 1)
