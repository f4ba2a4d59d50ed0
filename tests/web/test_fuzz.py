"""Every endpoint, every parameter, hostile values: the answer is never a 5xx and never
Python's own words.

Hypothesis draws values that broke the site before (``1e999999999``, 5,000-digit integers,
``²``, NUL, unpaired surrogates in JSON, deep nesting, megabyte strings) and random text, puts
them in every field of the designer's query string and share form, the Analyze page, the
results address, "Open in designer" and each API body. The examples are bounded (a few
hundred requests in all, well under a minute) so the test runs in ``make test``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import yaml
from django.test import Client
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from designer.forms import ContainerFormSet, PodForm, design_query, encode_blob
from designer.k8s.design import preset_design

pytestmark = pytest.mark.django_db

# FUZZ_EXAMPLES=2000 for a long hunt; the default keeps `make test` within a minute.
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# What a 5xx page or a leaked Python message looks like.
LEAKS = re.compile(
    r"Traceback|set_int_max_str_digits|codec can't|surrogates not allowed|Exceeds the limit"
    r"|object has no attribute|unhashable type|invalid literal for int|Server Error \(500\)"
)

HOSTILE_TEXT = [
    "",
    " ",
    "0",
    "-1",
    "1e999999999",
    "1e9999999999",
    "-1e999999999",
    "1e-999999999",
    "1" * 5000,
    "0" * 5000 + "1",
    "9" * 30,
    "0x" + "f" * 40,
    "²",
    "①",
    "٣",
    "1²",
    "\x00",
    "a\x00b",
    "NaN",
    ".inf",
    "1e309",
    "\u2028",
    "\ufeff",
    "😀",
    "<script>alert(1)</script>",
    "{{7*7}}",
    "%s%n",
    "../../etc/passwd",
    "x" * 20000,
    "null",
    "[]",
    "{}",
    "---",
    "*a",
    "&a [*a]",
    "!!binary x",
    "key=value\n" * 50,
]
# Text a form or a URL can carry (valid UTF-8 once encoded).
texts = st.one_of(
    st.sampled_from(HOSTILE_TEXT),
    st.text(max_size=40),
    st.text(alphabet="0123456789.eEkKMGTPimun+-", max_size=25),
)
# JSON can also carry unpaired surrogates (json.dumps writes them as \\ud800 escapes).
json_texts = st.one_of(texts, st.sampled_from(["\ud800", "a\udfffb", "\udc00\ud800"]))
json_scalars = st.one_of(
    json_texts,
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([10**4000, -(10**4000), 2**64, 2**63]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_texts, inner, max_size=3),
    max_leaves=12,
)

POD_FIELDS = list(PodForm().fields)
CONTAINER_FIELDS = list(ContainerFormSet(prefix="c").empty_form.fields)
ALL_FIELDS = (
    POD_FIELDS
    + [f"c-0-{name}" for name in CONTAINER_FIELDS]
    + [f"c-1-{name}" for name in CONTAINER_FIELDS]
    + ["c-TOTAL_FORMS", "c-INITIAL_FORMS", "c-MAX_NUM_FORMS", "action", "changed", "preset"]
)
PRESETS = ["training", "distributed", "inference", "batch", "preprocessing"]


def assert_no_server_error(response: Any) -> None:
    if currently_in_test_context():  # --hypothesis-show-statistics: which statuses were hit
        event(f"status {response.status_code}")
    assert response.status_code < 500, response.content[:500]
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8", "replace")
    leak = LEAKS.search(text)
    assert leak is None, text[max(0, leak.start() - 200) : leak.end() + 200]


@st.composite
def design_queries(draw: st.DrawFn) -> dict[str, str]:
    """A full designer query string with a few fields replaced by hostile values."""
    query = design_query(preset_design(draw(st.sampled_from(PRESETS))))
    for name in draw(st.lists(st.sampled_from(ALL_FIELDS), min_size=1, max_size=4)):
        query[name] = draw(texts)
    if draw(st.booleans()):
        query["base"] = encode_blob(draw(st.dictionaries(json_texts, json_values, max_size=3)))
    if draw(st.booleans()):
        query["c-0-base"] = encode_blob(draw(st.dictionaries(json_texts, json_values, max_size=3)))
    return query


def raw_query(query: dict[str, str]) -> str:
    return urlencode(query, quote_via=quote)


HTMX = [
    {},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "designer"},
]


@FUZZ
@given(query=design_queries(), headers=st.sampled_from(HTMX))
def test_the_designer_page_never_fails(client: Client, query: dict, headers: dict) -> None:
    assert_no_server_error(client.get("/?" + raw_query(query), **headers))


@FUZZ
@given(query=design_queries())
def test_the_yaml_download_never_fails(client: Client, query: dict) -> None:
    assert_no_server_error(client.get("/export.yaml?" + raw_query(query)))


@FUZZ
@given(query=design_queries(), headers=st.sampled_from(HTMX))
def test_sharing_never_fails(client: Client, query: dict, headers: dict) -> None:
    response = client.post("/share", query, **headers)
    assert_no_server_error(response)
    if response.status_code in (200, 302):
        link = re.search(
            rb"/s/[0-9a-f]{12}", response.content + response.get("Location", "").encode()
        )
        if link:
            assert_no_server_error(client.get(link.group().decode()))


@FUZZ
@given(
    raw=st.one_of(
        st.binary(max_size=60),
        st.lists(st.sampled_from(["%ED%A0%80", "%00", "%FF", "%C0%AF", "a", "=", "&", "%"])).map(
            "".join
        ),
    ),
    path=st.sampled_from(["/", "/export.yaml", "/analyze", "/api/", "/analyze/r/x"]),
)
def test_undecodable_query_strings_never_fail(client: Client, raw: Any, path: str) -> None:
    query = raw if isinstance(raw, str) else quote(raw, safe="=&")
    assert_no_server_error(client.get(f"{path}?c-TOTAL_FORMS=1&{query}"))


def pod_manifest(draw: st.DrawFn) -> dict[str, Any]:
    value = st.one_of(json_texts, json_texts, json_values)
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    resources = {
        kind: {name: draw(value) for name in draw(st.lists(st.sampled_from(RESOURCE_NAMES)))}
        for kind in ("requests", "limits")
    }
    container["resources"] = resources
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": draw(st.sampled_from(["Pod", "Deployment", "Job", "List", "CronJob"])),
        "metadata": {"name": draw(value), "annotations": {"a": draw(value)}},
        "spec": {"containers": [container]},
    }
    for _ in range(draw(st.integers(0, 2))):
        where = draw(st.sampled_from([manifest, manifest["spec"], container, resources]))
        where[draw(json_texts)] = draw(value)
    return manifest


RESOURCE_NAMES = ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "hugepages-2Mi", "x/y"]


@st.composite
def manifest_texts(draw: st.DrawFn) -> str:
    documents = [pod_manifest(draw) for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        return "\n".join(json.dumps(d) for d in documents)
    dumped = []
    for d in documents:
        try:
            dumped.append(yaml.safe_dump(d, allow_unicode=True))
        except yaml.YAMLError:
            dumped.append(json.dumps(d))
    return "---\n".join(dumped) + draw(st.sampled_from(["", "\n---\n", "\n...\n", draw(texts)]))


@FUZZ
@given(body=st.one_of(manifest_texts(), texts, st.binary(max_size=200)))
def test_the_analyze_api_never_fails(client: Client, body: Any) -> None:
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    assert_no_server_error(client.post("/api/v1/analyze", data, content_type="application/yaml"))


@FUZZ
@given(text=st.one_of(manifest_texts(), texts), htmx=st.booleans(), upload=st.booleans())
def test_the_analyze_page_never_fails(client: Client, text: str, htmx: bool, upload: bool) -> None:
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    data = text.encode("utf-8", "surrogatepass")
    if upload:
        from django.core.files.uploadedfile import SimpleUploadedFile

        form: dict[str, Any] = {"file": SimpleUploadedFile("m.yaml", data)}
    else:
        form = {"text": data.decode("utf-8", "replace")}
    response = client.post("/analyze", form, **headers)
    assert_no_server_error(response)
    location = response.get("Location") or response.get("HX-Push-Url")
    if location:
        assert_no_server_error(client.get(location))


@FUZZ
@given(
    params=st.dictionaries(st.sampled_from(["qos", "errors", "namespace", "page"]), texts),
    analysis_id=st.one_of(st.just(""), texts),
)
def test_analysis_addresses_never_fail(client: Client, params: dict, analysis_id: str) -> None:
    response = client.post("/analyze", {"text": "kind: Pod\nmetadata: {name: a}\n"})
    real = response["Location"]
    target = real if not analysis_id else f"/analyze/r/{quote(analysis_id, safe='')}"
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "rows"}
    assert_no_server_error(client.get(f"{target}?{raw_query(params)}", **headers))


@FUZZ
@given(
    template=st.one_of(
        st.builds(lambda d: d, st.dictionaries(json_texts, json_values, max_size=4)),
        st.composite(lambda draw: pod_manifest(draw))(),
    ),
    raw=st.one_of(st.none(), texts),
)
def test_open_in_designer_never_fails(client: Client, template: Any, raw: Any) -> None:
    blob = raw if raw is not None else encode_blob(template)
    assert_no_server_error(client.post("/analyze/open", {"workload": blob}))


def string_leaves(value: Any, path: tuple = ()) -> list[tuple]:
    """The paths of the string fields of a design (most of its fields are strings)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in string_leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in string_leaves(v, (*path, i))]
    return [path] if isinstance(value, str) else []


