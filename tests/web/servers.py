"""Real gunicorn servers for tests: the configuration `make serve` and the container run
(gunicorn.conf.py), on 127.0.0.1, each with its own temp directory."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_env(tmp_path: Path) -> dict[str, str]:
    """The database every server of a test shares: PostgreSQL when the run has one
    (.ci/postgres-tests sets DATABASE_URL), else a SQLite file, migrated here."""
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SECRET_KEY": "test-" + "k" * 40}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return env


def get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@contextmanager
def gunicorn(env: dict[str, str], tmp: Path, **settings: str) -> Iterator[int]:
    """A gunicorn with gunicorn.conf.py and a private TMPDIR; yields its port."""
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server_env = {
        **env,
        "PORT": str(port),
        "TMPDIR": str(tmp),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "GUNICORN_LOG_LEVEL": "warning",
        **settings,
    }
    log = (tmp / "gunicorn.log").open("ab")
    process = subprocess.Popen(
        [str(GUNICORN), "-c", "gunicorn.conf.py"],
        cwd=ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if get(port, "/livez", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((tmp / "gunicorn.log").read_text()[-3000:])
            time.sleep(0.1)
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
