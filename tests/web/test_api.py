"""The HTTP API: /api/v1/analyze answers exactly `podspec check --format json`, hostile
input is refused fast with bounded memory, /api/v1/render renders designs, never a 500."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from designer.api import CheckResultOut, RenderOut
from designer.k8s.check import check_texts
from designer.k8s.design import Design, design_to_pod, pod_yaml, preset_design
from designer.k8s.manifest import MAX_INPUT_BYTES

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

MULTI = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
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
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
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
kind: List
items:
- apiVersion: batch/v1
  kind: Job
  metadata: {name: etl}
  spec:
    template:
      spec:
        restartPolicy: Never
        containers: [{name: etl, image: python:3.12, resources: {limits: {cpu: "1", memory: 1Gi}}}]
"""


def billion_laughs(levels: int = 9) -> str:
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        text += f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n" + text


HOSTILE = {
    "billion-laughs": billion_laughs().encode(),
    "billion-laughs-in-second-doc": (MULTI + "---\n" + billion_laughs()).encode(),
    "deep-yaml-flow": b"kind: Pod\nspec: " + b"[" * 50_000 + b"]" * 50_000,
    "deep-yaml-block": "".join("  " * i + "a:\n" for i in range(2000)).encode(),
    "deep-json": b"[" * 200_000 + b"]" * 200_000,
    "deep-json-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "self-referencing-alias": b"a: &a [*a]\n",
    "invalid-utf8": b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xff\xfe}\n",
    "nul-byte": b"apiVersion: v1\x00\nkind: Pod\n",
    "utf16": "apiVersion: v1\nkind: Pod\n".encode("utf-16"),
    "not-yaml-text": b"hello, this is not a manifest",
    "broken-yaml-only": b"a: [\n",
    "empty": b"",
    "whitespace": b"  \n\n",
    "no-kind": b"{}",
    "json-scalar": b'"just a string"',
    "binary-noise": bytes(range(1, 256)) * 100,
}


def post(client: Client, body: bytes | str, content_type: str = "application/yaml", **extra):
    return client.post("/api/v1/analyze", data=body, content_type=content_type, **extra)


# --- /api/v1/analyze ----------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/yaml", "application/json", "text/plain"])
def test_analyze_answers_exactly_what_podspec_check_prints(
    client: Client, content_type: str
) -> None:
    response = post(client, MULTI, content_type)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body == check_texts([("request", MULTI)])
    CheckResultOut.model_validate(body)  # the documented schema describes the answer
    kinds = [(o["kind"], o["name"], o["path"]) for o in body["objects"]]
    assert kinds == [("Deployment", "web", ""), ("Pod", "trainer", ""), ("Job", "etl", "items[0]")]
    assert body["errors"] == [
        {"file": "request", "document": 2, "message": body["errors"][0]["message"]}
    ]
    assert "line 27" in body["errors"][0]["message"]


def test_invalid_manifests_are_data_not_failures(client: Client) -> None:
    body = post(client, MULTI).json()
    trainer = body["objects"][1]
    assert trainer["qosClass"] == "Burstable"
    fields = {e["field"] for e in trainer["errors"]}
    assert "spec.containers[0].resources.requests" in fields
    assert trainer["effectiveRequests"]["nvidia.com/gpu"] == "1"


def test_json_body_and_kubectl_list(client: Client) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "containers": [
                {"name": "a", "image": "b", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
            ]
        },
    }
    listing = {"apiVersion": "v1", "kind": "List", "items": [pod, pod]}
    response = post(client, json.dumps(listing), "application/json")
    assert response.status_code == 200
    objects = response.json()["objects"]
    assert [o["path"] for o in objects] == ["items[0]", "items[1]"]
    assert {o["qosClass"] for o in objects} == {"Guaranteed"}


@pytest.mark.parametrize(
    "body",
    [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "apiVersion: v1\nkind: List\nitems: []\n",
        "# only a comment\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\nfoo: [\n",
    ],
)
def test_objects_without_pod_templates_answer_200_with_no_objects(
    client: Client, body: str
) -> None:
    response = post(client, body)
    assert response.status_code == 200
    assert response.json()["objects"] == []
    assert response.json() == check_texts([("request", body)])


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_unreadable_or_hostile_bodies_are_refused_with_400(client: Client, name: str) -> None:
    response = post(client, HOSTILE[name])
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert isinstance(error, str) and error


