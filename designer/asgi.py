"""ASGI entry point: ``gunicorn -c gunicorn.conf.py`` serves ``designer.asgi:application``.

Django reads a request's whole body before any middleware runs (into memory, then a temp
file), so two limits are enforced here, in front of Django:

* a body over its path's limit is refused from its Content-Length before a byte is read,
  and a chunked body is cut off once it passes the limit: no upload can fill the disk;
* at most ``MAX_CONCURRENT_REQUESTS`` requests per worker run Django at a time (each in its
  own thread); the others wait on the event loop, costing nothing, instead of piling up
  threads that fight for the GIL. The body is read before a request takes its slot, so a
  slow upload holds no slot; a large body also waits for the one heavy slot, so memory stays
  bounded (designer.asgi.HEAVY_BODY_BYTES). Health probes skip the queue.
"""

from __future__ import annotations

import asyncio
import json
import os
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
django_application = get_asgi_application()
# whitenoise answers with a FileResponse, a synchronous file iterator, which Django reads in
# a thread under ASGI and warns about on every static file; the files are a few kilobytes.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)

from designer.middleware import hard_body_limit  # noqa: E402 (needs the settings loaded)

MAX_CONCURRENT_REQUESTS = int(os.environ.get("DESIGNER_MAX_CONCURRENT_REQUESTS", "8"))
# A large body (a cluster dump to analyze) takes up to ~30x its size in memory while it is
# read and checked (20 MB: 600 MB); one at a time per worker keeps a pod's memory bounded.
HEAVY_BODY_BYTES = 1024 * 1024
MAX_CONCURRENT_HEAVY_REQUESTS = int(os.environ.get("DESIGNER_MAX_CONCURRENT_HEAVY", "1"))
PROBES = frozenset({"/healthz", "/livez"})

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


async def _refuse(send: Send, limit: int, path: str) -> None:
    text = f"The body is larger than the {limit:,}-byte limit."
    if path.startswith("/api/"):
        body, kind = json.dumps({"error": text}).encode(), b"application/json"
    else:
        body, kind = text.encode(), b"text/plain; charset=utf-8"
    headers = [
        (b"content-type", kind),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """Body limits and a concurrency bound around the Django application."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app
        self._slots: asyncio.Semaphore | None = None
        self._heavy: asyncio.Semaphore | None = None

    def slots(self) -> asyncio.Semaphore:
        # Made lazily, inside the worker's running event loop.
        if self._slots is None:
            self._slots = asyncio.Semaphore(MAX_CONCURRENT_REQUESTS)
        return self._slots

    def heavy_slots(self) -> asyncio.Semaphore:
        if self._heavy is None:
            self._heavy = asyncio.Semaphore(MAX_CONCURRENT_HEAVY_REQUESTS)
        return self._heavy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        limit = hard_body_limit(path)
        length = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _refuse(send, limit, path)
            return
        # The body is read here, before a slot is taken: a client that uploads slowly
        # holds only its own connection (gunicorn bounds each wait by its timeout).
        chunks: list[bytes] = []
        received = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                await _refuse(send, limit, path)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # Django listens for the disconnect

        if path in PROBES:
            await self.app(scope, replay, send)
            return
        if len(body) > HEAVY_BODY_BYTES:
            async with self.heavy_slots(), self.slots():
                await self.app(scope, replay, send)
            return
        async with self.slots():
            await self.app(scope, replay, send)


application = Guard(django_application)
