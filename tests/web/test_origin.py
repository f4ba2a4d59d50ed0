"""Open in designer keeps the object a template came from: the designer's address refers
to it by an id kept in the database, every export (download, preview, copy, share link)
is that object with only the resources the user changed, the page shows the diff, and an
object that is no longer kept leaves a plain design and a message."""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import yaml
from django.test import Client, override_settings

from designer.k8s.design import Origin
from designer.models import StoredAnalysis, StoredOrigin
from designer.store import OriginStore
from tests.builders import differences

pytestmark = pytest.mark.django_db

CRS = Path(__file__).resolve().parents[1] / "k8s" / "data" / "operators" / "crs"
HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
HTMX_DESIGNER = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "designer"}
WORKER = "spec.pytorchReplicaSpecs.Worker.template"

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: llama, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    image: ghcr.io/me/train:1
    command: [torchrun, train.py]
"""


def analyze(client: Client, text: str) -> str:
    response = client.post("/analyze", {"text": text})
    assert response.status_code == 303
    return client.get(response["Location"]).content.decode()


def open_form(html: str, template: str) -> dict[str, str]:
    """The Open in designer form of the row whose template is ``template``."""
    for body in re.findall(r'<tbody class="an-workload"(.*?)</tbody>', html, re.S):
        if f"<code>{template}</code>" in body:
            form = re.search(r'<form method="post" action="/analyze/open".*?</form>', body, re.S)
            assert form
            return {
                m.group(1): html_lib.unescape(m.group(2))
                for m in re.finditer(r'name="(\w+)" value="([^"]*)"', form.group(0))
            }
    raise AssertionError(f"no row for {template}")


def open_in_designer(client: Client, text: str, template: str) -> dict[str, str]:
    """Analyze, open one row: the designer's query."""
    response = client.post("/analyze/open", open_form(analyze(client, text), template))
    assert response.status_code == 302, response.content[:300]
    return {k: v[0] for k, v in parse_qs(urlparse(response["Location"]).query).items()}


def export(client: Client, query: dict[str, str]) -> Any:
    response = client.get("/export.yaml?" + urlencode(query))
    assert response.status_code == 200, response.content[:500]
    return yaml.safe_load(response.content)


def slot(html: str, slot_id: str) -> str:
    match = re.search(rf'<div class="messages" id="{slot_id}"[^>]*>(.*?)</div>', html, re.S)
    assert match, slot_id
    return html_lib.unescape(match.group(1))


PYTORCHJOB = (CRS / "trainer__pytorch_job_mnist_nccl.yaml").read_text()


def test_a_pytorchjob_worker_opens_with_its_object_and_exports_only_the_change(
    client: Client,
) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    # The address refers to the object by the id it is kept under, not by its content.
    assert re.fullmatch(r"[0-9a-f]{20}", query["origin"])
    assert StoredOrigin.objects.filter(id=query["origin"]).exists()
    assert query["workload"] == "distributed"
    page = client.get("/?" + urlencode(query)).content.decode()
    assert 'id="origin-export"' in page and '<select name="export_kind"' not in page
    assert "No change yet: the export is the object as it was." in page
    unchanged = export(client, query)
    assert unchanged == yaml.safe_load(PYTORCHJOB)

    query["c-0-gpus"] = "4"
    exported = export(client, query)
    assert differences(yaml.safe_load(PYTORCHJOB), exported) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]
    assert (
        exported["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0][
            "resources"
        ]["limits"]["nvidia.com/gpu"]
        == "4"
    )
    page = client.get("/?" + urlencode(query)).content.decode()
    diff = re.search(r'<pre class="diff".*?</pre>', page, re.S).group(0)
    assert '<del class="diff-line diff-removed"><span class="an-sr-only">removed: </span>' in diff
    assert "nvidia.com/gpu: 1</del>" in diff and "nvidia.com/gpu: &quot;4&quot;</ins>" in diff
    assert 'aria-label="Differences: 1 line removed, 1 line added"' in diff
    assert "1 field written back:" in page
    # The preview and the copy button show the same object.
    preview = re.search(r'<pre id="manifest-yaml"[^>]*>(.*?)</pre>', page, re.S).group(1)
    assert yaml.safe_load(html_lib.unescape(preview)) == exported


