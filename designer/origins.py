"""The object a design was opened from, between the designer's address and the engine.

The address, the form and a design's query carry the origin's id only
(``Design.origin.id``); the object lives in the database (``store.OriginStore``), so every
replica serves the address. ``resolve_origin`` fills the object in before the engine renders
the design; when it is no longer kept (expired, or never stored), the design goes on as a
plain design and the page says why. A share link stores the whole origin with its design,
so it never loses it: ``keep_origin`` stores it again when the link is opened.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError
from django.utils.translation import gettext_noop

from designer.k8s.core import Message
from designer.k8s.design import Design
from designer.store import AnalysisTooLarge, OriginStore

log = logging.getLogger("designer.origins")

MSG_GONE = gettext_noop(
    "The object this design was opened from is no longer kept (objects are kept for "
    "%(days)s days after they were last opened or shared): the design goes on as a new "
    "object, and its export is the kind chosen under Export. Open the object from Analyze "
    "again to export it as it was."
)
# Why an origin did not come along from Analyze (analyze.ORIGIN_* marks).
ORIGIN_MARKS = {
    "analysis-expired": gettext_noop(
        "The analysis this workload came from has expired, so the object it belongs to is "
        "no longer kept: the design opens from its pod template only, exported as a new "
        "object. Analyze the manifest again to export the object as it was."
    ),
    "too-large": gettext_noop(
        "The object this workload belongs to is too large to keep: the design opens from "
        "its pod template only, exported as a new object."
    ),
    "not-saved": gettext_noop(
        "The object this workload belongs to could not be kept: the database refused the "
        "write. The design opens from its pod template only, exported as a new object; "
        "try again in a moment to export the object as it was."
    ),
}


def resolve_origin(design: Design | None) -> tuple[Design | None, Message | None]:
    """The design with its origin's object filled in from the database, or without an
    origin (and the reason to show) when the object is not there."""
    if design is None or design.origin is None or design.origin.object is not None:
        return design, None
    origin_id = design.origin.id
    store = OriginStore.default()
    stored = store.load(origin_id) if origin_id not in ORIGIN_MARKS else None
    if stored is not None:
        return design.model_copy(update={"origin": stored}), None
    design = design.model_copy(update={"origin": None})
    if origin_id in ORIGIN_MARKS:
        return design, Message(ORIGIN_MARKS[origin_id], {})
    return design, Message(MSG_GONE, {"days": store.ttl // 86400})


def keep_origin(design: Design) -> Design:
    """A design whose origin came with it (a share link): stored again (its time extended),
    so the address the page shows can refer to it by id."""
    origin = design.origin
    if origin is None or origin.object is None:
        return design
    try:
        origin_id = OriginStore.default().save(origin)
    except (AnalysisTooLarge, DatabaseError):
        # The page still renders the object it carries; the address then has no origin
        # (a live update goes on as a new object) - logged, rare.
        log.exception("the object of a shared design could not be stored again")
        return design
    return design.model_copy(update={"origin": origin.model_copy(update={"id": origin_id})})