def test_400_names_the_reason(client: Client) -> None:
    assert "aliasing" in post(client, billion_laughs()).json()["error"]
    assert "UTF-8" in post(client, HOSTILE["invalid-utf8"]).json()["error"]
    assert "nesting" in post(client, HOSTILE["deep-yaml-block"]).json()["error"]
    assert "no Kubernetes object" in post(client, "hello").json()["error"]
    assert "empty" in post(client, "").json()["error"]


def test_oversize_is_refused_with_413_from_content_length_before_reading(client: Client) -> None:
    # A lying Content-Length: the body is never read.
    response = client.post(
        "/api/v1/analyze",
        data=b"x",
        content_type="application/yaml",
        CONTENT_LENGTH=str(MAX_INPUT_BYTES + 1),
    )
    assert response.status_code == 413
    assert "limit" in response.json()["error"]


def test_a_body_just_over_20_mb_is_refused_with_413(client: Client) -> None:
    body = b"#" * (MAX_INPUT_BYTES + 1)
    started = time.perf_counter()
    response = post(client, body)
    assert response.status_code == 413
    assert time.perf_counter() - started < 5


def test_a_body_over_djangos_upload_limit_is_413_not_500(client: Client, settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10  # ninja reads the render body: Django refuses it
    response = client.post(
        "/api/v1/render", data=json.dumps({"name": "x" * 100}), content_type="application/json"
    )
    assert response.status_code == 413


def test_hostile_inputs_benchmark(client: Client) -> None:
    """Every hostile body answers 4xx; the timings go to test-artifacts (asserted: status)."""
    cases = dict(HOSTILE)
    cases["oversize-21mb"] = b"a" * (21 * 1024 * 1024)
    timings = {}
    for name, body in cases.items():
        started = time.perf_counter()
        response = post(client, body)
        timings[name] = round((time.perf_counter() - started) * 1000, 1)
        assert 400 <= response.status_code < 500, name
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "api-hostile-timings-ms.json").write_text(json.dumps(timings, indent=2))
    print("hostile input timings (ms):", json.dumps(timings))


def test_billion_laughs_peak_memory_is_bounded(client: Client) -> None:
    body = billion_laughs(12)
    post(client, "warm-up: {kind: Pod}")
    tracemalloc.start()
    try:
        response = post(client, body)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 400
    print(f"billion laughs peak memory: {peak / 1e6:.2f} MB")
    assert peak < 50 * 1024 * 1024


def test_no_csrf_token_or_session_is_needed_and_no_cors_headers() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/api/v1/analyze", data=MULTI, content_type="application/yaml", secure=True
    )
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers
    assert "Access-Control-Allow-Origin" not in response.headers


def test_get_is_not_allowed(client: Client) -> None:
    assert client.get("/api/v1/analyze").status_code == 405


# --- /api/v1/render -----------------------------------------------------------------------


def test_render_answers_yaml_qos_and_validation(client: Client) -> None:
    design = preset_design("inference")
    response = client.post(
        "/api/v1/render", data=design.model_dump_json(), content_type="application/json"
    )
    assert response.status_code == 200
    body = response.json()
    RenderOut.model_validate(body)
    assert set(body) == {
        "yaml",
        "kind",
        "qosClass",
        "qosReasons",
        "errors",
        "warnings",
        "totals",
        "claims",
        "explanation",
        "origin",
        "kubernetesVersion",
        "versionNotes",
    }
    assert body["origin"] is None  # a new object, not one it was opened from
    assert body["kubernetesVersion"] == "1.35"
    assert body["kind"] == "Deployment"  # online inference exports as a Deployment by default
    assert body["qosClass"] == "Guaranteed"
    assert body["qosReasons"]
    assert body["errors"] == []
    deployment = yaml.safe_load(body["yaml"])
    assert deployment["kind"] == "Deployment"
    assert deployment["spec"]["replicas"] == 2
    assert body["totals"]["nvidia.com/gpu"] == "2"


def test_render_with_export_kind_pod_answers_the_pod_yaml(client: Client) -> None:
    design = preset_design("inference")
    design.export.kind = "Pod"
    body = client.post(
        "/api/v1/render", data=design.model_dump_json(), content_type="application/json"
    ).json()
    assert body["yaml"] == pod_yaml(design_to_pod(design))


