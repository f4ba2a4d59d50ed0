"""The Analyze page: paste/upload, rows and summary, filters and pages, unreadable
documents, Open in designer keeping every field, hostile and oversize input."""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from designer.analyze import PAGE_SIZE
from designer.k8s.manifest import MAX_INPUT_BYTES
from designer.models import StoredAnalysis

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, tier: frontend}
      annotations: {prometheus.io/scrape: "true"}
    spec:
      serviceAccountName: web
      volumes:
      - name: config
        configMap: {name: web-config}
      containers:
      - name: main
        image: nginx:1.27
        env:
        - {name: LOG_LEVEL, value: debug}
        volumeMounts:
        - {name: config, mountPath: /etc/web}
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {memory: 256Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources:
      requests: {cpu: 2, memory: 8Gi, nvidia.com/gpu: 1}
      limits: {cpu: 1, memory: 8Gi}
---
this: is: broken
---
apiVersion: v1
kind: Pod
metadata: {name: steady, namespace: ml}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 2}
"""


def analyze(client: Client, text: str) -> str:
    """Post the text; follow the redirect; the results page's HTML."""
    response = client.post("/analyze", {"text": text})
    assert response.status_code == 303
    assert re.fullmatch(r"/analyze/r/[A-Za-z0-9_-]{22}", response["Location"])
    page = client.get(response["Location"])
    assert page.status_code == 200
    return page.content.decode()


def rows(html: str) -> list[str]:
    return re.findall(r'data-workload="([^"]*)"', html)


def stat(html: str, name: str) -> str:
    match = re.search(rf'data-stat="{name}"[^>]*>([^<]*)<', html)
    assert match, name
    return match.group(1)


def results_url(client: Client, text: str) -> str:
    return client.post("/analyze", {"text": text})["Location"]


def open_forms(html: str) -> dict[str, str]:
    """Each row's Open in designer blob, by namespace/name."""
    found = {}
    for body in re.findall(r'<tbody class="an-workload"(.*?)</tbody>', html, re.S):
        name = re.search(r'data-workload="([^"]*)"', body).group(1)
        blob = re.search(r'name="workload" value="([^"]*)"', body)
        found[name] = blob.group(1) if blob else ""
    return found


# --- the page -----------------------------------------------------------------------------


def test_the_page_has_a_form_for_paste_upload_and_drop(client: Client) -> None:
    response = client.get("/analyze")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<textarea name="text"' in html and 'type="file" name="file"' in html
    assert "data-dropzone" in html and "analyze.js" in html
    assert 'hx-indicator="#analyze-busy"' in html
    assert 'href="/analyze"' in client.get("/").content.decode()  # in the site navigation


def test_pasted_manifests_give_one_row_per_workload_and_a_summary(client: Client) -> None:
    html = analyze(client, MANIFESTS)
    assert rows(html) == ["shop/web", "ml/trainer", "ml/steady"]
    assert stat(html, "workloads") == "3"
    assert stat(html, "qos-Burstable") == "2"
    assert stat(html, "qos-Guaranteed") == "1"
    assert stat(html, "qos-BestEffort") == "0"
    assert stat(html, "gpus") == "3"
    assert stat(html, "with-errors") == "1"
    assert stat(html, "unreadable") == "1"
    # QoS as text, not colour alone; requests; counts.
    web = html.split('data-workload="shop/web"')[1].split("</tbody>")[0]
    assert ">Burstable</span>" in web and ">500m<" in web and ">256Mi<" in web
    trainer = html.split('data-workload="ml/trainer"')[1].split("</tbody>")[0]
    assert 'data-errors="2"' in trainer
    assert "spec.containers[0].resources.requests" in trainer  # field path in <details>
    assert "must be less than or equal to cpu limit" in trainer
    assert "<details>" in trainer and 'class="reasons"' in trainer
    # The unreadable document is listed with its reason and line; the rest was analyzed.
    assert "Document 2" in html and "line 40" in html
    # The chart is server-side SVG: attributes, no inline styles or scripts.
    assert "<svg" in html and 'class="an-bar an-bar-burstable"' in html
    assert "style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)


