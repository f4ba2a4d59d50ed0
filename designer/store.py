"""Analyses kept in the database, so every replica behind a Service serves every address.

An analysis (one row per workload plus its pod template, never the raw input) is stored as
zlib-compressed JSON under a random id for ``ANALYSIS_TTL_SECONDS``. What it may take is
bounded three ways: bytes per entry (``ANALYSIS_MAX_ENTRY_BYTES``, compressed), bytes in
all (``ANALYSIS_MAX_TOTAL_BYTES``) and entries (``ANALYSIS_MAX_ENTRIES``). Every save prunes
what has expired and the oldest entries beyond those bounds, so no cron job is needed: the
table never holds more than the bounds plus what one concurrent save adds.

Why a table and not Django's cache framework: the cache API has no byte accounting (the
database cache counts entries only), and a byte bound is what keeps a 20 MB upload from
filling the database. Share links live in the database too (``SharedDesign``), and so do
the objects designs were opened from (``OriginStore``: the designer's address carries an
origin's id, never the object, so any replica can read it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import zlib
from datetime import timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from designer.k8s.design import Origin
from designer.models import StoredAnalysis, StoredOrigin, StoredPage

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


class BoundedStore:
    """A table of entries bounded by bytes per entry, bytes in all and entries, kept ``ttl``
    seconds; the bounds come from the settings ``<SETTINGS>_TTL_SECONDS``,
    ``_MAX_ENTRY_BYTES``, ``_MAX_TOTAL_BYTES`` and ``_MAX_ENTRIES`` (else ``DEFAULTS``)."""

    model: Any = None
    SETTINGS = ""
    DEFAULTS = (0, 0, 0, 0)  # ttl, max entry bytes, max total bytes, max entries

    def __init__(
        self,
        *,
        ttl: int | None = None,
        max_entry_bytes: int | None = None,
        max_total_bytes: int | None = None,
        max_entries: int | None = None,
    ) -> None:
        ttl_d, entry_d, total_d, entries_d = self.DEFAULTS
        self.ttl = ttl_d if ttl is None else ttl
        self.max_entry_bytes = entry_d if max_entry_bytes is None else max_entry_bytes
        self.max_total_bytes = total_d if max_total_bytes is None else max_total_bytes
        self.max_entries = entries_d if max_entries is None else max_entries

    @classmethod
    def default(cls) -> Any:
        """The store with the site's settings (each falls back to the class's default)."""
        names = ("TTL_SECONDS", "MAX_ENTRY_BYTES", "MAX_TOTAL_BYTES", "MAX_ENTRIES")
        ttl, entry, total, entries = (
            getattr(settings, f"{cls.SETTINGS}_{name}", default)
            for name, default in zip(names, cls.DEFAULTS, strict=True)
        )
        return cls(ttl=ttl, max_entry_bytes=entry, max_total_bytes=total, max_entries=entries)

    def prune(self, now: Any = None) -> int:
        """Delete expired entries and the oldest beyond the bounds; how many went."""
        return _prune(self.model, now, self.max_entries, self.max_total_bytes)

    def usage(self) -> tuple[int, int]:
        """(entries, bytes) stored now."""
        return _usage(self.model)


class AnalysisStore(BoundedStore):
    ID = re.compile(r"^[A-Za-z0-9_-]{22}$")
    model = StoredAnalysis
    SETTINGS = "ANALYSIS"
    DEFAULTS = (DEFAULT_TTL, DEFAULT_MAX_ENTRY_BYTES, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_MAX_ENTRIES)

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


def _prune(model: Any, now: Any, max_entries: int, max_total_bytes: int) -> int:
    """Delete the expired rows of ``model`` and the oldest beyond the bounds."""
    now = now or timezone.now()
    deleted, _ = model.objects.filter(expires__lte=now).delete()
    # Within the bounds (nearly always): one aggregate, not a walk over every row (a long
    # designer page stores a row per edit, so this runs while the user types).
    usage = model.objects.aggregate(entries=Count("id"), size=Sum("size"))
    if usage["entries"] <= max_entries and (usage["size"] or 0) <= max_total_bytes:
        return deleted
    total, surplus = 0, []
    kept = model.objects.order_by("-created", "-id").values_list("id", "size")
    for rank, (row_id, size) in enumerate(kept.iterator()):
        total += size
        if rank >= max_entries or total > max_total_bytes:
            surplus.append(row_id)
    if surplus:
        deleted += model.objects.filter(id__in=surplus).delete()[0]
    return deleted


def _usage(model: Any) -> tuple[int, int]:
    sizes = list(model.objects.values_list("size", flat=True))
    return len(sizes), sum(sizes)


# --- content-addressed entries: the objects designs were opened from, long addresses ---------


class ContentStore(BoundedStore):
    """Entries of ``model`` under a content id (the same content always gets the same id, so
    storing it again only extends its time), kept ``ttl`` seconds after it was last stored
    and bounded like the analyses. Subclasses say what the content is (``_content``,
    ``_value``) and where their settings are (``SETTINGS``)."""

    ID = re.compile(r"^[0-9a-f]{20}$")
    TOO_LARGE: type[AnalysisTooLarge] = AnalysisTooLarge

    def _content(self, value: Any) -> bytes:
        raise NotImplementedError

    def _value(self, raw: bytes, entry_id: str) -> Any:
        raise NotImplementedError

    def save(self, value: Any) -> str:
        """Store the value (once: the id is its content) or extend its time; its id. Raises
        TOO_LARGE, or DatabaseError when the database refuses the write."""
        raw = self._content(value)
        entry_id = hashlib.sha256(raw).hexdigest()[:20]
        packed = zlib.compress(raw, 6)
        if len(packed) > self.max_entry_bytes:
            raise self.TOO_LARGE(len(packed), self.max_entry_bytes)
        now = timezone.now()
        expires = now + timedelta(seconds=self.ttl)
        updated = self.model.objects.filter(id=entry_id).update(expires=expires)
        if not updated:
            try:
                with transaction.atomic():
                    self.model.objects.create(
                        id=entry_id, created=now, expires=expires, size=len(packed), data=packed
                    )
            except IntegrityError:
                return entry_id  # another request stored the same content just now
            try:
                self.prune(now)
            except DatabaseError:  # the entry is saved; pruning is retried by the next save
                log.exception("pruning %s failed", self.model._meta.verbose_name_plural)
        return entry_id

    def load(self, entry_id: str) -> Any:
        """The value, or None when the id is malformed, unknown or expired."""
        if not self.ID.match(entry_id):
            return None
        row = (
            self.model.objects.filter(id=entry_id, expires__gt=timezone.now())
            .values_list("data", flat=True)
            .first()
        )
        if row is None:
            return None
        try:
            return self._value(zlib.decompress(bytes(row)), entry_id)
        except (zlib.error, ValueError):
            log.error("%s %s cannot be read", self.model._meta.verbose_name, entry_id)
            return None


class OriginTooLarge(AnalysisTooLarge):
    """The compressed origin is larger than one entry may be."""


class OriginStore(ContentStore):
    """The objects designs were opened from (issue 11), by the content of the object and its
    template."""

    model = StoredOrigin
    SETTINGS = "ORIGIN"
    DEFAULTS = (30 * 24 * 3600, 1024 * 1024, 128 * 1024 * 1024, 10000)
    TOO_LARGE = OriginTooLarge

    def _content(self, value: Origin) -> bytes:
        return dumps_json(value.model_dump(mode="json", exclude={"id"}))

    def _value(self, raw: bytes, entry_id: str) -> Origin:
        value = json.loads(raw) if _LONG_INTEGER.search(raw) else orjson.loads(raw)
        return Origin.model_validate({**value, "id": entry_id})


class PageTooLarge(AnalysisTooLarge):
    """The compressed page query is larger than one entry may be."""


class PageStore(ContentStore):
    """The designer's pages whose address would be too long to travel (issue 12: a pasted
    namespace policy, node manifest or ResourceSlices): the address bar then holds
    ``?page=<id>`` and the query lives here, so a reload, a copied address and every
    replica still open the same page. Kept like the origins, 30 days after last use."""

    model = StoredPage
    SETTINGS = "PAGE"
    DEFAULTS = (30 * 24 * 3600, 1024 * 1024, 128 * 1024 * 1024, 10000)
    TOO_LARGE = PageTooLarge

    def _content(self, value: str) -> bytes:
        return value.encode("ascii")  # an urlencoded query

    def _value(self, raw: bytes, entry_id: str) -> str:
        return raw.decode("ascii")
