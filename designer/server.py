"""The gunicorn worker the site runs on (gunicorn.conf.py names it).

gunicorn's ``asgi`` worker serves every connection from one asyncio loop, so an idle or slow
client costs a few kilobytes instead of a worker (sync workers) or a thread (gthread, whose
threads block in recv() on a half-sent request with no deadline). Its keep-alive timer
bounds a kept-alive connection between requests and while the next request's headers
arrive; the first request of a connection has no deadline in gunicorn 27.0.1, so a client
could open connections, send half a request line and hold them forever. This worker gives
the first request's headers the same deadline (``header_timeout``).
"""

from __future__ import annotations

import os

from gunicorn.asgi.protocol import ASGIProtocol
from gunicorn.workers import gasgi

# Seconds a new connection may take to send its request headers.
HEADER_TIMEOUT = float(os.environ.get("GUNICORN_HEADER_TIMEOUT", "10"))


class HeaderDeadlineProtocol(ASGIProtocol):
    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        super().connection_made(transport)
        # gunicorn cancels _keepalive_handle once a request's headers are complete and
        # re-arms it between requests: the deadline rides on that timer.
        if self._keepalive_handle is None and not self._closed:
            self._keepalive_handle = self.worker.loop.call_later(
                HEADER_TIMEOUT, self._headers_too_slow
            )

    def _headers_too_slow(self) -> None:
        self._keepalive_handle = None
        if self._current_request is None:
            self.log.info("closing a connection that sent no request in %.0f s", HEADER_TIMEOUT)
            self._close_transport()
            if self._request_ready is not None:
                self._request_ready.set()


class DesignerASGIWorker(gasgi.ASGIWorker):
    """gunicorn's ASGI worker with HeaderDeadlineProtocol."""

    def init_process(self) -> None:
        # The worker builds its protocol as ``lambda: ASGIProtocol(self)`` and looks the
        # name up in its module at each connection; this process only ever runs this worker.
        gasgi.ASGIProtocol = HeaderDeadlineProtocol  # type: ignore[misc]
        super().init_process()
