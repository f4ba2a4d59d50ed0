"""Long designer pages (issue #12): a pasted namespace policy makes the page's query longer
than a request line may be (gunicorn: 8,190 bytes), so the page's own requests are POSTs
and an address over designer.addresses.MAX_ADDRESS is a stored page, ``/?page=<id>``, that a
reload, a copied address and every replica open. The real server's side is in
tests/web/test_server_long_pages.py and tests/browser/test_long_address_browser.py."""

from __future__ import annotations

import html as html_lib
import json
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.db import DatabaseError
from django.test import Client

from designer.addresses import MAX_ADDRESS
from designer.forms import design_query
from designer.k8s.design import ContainerDesign, Design
from designer.models import StoredPage
from designer.store import PageStore
from tests.web.test_designer_namespace import DEFAULTS

pytestmark = pytest.mark.django_db

HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
PAGE_ADDRESS = re.compile(r"^/\?page=[0-9a-f]{20}$")


def kubectl_policy(quotas: int = 12) -> str:
    """``kubectl get limitrange,resourcequota -n team -o yaml`` as a real namespace gives it:
    the LimitRange plus quotas with their last-applied annotation and managed fields (what
    makes such output tens of kilobytes)."""
    items = [DEFAULTS]
    for i in range(quotas):
        applied = json.dumps(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"annotations": {}, "name": f"quota-{i}", "namespace": "team"},
                "spec": {"hard": {"count/configmaps": str(100 + i)}},
            },
            separators=(",", ":"),
        )
        items.append(
            f"""\
apiVersion: v1
kind: ResourceQuota
metadata:
  name: quota-{i}
  namespace: team
  uid: 6f0c1e2a-{i:04d}-4c1e-9d7a-1b2c3d4e5f60
  resourceVersion: "{1000 + i}"
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {applied}
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {{}}
          f:kubectl.kubernetes.io/last-applied-configuration: {{}}
      f:spec: {{f:hard: {{.: {{}}, f:count/configmaps: {{}}}}}}
    manager: kubectl-client-side-apply
    operation: Update
    time: "2026-11-30T10:00:00Z"
spec:
  hard: {{count/configmaps: "{100 + i}"}}
status:
  hard: {{count/configmaps: "{100 + i}"}}
  used: {{count/configmaps: "3"}}
"""
        )
    return "---\n".join(items)


LONG_POLICY = kubectl_policy()


def best_effort() -> Design:
    return Design(
        name="trainer", containers=[ContainerDesign(name="main", image="pytorch/pytorch")]
    )


def form_data(policy: str = "", **extra: str) -> dict[str, str]:
    data = {**design_query(best_effort()), "kubernetes_version": "1.35", **extra}
    if policy:
        data["namespace_policy"] = policy
    return data


def qos_of(html: str) -> str:
    match = re.search(r'data-qos-class="([^"]*)"', html)
    assert match
    return match.group(1)


@pytest.fixture
def browser_client() -> Client:
    """A client that checks CSRF tokens as a browser's requests are checked, holding the
    token the designer page gave it."""
    client = Client(enforce_csrf_checks=True)
    assert client.get("/").status_code == 200
    return client


def token(client: Client) -> str:
    return client.cookies["csrftoken"].value


def test_the_policy_makes_the_query_longer_than_a_request_line() -> None:
    assert len(urlencode(form_data(LONG_POLICY))) > 8190 > MAX_ADDRESS