def test_render_reports_errors_with_field_paths(client: Client) -> None:
    design = preset_design("training")
    design.containers[0].gpus = "0.5"
    body = client.post(
        "/api/v1/render", data=design.model_dump_json(), content_type="application/json"
    ).json()
    assert any("nvidia.com/gpu" in e["field"] for e in body["errors"])


def test_render_keeps_the_base_of_an_imported_manifest(client: Client) -> None:
    design = preset_design("batch")
    design.base = {
        "metadata": {"annotations": {"team": "ml"}},
        "spec": {"serviceAccountName": "runner"},
    }
    body = client.post(
        "/api/v1/render", data=design.model_dump_json(), content_type="application/json"
    ).json()
    job = yaml.safe_load(body["yaml"])
    assert job["kind"] == "Job"  # batch work exports as a Job by default
    assert job["spec"]["template"]["metadata"]["annotations"] == {"team": "ml"}
    assert job["spec"]["template"]["spec"]["serviceAccountName"] == "runner"


@pytest.mark.parametrize(
    "body",
    [
        {"workload": "gaming"},
        {"containers": "main"},
        {"containers": [{"cpu_request": 2, "nme": "x"}]},
        {"unknown": 1},
        {"base": "spec"},
        {"base": {"spec": "not a mapping"}},
        {"base": {"spec": {"volumes": ["not a mapping"]}}, "shm_size": "1Gi"},
        {"base": {"spec": {"tolerations": "x"}}},
        {"base": {"metadata": "not a mapping"}},
        {"containers": [{"base": {"resources": "x"}}]},
        {"containers": [{"name": f"c{i}"} for i in range(41)]},
        [],
        "design",
        None,
    ],
)
def test_invalid_designs_are_422_with_a_clear_body(client: Client, body) -> None:
    response = client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 422, response.content[:300]
    detail = response.json()["detail"]
    assert detail and all("msg" in d for d in detail)


@pytest.mark.parametrize("body", [b"{", b"not json", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000])
def test_render_body_that_is_not_json_is_400(client: Client, body: bytes) -> None:
    response = client.post("/api/v1/render", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]


def test_render_oversize_is_413(client: Client) -> None:
    body = json.dumps({"name": "x" * (3 * 1024 * 1024)})
    response = client.post("/api/v1/render", data=body, content_type="application/json")
    assert response.status_code == 413


# --- OpenAPI and docs ---------------------------------------------------------------------


def test_openapi_describes_both_endpoints_with_models(client: Client) -> None:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    spec = response.json()
    assert spec["openapi"].startswith("3.")
    analyze = spec["paths"]["/api/v1/analyze"]["post"]
    assert set(analyze["requestBody"]["content"]) == {
        "application/yaml",
        "application/json",
        "text/plain",
    }
    assert set(analyze["responses"]) >= {"200", "400", "413"}
    assert "**400**" in analyze["description"] and "hostile" in analyze["description"]
    render = spec["paths"]["/api/v1/render"]["post"]
    assert set(render["responses"]) >= {"200", "422"}
    schemas = spec["components"]["schemas"]
    checked = schemas["CheckedObjectOut"]["properties"]
    for name in ("file", "document", "path", "kind", "qosClass", "effectiveRequests", "qosReasons"):
        assert name in checked
    # The render body is a design plus the cluster's version next to its fields.
    assert "kubernetesVersion" in schemas["RenderIn"]["properties"]
    assert "containers" in schemas["RenderIn"]["properties"]
    assert "RenderOut" in schemas
    params = {p["name"]: p for p in analyze["parameters"]}
    assert set(params) == {"kubernetesVersion", "namespace"}
    assert all(p["in"] == "query" for p in params.values())
    assert "admission" in checked and "versionNotes" in checked
    assert "from" in schemas["DefaultedOut"]["properties"]


