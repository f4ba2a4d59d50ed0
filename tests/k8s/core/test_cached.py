"""The engine's cached properties hold no lock a forked process could inherit held."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

from designer.k8s.core import cached_property

ENGINE = Path(__file__).resolve().parents[3] / "designer" / "k8s"


class Slow:
    def __init__(self, started: threading.Event | None, release: threading.Event) -> None:
        self.started = started
        self.release = release

    @cached_property
    def value(self) -> int:
        if self.started is not None:
            self.started.set()
            self.release.wait(10)
        return 42


def test_a_process_forked_while_another_thread_computes_a_value_computes_its_own() -> None:
    started, release = threading.Event(), threading.Event()
    busy, other = Slow(started, release), Slow(None, release)
    thread = threading.Thread(target=lambda: busy.value)
    thread.start()
    assert started.wait(5)
    try:
        pid = os.fork()
        if pid == 0:  # functools.cached_property (3.11) waits here for the thread's lock
            os._exit(0 if other.value == 42 else 1)
        deadline = time.monotonic() + 10
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        if done[0] == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0, "the child hung"
    finally:
        release.set()
        thread.join()
    assert busy.value == other.value == 42
    assert Slow.value.__doc__ is None and isinstance(Slow.__dict__["value"], cached_property)


def test_the_engine_uses_no_functools_cached_property() -> None:
    uses = [
        f"{p.relative_to(ENGINE)}:{n}"
        for p in ENGINE.rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"@functools\.cached_property|^from functools import .*cached_property", line)
    ]
    assert uses == []