def test_the_live_update_answers_from_the_stored_object_on_any_replica(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    query["c-0-gpus"] = "2"
    # Another client (another replica, no session): the database has the object.
    live = Client().get("/?" + urlencode(query), **HTMX_RESULTS)
    html = live.content.decode()
    assert live.status_code == 200
    assert 'id="origin-diff"' in html and "nvidia.com/gpu: &quot;2&quot;</ins>" in html
    assert f"origin={query['origin']}" in live["HX-Replace-Url"]


def test_a_change_the_object_does_not_take_is_named_beside_its_field(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    query["restart_policy"] = "Always"
    query["c-0-image"] = "other:2"
    html = client.get("/?" + urlencode(query), **HTMX_RESULTS).content.decode()
    assert "Not written to the PyTorchJob: only container resources are written back" in slot(
        html, "err-id_restart_policy"
    )
    assert f"{WORKER}.spec.containers[0].image" in slot(html, "err-id_c-0-image")
    assert "Not written to the PyTorchJob" in html.split('id="origin-diff"')[1]
    assert export(client, query) == yaml.safe_load(PYTORCHJOB)


def test_a_trainjob_against_a_builtin_runtime_writes_resources_per_node(client: Client) -> None:
    query = open_in_designer(client, TRAINJOB, "spec.trainer")
    names = [v for k, v in query.items() if re.fullmatch(r"c-\d+-name", k)]
    node = names.index("node")
    query[f"c-{node}-gpus"] = "8"
    query[f"c-{node}-memory_request"] = query[f"c-{node}-memory_limit"] = "512Gi"
    exported = export(client, query)
    assert exported["kind"] == "TrainJob"
    assert exported["spec"]["trainer"]["resourcesPerNode"] == {
        "requests": {"memory": "512Gi"},
        "limits": {"memory": "512Gi", "nvidia.com/gpu": "8"},
    }
    assert differences(yaml.safe_load(TRAINJOB), exported) == ["spec.trainer.resourcesPerNode"]
    html = client.get("/?" + urlencode(query)).content.decode()
    assert "spec.trainer.resourcesPerNode" in html.split('id="origin-diff"')[1]
    # Two nodes: the export's totals count them.
    assert "The template stands for 2 pod(s)" in html


def test_an_inference_service_round_trip_keeps_its_model(client: Client) -> None:
    text = (CRS / "kserve__hf_isvc.yaml").read_text()
    query = open_in_designer(client, text, "spec.predictor")
    assert query["workload"] == "inference"
    query["c-0-memory_request"] = query["c-0-memory_limit"] = "32Gi"
    exported = export(client, query)
    original = yaml.safe_load(text)
    assert differences(original, exported) == [
        "spec.predictor.model.resources.limits.memory",
        "spec.predictor.model.resources.requests.memory",
    ]
    assert exported["spec"]["predictor"]["model"]["storageUri"] == (
        "hf://meta-llama/Llama-2-7b-chat-hf"
    )
    # KServe fills the image in from its runtime: no error for the empty image.
    html = client.get("/?" + urlencode(query)).content.decode()
    assert "Download YAML</a>" in html and "spec.containers[0].image" not in html


def test_an_object_no_longer_kept_leaves_a_plain_design_and_says_so(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    StoredOrigin.objects.all().delete()
    page = client.get("/?" + urlencode(query)).content.decode()
    assert "The object this design was opened from is no longer kept" in slot(page, "err-pod")
    assert '<select name="export_kind"' in page and 'id="origin-diff"' not in page
    # The design goes on as a new PyTorchJob (the kind it came from).
    exported = export(client, query)
    assert exported["kind"] == "PyTorchJob" and "Master" in exported["spec"]["pytorchReplicaSpecs"]
    live = client.get("/?" + urlencode(query), **HTMX_RESULTS)
    assert "origin=" not in live["HX-Replace-Url"]


def test_an_expired_analysis_still_opens_the_template_and_says_why(client: Client) -> None:
    form = open_form(analyze(client, PYTORCHJOB), WORKER)
    StoredAnalysis.objects.all().delete()
    response = client.post("/analyze/open", form)
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "The analysis this workload came from has expired" in page
    assert '<select name="export_kind"' in page


def test_a_share_link_keeps_the_whole_object_for_good(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    query["c-0-gpus"] = "3"
    response = client.post("/share?" + urlencode(query), {})
    assert response.status_code == 302
    link = response["Location"]
    StoredOrigin.objects.all().delete()
    page = client.get(link).content.decode()
    assert 'id="origin-diff"' in page and "nvidia.com/gpu: &quot;3&quot;</ins>" in page
    # Opening it stored the object again: the page's address refers to it.
    shared = re.search(r'href="/export.yaml\?([^"]+)"', page).group(1)
    shared_query = {k: v[0] for k, v in parse_qs(html_lib.unescape(shared)).items()}
    assert StoredOrigin.objects.filter(id=shared_query["origin"]).exists()
    exported = export(client, shared_query)
    assert differences(yaml.safe_load(PYTORCHJOB), exported) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]


def test_exporting_as_a_new_object_drops_the_origin(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    html = client.get(
        "/?" + urlencode({**query, "action": "drop-origin"}), **HTMX_DESIGNER
    ).content.decode()
    assert '<select name="export_kind"' in html and 'id="origin-export"' not in html
    assert not re.search(r'name="origin" value="[^"]', html)
    assert (
        "origin="
        not in client.get("/?" + urlencode({**query, "action": "drop-origin"}), **HTMX_DESIGNER)[
            "HX-Replace-Url"
        ]
    )


def test_a_deployment_round_trip_keeps_its_replicas_and_selector(client: Client) -> None:
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {memory: 256Mi}
"""
    query = open_in_designer(client, text, "spec.template")
    query["c-0-cpu_limit"] = "1"
    exported = export(client, query)
    assert differences(yaml.safe_load(text), exported) == [
        "spec.template.spec.containers[0].resources.limits.cpu"
    ]
    page = client.get("/?" + urlencode(query)).content.decode()
    assert "The template stands for 5 pod(s) (spec.replicas)" in page


def test_an_analysis_too_large_with_its_objects_keeps_the_rows_and_says_so(
    client: Client,
) -> None:
    deployment = yaml.safe_load(
        """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: nginx}]}
"""
    )
    items = []
    for i in range(60):
        item = json.loads(json.dumps(deployment))
        item["metadata"]["name"] = f"web-{i}"
        noise = "".join(hashlib.sha256(f"{i}-{n}".encode()).hexdigest() for n in range(50))
        item["metadata"]["annotations"] = {"blob": noise}
        items.append(item)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    with override_settings(ANALYSIS_MAX_ENTRY_BYTES=50_000):
        html = analyze(client, text)
    assert html.count('class="an-workload"') == 60
    assert "data-objects-not-kept" in html and "too large to keep its objects" in html
    assert 'name="analysis"' not in html


def test_the_same_object_opened_twice_is_kept_once(client: Client) -> None:
    first = open_in_designer(client, PYTORCHJOB, WORKER)["origin"]
    second = open_in_designer(client, PYTORCHJOB, WORKER)["origin"]
    assert first == second and StoredOrigin.objects.count() == 1


def test_the_origin_store_is_bounded_and_forgets_what_expired() -> None:
    store = OriginStore(ttl=60, max_entries=3)
    ids = [
        store.save(Origin(object={"kind": "Pod", "metadata": {"name": f"p{i}"}}, template=""))
        for i in range(5)
    ]
    assert StoredOrigin.objects.count() == 3
    assert store.load(ids[-1]) is not None and store.load(ids[0]) is None
    assert store.load("not-an-id") is None
    StoredOrigin.objects.update(expires="2000-01-01T00:00:00Z")
    assert store.load(ids[-1]) is None
    with pytest.raises(Exception, match="limit"):
        OriginStore(max_entry_bytes=10).save(Origin(object={"kind": "Pod"}))


# --- the ML operators' export settings ---------------------------------------------------------


def designer(client: Client, **query: str) -> str:
    from designer.forms import design_query
    from designer.k8s.design import preset_design

    base = design_query(preset_design(query.pop("workload", "distributed")))
    base.update(query)
    return client.get("/?" + urlencode(base)).content.decode()


def test_the_export_select_offers_the_workload_types_kinds_first(client: Client) -> None:
    page = designer(client)
    select = re.search(r'<select name="export_kind".*?</select>', page, re.S).group(0)
    groups = re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', select, re.S)
    assert [g[0] for g in groups] == ["Made for this workload type", "Other kinds"]
    first = re.findall(r'value="([^"]+)"', groups[0][1])
    assert first[:3] == ["PyTorchJob", "TrainJob", "JobSet"]
    page = designer(client, workload="inference")
    select = re.search(r'<select name="export_kind".*?</select>', page, re.S).group(0)
    first = re.findall(r'value="([^"]+)"', select.split("Other kinds")[0])
    assert first[:2] == ["InferenceService", "LeaderWorkerSet"]


def test_a_trainjob_export_has_its_runtime_field_with_the_builtin_runtimes(client: Client) -> None:
    page = designer(client, export_kind="TrainJob", export_runtime="jax-distributed")
    assert 'name="export_runtime" value="jax-distributed"' in page
    assert 'list="export-runtimes"' in page and '<option value="torch-distributed">' in page
    assert slot(page, "err-id_export_runtime").strip() == ""
    page = designer(client, export_kind="TrainJob", export_runtime="my-runtime")
    assert "not one Kubeflow Trainer installs" in slot(page, "err-id_export_runtime")
    page = designer(client, export_kind="TrainJob", export_runtime="r" * 260)
    assert "is too long" in slot(page, "err-id_export_runtime")
    assert "Download is disabled" in page


def test_an_inference_service_export_has_model_fields_and_says_what_is_missing(
    client: Client,
) -> None:
    page = designer(client, workload="inference", export_kind="InferenceService")
    assert 'name="export_model_format" value="huggingface"' in page
    assert '<option value="sklearn">' in page
    assert "No storageUri" in slot(page, "err-id_export_storage_uri")
    page = designer(
        client,
        workload="inference",
        export_kind="InferenceService",
        export_storage_uri="hf://meta-llama/Llama-3.1-8B-Instruct",
        export_model_format="vllm",
    )
    preview = html_lib.unescape(re.search(r'id="manifest-yaml"[^>]*>(.*?)</pre>', page, re.S)[1])
    model = yaml.safe_load(preview)["spec"]["predictor"]["model"]
    assert model["modelFormat"] == {"name": "vllm"}
    assert model["storageUri"] == "hf://meta-llama/Llama-3.1-8B-Instruct"
    assert slot(page, "err-id_export_storage_uri").strip() == ""


def test_operator_settings_survive_a_change_of_export_kind(client: Client) -> None:
    from designer.forms import design_query
    from designer.k8s.design import preset_design

    query = design_query(preset_design("inference"))
    query.update(
        export_kind="LeaderWorkerSet",
        export_storage_uri="s3://models/llama",
        export_model_format="pytorch",
        action="export",
    )
    html = client.get("/?" + urlencode(query), **HTMX_DESIGNER).content.decode()
    replaced = parse_qs(
        urlparse(client.get("/?" + urlencode(query), **HTMX_DESIGNER)["HX-Replace-Url"]).query
    )
    assert replaced["export_storage_uri"] == ["s3://models/llama"]
    assert replaced["export_model_format"] == ["pytorch"]
    assert 'name="export_storage_uri"' not in html  # not a LeaderWorkerSet setting


def test_an_operator_rule_on_a_container_lands_beside_the_container(client: Client) -> None:
    page = designer(
        client, export_kind="RayCluster", **{"c-0-cpu_limit": "", "c-0-memory_limit": ""}
    )
    assert "Ray" in slot(page, "err-c-0")


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("PyTorchJob", "A PyTorchJob runs a Master"),
        ("TrainJob", "It runs on the ClusterTrainingRuntime torch-distributed."),
        ("JobSet", "failurePolicy.maxRestarts"),
        ("LeaderWorkerSet", "group(s) of"),
        ("RayCluster", "A RayCluster runs a head"),
        ("InferenceService", "A KServe InferenceService serves the model"),
    ],
)
def test_each_operator_kind_explains_itself_in_the_results(
    client: Client, kind: str, words: str
) -> None:
    page = designer(client, export_kind=kind)
    notes = re.search(r'<ul class="notes export-notes">(.*?)</ul>', page, re.S).group(1)
    assert words in html_lib.unescape(notes)


# --- the API -------------------------------------------------------------------------------


def test_the_api_renders_an_origin_with_its_diff(client: Client) -> None:
    obj = yaml.safe_load(PYTORCHJOB)
    body = {
        "origin": {"object": obj, "template": WORKER},
        "containers": [
            {
                "name": "pytorch",
                "image": "ghcr.io/kubeflow/training-v1/pytorch-dist-mnist:latest",
                "gpus": "2",
                "base": {"args": ["--backend", "nccl"]},
            }
        ],
        "gpu_toleration": False,
        "restart_policy": "",
        "name": "pytorch-dist-mnist-nccl",
        "labels": {},
    }
    answer = client.post("/api/v1/render", json.dumps(body), content_type="application/json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["kind"] == "PyTorchJob"
    exported = yaml.safe_load(data["yaml"])
    assert differences(obj, exported) == [
        f"{WORKER}.spec.containers[0].resources.limits.nvidia.com/gpu"
    ]
    origin = data["origin"]
    assert origin["changed"] == [f"{WORKER}.spec.containers[0].resources"]
    assert origin["unwritten"] == [] and origin["dropped"] == []
    assert origin["diff"].startswith("--- before.yaml")
    alone = client.post(
        "/api/v1/render",
        json.dumps({"origin": {"object": obj, "template": WORKER}}),
        content_type="application/json",
    ).json()
    assert yaml.safe_load(alone["yaml"]) == obj and alone["origin"]["diff"] == ""
    bad = client.post(
        "/api/v1/render",
        json.dumps({"origin": {"object": obj, "template": "spec.nothing"}}),
        content_type="application/json",
    )
    assert bad.status_code == 422
    assert "no pod template at spec.nothing" in bad.json()["detail"][0]["msg"]


def test_the_openapi_document_describes_the_origin(client: Client) -> None:
    doc = client.get("/api/v1/openapi.json").json()
    text = json.dumps(doc)
    assert "Origin" in doc["components"]["schemas"]
    assert "OriginOut" in doc["components"]["schemas"]
    assert "unchangedErrors" in text and "Export the object a template came from" in text


def test_the_origin_speaks_chinese_too(client: Client) -> None:
    query = open_in_designer(client, PYTORCHJOB, WORKER)
    query["c-0-gpus"] = "2"
    query["restart_policy"] = "Always"
    page = client.get("/?" + urlencode(query), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "对 PyTorchJob pytorch-dist-mnist-nccl 的改动" in page
    assert "已写回 1 个字段：" in page and "差异：删除 1 行，新增 1 行" in page
    assert "未写入 PyTorchJob：只有容器资源会写回。" in slot(page, "err-id_restart_policy")
    assert "改为导出新对象" in page
    # The YAML is the same in every language.
    english = client.get("/export.yaml?" + urlencode(query)).content
    chinese = client.get("/export.yaml?" + urlencode(query), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert chinese.content == english
