"""The designer page: full page vs. htmx partials, errors beside fields, export, share."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import urlencode

import pytest
import yaml
from django.test import Client

from designer.forms import design_query, encode_blob
from designer.k8s.design import ContainerDesign, preset_design

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
HTMX_DESIGNER = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "designer"}


def query_for(design, **changes: str) -> str:
    query = design_query(design)
    query.update(changes)
    return urlencode(query)


def qos_of(html: str) -> str:
    match = re.search(r'data-qos-class="([^"]*)"', html)
    assert match, "the page shows no QoS class"
    return match.group(1)


def preview_of(html: str) -> str:
    import html as html_lib

    match = re.search(r'<pre id="manifest-yaml"[^>]*>(.*?)</pre>', html, re.S)
    assert match, "the page shows no YAML preview"
    return html_lib.unescape(match.group(1))


def test_front_page_starts_with_a_guaranteed_training_design(client: Client) -> None:
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert qos_of(html) == "Guaranteed"
    for label in (
        "CPU request",
        "CPU limit",
        "Memory request",
        "Memory limit",
        "GPUs",
        "Workload type",
    ):
        assert f">{label}</label>" in html
    manifest = yaml.safe_load(preview_of(html))
    assert manifest["kind"] == "Pod"
    assert manifest["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"


def test_htmx_typing_request_renders_only_the_results_with_field_slots(client: Client) -> None:
    design = preset_design("training")
    response = client.get("/?" + query_for(design), **HTMX_RESULTS)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html
    assert html.lstrip().startswith('<section id="results"')
    assert 'id="err-id_c-0-cpu_limit" hx-swap-oob="innerHTML"' in html
    assert response["HX-Replace-Url"].startswith("/?")
    assert "HX-Request" in response["Vary"]


def test_changing_memory_limit_makes_pod_burstable_and_names_the_container(client: Client) -> None:
    design = preset_design("training")
    response = client.get("/?" + query_for(design, **{"c-0-memory_limit": "128Gi"}), **HTMX_RESULTS)
    html = response.content.decode()
    assert qos_of(html) == "Burstable"
    assert "main" in html.split('class="reasons"')[1].split("</ul>")[0]


def test_sidecar_without_limits_makes_pod_burstable(client: Client) -> None:
    design = preset_design("inference")
    design.containers.append(
        ContainerDesign(role="sidecar", name="log-shipper", image="fluent-bit")
    )
    html = client.get("/?" + query_for(design)).content.decode()
    assert qos_of(html) == "Burstable"
    assert "log-shipper" in html.split('class="reasons"')[1].split("</ul>")[0]


def test_half_a_gpu_is_an_error_next_to_the_gpu_field(client: Client) -> None:
    design = preset_design("training")
    html = client.get(
        "/?" + query_for(design, **{"c-0-gpus": "0.5"}), **HTMX_RESULTS
    ).content.decode()
    slot = re.search(r'<div class="messages" id="err-id_c-0-gpus"[^>]*>(.*?)</div>', html, re.S)
    assert slot and "must be an integer" in slot.group(1)
    assert 'aria-disabled="true"' in html


def test_8gb_memory_is_flagged_with_the_fix(client: Client) -> None:
    design = preset_design("inference")
    html = client.get("/?" + query_for(design, **{"c-0-memory_limit": "8GB"})).content.decode()
    assert "8G or 8Gi" in html
    assert "quantities must match the regular expression" in html


def test_adding_a_sidecar_rerenders_the_designer_and_keeps_typed_values(client: Client) -> None:
    design = preset_design("training")
    query = query_for(design, **{"c-0-cpu_request": "12", "action": "add-sidecar"})
    response = client.get("/?" + query, **HTMX_DESIGNER)
    html = response.content.decode()
    assert 'id="designer"' in html
    assert 'name="c-1-name"' in html and 'value="sidecar-1"' in html
    typed = re.search(r'<input[^>]*name="c-0-cpu_request"[^>]*>', html)
    assert typed and 'value="12"' in typed.group(0)
    assert "action=" not in response["HX-Replace-Url"]


def test_button_without_javascript_redirects_to_the_canonical_url(client: Client) -> None:
    design = preset_design("training")
    response = client.get("/?" + query_for(design, action="add-init"))
    assert response.status_code == 302
    follow = client.get(response["Location"])
    assert 'name="c-1-role"' in follow.content.decode()


def test_download_is_an_attachment_identical_to_the_preview(client: Client) -> None:
    design = preset_design("inference")
    query = query_for(design)
    page = client.get("/?" + query).content.decode()
    response = client.get("/export.yaml?" + query)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="inference.yaml"'
    assert response.content.decode() == preview_of(page)


def test_download_is_refused_while_the_design_has_errors(client: Client) -> None:
    design = preset_design("inference")
    response = client.get("/export.yaml?" + query_for(design, **{"c-0-gpus": "0.5"}))
    assert response.status_code == 409


def test_share_link_reproduces_the_design_and_is_stable(client: Client) -> None:
    design = preset_design("batch")
    data = design_query(design)
    first = client.post("/share", data)
    second = client.post("/share", data)
    assert first.status_code == 302
    assert first["Location"] == second["Location"]
    assert re.fullmatch(r"/s/[0-9a-f]{12}", first["Location"])
    shared = client.get(first["Location"]).content.decode()
    direct = client.get("/?" + urlencode(data)).content.decode()
    assert preview_of(shared) == preview_of(direct)


def test_share_over_htmx_returns_the_link(client: Client) -> None:
    response = client.post("/share", design_query(preset_design("batch")), **HTMX_DESIGNER)
    assert re.search(r'href="http://testserver/s/[0-9a-f]{12}"', response.content.decode())


@pytest.mark.parametrize("share_id", ["000000000000", "nothex", "../../etc", "a" * 500])
def test_unknown_or_tampered_share_links_give_a_friendly_404(client: Client, share_id: str) -> None:
    response = client.get(f"/s/{share_id}")
    assert response.status_code == 404
    assert "Start a new design" in response.content.decode()


def test_share_requires_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/share", design_query(preset_design("batch")))
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("changes", "slot", "says"),
    [
        (
            {"c-0-cpu_request": "1e999999999"},
            "err-id_c-0-cpu_request",
            "less than or equal to cpu limit",
        ),
        (
            {"c-0-cpu_request": "9" * 100},
            "err-id_c-0-cpu_request",
            "less than or equal to cpu limit",
        ),
        ({"c-0-memory_limit": "9" * 5000}, "err-id_c-0-memory_limit", "at most 100 characters"),
        ({"name": "<script>alert(1)</script>"}, "err-id_name", "RFC 1123 subdomain"),
        ({"c-0-name": "日本語の名前"}, "err-id_c-0-name", "RFC 1123 label"),
        ({"c-TOTAL_FORMS": "5000"}, "err-pod", "at most 40"),
        ({"c-TOTAL_FORMS": "-1"}, "err-pod", "at least one app container"),
        ({"c-TOTAL_FORMS": "abc"}, "err-pod", "at least one app container"),
        ({"base": "not-base64!!"}, "err-pod", "damaged and cannot be read"),
        ({"c-0-base": "eJzLSM3JyQcABiwCFQ"}, "err-pod", "damaged and cannot be read"),
        ({"base": encode_blob({"spec": "not a mapping"})}, "err-pod", "do not form a Pod"),
        (
            {"base": encode_blob({"spec": {"volumes": "x", "tolerations": 5}})},
            "err-pod",
            "do not form a Pod",
        ),
        (
            {"c-0-base": encode_blob({"resources": [], "volumeMounts": "x"})},
            "err-pod",
            "do not form a Pod",
        ),
        ({"labels": "no equals sign"}, "err-id_labels", "is not key=value"),
        ({"workload": "quantum"}, "err-pod", "quantum"),
        ({"c-0-command": "python 'unclosed"}, "err-id_c-0-command", "quote in the command"),
        ({"c-0-extra": "hugepages-2Mi"}, "err-id_c-0-extra", "is not key=value"),
    ],
)
def test_bad_input_gives_a_message_at_its_field_never_a_500(
    client: Client, changes: dict, slot: str, says: str
) -> None:
    design = preset_design("training")
    response = client.get("/?" + query_for(design, **changes))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html
    found = re.search(rf'<div class="messages" id="{slot}"[^>]*>(.*?)</div>', html, re.S)
    assert found, f"no slot {slot}"
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", found.group(1)))
    assert "Error:" in text and says in text, text


def test_script_tags_in_names_are_escaped_in_the_yaml_preview(client: Client) -> None:
    design = preset_design("training")
    html = client.get("/?" + query_for(design, name="<b>x</b>")).content.decode()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_security_headers_are_set(client: Client) -> None:
    response = client.get("/")
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_memory_headroom_proposal_is_shown_and_applied_to_the_main_container(
    client: Client,
) -> None:
    design = preset_design("inference")
    design.headroom.peak = "12Gi"
    html = client.get("/?" + query_for(design)).content.decode()
    assert "Proposed memory limit" in html and "15Gi" in html
    response = client.get("/?" + query_for(design, action="headroom"), **HTMX_DESIGNER)
    applied = response.content.decode()
    # Requests equalled limits (Guaranteed), so both move and the pod stays Guaranteed.
    assert 'name="c-0-memory_limit" value="15Gi"' in applied
    assert 'name="c-0-memory_request" value="15Gi"' in applied
    assert qos_of(applied) == "Guaranteed"


def test_choosing_mig_mixed_sets_the_profile_resource_on_the_gpu_container(client: Client) -> None:
    design = preset_design("inference")
    query = query_for(
        design, gpu_mode="mig-mixed", gpu_model="h100-80gb", gpu_memory_gb="20", action="gpu"
    )
    html = client.get("/?" + query, **HTMX_DESIGNER).content.decode()
    assert 'value="nvidia.com/mig-1g.20gb"' in html
    assert "nvidia.com/mig-1g.20gb:" in preview_of(html)


def test_a_pasted_node_that_is_not_yaml_is_an_error_at_the_node_field(client: Client) -> None:
    design = preset_design("inference")
    html = client.get(
        "/?" + query_for(design, node_source="manifest", node_manifest="kind: [oops")
    ).content.decode()
    slot = re.search(r'id="err-id_node_manifest"[^>]*>(.*?)</div>', html, re.S)
    assert slot and "line" in slot.group(1)


def test_export_settings_travel_in_the_url_and_change_the_preview(client: Client) -> None:
    design = preset_design("inference")
    query = query_for(
        design, export_kind="Deployment", export_hpa="on", export_hpa_min="3", export_hpa_max="2"
    )
    html = client.get("/?" + query).content.decode()
    kinds = [doc["kind"] for doc in yaml.safe_load_all(preview_of(html))]
    assert kinds == ["Deployment", "HorizontalPodAutoscaler"]
    slot = re.search(r'id="err-id_export_hpa_max"[^>]*>(.*?)</div>', html, re.S)
    assert slot and "minReplicas" in slot.group(1)


@pytest.mark.parametrize(
    "workload", ["training", "distributed", "inference", "batch", "preprocessing"]
)
def test_a_deep_link_to_a_workload_type_starts_from_its_preset(
    client: Client, workload: str
) -> None:
    html = client.get(f"/?workload={workload}").content.decode()
    assert qos_of(html) in {"Guaranteed", "Burstable", "BestEffort"}
    assert yaml.safe_load_all(preview_of(html))
    assert f'<option value="{workload}" selected>' in html


def test_the_only_app_container_cannot_be_removed(client: Client) -> None:
    design = preset_design("training")
    html = client.get("/?" + query_for(design, action="remove-0"), **HTMX_DESIGNER).content.decode()
    assert 'name="c-0-name"' in html
    assert 'value="remove-0"' not in html
    assert qos_of(html) == "Guaranteed"


def test_valueless_api_errors_read_as_the_api_server_prints_them(client: Client) -> None:
    design = preset_design("training")
    html = client.get("/?" + query_for(design, **{"c-0-image": ""})).content.decode()
    assert "Required value" in html.split('class="errors"')[1].split("</ul>")[0]


def test_a_headroom_limit_below_the_request_brings_the_request_down(client: Client) -> None:
    design = preset_design("batch")  # request 8Gi, limit 16Gi
    design.headroom.peak = "2Gi"
    html = client.get("/?" + query_for(design, action="headroom"), **HTMX_DESIGNER).content.decode()
    assert 'name="c-0-memory_limit" value="2560Mi"' in html
    assert 'name="c-0-memory_request" value="2560Mi"' in html
    assert "No errors" in html


def test_out_of_band_slots_exist_only_for_fields_on_the_page(client: Client) -> None:
    design = preset_design("inference")
    html = client.get("/?" + query_for(design), **HTMX_RESULTS).content.decode()
    page = client.get("/?" + query_for(design)).content.decode()
    for slot in re.findall(r'id="(err-[^"]+)" hx-swap-oob="innerHTML"', html):
        assert f'id="{slot}"' in page, slot


def test_an_unreadable_memory_is_not_shown_as_no_memory_in_the_node_panel(client: Client) -> None:
    # Issue 16: memory 8GB made the node panel say "requests no memory ... among the first
    # evicted" and print None in its table.
    design = preset_design("training")
    query = query_for(design, **{"c-0-memory_request": "8GB", "c-0-memory_limit": "8GB"})
    html = client.get("/?" + query).content.decode()
    panel = re.search(r'<div class="card" id="node-view">(.*?)</table>', html, re.S)
    assert panel
    text = panel.group(1)
    assert "requests no memory" not in text
    assert "The eviction order cannot be worked out" in text
    assert "8GB" in text and ">None<" not in text


def test_the_mig_single_example_fits_11_pods_on_the_page(client: Client) -> None:
    design = preset_design("training")
    query = query_for(
        design,
        gpu_mode="mig-single",
        gpu_model="h100-80gb",
        gpu_profile="1g.10gb",
        node_source="catalog",
        node_catalog_id="p5.48xlarge",
    )
    html = client.get("/?" + query).content.decode()
    assert 'data-pods-per-node="11"' in html
    assert "bottleneck: <code>cpu</code>" in html
    assert "56 in all" in html


def test_a_profile_picked_by_hand_is_kept_and_the_memory_need_is_flagged(client: Client) -> None:
    design = preset_design("inference")
    query = query_for(
        design,
        gpu_mode="mig-mixed",
        gpu_model="h100-80gb",
        gpu_profile="1g.10gb",
        gpu_memory_gb="20",
        action="gpu",
    )
    html = client.get("/?" + query, **HTMX_DESIGNER).content.decode()
    assert "nvidia.com/mig-1g.10gb:" in preview_of(html)
    slot = re.search(r'id="err-id_gpu_memory_gb"[^>]*>(.*?)</div>', html, re.S)
    assert slot and "less than the 20 GB needed" in slot.group(1)