def test_a_template_workload_says_the_designer_exports_the_same_object(client: Client) -> None:
    html = analyze(client, MANIFESTS)
    web = html.split('data-workload="shop/web"')[1].split("</tbody>")[0]
    assert "exports this Deployment, only the resources you change" in web
    assert 'name="analysis"' in web and 'name="row" value="0"' in web
    # A bare Pod is the design itself: it opens as one, with no object to keep.
    trainer = html.split('data-workload="ml/trainer"')[1].split("</tbody>")[0]
    assert 'name="analysis"' not in trainer and "data-opens" not in trainer
    assert "shows the changes as a diff" in html


def test_upload_is_analyzed_like_pasted_text(client: Client) -> None:
    upload = SimpleUploadedFile("cluster.yaml", MANIFESTS.encode(), content_type="application/yaml")
    response = client.post("/analyze", {"file": upload, "text": ""})
    assert response.status_code == 303
    html = client.get(response["Location"]).content.decode()
    assert rows(html) == ["shop/web", "ml/trainer", "ml/steady"]
    assert "cluster.yaml" in html


def test_a_kubectl_list_in_json_is_analyzed(client: Client) -> None:
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "ns"},
            "spec": {"containers": [{"name": "a", "image": "b"}]},
        }
        for i in range(3)
    ]
    upload = SimpleUploadedFile(
        "pods.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode()
    )
    html = client.get(client.post("/analyze", {"file": upload})["Location"]).content.decode()
    assert rows(html) == ["ns/p0", "ns/p1", "ns/p2"]
    assert "items[2]" in html
    assert stat(html, "qos-BestEffort") == "3"


def test_htmx_post_renders_the_results_and_pushes_their_address(client: Client) -> None:
    response = client.post("/analyze", {"text": MANIFESTS}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="analysis"')
    assert "<html" not in html
    assert response["HX-Push-Url"].startswith("/analyze/r/")
    assert rows(html) == ["shop/web", "ml/trainer", "ml/steady"]
    # The pushed address shows the same results after a reload.
    assert rows(client.get(response["HX-Push-Url"]).content.decode()) == rows(html)


# --- filters and pages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "query,expected",
    [
        ("qos=Burstable", ["shop/web", "ml/trainer"]),
        ("qos=Guaranteed", ["ml/steady"]),
        ("qos=BestEffort", []),
        ("errors=yes", ["ml/trainer"]),
        ("errors=no", ["shop/web", "ml/steady"]),
        ("namespace=ml", ["ml/trainer", "ml/steady"]),
        ("namespace=ml&qos=Burstable&errors=yes", ["ml/trainer"]),
        ("qos=bogus&errors=maybe&page=x", ["shop/web", "ml/trainer", "ml/steady"]),
    ],
)
def test_filters_are_get_parameters_of_the_results_address(
    client: Client, query: str, expected: list
) -> None:
    url = results_url(client, MANIFESTS)
    html = client.get(f"{url}?{query}").content.decode()
    assert rows(html) == expected
    assert stat(html, "workloads") == "3"  # the summary is of the whole input


def test_filtering_over_htmx_returns_only_the_rows(client: Client) -> None:
    url = results_url(client, MANIFESTS)
    response = client.get(f"{url}?errors=yes", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="rows")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="rows"')
    assert rows(html) == ["ml/trainer"]
    assert 'id="filters"' not in html  # the filter form keeps its focus


def test_the_filter_form_works_without_javascript(client: Client) -> None:
    url = results_url(client, MANIFESTS)
    html = client.get(url).content.decode()
    form = re.search(r'<form id="filters"[^>]*>', html).group(0)
    assert 'method="get"' in form and f'action="{url}"' in form
    assert 'class="nojs-only">Filter</button>' in html
    for name in ("qos", "errors", "namespace"):
        assert f'<select name="{name}"' in html


