"""Words users can place (issue 16, item 9): no "course" anywhere, and one convention for the
Kubernetes terms in Chinese: ``request`` and ``limit`` stay as Kubernetes prints them (like
``requests``, ``Guaranteed`` and field paths), in labels and sentences alike; the verb "to
request" is 申请. 请求 is left for HTTP requests (请求体, the request body) only."""

from __future__ import annotations

import re
from pathlib import Path

from tests.web.test_i18n import catalog

ROOT = Path(__file__).resolve().parents[2]


def test_no_user_visible_text_speaks_of_a_course() -> None:
    sources = [
        *ROOT.glob("designer/**/*.py"),
        *ROOT.glob("templates/**/*.html"),
        *ROOT.glob("static/*.js"),
        ROOT / "README.md",
        ROOT / "locale/zh_Hans/LC_MESSAGES/django.po",
    ]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\bcourses?\b|课程", text, re.I), path


def test_chinese_keeps_request_and_limit_as_kubernetes_prints_them() -> None:
    _header, entries = catalog()
    offending = []
    for entry in entries:
        for text in entry.msgstr.values():
            if "限制" in text or re.search(r"请求(?!体)", text):
                # An HTTP request (the API page, the 400 page) is 请求.
                if re.search(r"\b(body|request could not be read)\b", entry.msgid):
                    continue
                offending.append((entry.msgid, text))
    assert offending == []


def test_the_resource_labels_read_request_and_limit_in_both_languages() -> None:
    _header, entries = catalog()
    by_id = {e.msgid: e.msgstr.get(0, "") for e in entries}
    assert by_id["CPU request"] == "CPU request"
    assert by_id["Memory limit"] == "内存 limit"
    assert by_id["Ephemeral storage request"] == "临时存储 request"