def test_a_live_update_with_a_long_policy_is_a_post_and_its_address_a_stored_page(
    browser_client: Client,
) -> None:
    response = browser_client.post(
        "/", form_data(LONG_POLICY), HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert qos_of(html) == "Burstable"  # after LimitRange/defaults
    address = response["HX-Replace-Url"]
    assert PAGE_ADDRESS.match(address), address
    # The address opens the same page: the policy in its panel, the same answer.
    page = browser_client.get(address)
    assert page.status_code == 200
    html = page.content.decode()
    assert qos_of(html) == "Burstable"
    assert html_lib.escape(LONG_POLICY.split("\n")[-3]) in html
    # The same page always gets the same id; another page another.
    again = browser_client.post(
        "/", form_data(LONG_POLICY), HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert again["HX-Replace-Url"] == address
    other = browser_client.post(
        "/",
        form_data(LONG_POLICY, **{"c-0-cpu_request": "2"}),
        HTTP_X_CSRFTOKEN=token(browser_client),
        **HTMX_RESULTS,
    )
    assert PAGE_ADDRESS.match(other["HX-Replace-Url"])
    assert other["HX-Replace-Url"] != address
    assert StoredPage.objects.count() == 2


def test_a_short_page_keeps_its_whole_design_in_the_address(browser_client: Client) -> None:
    response = browser_client.post(
        "/", form_data(DEFAULTS), HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert response.status_code == 200
    query = parse_qs(urlsplit(response["HX-Replace-Url"]).query)
    assert query["namespace_policy"] == [DEFAULTS]
    assert "page" not in query
    assert StoredPage.objects.count() == 0


def test_a_post_without_the_csrf_token_is_refused_and_says_so_in_the_results(
    browser_client: Client,
) -> None:
    # htmx swaps no 403 by itself: the answer is marked for static/app.js and retargeted to
    # the results panel, with a link back to the address the browser shows.
    current = "http://testserver/?workload=inference"
    response = browser_client.post(
        "/", form_data(DEFAULTS), HTTP_HX_CURRENT_URL=current, **HTMX_RESULTS
    )
    assert response.status_code == 403
    assert response["X-Swap-Error"] == "true"
    assert response["HX-Retarget"] == "#results" and response["HX-Reswap"] == "outerHTML"
    html = html_lib.unescape(response.content.decode())
    assert '<section id="results"' in html and "The page expired" in html
    assert 'href="/?workload=inference"' in html
    # Another site's address is not linked to.
    response = browser_client.post(
        "/", form_data(), HTTP_HX_CURRENT_URL="https://evil.example/x", **HTMX_RESULTS
    )
    assert 'href="/"' in response.content.decode()
    # Without htmx: the page that says the form expired.
    response = browser_client.post("/", form_data(DEFAULTS))
    assert response.status_code == 403
    assert "The form expired" in response.content.decode()


def test_every_designer_request_of_the_page_is_a_post() -> None:
    html = Client().get("/").content.decode()
    designer = html[html.index('<div id="designer"') :]
    assert 'hx-get="/"' not in designer
    # The live update, the workload and size presets and every button.
    assert designer.count('hx-post="/"') >= 4
    assert re.search(r'<form id="design-form"[^>]*method="post"', designer)


def test_without_javascript_the_posted_form_lands_on_the_pages_address(
    browser_client: Client,
) -> None:
    data = {**form_data(LONG_POLICY), "csrfmiddlewaretoken": token(browser_client)}
    response = browser_client.post("/", data)
    assert response.status_code == 302
    assert PAGE_ADDRESS.match(response["Location"])
    html = browser_client.get(response["Location"]).content.decode()
    assert qos_of(html) == "Burstable"
    # A short page lands on its whole query.
    data = {**form_data(DEFAULTS), "csrfmiddlewaretoken": token(browser_client)}
    response = browser_client.post("/", data)
    assert response.status_code == 302
    assert parse_qs(urlsplit(response["Location"]).query)["namespace_policy"] == [DEFAULTS]


def test_without_javascript_a_button_on_a_long_page_lands_on_a_stored_page(
    browser_client: Client,
) -> None:
    data = {
        **form_data(LONG_POLICY),
        "csrfmiddlewaretoken": token(browser_client),
        "action": "add-sidecar",
    }
    response = browser_client.post("/", data)
    assert response.status_code == 302, response.content[:500]
    assert PAGE_ADDRESS.match(response["Location"])
    html = browser_client.get(response["Location"]).content.decode()
    assert 'id="container-1"' in html and qos_of(html) == "Burstable"


def test_the_share_and_download_links_of_a_long_page_are_short(browser_client: Client) -> None:
    # With edited fields the address's query differs from the share link's: still one row.
    data = form_data(LONG_POLICY, touched="c-0-memory_limit")
    response = browser_client.post(
        "/", data, HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert StoredPage.objects.count() == 1
    html = browser_client.get(response["HX-Replace-Url"]).content.decode()
    assert StoredPage.objects.count() == 1
    share = re.search(r'<form method="post" action="(/share\?[^"]*)"', html)
    download = re.search(r'href="(/export\.yaml\?[^"]*)"', html)
    assert share and download
    for link in (share.group(1), download.group(1)):
        assert len(html_lib.unescape(link)) <= MAX_ADDRESS
    # The download is the design's YAML; the share link keeps the policy.
    yaml_response = browser_client.get(html_lib.unescape(download.group(1)))
    assert yaml_response.status_code == 200
    assert b"kind: Pod" in yaml_response.content
    shared = browser_client.post(
        html_lib.unescape(share.group(1)), {"csrfmiddlewaretoken": token(browser_client)}
    )
    assert shared.status_code == 302 and shared["Location"].startswith("/s/")
    html = browser_client.get(shared["Location"]).content.decode()
    assert qos_of(html) == "Burstable"
    assert html_lib.escape(LONG_POLICY.split("\n")[-3]) in html


def test_an_address_whose_page_is_gone_says_so_and_starts_anew(client: Client) -> None:
    response = client.get("/?page=" + "0" * 20)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The design of this address is no longer kept" in html_lib.unescape(html)
    assert "kept for 30 days" in html_lib.unescape(html)
    download = client.get("/export.yaml?page=" + "0" * 20)
    assert download.status_code == 404
    assert "no longer kept" in download.content.decode()
    # A malformed id is the same (never a 500).
    assert client.get("/?page=../../etc").status_code == 200


def test_an_expired_page_is_gone(browser_client: Client, settings) -> None:
    settings.PAGE_TTL_SECONDS = 0
    response = browser_client.post(
        "/", form_data(LONG_POLICY), HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    html = browser_client.get(response["HX-Replace-Url"]).content.decode()
    assert "is no longer kept" in html_lib.unescape(html)


def test_when_the_database_refuses_the_page_the_update_still_answers(
    browser_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self, value):
        raise DatabaseError("disk full")

    monkeypatch.setattr(PageStore, "save", refuse)
    response = browser_client.post(
        "/", form_data(LONG_POLICY), HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert response.status_code == 200
    assert qos_of(response.content.decode()) == "Burstable"
    # The long address, which some proxies refuse (logged), rather than none.
    query = parse_qs(urlsplit(response["HX-Replace-Url"]).query)
    assert query["namespace_policy"] == [LONG_POLICY]


def test_the_page_store_is_bounded_and_content_addressed() -> None:
    store = PageStore(ttl=60, max_entries=2)
    ids = [store.save(f"a={i}") for i in range(3)]
    assert len(set(ids)) == 3
    assert store.save("a=2") == ids[2]
    assert store.usage()[0] == 2
    assert store.load(ids[0]) is None  # the oldest went
    assert store.load(ids[2]) == "a=2"
    assert store.load("not-an-id") is None


def kubectl_node(images: int = 120) -> str:
    """``kubectl get node NAME -o yaml`` of a GPU node: its status lists every image pulled
    on it (real nodes: tens of kilobytes)."""
    pulled = "".join(
        f"  - names:\n    - registry.example.com/team/app-{i}@sha256:{i:064x}\n"
        f"    - registry.example.com/team/app-{i}:v1.{i}\n    sizeBytes: {1000000 + i}\n"
        for i in range(images)
    )
    return (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-1\n  labels:\n"
        "    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\nstatus:\n"
        "  allocatable: {cpu: '95', memory: 1000Gi, nvidia.com/gpu: '8', pods: '110'}\n"
        "  capacity: {cpu: '96', memory: 1008Gi, nvidia.com/gpu: '8', pods: '110'}\n"
        f"  images:\n{pulled}"
    )


def test_a_pasted_kubectl_node_travels_as_a_stored_page_too(browser_client: Client) -> None:
    design = best_effort()
    design.node.source = "manifest"
    design.node.manifest = kubectl_node()
    data = {**design_query(design), "kubernetes_version": "1.35"}
    assert len(urlencode(data)) > 8190
    response = browser_client.post(
        "/", data, HTTP_X_CSRFTOKEN=token(browser_client), **HTMX_RESULTS
    )
    assert response.status_code == 200
    assert "pods fit per node" in html_lib.unescape(response.content.decode())
    address = response["HX-Replace-Url"]
    assert PAGE_ADDRESS.match(address)
    html = html_lib.unescape(browser_client.get(address).content.decode())
    assert "gpu-node-1" in html and "pods fit per node" in html
