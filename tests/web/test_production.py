"""What production needs of the site: the database refusing a write, characters one database
stores and another refuses, probes, hostile hosts, bodies that are too large or too costly,
and Python's words never reaching the user.

Run against SQLite here and against PostgreSQL by .ci/postgres-tests (DATABASE_URL).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlencode

import pytest
from django.db import DatabaseError, connection
from django.test import Client

import designer.api
import designer.k8s.check.manifests as check_module
from designer.forms import design_query, encode_blob
from designer.k8s.check import check_texts
from designer.k8s.design import preset_design
from designer.models import SharedCluster, SharedDesign, StoredAnalysis
from designer.store import AnalysisStore

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "share-link"}
# Text that zlib cannot shrink, so a design carrying it needs a stored short link.
NOISE = "".join(format(i * 2654435761 % 2**32, "08x") for i in range(800))
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits: {cpu: "1", memory: 1Gi}
"""


@contextmanager
def refusing_database(how: str) -> Iterator[None]:
    """The real database refuses writes: read-only (both engines) or full (SQLite's
    max_page_count, the same SQLITE_FULL a full disk gives)."""
    vendor = connection.vendor
    with connection.cursor() as cursor:
        if how == "read-only" and vendor == "sqlite":
            cursor.execute("PRAGMA query_only = ON")
        elif how == "read-only" and vendor == "postgresql":
            cursor.execute("SET default_transaction_read_only = on")
        elif how == "full" and vendor == "sqlite":
            # No page left: fill the database up to a page limit, as a disk fills up (and
            # the share table's own page, which would otherwise take one more small row).
            cursor.execute(
                "INSERT INTO designer_shareddesign (id, design, created) VALUES (%s, %s, %s)",
                ["filler000000", "x" * 4000, "2026-01-01 00:00:00"],
            )
            cursor.execute("PRAGMA page_count")
            cursor.execute(f"PRAGMA max_page_count = {cursor.fetchone()[0] + 4}")
            cursor.execute("CREATE TABLE filler (x BLOB)")
            try:
                while True:
                    cursor.execute("INSERT INTO filler VALUES (zeroblob(512))")
            except DatabaseError:
                pass
        else:
            pytest.skip(f"{vendor} cannot be made {how} here")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            if vendor == "sqlite":
                cursor.execute("PRAGMA query_only = OFF")
                cursor.execute("DROP TABLE IF EXISTS filler")
                cursor.execute("PRAGMA max_page_count = 1073741823")
            else:
                cursor.execute("SET default_transaction_read_only = off")


def design_with_kept_fields(text: str):
    design = preset_design("inference")
    design.base = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "inference", "annotations": {"note": text}},
    }
    design.containers[0].base = {"env": [{"name": "X", "value": text}]}
    return design


# --- characters one database stores and another refuses -------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["a\x00b", "\x00", "\u2028\U0001f600", "\ufffd"])
def test_a_share_link_keeps_nul_and_any_character_in_kept_fields(client: Client, text: str) -> None:
    design = design_with_kept_fields(text)
    query = design_query(design)
    response = client.post("/share", query)
    assert response.status_code == 302
    shared = client.get(response["Location"])
    assert shared.status_code == 200
    # A share link keeps the cluster (version, namespace policy) beside the design.
    page = SharedCluster.load_page(response["Location"].rsplit("/", 1)[1])
    assert page is not None and page[0] == design
    page = client.get("/?" + urlencode(query))
    assert re.findall(r"<pre id=\"manifest-yaml\".*?</pre>", shared.content.decode(), re.S) == (
        re.findall(r"<pre id=\"manifest-yaml\".*?</pre>", page.content.decode(), re.S)
    )


@pytest.mark.django_db
def test_an_unpaired_surrogate_in_kept_fields_is_shared_as_go_decodes_it(client: Client) -> None:
    # The blob is JSON: "\\ud800" alone decodes to U+FFFD, as encoding/json does.
    query = design_query(preset_design("inference"))
    query["base"] = encode_blob({"metadata": {"annotations": {"note": "a\ud800b"}}})
    response = client.post("/share", query)
    assert response.status_code == 302
    page = SharedCluster.load_page(response["Location"].rsplit("/", 1)[1])
    assert page is not None
    design = page[0]
    assert design.base["metadata"]["annotations"]["note"] == "a\ufffdb"