def test_docs_page_lists_endpoints_with_examples_and_no_cdn(client: Client) -> None:
    response = client.get("/api/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "/api/v1/openapi.json" in html
    assert "POST /api/v1/analyze" in html and "POST /api/v1/render" in html
    assert "qosClass" in html
    assert "cdn" not in html.lower() and "style=" not in html
    # Linked from every page's footer.
    assert 'href="/api/"' in client.get("/analyze").content.decode()


def test_ninja_swagger_docs_are_not_served(client: Client) -> None:
    assert client.get("/api/v1/docs").status_code == 404


# --- fuzz: zero 500s ----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)
K8S_WORDS = [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "containers",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "nvidia.com/gpu",
    "template",
    "items",
    "List",
    "Pod",
    "Deployment",
    "Job",
    "v1",
    "apps/v1",
    "batch/v1",
    "name",
    "initContainers",
    "restartPolicy",
    "Always",
    "500m",
    "1Gi",
    "0.5",
    "-1",
    "1e3",
    "&a",
    "*a",
    "<<",
    "!!binary",
    "---",
    "- ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "\n",
    "  ",
    "\t",
    "#",
    '"',
    "'",
    "|",
    ">",
    "~",
    "null",
    "yes",
    "0x1F",
    "\\",
    "\u00e9",
]
yamlish = st.lists(st.sampled_from(K8S_WORDS), max_size=60).map("".join)
manifest_objects = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["v1", "apps/v1", "batch/v1"]),
        "kind": st.sampled_from(["Pod", "Deployment", "Job", "CronJob", "List", "DaemonSet"]),
    },
    optional={"metadata": json_values, "spec": json_values, "items": json_values},
)
analyze_bodies = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    yamlish.map(lambda t: t.encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    manifest_objects.map(lambda v: json.dumps(v).encode()),
    manifest_objects.map(lambda v: yaml.safe_dump(v).encode()),
    st.lists(manifest_objects, max_size=3).map(lambda vs: yaml.safe_dump_all(vs).encode()),
)


@pytest.mark.filterwarnings("ignore")
@hsettings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    body=analyze_bodies,
    content_type=st.sampled_from(["application/yaml", "application/json", "text/plain"]),
)
def test_fuzz_analyze_never_answers_500(client: Client, body: bytes, content_type: str) -> None:
    response = post(client, body, content_type)
    assert response.status_code in (200, 400), response.content[:200]
    if response.status_code == 200:
        assert response.json() == check_texts([("request", body)])


design_fields = st.fixed_dictionaries(
    {},
    optional={
        "workload": st.sampled_from(
            ["training", "distributed", "inference", "batch", "preprocessing", "x"]
        ),
        "size": st.text(max_size=5),
        "name": st.text(max_size=20),
        "namespace": st.text(max_size=20),
        "labels": st.dictionaries(
            st.text(max_size=10), st.text(max_size=10) | st.integers(), max_size=3
        ),
        "restart_policy": st.sampled_from(["Always", "Never", "OnFailure", "", "x"]),
        "gpu_toleration": st.booleans() | st.none(),
        "shm_size": st.sampled_from(["", "1Gi", "0.5", "-1", "x"]),
        "node_selector": json_values,
        "base": json_values,
        "containers": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "role": st.sampled_from(["app", "sidecar", "init", "x"]),
                    "name": st.text(max_size=10),
                    "cpu_request": st.sampled_from(
                        ["", "1", "500m", "0.5", "-1", "1e3", "x", "1Gi"]
                    ),
                    "cpu_limit": st.sampled_from(["", "1", "500m", "2", "x"]),
                    "memory_request": st.sampled_from(["", "1Gi", "1", "0.5Gi", "x"]),
                    "memory_limit": st.sampled_from(["", "1Gi", "2Gi", "x"]),
                    "gpus": st.sampled_from(["", "1", "0.5", "-1", "x", "2"]),
                    "gpu_resource": st.sampled_from(["", "nvidia.com/gpu", "amd.com/gpu", "x"]),
                    "command": st.text(max_size=20),
                    "extra": st.lists(
                        st.fixed_dictionaries(
                            {"name": st.text(max_size=10), "limit": st.text(max_size=5)}
                        ),
                        max_size=2,
                    ),
                    "base": json_values,
                },
            ),
            max_size=3,
        ),
    },
)


@pytest.mark.filterwarnings("ignore")
@hsettings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.one_of(design_fields, json_values))
def test_fuzz_render_never_answers_500(client: Client, body) -> None:
    response = client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 400, 422), response.content[:300]
    if response.status_code == 200:
        RenderOut.model_validate(response.json())
    else:
        assert response.json()


