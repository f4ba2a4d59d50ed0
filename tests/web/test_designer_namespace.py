"""The designer's Namespace policy panel and Kubernetes version picker (issue #12): every
result after admission, the messages beside the panel and the fields, the page state in the
address and in share links, no JavaScript needed."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import yaml
from django.http import QueryDict
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from designer.forms import (
    MAX_POLICY_CHARS,
    Cluster,
    ClusterForm,
    cluster_from_forms,
    cluster_from_query,
    design_query,
)
from designer.k8s.apiserver import SUPPORTED_VERSIONS
from designer.k8s.check import check_texts
from designer.k8s.design import ContainerDesign, Design
from designer.models import SharedCluster, SharedDesign

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}

DEFAULTS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 100m, memory: 256Mi}
"""
CPU_LIMIT_QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: team}
spec:
  hard: {limits.cpu: "64"}
"""
INVALID = """\
apiVersion: v1
kind: LimitRange
metadata: {name: bad, namespace: team}
spec:
  limits:
  - type: Pod
    default: {cpu: "1"}
"""


def best_effort(**fields: str) -> Design:
    container = ContainerDesign(name="main", image="pytorch/pytorch", **fields)
    return Design(name="trainer", containers=[container])


def page(client: Client, design: Design, htmx: bool = False, **cluster: str) -> str:
    query = urlencode({**design_query(design), **cluster})
    response = client.get(f"/?{query}", **(HTMX_RESULTS if htmx else {}))
    assert response.status_code == 200
    return response.content.decode()


def qos_of(html: str) -> str:
    match = re.search(r'data-qos-class="([^"]*)"', html)
    assert match
    return match.group(1)


def slot(html: str, slot_id: str) -> str:
    match = re.search(rf'<div class="messages" id="{slot_id}"[^>]*>(.*?)</div>', html, re.S)
    assert match, f"no slot {slot_id}"
    return html_lib.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def text_of(html: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_without_javascript_a_pasted_limit_range_shows_the_admitted_pod(client: Client) -> None:
    html = page(client, best_effort(), namespace_policy=DEFAULTS, kubernetes_version="1.35")
    assert qos_of(html) == "Burstable"
    text = text_of(html)
    assert (
        "written as BestEffort; admitted as Burstable because LimitRange/defaults sets cpu and "
        "memory" in text
    )
    assert "Admission in namespace team" in text
    assert "spec.containers[0].resources.limits[memory]: 512Mi" in text
    assert (
        "kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request for container "
        "main; cpu, memory limit for container main" in text
    )
    # Beside the fields LimitRanger fills; the scheduler's table is the admitted pod's.
    assert "On admission, LimitRange/defaults sets 512Mi here." in slot(
        html, "err-id_c-0-memory_limit"
    )
    assert re.search(r"<code>cpu</code></th><td>100m</td><td>500m</td>", html)
    assert "LimitRanger adds 4 values to it" in text
    # The textarea keeps the text, and the form posts (a policy is longer than a request
    # line may be: tests/web/test_addresses.py) with its CSRF token.
    assert html_lib.escape(DEFAULTS).split("\n")[0] in html
    assert re.search(r'<form id="design-form"[^>]*method="post"', html)
    form = html[html.index('<form id="design-form"') :]
    assert 'name="csrfmiddlewaretoken"' in form[: form.index("</form>")]


def test_the_live_update_answers_after_admission_and_refreshes_the_panels_slot(
    client: Client,
) -> None:
    response = client.get(
        "/?" + urlencode({**design_query(best_effort()), "namespace_policy": INVALID}),
        **HTMX_RESULTS,
    )
    html = response.content.decode()
    assert "<form" not in html.split('id="results"', 1)[0]  # the results panel only
    assert qos_of(html) == "BestEffort"  # the invalid LimitRange is not applied
    message = slot(html, "err-id_namespace_policy")
    assert 'LimitRange "bad" is invalid: ' in message
    assert "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'" in message
    query = parse_qs(urlsplit(response["HX-Replace-Url"]).query)
    assert query["namespace_policy"] == [INVALID]
    assert query["kubernetes_version"] == ["1.35"]


def test_a_quota_denial_shows_the_api_servers_exact_message(client: Client) -> None:
    html = page(client, best_effort(cpu_request="1"), namespace_policy=CPU_LIMIT_QUOTA)
    text = text_of(html)
    assert "No errors: the API server accepts this pod." in text  # its validation
    assert "Admission in namespace team refuses it: see below." in text
    assert 'data-admission="denied"' in html
    assert (
        'pods "trainer" is forbidden: failed quota: compute: must specify limits.cpu for: main'
        in text
    )
    assert "in namespace team the API server refuses it" in text  # the YAML's note


def test_a_policy_for_another_namespace_is_named_not_applied(client: Client) -> None:
    design = best_effort()
    design.namespace = "prod"
    html = page(client, design, namespace_policy=DEFAULTS)
    assert qos_of(html) == "BestEffort"
    assert "The pasted objects of namespace team do not apply: this pod is in namespace prod." in (
        slot(html, "err-id_namespace_policy")
    )
    assert 'data-admission="none"' in html


def test_objects_the_panel_does_not_read_are_named(client: Client) -> None:
    text = DEFAULTS + "---\nkind: ConfigMap\nmetadata: {name: settings}\n---\nkind: [\n"
    message = slot(page(client, best_effort(), namespace_policy=text), "err-id_namespace_policy")
    assert "Document 1: ConfigMap settings is not read here" in message
    assert "Document 2 cannot be read:" in message


def test_the_version_picker_answers_for_the_version_shown(client: Client) -> None:
    design = best_effort()
    both = {"cpu": "1", "memory": "1Gi"}
    design.base = {"spec": {"resources": {"requests": both, "limits": both}}}
    new = page(client, design, kubernetes_version="1.34")
    old = page(client, design, kubernetes_version="1.33")
    assert qos_of(new) == "Guaranteed" and qos_of(old) == "BestEffort"
    assert "On Kubernetes 1.33" in text_of(old) and "On Kubernetes 1.34" not in text_of(new)
    assert re.search(r'<option value="1.33" selected>1.33</option>', old)
    # Without a version the page answers for the default, the newest: 1.35.
    assert re.search(r'<option value="1.35" selected>1.35</option>', page(client, design))


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_the_designer_and_podspec_check_agree_for_the_downloaded_yaml(
    client: Client, version: str
) -> None:
    design = best_effort(cpu_request="250m", memory_limit="1Gi")
    design.namespace = "team"
    query = {**design_query(design), "kubernetes_version": version, "namespace_policy": DEFAULTS}
    html = client.get("/?" + urlencode(query)).content.decode()
    downloaded = client.get("/export.yaml?" + urlencode(query)).content.decode()
    (checked,) = check_texts(
        [("pod.yaml", downloaded + "---\n" + DEFAULTS)], kubernetes_version=version
    )["objects"]
    assert qos_of(html) == checked["admission"]["qosClass"]
    assert yaml.safe_load(downloaded)["kind"] == "Pod"


def test_a_bad_version_in_the_address_is_named_and_the_default_answers(client: Client) -> None:
    html = page(client, best_effort(), kubernetes_version="1.20")
    assert "Select a valid choice. 1.20 is not one of the available choices." in slot(
        html, "err-id_kubernetes_version"
    )
    assert qos_of(html) == "BestEffort"


def test_a_policy_too_long_for_an_address_is_refused_at_the_field(client: Client) -> None:
    long_text = DEFAULTS + "#" * MAX_POLICY_CHARS
    html = page(client, best_effort(), namespace_policy=long_text)
    assert "Ensure this value has at most" in slot(html, "err-id_namespace_policy")
    assert qos_of(html) == "BestEffort"  # not applied


def test_a_share_link_keeps_the_version_and_the_policy(client: Client) -> None:
    data = {
        **design_query(best_effort()),
        "kubernetes_version": "1.33",
        "namespace_policy": DEFAULTS,
    }
    first = client.post("/share", data)
    second = client.post("/share", data)
    assert first.status_code == 302 and first["Location"] == second["Location"]
    html = client.get(first["Location"]).content.decode()
    assert qos_of(html) == "Burstable"
    assert re.search(r'<option value="1.33" selected>1.33</option>', html)
    assert html_lib.escape(DEFAULTS.split("\n")[2]) in html
    # Another version is another link; the design is stored once.
    other = client.post("/share", {**data, "kubernetes_version": "1.34"})
    assert other["Location"] != first["Location"]
    assert SharedDesign.objects.count() == 1 and SharedCluster.objects.count() == 2


def test_links_made_before_the_cluster_was_kept_still_open(client: Client) -> None:
    shared = SharedDesign.save_design(best_effort())  # how share links were stored before
    response = client.get(f"/s/{shared.id}")
    assert response.status_code == 200
    html = response.content.decode()
    assert qos_of(html) == "BestEffort"
    assert re.search(r'<option value="1.35" selected>1.35</option>', html)


class ClusterFastPathTests(TestCase):
    """The live update's fast path reads the cluster as the form does."""

    @settings(max_examples=150, deadline=None)
    @given(
        version=st.one_of(st.sampled_from([*SUPPORTED_VERSIONS, "", "1.20", "v1.33"]), st.text()),
        policy=st.one_of(st.just(DEFAULTS), st.text(max_size=40)),
        present=st.booleans(),
    )
    def test_cluster_from_query_agrees_with_the_form(
        self, version: str, policy: str, present: bool
    ) -> None:
        data = QueryDict(mutable=True)
        data["kubernetes_version"] = version
        if present:
            data["namespace_policy"] = policy
        form = ClusterForm(data)
        fast = cluster_from_query(data)
        if form.is_valid():
            assert fast == cluster_from_forms(form)
        else:
            assert fast is None
            assert isinstance(cluster_from_forms(form), Cluster)