@pytest.mark.django_db
def test_open_in_designer_stores_a_long_design_with_nul_characters(client: Client) -> None:
    template = {
        "kind": "Deployment",
        "metadata": {"name": "web", "annotations": {"big": "\x00" + NOISE}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
    }
    response = client.post("/analyze/open", {"workload": encode_blob(template)})
    assert response.status_code == 302
    assert re.fullmatch(r"/s/[0-9a-f]{12}", response["Location"])
    design = SharedDesign.load_design(response["Location"][3:])
    assert design.base["metadata"]["annotations"]["big"] == "\x00" + NOISE


# --- the database refuses a write -------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("how", ["read-only", "full"])
def test_sharing_when_the_database_refuses_says_so_keeps_the_design_and_logs_it(
    client: Client, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    query = design_query(preset_design("training"))
    with caplog.at_level(logging.ERROR, logger="designer"), refusing_database(how):
        htmx = client.post("/share", query, **HTMX)
        plain = client.post("/share?" + urlencode(query), {})
    assert htmx.status_code == 503
    # htmx swaps no 5xx by itself: static/app.js swaps answers marked so.
    assert htmx["X-Swap-Error"] == "true"
    html = htmx.content.decode()
    assert html.startswith('<p id="share-link"') and 'role="alert"' in html
    assert "database refused the write" in html and "address" in html
    assert plain.status_code == 503
    back = re.search(r'href="(/\?[^"]+)"', plain.content.decode())
    assert back and "c-0-cpu_limit=" in back.group(1)
    logged = [r for r in caplog.records if r.name == "designer.views" and r.exc_info]
    assert logged, "the refusal is logged with its traceback"
    words = {"full": "full", "read-only": "read"}[how]
    assert words in str(logged[0].exc_info[1]).replace("readonly", "read-only")
    assert not SharedDesign.objects.exclude(id="filler000000").exists()


@pytest.mark.django_db(transaction=True)
def test_open_in_designer_when_the_database_refuses_offers_the_long_address(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    template = {
        "kind": "Pod",
        "metadata": {"name": "web", "annotations": {"big": NOISE}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
    }
    with caplog.at_level(logging.ERROR, logger="designer"), refusing_database("read-only"):
        response = client.post("/analyze/open", {"workload": encode_blob(template)})
    assert response.status_code == 503
    html = response.content.decode()
    assert "could not be stored" in html
    link = re.search(r'<a href="(/\?[^"]+)">', html)
    assert link and len(link.group(1)) > 4000
    assert any(r.name == "designer.analyze" and r.exc_info for r in caplog.records)


@pytest.mark.django_db(transaction=True)
def test_analyzing_when_the_database_refuses_says_so(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="designer"), refusing_database("read-only"):
        response = client.post("/analyze", {"text": POD})
    assert response.status_code == 503
    assert "could not be kept" in response.content.decode()
    assert any(r.name == "designer.analyze" and r.exc_info for r in caplog.records)


@pytest.mark.django_db(transaction=True)
def test_healthz_is_unavailable_without_the_designer_tables(client: Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok"}
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE designer_storedanalysis RENAME TO designer_moved")
    try:
        response = client.get("/healthz")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE designer_moved RENAME TO designer_storedanalysis")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert client.get("/livez").status_code == 200


@pytest.mark.django_db
def test_probes_answer_for_a_pod_ip_that_is_no_allowed_host(client: Client) -> None:
    for path in ("/healthz", "/livez"):
        response = client.get(path, HTTP_HOST="10.244.1.17:8000")
        assert response.status_code == 200
        assert response["Cache-Control"] == "no-store"


# --- the store ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_store_keeps_analyses_in_the_database_until_they_expire() -> None:
    store = AnalysisStore(ttl=3600)
    analysis_id = store.save({"rows": [], "big": 10**30})
    assert StoredAnalysis.objects.filter(id=analysis_id).exists()
    assert store.load(analysis_id) == {"rows": [], "big": 10**30}
    assert AnalysisStore(ttl=-1).load(AnalysisStore(ttl=-1).save({"rows": []})) is None
    assert store.load("not-an-id") is None


@pytest.mark.django_db
def test_every_save_prunes_expired_and_surplus_entries_without_a_cron_job() -> None:
    AnalysisStore(ttl=-1).save({"rows": []})  # expired at once
    store = AnalysisStore(ttl=3600, max_entries=3)
    ids = [store.save({"rows": [], "n": i}) for i in range(5)]
    assert [store.load(i) is not None for i in ids] == [False, False, True, True, True]
    assert StoredAnalysis.objects.count() == 3


@pytest.mark.django_db
def test_the_store_is_bounded_in_bytes_in_all() -> None:
    noise = [format(i * 2654435761 % 2**32, "08x") for i in range(20_000)]  # incompressible
    store = AnalysisStore(ttl=3600, max_total_bytes=250_000)
    ids = [store.save({"rows": noise, "n": i}) for i in range(4)]
    entries, size = store.usage()
    assert size <= 250_000
    assert entries < 4 and store.load(ids[-1]) is not None


@pytest.mark.django_db
def test_an_analysis_too_large_to_keep_is_refused_with_its_size(client: Client, settings) -> None:
    settings.ANALYSIS_MAX_ENTRY_BYTES = 100
    response = client.post("/analyze", {"text": POD})
    assert response.status_code == 413
    html = response.content.decode()
    assert "compressed, more than the 0.0 MB one analysis may keep" in html
    assert StoredAnalysis.objects.count() == 0


# --- hosts, methods, headers --------------------------------------------------------------


@pytest.mark.django_db
def test_a_host_not_allowed_gets_a_400_with_the_security_headers(client: Client) -> None:
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_head_on_the_front_page_answers_like_get_without_a_body(client: Client) -> None:
    response = client.head("/")
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Type"].startswith("text/html")


# --- bodies: size, cost, and what the answer says -------------------------------------------


def test_a_body_over_the_limit_is_refused_before_it_is_parsed(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args, **kwargs):
        raise AssertionError("the body was parsed")

    monkeypatch.setattr(designer.api.GoJsonParser, "parse_body", never)
    body = b'{"name": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    for path in ("/api/v1/render", "/api/v1/fit"):
        response = client.post(path, body, content_type="application/json")
        assert response.status_code == 413
        assert response.json() == {"error": "The body is larger than the 2,097,152-byte limit."}


def test_a_render_with_a_mapping_for_the_workload_is_a_422(client: Client) -> None:
    response = client.post("/api/v1/render", {"workload": {}}, content_type="application/json")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "design", "workload"]


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/v1/render", b'{"name": ' + b"1" * 5000 + b"}", "5,000 digits"),
        ("/api/v1/render", b"\xff{}", "not valid UTF-8: byte 0xff"),
        ("/api/v1/fit", b'{"pod": "a", "node": {"a": NaN}}', "NaN is not JSON"),
        ("/api/v1/analyze", b'{"kind": "Pod", "a": ' + b"1" * 5000 + b"}", "5,000 digits"),
        ("/api/v1/analyze", b"kind: Pod\n\xc3(", "not valid UTF-8"),
    ],
)
def test_error_messages_say_what_is_wrong_without_python_words(
    client: Client, path: str, body: bytes, words: str
) -> None:
    response = client.post(path, body, content_type="application/json")
    assert response.status_code == 400
    message = response.json()["error"]
    assert words in message
    for python in ("set_int_max_str_digits", "codec", "Traceback", "Exception", "Cannot parse"):
        assert python not in message


@pytest.mark.django_db
def test_fit_reads_only_the_documents_up_to_its_pod(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []
    real = designer.api.find_workloads

    def counting(documents):
        seen.extend(d.index for d in documents)
        return real(documents)

    monkeypatch.setattr(designer.api, "find_workloads", counting)
    pod = "kind: ConfigMap\n---\n" + POD + "---\nkind: Pod\n" * 40_000
    body = {"pod": pod, "node": {"capacity": {"cpu": "8", "memory": "32Gi"}}}
    response = client.post("/api/v1/fit", json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    assert response.json()["bottleneck"] == "cpu"
    assert seen == [0, 1]


def test_a_stream_of_tiny_documents_is_refused_before_any_is_checked(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[object] = []
    real = check_module._report
    monkeypatch.setattr(check_module, "_report", lambda w: checked.append(w) or real(w))
    body = ("---\nkind: Pod\n" * 49_999).encode()
    assert len(body) < 700 * 1024
    response = client.post("/api/v1/analyze", body, content_type="application/yaml")
    assert response.status_code == 400
    assert "49,999 document separators" in response.json()["error"]
    items = {"kind": "List", "items": [{"kind": "Pod"}] * 20_000}
    response = client.post("/api/v1/analyze", json.dumps(items), content_type="application/json")
    assert response.status_code == 400
    assert "20,000 workloads; the limit is" in response.json()["error"]
    assert checked == []


def test_a_defect_on_one_workload_does_not_lose_the_report_on_the_others(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = check_module.pod_report

    def broken(pod, **kwargs):
        if pod.metadata.namespace == "bad":
            raise OverflowError("a planted defect")
        return real(pod, **kwargs)

    monkeypatch.setattr(check_module, "pod_report", broken)
    # The three pods differ only in their namespaces: each is checked on its own here.
    monkeypatch.setattr(check_module, "memo_key", lambda workload: None)
    monkeypatch.setattr(check_module, "canonical", lambda workload: None)
    text = "---\n".join(
        POD.replace("trainer", name).replace("namespace: ml", f"namespace: {name}")
        for name in ("a", "bad", "c")
    )
    with caplog.at_level(logging.ERROR, logger="designer.check"):
        report = check_texts([("f", text)])
    assert [o["name"] for o in report["objects"]] == ["a", "bad", "c"]
    assert report["objects"][0]["qosClass"] == "Guaranteed"
    assert report["objects"][1]["errors"][0]["type"] == "InternalError"
    assert (
        "reports on the other workloads are complete"
        in report["objects"][1]["errors"][0]["message"]
    )
    assert caplog.records and caplog.records[0].exc_info