def many_pods(count: int, namespaces: int = 7) -> str:
    items = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"pod-{i}",
                "namespace": f"team-{i % namespaces}",
                "labels": {"app": "x"},
            },
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "busybox",
                        "resources": {
                            "requests": {"cpu": "100m", "memory": "64Mi"},
                            "limits": {"cpu": "100m" if i % 2 else "200m", "memory": "64Mi"},
                        },
                    }
                ]
            },
        }
        for i in range(count)
    ]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def test_rows_are_paged(client: Client) -> None:
    url = results_url(client, many_pods(250))
    first = client.get(url).content.decode()
    assert len(rows(first)) == PAGE_SIZE
    assert "Showing 1–100 of 250 matching workloads." in first
    assert "Page 1 of 3" in first and 'rel="next"' in first
    last = client.get(f"{url}?page=3").content.decode()
    assert rows(last)[0] == "team-4/pod-200" and len(rows(last)) == 50
    beyond = client.get(f"{url}?page=99").content.decode()
    assert rows(beyond) == rows(last)
    filtered = client.get(f"{url}?qos=Guaranteed&page=2").content.decode()
    assert "Showing 101–125 of 125 matching workloads." in filtered
    assert "qos=Guaranteed&amp;page=1" not in filtered  # page 1 has no page parameter


def test_a_10000_pod_list_renders_fast(client: Client) -> None:
    text = many_pods(10_000)
    started = time.perf_counter()
    url = results_url(client, text)
    analyzed = time.perf_counter() - started
    started = time.perf_counter()
    response = client.get(url)
    rendered = time.perf_counter() - started
    html = response.content.decode()
    assert len(rows(html)) == PAGE_SIZE
    assert stat(html, "workloads") == "10000"
    assert len(html) < 1_500_000
    print(
        f"10,000 pods: analyze+store {analyzed:.2f}s, "
        f"results page {rendered:.3f}s, {len(html):,} bytes"
    )
    assert rendered < 5


# --- Open in designer -----------------------------------------------------------------------


def test_open_in_designer_keeps_every_field_the_form_does_not_edit(client: Client) -> None:
    html = analyze(client, MANIFESTS)
    blob = open_forms(html)["shop/web"]
    response = client.post("/analyze/open", {"workload": html_lib.unescape(blob)})
    assert response.status_code == 302
    location = response["Location"]
    assert location.startswith("/?")
    query = parse_qs(urlparse(location).query)
    assert query["name"] == ["web"] and query["namespace"] == ["shop"]
    assert query["workload"] == ["inference"]  # a Deployment serves
    designer = client.get(location)
    assert designer.status_code == 200
    exported = client.get("/export.yaml?" + urlparse(location).query)
    assert exported.status_code == 200, exported.content[:300]
    pod = yaml.safe_load(exported.content)
    assert pod["kind"] == "Pod"
    assert pod["metadata"]["labels"] == {"app": "web", "tier": "frontend"}
    assert pod["metadata"]["annotations"] == {"prometheus.io/scrape": "true"}
    assert pod["spec"]["serviceAccountName"] == "web"
    assert pod["spec"]["volumes"] == [{"name": "config", "configMap": {"name": "web-config"}}]
    main = pod["spec"]["containers"][0]
    assert main["env"] == [{"name": "LOG_LEVEL", "value": "debug"}]
    assert main["volumeMounts"] == [{"name": "config", "mountPath": "/etc/web"}]
    assert main["resources"] == {
        "requests": {"cpu": "500m", "memory": "256Mi"},
        "limits": {"memory": "256Mi"},
    }


def test_open_works_after_the_analysis_expired(client: Client) -> None:
    html = analyze(client, MANIFESTS)
    blob = html_lib.unescape(open_forms(html)["ml/trainer"])
    StoredAnalysis.objects.all().delete()
    response = client.post("/analyze/open", {"workload": blob})
    assert response.status_code == 302
    assert parse_qs(urlparse(response["Location"]).query)["name"] == ["trainer"]


