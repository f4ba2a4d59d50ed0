"""Template syntax never reaches the page: Django's ``{# #}`` comment is one line only, so
one spanning lines is printed as text (and, in the designer's swapped element, once more
with every answer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from designer.forms import design_query
from designer.k8s.design import preset_design

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
SYNTAX = re.compile(r"\{#|#\}|\{%|%\}|\{\{ ?[\w.|:'\"]+ ?\}\}")


def test_every_template_comment_opens_and_closes_on_one_line() -> None:
    assert TEMPLATES
    for path in TEMPLATES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            opened = line.count("{#")
            assert opened == line.count("#}"), (
                f"{path.relative_to(ROOT)}:{number}: a {{# #}} comment must close on its line "
                "(use {% comment %} for more)"
            )


@pytest.mark.django_db
def test_the_pages_and_the_designers_answers_show_no_template_syntax(client: Client) -> None:
    design = design_query(preset_design("training"))
    answers = [
        client.get("/"),
        client.get("/?preset=inference"),
        client.get("/analyze"),
        client.get("/api/"),
        # The designer's answers: a live update, and a preset that swaps the whole designer.
        client.post(
            "/",
            {**design, "c-0-memory_limit": "80Gi"},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="results",
        ),
        client.post(
            "/",
            {
                **design,
                "workload": "inference",
                "action": "preset",
                "changed": "workload",
                "was": "training",
                "touched": "c-0-cpu_request",
                "c-0-cpu_request": "8",
            },
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="designer",
        ),
    ]
    for response in answers:
        assert response.status_code == 200
        text = response.content.decode()
        found = SYNTAX.search(text)
        assert found is None, (
            response.request["PATH_INFO"],
            text[found.start() - 80 : found.end() + 80],
        )
