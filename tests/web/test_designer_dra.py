"""The designer page's DRA claim (issue 13): the GPU section offers a claim beside the device
plugin, every problem shows beside its field, the YAML holds the ResourceClaimTemplate, the
node panel fits the claim on pasted ResourceSlices, and the address, the share link and the
form without JavaScript all carry the choice."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
import yaml
from django.http import QueryDict
from django.test import Client

from designer.forms import design_from_query, design_query
from designer.k8s.design import (
    ADD_ALTERNATIVE,
    REMOVE_ALTERNATIVE,
    ContainerDesign,
    Design,
    preset_design,
)

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
HTMX_DESIGNER = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "designer"}
DATA = Path(__file__).resolve().parents[1] / "k8s" / "data"
H100 = (DATA / "resourceslice_h100x8.yaml").read_text()


def dra_design(gpu: dict[str, Any] | None = None, **design: Any) -> Design:
    return Design.model_validate(
        {"workload": "training", "gpu": {"mode": "dra", **(gpu or {})}, **design}
    )


def url(design: Design, **changes: str) -> str:
    query = design_query(design)
    query.update(changes)
    return "/?" + urlencode(query)


def preview_of(html: str) -> str:
    match = re.search(r'<pre id="manifest-yaml"[^>]*>(.*?)</pre>', html, re.S)
    assert match, "the page shows no YAML preview"
    return html_lib.unescape(match.group(1))


def slot(html: str, slot_id: str) -> str:
    match = re.search(
        rf'<div class="messages" id="{re.escape(slot_id)}"[^>]*>(.*?)</div>', html, re.S
    )
    assert match, f"no slot {slot_id}"
    return html_lib.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def card(html: str, card_id: str) -> str:
    match = re.search(rf'<div class="[^"]*" id="{card_id}">(.*?)\n    </div>', html, re.S)
    assert match, f"no {card_id}"
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(1))))


def test_switching_to_a_dra_claim_shows_its_fields_and_the_claim_template(
    client: Client,
) -> None:
    plugin = client.get("/").content.decode()
    assert 'name="gpu_source" value="plugin"' in plugin and 'id="id_gpu_mode"' in plugin
    assert 'id="dra-claim"' not in plugin
    # The radio button re-renders the designer (action "gpu") with the claim's fields.
    html = client.get(
        url(preset_design("training"), gpu_source="dra", action="gpu"), **HTMX_DESIGNER
    ).content.decode()
    assert 'id="dra-claim"' in html
    assert re.search(r'value="dra"[^>]*checked|checked[^>]*value="dra"', html)
    for name in ("device_class", "count", "product", "min_memory", "mig_profile", "selectors"):
        assert f'id="id_gpu_{name}"' in html, name
    assert 'id="id_gpu_mode"' not in html  # the device plugin's sharing modes do not apply
    kinds = [d["kind"] for d in yaml.safe_load_all(preview_of(html))]
    assert kinds == ["ResourceClaimTemplate", "Pod"]
    claims = card(html, "gpu-claims")
    assert "ResourceClaimTemplate trainer-gpu" in claims
    assert "Claims do not count toward the QoS class" in claims
    # The claims' lines are with the claims, not repeated under the YAML.
    assert html.count("Claims do not count toward the QoS class") == 1
    assert 'data-qos-class="Guaranteed"' in html


def test_allocation_mode_all_hides_the_count(client: Client) -> None:
    html = client.get(url(dra_design({"allocation_mode": "All"}))).content.decode()
    assert 'id="id_gpu_count"' not in html
    assert "all matching (All)" in card(html, "gpu-claims")
    assert "allocationMode: All" in preview_of(html)


@pytest.mark.parametrize(
    ("gpu", "slot_id", "text"),
    [
        ({"device_class": "GPU!"}, "err-id_gpu_device_class", "A DeviceClass name is a DNS"),
        ({"count": "1.5"}, "err-id_gpu_count", "The number of devices must be a whole number"),
        ({"min_memory": "forty"}, "err-id_gpu_min_memory", "Memory must be a size such as 40Gi"),
        (
            {"selectors": ["true", "device.attributes["]},
            "err-id_gpu_selectors",
            "Selector 2: The API server refuses this selector",
        ),
        ({"shared_by": ["nobody"]}, "err-id_gpu_shared_by", "The pod has no container named"),
        (
            {"first_available": [{"count": "0"}]},
            "err-id_gpu_first_available-0-count",
            "The number of devices must be a whole number",
        ),
        (
            {"first_available": [{"device_class": ""}]},
            "err-id_gpu_first_available-0-device_class",
            "must not be empty",
        ),
        (
            {"first_available": [{}, {"selectors": ["1 +"]}]},
            "err-id_gpu_first_available-1-selectors",
            "Selector 1: The API server refuses this selector",
        ),
        (
            {"mig_profile": "1g.10gb"},
            "err-id_gpu_mig_profile",
            "Hint: Only MIG devices have a profile",
        ),
    ],
)
def test_every_claim_problem_is_shown_beside_its_field(
    client: Client, gpu: dict[str, Any], slot_id: str, text: str
) -> None:
    design = dra_design(gpu)
    page = client.get(url(design)).content.decode()
    assert text in slot(page, slot_id)
    # The live update refreshes the same slot (out of band), from the fast path.
    live = client.get(url(design), **HTMX_RESULTS).content.decode()
    assert f'id="{slot_id}" hx-swap-oob="innerHTML"' in live
    assert text in slot(live, slot_id)


def test_the_api_servers_error_on_the_template_is_at_the_claims_field(client: Client) -> None:
    html = client.get(url(dra_design({"device_class": "GPU!"}))).content.decode()
    messages = slot(html, "err-id_gpu_device_class")
    assert "ResourceClaimTemplate spec.spec.devices.requests[0].exactly.deviceClassName" in messages
    assert "Download is disabled while the design has errors" in html


def test_the_gpu_containers_count_is_explained_as_the_claims(client: Client) -> None:
    html = client.get(url(dra_design())).content.decode()
    assert "this field is that count" in slot(html, "err-id_c-0-gpus")


def test_out_of_band_slots_of_a_dra_design_exist_on_the_page(client: Client) -> None:
    design = dra_design(
        {"first_available": [{"count": "1"}]},
        node={"source": "catalog", "catalog_id": "p5.48xlarge"},
    )
    live = client.get(url(design), **HTMX_RESULTS).content.decode()
    page = client.get(url(design)).content.decode()
    slots = re.findall(r'id="(err-[^"]+)" hx-swap-oob="innerHTML"', live)
    assert "err-id_gpu_first_available-0-selectors" in slots
    assert "err-id_node_resource_slices" in slots and "err-id_gpu_source" in slots
    for slot_id in slots:
        assert f'id="{slot_id}"' in page, slot_id


FULL = {
    "device_class": "gpu.nvidia.com",
    "count": "2",
    "product": "NVIDIA H100 80GB HBM3",
    "min_memory": "40Gi",
    "selectors": ["device.attributes['gpu.nvidia.com'].architecture == 'Hopper'"],
    "first_available": [
        {"device_class": "mig.nvidia.com", "count": "1", "mig_profile": "3g.40gb"},
        {"device_class": "gpu.nvidia.com", "count": "1", "selectors": ["true", "1 == 1"]},
    ],
    "shared_by": ["logger"],
    "claim_source": "claim",
}


def full_design() -> Design:
    design = dra_design(FULL)
    design.containers.append(
        ContainerDesign(role="sidecar", name="logger", image="busybox", cpu_request="100m")
    )
    return design


def test_the_address_bar_carries_the_whole_dra_choice_and_reads_back(client: Client) -> None:
    design = full_design()
    response = client.get(url(design), **HTMX_RESULTS)
    address = response["HX-Replace-Url"]
    query = QueryDict(urlsplit(address).query)
    back = design_from_query(query)
    assert back is not None
    assert back.gpu == design.gpu
    # The page itself shows every value as the form will submit it again.
    page = client.get(address).content.decode()
    assert 'value="NVIDIA H100 80GB HBM3"' in page
    assert "architecture == &#x27;Hopper&#x27;</textarea>" in page
    assert re.search(r'name="gpu_shared_by" value="logger"[^>]*checked', page)
    assert re.search(r'name="gpu_claim_source" value="claim"[^>]*checked', page)
    assert 'name="gpu_first_available-1-count"' in page
    assert "true\n1 == 1</textarea>" in page
    assert "kind: ResourceClaim\n" in preview_of(page)


def test_a_device_plugin_designs_address_has_no_claim_fields() -> None:
    query = design_query(preset_design("training"))
    assert not [k for k in query if k.startswith(("gpu_device", "gpu_first", "gpu_source"))]
    assert query["gpu_mode"] == "whole"


def test_the_share_link_keeps_the_dra_choice(client: Client) -> None:
    design = full_design()
    data = design_query(design)
    shared = client.post("/share", data)
    assert shared.status_code == 302
    page = client.get(shared["Location"]).content.decode()
    direct = client.get("/?" + urlencode(data)).content.decode()
    assert preview_of(page) == preview_of(direct)
    assert "kind: ResourceClaim\n" in preview_of(page)
    assert 'value="dra" checked' in page or re.search(r'value="dra"[^>]*checked', page)


def test_the_download_holds_the_claim_template_before_the_deployment(client: Client) -> None:
    design = dra_design(
        {"min_memory": "40"},
        export={"kind": "Deployment"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "resource_slices": H100},
    )
    page = client.get(url(design)).content.decode()
    link = re.search(r'<a class="button" download="[^"]*" href="([^"]+)"', page)
    assert link
    href = html_lib.unescape(link.group(1))
    # The pasted slices stay out of the download's address (they do not change the YAML).
    assert "node_resource_slices" not in href and len(href) < 3000
    download = client.get(href)
    assert download.status_code == 200
    assert download.content.decode() == preview_of(page)
    kinds = [d["kind"] for d in yaml.safe_load_all(download.content)]
    assert kinds == ["ResourceClaimTemplate", "Deployment"]


def test_pasted_resource_slices_show_which_devices_the_claim_gets(client: Client) -> None:
    design = dra_design(
        {"min_memory": "40Gi"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "resource_slices": H100},
    )
    html = client.get(url(design)).content.decode()
    assert 'id="id_node_resource_slices"' in html
    fit = card(html, "node-fit")
    assert "4 pods fit per node" in fit and "resourceClaims" in fit
    assert "Node ip-10-0-180-136.ec2.internal : its ResourceSlices publish 8 devices." in fit
    assert re.search(r'data-matching="8"', html)
    assert "gpu-0, gpu-1" in fit


def test_resource_slices_that_cannot_be_read_are_an_error_at_their_field(client: Client) -> None:
    design = dra_design(
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "resource_slices": "kind: Node"}
    )
    html = client.get(url(design), **HTMX_RESULTS).content.decode()
    assert "Node is not a resource.k8s.io object" in slot(html, "err-id_node_resource_slices")


def test_the_resource_slices_field_is_only_there_for_a_claim(client: Client) -> None:
    node = {"source": "catalog", "catalog_id": "p5.48xlarge"}
    plugin = preset_design("training").model_copy(update={"node": dra_design(node=node).node})
    assert 'id="id_node_resource_slices"' not in client.get(url(plugin)).content.decode()
    assert 'id="id_node_resource_slices"' in client.get(url(dra_design(node=node))).content.decode()


def test_containers_that_can_share_the_claim_are_offered_and_sharing_reaches_the_yaml(
    client: Client,
) -> None:
    design = dra_design()
    design.containers.append(ContainerDesign(role="sidecar", name="logger", image="busybox"))
    html = client.get(url(design)).content.decode()
    assert 'name="gpu_shared_by" value="logger"' in html
    assert 'name="gpu_shared_by" value="main"' not in html  # the claim's own container
    # Checking the box (the form submits the name as its own value) shares the claim.
    query = design_query(design)
    query["gpu_shared_by"] = "logger"
    shared = client.get("/?" + urlencode(query)).content.decode()
    pod = list(yaml.safe_load_all(preview_of(shared)))[-1]
    assert pod["spec"]["initContainers"][0]["resources"]["claims"] == [{"name": "gpu"}]
    assert "Containers main, logger share claim gpu" in card(shared, "gpu-claims")


def test_without_javascript_the_buttons_apply_the_claim_and_its_alternatives(
    client: Client,
) -> None:
    # The GET form submits the radio and "Apply GPU choice": the canonical address follows.
    response = client.get(url(preset_design("training"), gpu_source="dra", action="gpu"))
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert 'id="dra-claim"' in page and "ResourceClaimTemplate" in preview_of(page)
    query = dict(parse_qsl(urlsplit(response["Location"]).query, keep_blank_values=True))
    query["action"] = ADD_ALTERNATIVE
    added = client.get("/?" + urlencode(query))
    assert added.status_code == 302
    page = client.get(added["Location"]).content.decode()
    assert "Alternative 1" in page and 'name="gpu_first_available-0-device_class"' in page
    assert "firstAvailable:" in preview_of(page)
    query = dict(parse_qsl(urlsplit(added["Location"]).query, keep_blank_values=True))
    query["action"] = f"{REMOVE_ALTERNATIVE}0"
    removed = client.get(client.get("/?" + urlencode(query))["Location"]).content.decode()
    assert "Alternative 1" not in removed and "firstAvailable:" not in preview_of(removed)


def test_a_form_error_keeps_the_claims_fields_as_typed(client: Client) -> None:
    query = design_query(dra_design({"min_memory": "48Gi"}))
    query["labels"] = "not a pair"
    html = client.get("/?" + urlencode(query)).content.decode()
    assert "is not key=value" in html
    assert 'id="dra-claim"' in html and 'value="48Gi"' in html


def test_too_many_alternatives_are_a_form_error_at_the_alternatives(client: Client) -> None:
    query = design_query(dra_design())
    for i in range(9):
        query[f"gpu_first_available-{i}-count"] = "1"
    html = client.get("/?" + urlencode(query), **HTMX_RESULTS).content.decode()
    assert "At most 7 alternatives." in html
    page = client.get("/?" + urlencode(query)).content.decode()
    assert "At most 7 alternatives." in slot(page, "err-id_gpu_first_available")


def test_the_dra_block_speaks_chinese_and_the_yaml_stays_the_same(client: Client) -> None:
    design = dra_design(
        {"min_memory": "40Gi"},
        node={"source": "catalog", "catalog_id": "p5.48xlarge", "resource_slices": H100},
    )
    english = client.get(url(design)).content.decode()
    chinese = client.get(url(design), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert preview_of(english) == preview_of(chinese)
    block = re.search(r'<div class="dra" id="dra-claim">(.*?)<datalist', chinese, re.S)
    assert block
    labels = re.findall(r"<(?:label|legend)[^>]*>([^<]+)<", block.group(1))
    untranslated = [t for t in labels if t.strip() and not re.search(r"[\u4e00-\u9fff]", t)]
    # Kubernetes' and NVIDIA's own terms stay as they print them.
    assert set(untranslated) <= {"DeviceClass", "MIG profile"}, untranslated
    for card_id in ("gpu-claims", "node-fit"):
        text = card(chinese, card_id)
        assert re.search(r"[\u4e00-\u9fff]", text), card_id
        assert "Claims do not count" not in text and "its ResourceSlices publish" not in text


def test_switching_back_to_the_device_plugin_requests_nvidia_gpu_again(client: Client) -> None:
    query = design_query(dra_design({"min_memory": "40Gi"}))
    query.update(gpu_source="plugin", action="gpu")
    html = client.get("/?" + urlencode(query), **HTMX_DESIGNER).content.decode()
    (pod,) = yaml.safe_load_all(preview_of(html))
    assert pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert "resourceClaims" not in pod["spec"]
    assert 'id="dra-claim"' not in html and 'id="id_gpu_mode"' in html
