"""Analyses kept in the database, so every replica behind a Service serves every address.

An analysis (one row per workload plus its pod template, never the raw input) is stored as
zlib-compressed JSON under a random id for ``ANALYSIS_TTL_SECONDS``. What it may take is
bounded three ways: bytes per entry (``ANALYSIS_MAX_ENTRY_BYTES``, compressed), bytes in
all (``ANALYSIS_MAX_TOTAL_BYTES``) and entries (``ANALYSIS_MAX_ENTRIES``). Every save prunes
what has expired and the oldest entries beyond those bounds, so no cron job is needed: the
table never holds more than the bounds plus what one concurrent save adds.

Why a table and not Django's cache framework: the cache API has no byte accounting (the
database cache counts entries only), and a byte bound is what keeps a 20 MB upload from
filling the database. Share links live in the database too (``SharedDesign``).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import zlib
from datetime import timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from designer.models import StoredAnalysis

log = logging.getLogger("designer.store")

DEFAULT_TTL = 24 * 3600
DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024  # a 10,000-pod cluster dump compresses to ~1.2 MB
DEFAULT_MAX_TOTAL_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 500


_LONG_INTEGER = re.compile(rb"[0-9]{20}")


class AnalysisTooLarge(Exception):
    """The compressed analysis is larger than one entry may be."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size:,} bytes compressed, over the {limit:,}-byte limit")
        self.size = size
        self.limit = limit


def dumps_json(value: Any) -> bytes:
    """JSON bytes of manifest data: orjson, or the json module where orjson refuses
    (integers past 64 bits, which a JSON manifest may hold)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()


class AnalysisStore:
    ID = re.compile(r"^[A-Za-z0-9_-]{22}$")

    def __init__(
        self,
        *,
        ttl: int = DEFAULT_TTL,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
        max_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> None:
        self.ttl = ttl
        self.max_entry_bytes = max_entry_bytes
        self.max_total_bytes = max_total_bytes
        self.max_entries = max_entries

    @classmethod
    def default(cls) -> AnalysisStore:
        return cls(
            ttl=getattr(settings, "ANALYSIS_TTL_SECONDS", DEFAULT_TTL),
            max_entry_bytes=getattr(settings, "ANALYSIS_MAX_ENTRY_BYTES", DEFAULT_MAX_ENTRY_BYTES),
            max_total_bytes=getattr(settings, "ANALYSIS_MAX_TOTAL_BYTES", DEFAULT_MAX_TOTAL_BYTES),
            max_entries=getattr(settings, "ANALYSIS_MAX_ENTRIES", DEFAULT_MAX_ENTRIES),
        )

    def save(self, analysis: dict[str, Any]) -> str:
        """Store the analysis; its id. Raises AnalysisTooLarge, or DatabaseError when the
        database refuses the write (full disk, read-only)."""
        packed = zlib.compress(dumps_json(analysis), 1)
        if len(packed) > self.max_entry_bytes:
            raise AnalysisTooLarge(len(packed), self.max_entry_bytes)
        now = timezone.now()
        analysis_id = secrets.token_urlsafe(16)
        StoredAnalysis.objects.create(
            id=analysis_id,
            created=now,
            expires=now + timedelta(seconds=self.ttl),
            size=len(packed),
            data=packed,
        )
        try:
            self.prune(now)
        except DatabaseError:  # the entry is saved; pruning is retried by the next save
            log.exception("pruning stored analyses failed")
        return analysis_id

    def load(self, analysis_id: str) -> dict[str, Any] | None:
        """The analysis, or None when the id is malformed, unknown or expired."""
        if not self.ID.fullmatch(analysis_id):
            return None
        row = (
            StoredAnalysis.objects.filter(id=analysis_id, expires__gt=timezone.now())
            .values_list("data", flat=True)
            .first()
        )
        if row is None:
            return None
        try:
            raw = zlib.decompress(bytes(row))
            # orjson reads integers past 64 bits as floats; a manifest's must keep its digits.
            return json.loads(raw) if _LONG_INTEGER.search(raw) else orjson.loads(raw)
        except (zlib.error, ValueError):
            log.error("stored analysis %s cannot be read", analysis_id)
            return None

    def prune(self, now: Any = None) -> int:
        """Delete expired entries and the oldest beyond the bounds; how many went."""
        now = now or timezone.now()
        deleted, _ = StoredAnalysis.objects.filter(expires__lte=now).delete()
        total, surplus = 0, []
        kept = StoredAnalysis.objects.order_by("-created", "-id").values_list("id", "size")
        for rank, (analysis_id, size) in enumerate(kept.iterator()):
            total += size
            if rank >= self.max_entries or total > self.max_total_bytes:
                surplus.append(analysis_id)
        if surplus:
            deleted += StoredAnalysis.objects.filter(id__in=surplus).delete()[0]
        return deleted

    def usage(self) -> tuple[int, int]:
        """(entries, bytes) stored now."""
        sizes = list(StoredAnalysis.objects.values_list("size", flat=True))
        return len(sizes), sum(sizes)