@st.composite
def render_bodies(draw: st.DrawFn) -> Any:
    design = preset_design(draw(st.sampled_from(PRESETS))).model_dump(mode="json")
    leaves = string_leaves(design)
    for path in draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=4)):
        where = design
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = draw(json_texts)
    if draw(st.integers(0, 4)) == 0:  # and now and then anything at all, anywhere
        where = design if draw(st.booleans()) else design["containers"][0]
        where[draw(st.one_of(st.sampled_from(sorted(where)), json_texts))] = draw(json_values)
    return draw(st.one_of(st.just(design), st.just(design), st.just(design), json_values))


@FUZZ
@given(body=render_bodies())
def test_the_render_api_never_fails(client: Client, body: Any) -> None:
    data = json.dumps(body)
    assert_no_server_error(client.post("/api/v1/render", data, content_type="application/json"))


SHARING = st.fixed_dictionaries(
    {},
    optional={
        k: st.one_of(json_values, st.sampled_from(v))
        for k, v in {
            "mode": ["whole", "mig-single", "mig-mixed", "time-slicing", "mps"],
            "profile": ["1g.10gb", "3g.40gb", "7g.80gb"],
            "migLayout": ["1g.10gb=2, 2g.20gb=1", "x=1"],
            "replicas": [4, 0, -1, 10**30],
            "renameByDefault": [True, False],
            "model": ["h100-80gb", "a100-80gb"],
        }.items()
    },
)
SLICES = st.one_of(
    json_values,
    manifest_texts(),
    st.just(
        {"kind": "List", "items": [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice"}]}
    ),
)


@st.composite
def fit_pods(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod whose resource values are hostile now and then: mostly readable."""
    quantity = st.one_of(st.sampled_from(["1", "500m", "2Gi", "1e999999999", "0"]), json_texts)
    resources = {
        kind: {name: draw(quantity) for name in draw(st.lists(st.sampled_from(RESOURCE_NAMES)))}
        for kind in ("requests", "limits")
    }
    container = {"name": "main", "image": "busybox", "resources": resources}
    return {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [container]}}


CAPACITY = st.fixed_dictionaries(
    {"cpu": st.sampled_from(["8", "96"]), "memory": st.sampled_from(["32Gi", "1152Gi"])},
    optional={
        name: st.one_of(st.sampled_from(["8", "0"]), json_texts)
        for name in RESOURCE_NAMES
        if name not in ("cpu", "memory")
    },
)


@FUZZ
@given(
    pod=st.one_of(
        fit_pods(),
        fit_pods(),
        st.composite(lambda draw: pod_manifest(draw))(),
        manifest_texts(),
        json_values,
    ),
    node=st.one_of(
        st.fixed_dictionaries({"capacity": CAPACITY}),
        st.fixed_dictionaries({"capacity": CAPACITY}, optional={"gpuSharing": SHARING}),
        st.fixed_dictionaries(
            {"catalog": st.one_of(st.sampled_from(["gke-a3-highgpu-8g", "x"]), json_texts)},
            optional={"provider": json_values, "gpuSharing": SHARING},
        ),
        st.fixed_dictionaries(
            {
                "capacity": st.one_of(
                    CAPACITY,
                    CAPACITY,
                    st.dictionaries(st.sampled_from(RESOURCE_NAMES + ["pods"]), json_texts),
                    json_values,
                )
            },
            optional={"maxPods": json_values, "gpuSharing": SHARING, "provider": json_values},
        ),
        json_values,
    ),
    overhead=st.one_of(st.none(), json_values),
    extra=st.one_of(
        st.just({}),
        st.just({}),
        st.fixed_dictionaries(
            {},
            optional={
                "kubelet": st.one_of(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "cpuCFSQuota": st.booleans(),
                            "cpuCFSQuotaPeriod": st.one_of(
                                st.sampled_from(["100ms", "5ms", "1s", "0", "fast"]), json_texts
                            ),
                        },
                    ),
                    json_values,
                ),
                "resourceSlices": SLICES,
            },
        ),
    ),
)
def test_the_fit_api_never_fails(
    client: Client, pod: Any, node: Any, overhead: Any, extra: dict
) -> None:
    body: Any = {"pod": pod, "node": node, **extra}
    if overhead is not None:
        body["daemonsetOverhead"] = overhead
    data = json.dumps(body)
    assert_no_server_error(client.post("/api/v1/fit", data, content_type="application/json"))


@FUZZ
@given(share_id=texts, language=texts, next_url=texts)
def test_share_links_and_the_language_switch_never_fail(
    client: Client, share_id: str, language: str, next_url: str
) -> None:
    assert_no_server_error(client.get(f"/s/{quote(share_id, safe='')}"))
    assert_no_server_error(client.post("/i18n/setlang/", {"language": language, "next": next_url}))


@pytest.mark.parametrize(
    "path", ["/", "/analyze", "/api/", "/api/v1/openapi.json", "/healthz", "/s/000000000000"]
)
@pytest.mark.parametrize("method", ["get", "head", "options", "put", "delete", "patch"])
def test_every_method_on_every_page_answers_without_a_server_error(
    client: Client, path: str, method: str
) -> None:
    assert_no_server_error(getattr(client, method)(path))
