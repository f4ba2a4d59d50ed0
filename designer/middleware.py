"""Middleware: security headers on every answer, health probes, request size limits."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse

from designer.api import MAX_RENDER_BYTES
from designer.k8s.manifest import MAX_INPUT_BYTES
from designer.models import SharedDesign, StoredAnalysis

log = logging.getLogger("designer.health")


class ContentSecurityPolicyMiddleware:
    """Content-Security-Policy (no inline script or style, nothing from other origins),
    X-Frame-Options and Permissions-Policy on every answer.

    It is the outermost middleware, so the answers Django makes before any view runs (the
    400 for a host not in ALLOWED_HOSTS, a 413) carry the headers too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CSP_POLICY)
        response.headers.setdefault("X-Frame-Options", settings.X_FRAME_OPTIONS)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault(
            "Permissions-Policy", "camera=(), microphone=(), geolocation=()"
        )
        return response


class HealthCheckMiddleware:
    """``/healthz`` (ready: the database answers and holds the designer's tables) and
    ``/livez`` (the process serves requests), answered before the host check: the kubelet
    probes a pod by its IP, which is not in ALLOWED_HOSTS."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == "/livez":
            return _json({"status": "ok"}, 200)
        if request.path == "/healthz":
            return healthz()
        return self.get_response(request)


def healthz() -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        # The tables exist (the migration Job has run) and can be read.
        SharedDesign.objects.exists()
        StoredAnalysis.objects.exists()
    except DatabaseError as exc:
        log.warning("health check: the database is not usable: %s", exc)
        return _json({"status": "unavailable", "database": "not usable"}, 503)
    return _json({"status": "ok", "database": "ok"}, 200)


def _json(body: dict[str, str], status: int) -> HttpResponse:
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


class RequestSizeLimitMiddleware:
    """Refuses a body over its path's limit from its Content-Length, before anything reads
    or parses it (django-ninja parses the JSON before the view runs)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            message = f"The body is larger than the {limit:,}-byte limit."
            if request.path.startswith("/api/"):
                return HttpResponse(
                    json.dumps({"error": message}), status=413, content_type="application/json"
                )
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


# The API's limits; the Analyze page checks its 20 MB itself (its answer is a page).
BODY_LIMITS: dict[str, int | None] = {
    "/api/v1/analyze": MAX_INPUT_BYTES,
    "/api/v1/render": MAX_RENDER_BYTES,
    "/api/v1/fit": MAX_RENDER_BYTES,
    "/analyze": None,
}
MULTIPART_OVERHEAD = 64 * 1024  # boundaries, the CSRF token, the other fields
# Everything else is a form (a design to share, a workload to open) or nothing at all.
DEFAULT_BODY_LIMIT = 4 * 1024 * 1024


def body_limit(path: str) -> int | None:
    """The largest body a path accepts; None where the view checks it itself."""
    return BODY_LIMITS.get(path, DEFAULT_BODY_LIMIT)


def hard_body_limit(path: str) -> int:
    """The body no path may exceed, enforced in front of Django (designer.asgi): where the
    view checks its own limit, that limit plus the multipart framing around it."""
    limit = body_limit(path)
    return MAX_INPUT_BYTES + MULTIPART_OVERHEAD if limit is None else limit
