"""Typed values are never lost to a preset; the page without JavaScript applies whole presets and
shares; an empty field looks empty (issue 16, items 3, 4, 8 and 10)."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from designer.forms import design_query
from designer.k8s.design import preset_design
from designer.models import SharedCluster

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
HTMX_DESIGNER = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "designer"}


def query_for(design, **changes: str) -> str:
    query = design_query(design)
    query.update(changes)
    return urlencode(query)


def value_of(html: str, name: str) -> str:
    match = re.search(rf'<input[^>]*name="{re.escape(name)}"[^>]*>', html)
    assert match, f"no input {name}"
    value = re.search(r'value="([^"]*)"', match.group(0))
    return html_lib.unescape(value.group(1)) if value else ""


def selected(html: str, select_id: str) -> str:
    block = html.split(f'id="{select_id}"', 1)[1].split("</select>", 1)[0]
    match = re.search(r'<option value="([^"]*)" selected', block)
    assert match, f"nothing selected in {select_id}"
    return match.group(1)


def edited_training(**changes: str) -> str:
    return query_for(preset_design("training"), **changes)


def test_a_new_workload_type_keeps_the_typed_field_and_offers_the_whole_preset(
    client: Client,
) -> None:
    query = edited_training(
        **{
            "workload": "inference",
            "c-0-cpu_request": "8",
            "touched": "c-0-cpu_request",
            "action": "preset",
            "changed": "workload",
            "was": "training",
        }
    )
    html = client.get("/?" + query, **HTMX_DESIGNER).content.decode()
    assert value_of(html, "c-0-cpu_request") == "8"
    assert value_of(html, "c-0-cpu_limit") == "4"  # the untouched fields take the preset
    assert value_of(html, "name") == "inference"
    assert 'id="kept-edits"' in html
    notice = html.split('id="kept-edits"', 1)[1].split("</div>", 1)[0]
    assert "CPU request" in notice and "<code>8</code>" in notice and "<code>4</code>" in notice
    assert "Apply the whole preset" in notice
    # The page keeps knowing which fields were edited, in the form and in the address bar.
    assert value_of(html, "touched") == "c-0-cpu_request"


def test_the_address_bar_keeps_the_edited_fields(client: Client) -> None:
    query = edited_training(**{"c-0-cpu_request": "8", "touched": "c-0-cpu_request"})
    response = client.get("/?" + query, **HTMX_RESULTS)
    url = parse_qs(urlsplit(response["HX-Replace-Url"]).query)
    assert url["touched"] == ["c-0-cpu_request"]


def test_picking_the_workload_type_already_chosen_changes_no_field(client: Client) -> None:
    query = edited_training(
        **{
            "c-0-cpu_request": "8",
            "c-0-memory_limit": "999Gi",
            "action": "preset",
            "changed": "workload",
            "was": "training",
        }
    )
    html = client.get("/?" + query, **HTMX_DESIGNER).content.decode()
    assert value_of(html, "c-0-cpu_request") == "8"
    assert value_of(html, "c-0-memory_limit") == "999Gi"


def test_apply_preset_without_javascript_applies_the_whole_preset(client: Client) -> None:
    query = edited_training(
        **{"workload": "batch", "name": "mine", "labels": "team=a", "action": "preset"}
    )
    response = client.get("/?" + query)
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert value_of(html, "name") == "batch-inference"
    assert "app=batch-inference" in html.split('name="labels"', 1)[1].split("</textarea>")[0]
    assert value_of(html, "c-0-image").startswith("nvcr.io/nvidia/tritonserver")
    assert selected(html, "id_restart_policy") == "OnFailure"
    # ...which is what the rationale beside it says.
    assert "restartPolicy OnFailure" in html


def test_the_size_preset_says_custom_after_an_edit_in_the_live_answer(client: Client) -> None:
    html = client.get(
        "/?" + edited_training(**{"c-0-cpu_request": "8"}), **HTMX_RESULTS
    ).content.decode()
    oob = html.split('id="id_size"', 1)[1].split("</select>", 1)[0]
    assert 'hx-swap-oob="true"' in oob
    assert '<option value="custom" selected>' in oob
    # Typing the preset's values back finds the preset again.
    html = client.get("/?" + edited_training(size="custom"), **HTMX_RESULTS).content.decode()
    assert selected(html, "id_size") == "M"


def test_a_container_heading_follows_its_new_name_live(client: Client) -> None:
    html = client.get(
        "/?" + edited_training(**{"c-0-name": "trainer-main"}), **HTMX_RESULTS
    ).content.decode()
    legend = html.split('<legend id="legend-c-0" hx-swap-oob="true">', 1)[1].split("</legend>")[0]
    assert "“trainer-main”" in legend


def test_no_placeholder_looks_like_a_value(client: Client) -> None:
    html = client.get("/?" + edited_training(node_source="custom")).content.decode()
    placeholders = html_lib.unescape(" | ".join(re.findall(r'placeholder="([^"]*)"', html)))
    for text in placeholders.split(" | "):
        assert text.startswith(("e.g. ", "empty: ", "kubectl ")), text
    gpus = re.search(r'<input[^>]*name="c-0-gpus"[^>]*>', html).group(0)
    assert "placeholder" not in gpus


def test_sharing_without_javascript_reads_the_design_from_the_query(client: Client) -> None:
    design = preset_design("batch")
    design.containers[0].memory_limit = "20Gi"
    page = client.get("/?" + query_for(design)).content.decode()
    action = html_lib.unescape(re.search(r'<form method="post" action="([^"]*)"', page).group(1))
    assert action.startswith("/share?")
    response = client.post(action)  # the no-JS form's body has only the CSRF token
    assert response.status_code == 302
    page = SharedCluster.load_page(response["Location"].rsplit("/", 1)[1])
    assert page is not None
    assert page[0].containers[0].memory_limit == "20Gi"


def test_sharing_a_broken_design_without_javascript_says_why_on_a_page_of_the_site(
    client: Client,
) -> None:
    query = edited_training(**{"labels": "no equals sign"})
    response = client.post("/share?" + query)
    html = response.content.decode()
    assert response.status_code == 400
    assert "<html" in html and 'class="site-header"' in html  # a page, not a bare message
    assert "fix them to share it" in html
    assert f'href="/?{html_lib.escape(query)}"' in html  # back to the design as it was
