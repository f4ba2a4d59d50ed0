"""Stored share links: a design under a short id derived from its content."""

from __future__ import annotations

import hashlib
import re

from django.db import models
from pydantic import ValidationError

from designer.k8s.design import Design

SHARE_ID = re.compile(r"^[0-9a-f]{12}$")


class SharedDesign(models.Model):
    # The first 12 hex digits of the SHA-256 of the design's canonical JSON: the same
    # design always gets the same id, and ids cannot be enumerated.
    id = models.CharField(primary_key=True, max_length=12)
    design = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.id

    @staticmethod
    def design_id(design: Design) -> str:
        canonical = design.model_dump_json(exclude_defaults=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @classmethod
    def save_design(cls, design: Design) -> SharedDesign:
        shared, _created = cls.objects.get_or_create(
            id=cls.design_id(design), defaults={"design": design.model_dump(mode="json")}
        )
        return shared

    @classmethod
    def load_design(cls, share_id: str) -> Design | None:
        """The stored design, or None for an unknown, malformed or unreadable id."""
        if not SHARE_ID.match(share_id):
            return None
        shared = cls.objects.filter(id=share_id).first()
        if shared is None:
            return None
        try:
            return Design.model_validate(shared.design)
        except ValidationError:
            return None
