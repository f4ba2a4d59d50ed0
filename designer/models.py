"""What the site keeps in its database: share links and analyses, shared by every replica."""

from __future__ import annotations

import hashlib
import json
import re

from django.db import models, transaction
from pydantic import ValidationError

from designer.k8s.design import Design

SHARE_ID = re.compile(r"^[0-9a-f]{12}$")


def design_text(design: Design) -> str:
    """The design as ASCII JSON text: NUL and every non-ASCII character are escapes, so
    PostgreSQL (whose text and jsonb refuse NUL) and SQLite store exactly the same."""
    return json.dumps(design.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"))


class SharedDesign(models.Model):
    # The first 12 hex digits of the SHA-256 of the design's canonical JSON: the same
    # design always gets the same id, and ids cannot be enumerated.
    id = models.CharField(primary_key=True, max_length=12)
    # JSON text, not a JSONField: see design_text.
    design = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.id

    @staticmethod
    def design_id(design: Design) -> str:
        canonical = design.model_dump_json(exclude_defaults=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @classmethod
    def save_design(cls, design: Design) -> SharedDesign:
        """Store the design (once: the id is its content). Raises DatabaseError when the
        database refuses the write."""
        shared, _created = cls.objects.get_or_create(
            id=cls.design_id(design), defaults={"design": design_text(design)}
        )
        return shared

    @classmethod
    def load_design(cls, share_id: str) -> Design | None:
        """The stored design, or None for an unknown, malformed or unreadable id."""
        if not SHARE_ID.fullmatch(share_id):
            return None
        shared = cls.objects.filter(id=share_id).first()
        if shared is None:
            return None
        try:
            return Design.model_validate(json.loads(shared.design))
        except (ValidationError, ValueError):
            return None


class StoredAnalysis(models.Model):
    """One analysis of the Analyze page (designer.store.AnalysisStore reads and writes it)."""

    id = models.CharField(primary_key=True, max_length=22)
    created = models.DateTimeField(db_index=True)
    expires = models.DateTimeField(db_index=True)
    size = models.PositiveIntegerField()  # len(data): what the byte bounds count
    data = models.BinaryField()  # zlib-compressed JSON

    def __str__(self) -> str:
        return self.id


class StoredOrigin(models.Model):
    """The object a design was opened from (designer.store.OriginStore reads and writes it):
    the designer's address and share links carry its id, every replica reads it here."""

    # The first 20 hex digits of the SHA-256 of the origin's JSON: the same object and
    # template always get the same id.
    id = models.CharField(primary_key=True, max_length=20)
    created = models.DateTimeField(db_index=True)
    expires = models.DateTimeField(db_index=True)
    size = models.PositiveIntegerField()  # len(data): what the byte bounds count
    data = models.BinaryField()  # zlib-compressed JSON of design.Origin (without its id)

    def __str__(self) -> str:
        return self.id


class StoredPage(models.Model):
    """A designer page whose address would be too long (designer.store.PageStore reads and
    writes it): the address carries ``?page=<id>``, every replica reads the query here."""

    # The first 20 hex digits of the SHA-256 of the query: the same page, the same id.
    id = models.CharField(primary_key=True, max_length=20)
    created = models.DateTimeField(db_index=True)
    expires = models.DateTimeField(db_index=True)
    size = models.PositiveIntegerField()  # len(data): what the byte bounds count
    data = models.BinaryField()  # the zlib-compressed query string

    def __str__(self) -> str:
        return self.id


class SharedCluster(models.Model):
    """A share link for a design *and* the cluster it was made for (issue #12): the
    Kubernetes version and the pasted namespace policy. They describe the cluster, not the
    pod, so they stay out of the Design and its stored JSON; the design itself is a
    SharedDesign row, stored and read through SharedDesign's own methods. A link whose id is
    not here is a plain SharedDesign link (every link made before) and opens with the
    defaults."""

    id = models.CharField(primary_key=True, max_length=12)
    design = models.ForeignKey(SharedDesign, on_delete=models.CASCADE, related_name="+")
    kubernetes_version = models.CharField(max_length=10)
    namespace_policy = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.id

    @staticmethod
    def page_id(design_id: str, kubernetes_version: str, namespace_policy: str) -> str:
        # Another hash input than SharedDesign.design_id's ("cluster" first), so the two
        # kinds of ids do not meet; the same page always gets the same id.
        content = "\0".join(("cluster", design_id, kubernetes_version, namespace_policy))
        return hashlib.sha256(content.encode()).hexdigest()[:12]

    @classmethod
    def save_page(cls, design: Design, kubernetes_version: str, namespace_policy: str) -> str:
        """Store the design with its cluster (both rows or neither); the share id. Raises
        DatabaseError when the database refuses the write."""
        with transaction.atomic():
            shared = SharedDesign.save_design(design)
            page, _created = cls.objects.get_or_create(
                id=cls.page_id(shared.id, kubernetes_version, namespace_policy),
                defaults={
                    "design": shared,
                    "kubernetes_version": kubernetes_version,
                    "namespace_policy": namespace_policy,
                },
            )
        return page.id

    @classmethod
    def load_page(cls, share_id: str) -> tuple[Design, dict[str, str]] | None:
        """The design of a share link and its cluster's values (``kubernetes_version``,
        ``namespace_policy``; none for a plain design link), or None for an unknown id."""
        if not SHARE_ID.match(share_id):
            return None
        page = cls.objects.filter(id=share_id).first()
        if page is None:
            design = SharedDesign.load_design(share_id)
            return (design, {}) if design is not None else None
        design = SharedDesign.load_design(page.design_id)
        if design is None:
            return None
        return design, {
            "kubernetes_version": page.kubernetes_version,
            "namespace_policy": page.namespace_policy,
        }