def test_design_model_is_the_request_schema(client: Client) -> None:
    """The render endpoint's body is the Design model itself (the designer form's and the
    share links' model): every field of it, by name, in the OpenAPI document, plus the
    request's own kubernetesVersion and namespacePolicy (the cluster's, not the design's)."""
    spec = client.get("/api/v1/openapi.json").json()
    body = spec["paths"]["/api/v1/render"]["post"]["requestBody"]["content"]["application/json"]
    ref = body["schema"]["$ref"].rsplit("/", 1)[-1]
    schema = spec["components"]["schemas"][ref]
    assert set(schema["properties"]) == set(Design.model_fields) | {
        "kubernetesVersion",
        "namespacePolicy",
    }


def test_render_fills_what_a_design_omits_from_the_workload_preset(client: Client) -> None:
    body = client.post(
        "/api/v1/render", data='{"workload": "inference"}', content_type="application/json"
    ).json()
    assert body["kind"] == "Deployment"
    deployment = yaml.safe_load(body["yaml"])
    assert deployment["metadata"]["name"] == "inference"
    assert body["qosClass"] == "Guaranteed"


def test_render_applies_the_gpu_sharing_choice(client: Client) -> None:
    design = {
        "workload": "inference",
        "gpu": {"mode": "mig-mixed", "model": "h100-80gb", "memory_gb": "20"},
    }
    body = client.post(
        "/api/v1/render", data=json.dumps(design), content_type="application/json"
    ).json()
    assert "nvidia.com/mig-1g.20gb" in body["yaml"]


def test_render_refuses_an_unknown_gpu_sharing_mode(client: Client) -> None:
    design = {"workload": "inference", "gpu": {"mode": "bogus"}}
    response = client.post(
        "/api/v1/render", data=json.dumps(design), content_type="application/json"
    )
    assert response.status_code == 422


OPERATOR_EXAMPLES = Path(__file__).resolve().parents[1] / "k8s" / "data" / "operators" / "crs"


@pytest.mark.parametrize(
    "name",
    [
        "trainer__pytorch_job_mnist_nccl.yaml",
        "kuberay__ray-cluster.kai-gpu-sharing.yaml",
        "trainer__05-multi-step.yaml",
        "kserve__cifar10.yaml",
    ],
)
def test_analyze_answers_operator_kinds_as_the_cli_with_the_documented_schema(
    client: Client, name: str
) -> None:
    text = (OPERATOR_EXAMPLES / name).read_bytes()
    response = client.post("/api/v1/analyze", data=text, content_type="application/yaml")
    assert response.status_code == 200
    body = response.json()
    assert body == json.loads(json.dumps(check_texts([("request", text)])))
    assert body["objects"] and all("template" in o and "replicas" in o for o in body["objects"])
    CheckResultOut.model_validate(body)


def test_analyze_lists_what_has_no_pod_template(client: Client) -> None:
    text = (OPERATOR_EXAMPLES / "kuberay__ray-cluster.kai-gpu-sharing.yaml").read_bytes()
    body = client.post("/api/v1/analyze", data=text, content_type="application/yaml").json()
    assert [(s["kind"], s["reason"]) for s in body["skipped"]] == [
        ("Queue", "Queue: no pod template"),
        ("Queue", "Queue: no pod template"),
    ]


def test_openapi_describes_templates_replicas_notes_and_skipped(client: Client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    schemas = spec["components"]["schemas"]
    checked = schemas["CheckedObjectOut"]["properties"]
    for key in ("template", "replicas", "replicasMin", "replicasMax", "role", "notes", "runtime"):
        assert key in checked
    assert "skipped" in schemas["CheckResultOut"]["properties"]
    assert set(schemas["SkippedOut"]["properties"]) == {
        "file",
        "document",
        "path",
        "kind",
        "name",
        "reason",
    }
    assert "origin" in schemas["FieldErrorOut"]["properties"]


@pytest.mark.parametrize(
    "kind",
    ["PyTorchJob", "TrainJob", "JobSet", "LeaderWorkerSet", "RayCluster", "InferenceService"],
)
def test_render_exports_the_operator_kinds(client: Client, kind: str) -> None:
    body = {"workload": "distributed", "export": {"kind": kind, "workers": 2}}
    response = client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    answer = response.json()
    RenderOut.model_validate(answer)
    assert answer["kind"] == kind and answer["errors"] == []
    (obj,) = yaml.safe_load_all(answer["yaml"])
    assert obj["kind"] == kind
    checked = check_texts([("r.yaml", answer["yaml"])])
    assert {o["qosClass"] for o in checked["objects"]} == {answer["qosClass"]}


# --- Dynamic Resource Allocation ------------------------------------------------------------


def test_render_a_training_design_with_a_dra_claim_for_two_gpus(client: Client) -> None:
    body = {"workload": "training", "gpu": {"mode": "dra", "device_class": "gpu.nvidia.com"}}
    response = client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    answer = response.json()
    template, pod = yaml.safe_load_all(answer["yaml"])
    assert template["kind"] == "ResourceClaimTemplate"
    assert template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "trainer-gpu"}
    ]
    assert answer["qosClass"] == "Guaranteed" and answer["errors"] == []
    assert answer["claims"] == [
        {
            "name": "gpu",
            "source": "template",
            "object": "trainer-gpu",
            "found": True,
            "deviceClass": "gpu.nvidia.com",
            "count": 2,
            "containers": ["main"],
        }
    ]
    assert any(
        line.startswith("Claims do not count toward the QoS class")
        for line in answer["explanation"]
    )


