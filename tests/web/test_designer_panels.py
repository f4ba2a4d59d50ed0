"""The node, GPU and result panels of the page: MIG-aware node fields beside their problems, the
model's MIG profiles only, panels that say what they cannot compute, advice users need, errors
tied to their inputs (issue 16, items 1, 2, 5, 6, 7 and accessibility)."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import urlencode

import pytest
from django.test import Client

from designer.forms import design_query
from designer.k8s.design import Design, preset_design

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}


def page(client: Client, design: Design, **changes: str) -> str:
    query = design_query(design)
    query.update(changes)
    return client.get("/?" + urlencode(query)).content.decode()


def slot(html: str, slot_id: str) -> str:
    match = re.search(rf'<div class="messages" id="{re.escape(slot_id)}"[^>]*>(.*?)</div>', html)
    assert match, f"no slot {slot_id}"
    return html_lib.unescape(match.group(1))


def options(html: str, select_id: str) -> list[str]:
    block = html.split(f'id="{select_id}"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([^"]*)"', block)


def card(html: str, card_id: str) -> str:
    return html_lib.unescape(html.split(f'id="{card_id}"', 1)[1].split('<div class="card', 1)[0])


def issue_example() -> Design:
    """Item 1: MIG single strategy, H100 80GB in 1g.10gb, p5.48xlarge, 16 CPU / 64Gi / 2."""
    design = preset_design("training")
    design.gpu.mode = "mig-single"
    design.gpu.model = "h100-80gb"
    design.gpu.profile = "1g.10gb"
    design.node.source = "catalog"
    design.node.catalog_id = "p5.48xlarge"
    return design


def test_node_fit_on_the_page_counts_the_mig_slices_the_node_advertises(client: Client) -> None:
    fit = card(page(client, issue_example()), "node-fit")
    assert "11 pods fit per node" in fit
    assert "bottleneck: <code>cpu</code>" in fit
    assert "MIG, single strategy" in fit and "56 in all" in fit


def test_the_mig_layout_field_shows_for_mixed_mode_with_its_problem_beside_it(
    client: Client,
) -> None:
    design = issue_example()
    design.gpu.mode = "mig-mixed"
    design.gpu.profile = "3g.40gb"
    design.node.mig_layout = "3g.40gb=3"
    html = page(client, design)
    assert 'name="node_mig_layout"' in html
    assert "do not fit" in slot(html, "err-id_node_mig_layout")
    assert 'name="node_gpu_replicas"' not in html
    # Without a layout the default is said beside the fit.
    design.node.mig_layout = ""
    assert "No MIG layout was given" in card(page(client, design), "node-fit")


def test_the_replicas_field_shows_for_time_slicing_with_its_problem_beside_it(
    client: Client,
) -> None:
    design = issue_example()
    design.gpu.mode = "time-slicing"
    design.gpu.profile = ""
    design.node.gpu_replicas = "lots"
    html = page(client, design)
    assert "must be a whole number" in slot(html, "err-id_node_gpu_replicas")
    assert 'name="node_mig_layout"' not in html


def test_a_pasted_node_says_beside_it_that_its_allocatable_is_used_as_it_is(
    client: Client,
) -> None:
    design = issue_example()
    design.node.source = "manifest"
    design.node.manifest = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n"
        "  allocatable: {cpu: '96', memory: 1000Gi, nvidia.com/gpu: '56', pods: '110'}\n"
    )
    html = page(client, design)
    assert "is used as it is" in slot(html, "err-id_node_manifest")
    assert 'name="node_mig_layout"' not in html


def test_the_kubelet_config_fields_reach_the_node_view(client: Client) -> None:
    html = page(client, preset_design("training"), node_cpu_cfs_quota="off")
    assert 'name="node_cpu_cfs_quota"' in html and 'name="node_cpu_cfs_quota_period"' in html
    assert "cpuCFSQuota: false" in card(html, "node-view")
    html = page(client, preset_design("training"), node_cpu_cfs_quota_period="2s")
    assert "between 1ms and 1sec" in slot(html, "err-id_node_cpu_cfs_quota_period")


def test_the_profile_list_has_only_the_chosen_models_profiles(client: Client) -> None:
    html = page(client, issue_example())
    profiles = options(html, "id_gpu_profile")
    assert "1g.10gb" in profiles and "7g.80gb" in profiles
    assert "1g.5gb" not in profiles  # an A100 40GB profile
    design = issue_example()
    design.gpu.profile = "1g.5gb"
    html = page(client, design)
    # A profile of another model stays shown, with the engine's message beside it.
    assert "1g.5gb" in options(html, "id_gpu_profile")
    assert "not a MIG profile of the NVIDIA H100 80GB" in slot(html, "err-id_gpu_profile")


def test_the_gpu_memory_help_says_a_picked_profile_wins(client: Client) -> None:
    html = page(client, issue_example())
    assert "Picks the smallest MIG profile that fits." not in html
    assert "a picked profile is kept" in html


def test_panels_that_cannot_compute_say_so(client: Client) -> None:
    design = issue_example()
    design.containers[0].memory_request = design.containers[0].memory_limit = "8GB"
    html = page(client, design)
    advice = card(html, "advice")
    assert "Advice on memory is withheld" in advice
    assert "0 GiB" not in advice
    assert "Cannot be worked out" in card(html, "node-fit")
    view = card(html, "node-view")
    assert "requests no memory" not in view
    assert "cannot be worked out" in view
    rows = html.split('<table class="resources">', 1)[1].split("</table>", 1)[0]
    assert "<code>memory</code></th><td>unknown</td><td>unknown</td>" in rows
    assert '<td class="unknown">unknown</td>' in view  # memory.max


def test_the_page_advises_on_dev_shm_above_the_limit_and_absurd_values(client: Client) -> None:
    design = preset_design("training")
    design.shm_size = "128Gi"
    design.containers[0].cpu_limit = "1e999"
    advice = card(page(client, design), "advice")
    assert "/dev/shm has a sizeLimit of 128Gi, above the pod's 64Gi memory limit." in advice
    assert "Not a real amount: spec.containers[0].resources.limits[cpu] (1e999)." in advice


def test_an_extended_resource_error_is_beside_other_resources_and_names_it(
    client: Client,
) -> None:
    html = page(client, preset_design("training"), **{"c-0-extra": "example.com/fpga=2/1"})
    text = slot(html, "err-id_c-0-extra")
    assert "example.com/fpga" in text and "must be equal to" in text
    assert "must be equal to" not in slot(html, "err-c-0")


def test_every_input_is_described_by_its_message_slot_and_help(client: Client) -> None:
    html = page(client, issue_example())
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    inputs = re.findall(r"<(?:input|select|textarea)\b[^>]*>", html)
    described = 0
    for tag in inputs:
        if 'type="hidden"' in tag or "aria-describedby" not in tag:
            continue
        refs = re.search(r'aria-describedby="([^"]*)"', tag).group(1).split()
        assert all(ref in ids for ref in refs), (tag, refs)
        own = re.search(r'\sid="([^"]+)"', tag).group(1)
        assert f"err-{own}" in refs
        described += 1
    assert described >= 20


def test_addresses_made_before_the_kubelet_fields_keep_their_meaning(client: Client) -> None:
    """node_cpu_cfs_quota=on is how every address since the kubelet config said the default;
    an address without it is the default too, and "off" turns the quota off."""
    design = preset_design("training")
    assert design_query(design)["node_cpu_cfs_quota"] == "on"
    for value, quota in (("on", "1600000 100000"), ("", "1600000 100000"), ("off", "max")):
        query = design_query(design)
        query["node_cpu_cfs_quota"] = value
        html = client.get("/?" + urlencode(query), **HTMX_RESULTS).content.decode()
        view = card(html, "node-view")
        assert f"<code>{quota}" in view, (value, view[:300])
