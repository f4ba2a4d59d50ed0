"""The designer's address: the page's whole query, or ``?page=<id>`` when that is too long.

A design travels in its address so every page is a link. A pasted namespace policy, node
manifest or ResourceSlices can make the query tens of kilobytes, and gunicorn (8,190
bytes), nginx ingress (8 KB by default) and other proxies refuse request lines that long:
a reload would answer 400. So the live updates are POSTs (their body has no such limit),
and an address longer than ``MAX_ADDRESS`` is stored in the database
(``store.PageStore``, content-addressed, kept 30 days after its last use) and shown as
``/?page=<id>``, which every replica opens as the same page.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext_noop

from designer.k8s.core import Message
from designer.store import PageStore, PageTooLarge

log = logging.getLogger("designer.addresses")

# Longer addresses go through the database (proxies and gunicorn refuse request lines over
# ~4-8 KB; 4,000 characters leaves room for the method, the host and the headers).
MAX_ADDRESS = 4000
PAGE = "page"

MSG_PAGE_GONE = gettext_noop(
    "The design of this address is no longer kept (designs with long addresses, such as a "
    "pasted namespace policy, are kept for %(days)s days after they were last opened): the "
    "designer starts anew. A share link keeps a design for good."
)
MSG_PAGE_UNREADABLE = gettext_noop(
    "The design of this address could not be read: the database did not answer. Reload "
    "the page in a moment."
)


def page_address(query: str) -> str:
    """The designer's address for a page query: the query itself, or ``?page=<id>`` when it
    is longer than MAX_ADDRESS and the database kept it (else the long address, logged)."""
    url = f"{reverse('index')}?{query}"
    if len(url) <= MAX_ADDRESS:
        return url
    try:
        page_id = PageStore.default().save(query)
    except (PageTooLarge, DatabaseError):
        # The page still answers; its address is long, which some proxies refuse.
        log.exception("a long designer address could not be stored")
        return url
    return f"{reverse('index')}?{PAGE}={page_id}"


def short_query(query: str) -> str:
    """A query for a link back to a design (the page a failed share shows): itself, or the
    stored page's ``page=<id>`` when too long."""
    if len(query) <= MAX_ADDRESS:
        return query
    return page_address(query).partition("?")[2]


def expand_page(data: QueryDict) -> tuple[QueryDict, Message | None]:
    """The query a ``?page=<id>`` address stands for (the query itself otherwise), and the
    reason to show when the page is no longer kept (the query is then empty)."""
    page_id = data.get(PAGE)
    if page_id is None or "c-TOTAL_FORMS" in data:
        return data, None
    store = PageStore.default()
    try:
        stored = store.load(page_id)
    except DatabaseError:
        log.exception("a stored designer address could not be read")
        return QueryDict(), Message(MSG_PAGE_UNREADABLE, {})
    if stored is None:
        return QueryDict(), Message(MSG_PAGE_GONE, {"days": store.ttl // 86400})
    return QueryDict(stored), None