def test_an_unknown_gpu_mode_names_dra_among_the_choices(client: Client) -> None:
    body = {"workload": "training", "gpu": {"mode": "claims"}}
    response = client.post("/api/v1/render", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 422
    assert "dra" in json.dumps(response.json())


def test_analyze_links_claims_and_lists_dra_objects(client: Client) -> None:
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpus}
spec:
  spec:
    devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpus}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
"""
    response = post(client, manifest)
    assert response.status_code == 200
    body = response.json()
    CheckResultOut.model_validate(body)
    assert body["objects"][0]["claims"][0]["count"] == 2
    assert body["draObjects"][0]["usedBy"] == [
        {"kind": "Pod", "name": "p", "namespace": None, "claim": "gpu"}
    ]


def dump_of(items: list[dict], layout: str = "yaml") -> str:
    from designer.k8s.manifest import dump_yaml

    listing = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}
    if layout == "compact":  # JSON on one line, as a program posts it: cut at its items
        return json.dumps(listing)
    if layout == "kind first":  # JSON on one line in another key order: not cut
        return json.dumps({"kind": "List", **listing})
    return dump_yaml(listing) if layout == "yaml" else json.dumps(listing, indent=4)


def nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("layout", ["yaml", "json", "compact", "kind first"])
def test_a_dump_checked_on_several_processes_answers_the_same_bytes(
    client: Client, settings, monkeypatch, layout: str
) -> None:
    """Over 500 pods a dump's slices are checked on ANALYZE_JOBS processes (a dump of over
    1 MB the splitter does not cut, JSON in another key order, in parts of its items by each
    worker):
    the answer is check_files' document (every input read whole), byte for byte, for any
    number of jobs; a hostile document or a body over the workload budget is refused as
    before."""
    import designer.api
    from designer.cpus import CpuTokens
    from designer.k8s.check import check_files
    from designer.limits import workload_budget

    # Two CPU tokens whatever the machine's CPUs (a one-CPU runner would never fork).
    two = CpuTokens(2)
    monkeypatch.setattr(designer.api, "tokens", lambda: two)
    pods = [yaml.safe_load(MULTI.split("---\n")[1]) for _ in range(1300)]
    for i, pod in enumerate(pods):
        pod["metadata"]["name"] = f"trainer-{i}"
        pod["metadata"]["annotations"] = {"note": f"{i} " * 200}
        if i % 3 == 0:
            pod["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "2"
    body = dump_of(pods, layout)
    content_type = "yaml" if layout == "yaml" else "json"
    assert len(body) > 1 << 20
    whole = check_files([("request", body)], share_names=True).as_dict()
    answers = []
    for jobs in (1, 2):
        settings.ANALYZE_JOBS = jobs
        response = post(client, body, f"application/{content_type}")
        assert response.status_code == 200
        answers.append(response.content)
    assert answers[0] == answers[1]
    assert json.loads(answers[0]) == whole
    assert len(whole["objects"]) == 1300

    # A hostile item (nested past the reader's depth) in the last slice: refused.
    settings.ANALYZE_JOBS = 2
    hostile = dump_of([*pods, {"kind": "ConfigMap", "data": nested(150)}], layout)
    response = post(client, hostile, f"application/{content_type}")
    assert response.status_code == 400
    assert "hostile" in response.json()["error"] or "nesting" in response.json()["error"]

    # More workloads than the body's budget: check_files' words, whatever the slices:
    # more items than the budget, or items that are Lists of pods.
    tiny = {"kind": "Pod", "spec": {"containers": [{"name": "c"}]}}
    many = [tiny] * (3000 if layout == "yaml" else 25_000)
    lists = [{"kind": "PodList", "apiVersion": "v1", "items": [tiny] * 5}] * 1000
    for items in (many, lists) if layout == "yaml" else (many,):
        small = dump_of(items, layout)
        budget = workload_budget(len(small.encode()))
        found = len(items) if items is many else 5 * len(items)
        assert len(items) > budget or found > budget >= len(items)
        expected = check_files([("request", small)], max_workloads=budget).errors[0].message
        assert expected == f"input has {found:,} workloads; the limit is {budget:,}"
        response = post(client, small, f"application/{content_type}")
        assert response.status_code == 400
        assert response.json()["error"] == f"The body cannot be read: {expected}."


def test_the_answer_written_from_chunks_is_dumps_json_of_the_document() -> None:
    """/analyze writes its answer from the slices' chunks (each slice's entries written by
    the worker that checked it): the bytes of dumps_json(document), also where orjson cannot
    write a part (an integer past 64 bits: the json module writes the whole document) and
    for slices with no entries."""
    from designer.api import answer_chunk, answer_json
    from designer.store import dumps_json

    entries = [{"name": "é", "n": 1, "f": 0.5}, {"name": "b", "list": [None, True]}]
    rest = {"skipped": [], "errors": [{"document": 0, "message": "ü"}], "kubernetesVersion": "1"}
    for parts in ([entries], [entries[:1], [], entries[1:]], [[], []], []):
        objects = [e for part in parts for e in part]
        expected = dumps_json({"objects": objects, **rest})
        assert answer_json([answer_chunk(p) for p in parts], rest) == expected
    huge = [*entries, {"n": 2**70}]
    expected = dumps_json({"objects": huge, **rest})
    assert b"1180591620717411303424" in expected and b"\\u00e9" in expected  # the json module's
    assert answer_json([answer_chunk(huge[:2]), answer_chunk(huge[2:])], rest) == expected
    assert answer_json([answer_chunk(entries)], {**rest, "x": 2**70}) == dumps_json(
        {"objects": entries, **rest, "x": 2**70}
    )
    assert answer_json([], {}) == dumps_json({"objects": []})


def test_a_large_dump_forks_only_onto_the_cpus_no_other_request_holds(
    client: Client, settings, monkeypatch
) -> None:
    """The server's workers share one token per CPU (designer.cpus): a large dump is checked
    on as many processes as tokens are free, in its own process when one or none is, and a
    body whose check would not fork takes none; the answer is the same bytes."""
    import designer.api
    from designer.cpus import CpuTokens
    from designer.k8s.check.stream import CheckStream

    processes: list[int] = []
    real_run = CheckStream._run

    def run(self: CheckStream, units: list[Any], encode: Any) -> Any:
        processes.append(self.jobs if len(units) > 1 else 1)
        return real_run(self, units, encode)

    takes: list[int] = []

    class Counted(CpuTokens):
        def take(self, wanted: int) -> Any:
            takes.append(wanted)
            return super().take(wanted)

    tokens = Counted(2)
    monkeypatch.setattr(CheckStream, "_run", run)
    monkeypatch.setattr(designer.api, "tokens", lambda: tokens)
    settings.ANALYZE_JOBS = 2
    pods = [yaml.safe_load(MULTI.split("---\n")[1]) for _ in range(1300)]
    for i, pod in enumerate(pods):
        pod["metadata"]["name"] = f"trainer-{i}"
    body = dump_of(pods)
    free = post(client, body, "application/yaml")
    with tokens.take(1):
        one_left = post(client, body, "application/yaml")
        with tokens.take(1):
            none_left = post(client, body, "application/yaml")
    takes.clear()
    small = post(client, dump_of(pods[:300]), "application/yaml")
    assert processes == [2, 1, 1, 1]
    assert takes == []  # 300 pods: one slice, no fork, no token
    assert free.status_code == small.status_code == 200
    assert free.content == one_left.content == none_left.content
    with tokens.take(2) as all_back:
        assert all_back == 2