def test_a_pod_from_a_cluster_dump_loses_only_server_set_metadata(client: Client) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "ns",
            "uid": "1234",
            "resourceVersion": "99",
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "managedFields": [{"manager": "kubectl"}],
            "annotations": {"a": "b"},
        },
        "spec": {"containers": [{"name": "a", "image": "b", "env": [{"name": "X", "value": "1"}]}]},
        "status": {"phase": "Running"},
    }
    html = analyze(client, json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}))
    location = client.post(
        "/analyze/open", {"workload": html_lib.unescape(open_forms(html)["ns/p"])}
    )["Location"]
    exported = yaml.safe_load(client.get("/export.yaml?" + urlparse(location).query).content)
    assert exported["metadata"] == {"name": "p", "namespace": "ns", "annotations": {"a": "b"}}
    assert "status" not in exported
    assert exported["spec"]["containers"][0]["env"] == [{"name": "X", "value": "1"}]


def test_a_long_design_opens_through_a_stored_share_link(client: Client) -> None:
    env = [
        {"name": f"VAR_{i}", "value": hashlib.sha256(str(i).encode()).hexdigest()}
        for i in range(100)
    ]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "big"},
        "spec": {"containers": [{"name": "a", "image": "b", "env": env}]},
    }
    html = analyze(client, json.dumps(pod))
    response = client.post(
        "/analyze/open", {"workload": html_lib.unescape(open_forms(html)["/big"])}
    )
    assert response.status_code == 302
    assert response["Location"].startswith("/s/")
    assert client.get(response["Location"]).status_code == 200


def test_a_workload_with_wrongly_typed_fields_has_no_open_button(client: Client) -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: odd}\nspec:\n  containers: {name: a}\n"
    html = analyze(client, text)
    assert open_forms(html) == {"/odd": ""}
    assert "cannot be opened" in html


@pytest.mark.parametrize(
    "blob", ["", "garbage!!", "eJzLSM3JyQcABiwCFQ", "eJyrVkrOz8lJTS5RslJQKkhVqgUAK-UF7Q"]
)
def test_a_damaged_open_request_is_a_400_page(client: Client, blob: str) -> None:
    response = client.post("/analyze/open", {"workload": blob})
    assert response.status_code == 400
    assert "cannot be opened" in response.content.decode()


def test_open_needs_post_and_csrf() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.get("/analyze/open").status_code == 405
    assert client.post("/analyze/open", {"workload": "x"}).status_code == 403


# --- bad, hostile and oversize input --------------------------------------------------------


def test_empty_input_asks_for_manifests(client: Client) -> None:
    response = client.post("/analyze", {"text": "  \n"})
    assert response.status_code == 400
    assert "Paste some manifests" in response.content.decode()


def test_invalid_utf8_upload_is_refused_with_the_reason(client: Client) -> None:
    upload = SimpleUploadedFile("bad.yaml", b"kind: Pod\nmetadata: {name: \xff}\n")
    response = client.post("/analyze", {"file": upload})
    assert response.status_code == 400
    assert "not valid UTF-8" in response.content.decode()


def test_input_errors_over_htmx_are_swapped_in_with_200(client: Client) -> None:
    response = client.post("/analyze", {"text": ""}, **HTMX)
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()


@pytest.mark.parametrize(
    "text,reason",
    [
        (
            "a: &a [1,1,1,1,1,1,1,1,1]\n"
            + "".join(
                f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
            "excessive aliasing",
        ),
        ("".join("  " * i + "a:\n" for i in range(500)), "nesting is deeper"),
    ],
)
def test_hostile_documents_are_listed_and_the_rest_analyzed(
    client: Client, text: str, reason: str
) -> None:
    started = time.perf_counter()
    html = analyze(client, MANIFESTS + "---\n" + text)
    assert time.perf_counter() - started < 5
    assert rows(html) == ["shop/web", "ml/trainer", "ml/steady"]
    assert reason in html


def test_oversize_upload_is_refused_before_the_body_is_parsed() -> None:
    client = Client(enforce_csrf_checks=True)  # refused before the CSRF check reads the body
    response = client.post(
        "/analyze", {"text": "x"}, CONTENT_LENGTH=str(MAX_INPUT_BYTES + 1024 * 1024)
    )
    assert response.status_code == 413
    assert "larger than 20 MB" in response.content.decode()


def test_oversize_pasted_text_is_refused(client: Client, settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 30 * 1024 * 1024
    response = client.post("/analyze", {"text": "#" * (MAX_INPUT_BYTES + 1)})
    assert response.status_code == 413


def test_analyze_needs_a_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/analyze", {"text": MANIFESTS}).status_code == 403


@pytest.mark.parametrize("analysis_id", ["AAAAAAAAAAAAAAAAAAAAAA", "..%2E%2E*", "short", "a" * 300])
def test_unknown_or_expired_results_are_a_friendly_404(client: Client, analysis_id: str) -> None:
    response = client.get(f"/analyze/r/{analysis_id}")
    assert response.status_code == 404
    assert "expired" in response.content.decode()


def test_no_workload_found_says_so(client: Client) -> None:
    html = analyze(client, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    assert "No workload was found" in html
    assert stat(html, "workloads") == "0"


OPERATOR_EXAMPLES = Path(__file__).resolve().parents[1] / "k8s" / "data" / "operators" / "crs"


def test_gpus_requested_counts_every_pod_with_the_per_template_figure_beside(
    client: Client,
) -> None:
    html = analyze(client, (OPERATOR_EXAMPLES / "gpu-operator__plugin-test.yaml").read_text())
    assert stat(html, "workloads") == "1"
    assert stat(html, "gpus") == "5"  # 5 replicas x nvidia.com/gpu 1
    assert "1 per pod template, before counting pods" in html
    assert "1 × 5 pods = 5" in html


def test_a_pytorchjob_shows_each_replica_type_and_what_has_no_template(client: Client) -> None:
    text = (OPERATOR_EXAMPLES / "trainer__pytorch_job_mnist_nccl.yaml").read_text()
    text += "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n"
    html = analyze(client, text)
    assert stat(html, "workloads") == "2"
    assert stat(html, "skipped") == "1"
    assert "spec.pytorchReplicaSpecs.Worker.template" in html
    assert "ConfigMap: no pod template" in html
    assert stat(html, "gpus") == "2"


def test_autoscaled_gpu_templates_count_at_least_their_minimum(client: Client) -> None:
    html = analyze(client, (OPERATOR_EXAMPLES / "kserve__torchserve-v1-gpu.yaml").read_text())
    assert stat(html, "gpus").startswith("at least")


@pytest.mark.parametrize("digits", [20, 5000, 20000])
def test_a_gpu_limit_of_thousands_of_digits_is_counted_not_a_server_error(
    client: Client, digits: int
) -> None:
    """str() of an int past 4300 digits raises in Python: the advice that names the GPU
    count, the page's GPU totals and the API's JSON write it through decimal."""
    gpus = "1" * digits
    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {
                "containers": [
                    {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": gpus}}}
                ]
            },
        }
    )
    page = analyze(client, text)
    assert gpus in page
    if digits > 24:
        # Shown by its ends and its length, the whole number in the title (written out,
        # 5,000 digits made the page 72,000 px wide).
        shown = f'<span class="long-number" title="{gpus}">111111…111 ({digits:,} digits)</span>'
        assert f'data-stat="gpus">{shown}</dd>' in page
    response = client.post("/api/v1/analyze", text, content_type="application/json")
    assert response.status_code == 200
    assert gpus in response.content.decode()
