"""English and Simplified Chinese: the catalog is complete and compiled, the language comes
from Accept-Language or the header switch (a cookie), and a design looks the same in both
languages: the same QoS class, the same YAML, byte for byte."""

from __future__ import annotations

import gettext
import html as html_lib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from designer.forms import design_query
from designer.i18n import translate
from designer.k8s.core import Quantity
from designer.k8s.design import WORKLOAD_TYPES, preset_design
from designer.k8s.gpu import SHARING_MODES
from designer.k8s.kubelet import node_view, oom, qos, view
from tests.builders import container as ctr
from tests.builders import pod_from_spec as pod

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
PO = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
HTMX_RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
CJK = re.compile(r"[\u4e00-\u9fff]")


# --- the catalog ---------------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.msgctxt, self.msgid)


def _unquote(text: str) -> str:
    body = text.strip()
    assert body.startswith('"') and body.endswith('"'), body
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    return re.sub(r"\\(.)", lambda m: escapes[m.group(1)], body[1:-1])


def parse_po(text: str) -> list[Entry]:
    """The entries of a .po file (the header is the entry with msgid "")."""
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int] | None = None
    for raw in [*text.splitlines(), ""]:
        line = raw.strip()
        if not line:
            if entry is not None and target is not None:
                entries.append(entry)
            entry, target = None, None
            continue
        entry = entry or Entry()
        if line.startswith("#~"):
            entry.obsolete = True
            continue
        if line.startswith("#,"):
            entry.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith("#"):
            continue
        match = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")$", line)
        if match:
            keyword, index, value = match.group(1), match.group(2), _unquote(match.group(3))
            if keyword == "msgctxt":
                entry.msgctxt, target = value, ("msgctxt", 0)
            elif keyword == "msgid":
                entry.msgid, target = value, ("msgid", 0)
            elif keyword == "msgid_plural":
                entry.plural, target = value, ("plural", 0)
            else:
                n = int(index or 0)
                entry.msgstr[n], target = value, ("msgstr", n)
            continue
        assert target is not None and line.startswith('"'), raw
        value = _unquote(line)
        name, n = target
        if name == "msgstr":
            entry.msgstr[n] += value
        elif name == "msgctxt":
            entry.msgctxt = (entry.msgctxt or "") + value
        elif name == "msgid":
            entry.msgid += value
        else:
            entry.plural = (entry.plural or "") + value
    return entries


def catalog() -> tuple[Entry, list[Entry]]:
    entries = parse_po(PO.read_text(encoding="utf-8"))
    header = next(e for e in entries if e.msgid == "" and e.msgctxt is None)
    return header, [e for e in entries if e is not header]


def nplurals(header: Entry) -> int:
    match = re.search(r"nplurals=(\d+)", header.msgstr[0])
    assert match, "the header has no Plural-Forms"
    return int(match.group(1))


PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%")


def test_every_catalog_entry_is_translated_and_none_is_fuzzy() -> None:
    header, entries = catalog()
    assert "fuzzy" not in header.flags
    assert "charset=UTF-8" in header.msgstr[0]
    assert "Language: zh_Hans" in header.msgstr[0]
    forms = nplurals(header)
    assert len(entries) > 400
    problems = []
    for e in entries:
        if e.obsolete:
            problems.append(f"obsolete entry left in the catalog: {e.msgid!r}")
        if "fuzzy" in e.flags:
            problems.append(f"fuzzy: {e.msgid!r}")
        wanted = range(forms) if e.plural is not None else range(1)
        if sorted(e.msgstr) != list(wanted) or not all(e.msgstr[i].strip() for i in wanted):
            problems.append(f"untranslated: {e.msgid!r}")
        if "python-format" in e.flags:
            source = set(PLACEHOLDER.findall(e.msgid)) | set(PLACEHOLDER.findall(e.plural or ""))
            for text in e.msgstr.values():
                if set(PLACEHOLDER.findall(text)) != source:
                    problems.append(f"placeholders differ: {e.msgid!r} -> {text!r}")
    assert not problems, "\n".join(problems)


def test_the_compiled_catalog_matches_the_po_file() -> None:
    """The committed .mo holds exactly the .po's translations (`make messages` rebuilds it)."""
    assert MO.exists(), "run `make messages` to compile the catalog"
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    mo = {k: v for k, v in compiled._catalog.items() if k != ""}  # type: ignore[attr-defined]
    _header, entries = catalog()
    po: dict[object, str] = {}
    for e in entries:
        key = f"{e.msgctxt}\x04{e.msgid}" if e.msgctxt is not None else e.msgid
        if e.plural is None:
            po[key] = e.msgstr[0]
        else:
            for n, text in e.msgstr.items():
                po[(key, n)] = text
    assert mo == po


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext (msgfmt) is not installed")
def test_msgfmt_checks_the_catalog() -> None:
    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", os.devnull, str(PO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"\d+ translated messages\.\n", result.stderr), result.stderr


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="gettext (xgettext) is not installed")
def test_makemessages_finds_no_new_or_removed_msgid(tmp_path: Path) -> None:
    """Every string marked in the code and templates is in the catalog, and nothing else."""
    for name in ("designer", "templates", "locale"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    # Run from the copy, importing its settings: LOCALE_PATHS (and the .po makemessages
    # updates) are then the copy's, never the repository's.
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "DJANGO_SETTINGS_MODULE": "designer.settings"}
    result = subprocess.run(
        [sys.executable, "-m", "django", "makemessages", "-l", "zh_Hans", "-e", "html,py"]
        + ["--ignore=.venv", "--ignore=tests", "--ignore=bench"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    regenerated = parse_po((tmp_path / PO.relative_to(ROOT)).read_text(encoding="utf-8"))
    _header, committed = catalog()
    now = {e.key for e in regenerated if e.msgid and not e.obsolete}
    before = {e.key for e in committed}
    assert now - before == set(), "new msgids: run makemessages and translate them"
    assert before - now == set(), "msgids no longer used: run makemessages"


# --- engine texts are marked -------------------------------------------------------------


def _constants(module: object, prefixes: tuple[str, ...]) -> list[str]:
    return [
        value
        for name, value in vars(module).items()
        if name.startswith(prefixes) and isinstance(value, str)
    ]


def engine_templates() -> list[str]:
    """Engine strings the pages show, marked with gettext_noop."""
    texts = [*qos.EVICTION_PRIORITY.values()]
    texts += _constants(qos, ("R_", "WHO_", "QOS_UNKNOWN"))
    texts += _constants(oom, ("OOM_",))
    texts += _constants(view, ("THROTTLE_", "EVICTION_", "PRIORITY_", "NOTE_"))
    texts += [view.CPU_WEIGHT_NOTE, view.POD_CPU_WEIGHT_NOTE, view.LIST_JOIN]
    for spec in WORKLOAD_TYPES.values():
        texts += [spec.label, *spec.rationale]
    for mode in SHARING_MODES.values():
        texts += [str(mode["label"])]
        for key in ("isolates", "does_not_isolate", "notes"):
            texts += list(mode[key])  # type: ignore[call-overload]
    return texts


def test_engine_texts_shown_on_the_pages_are_in_the_catalog() -> None:
    _header, entries = catalog()
    msgids = {e.msgid for e in entries if e.msgctxt is None}
    missing = [t for t in engine_templates() if t not in msgids]
    assert not missing, missing


PODS = [
    pod(
        {"containers": [ctr("main", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})]}
    ),
    pod({"containers": [ctr("main", limits={"cpu": "1", "memory": "1Gi"}), ctr("b")]}),
    pod({"containers": [ctr("main", {"cpu": "500m"}, {"cpu": "1", "memory": "0"})]}),
    pod({"containers": [ctr("", {"memory": "1Gi"}, {"example.com/x": "1"})]}),
    pod({"containers": [ctr("main", limits={"nvidia.com/gpu": "1", "cpu": "0"})]}),
    pod({"containers": [ctr("main", {"cpu": "lots"}, {"memory": "1Gi"})]}),
    pod(
        {
            "containers": [ctr("main", limits={"cpu": "1", "memory": "1Gi"})],
            "initContainers": [
                ctr("side", limits={"cpu": "1", "memory": "1Gi"}, restartPolicy="Always")
            ],
        }
    ),
    pod(
        {
            "resources": {"limits": {"cpu": "2", "memory": "2Gi"}},
            "containers": [ctr("main", {"cpu": "1"})],
        }
    ),
    pod({"resources": {"requests": {"cpu": "1"}}, "containers": [ctr("main")]}),
    pod({"resources": {"requests": {"example.com/x": "1"}}, "containers": [ctr("main")]}),
]


@pytest.mark.parametrize("index", range(len(PODS)))
def test_qos_reasons_render_to_their_english_message_and_translate(index: int) -> None:
    result = qos.pod_qos(PODS[index])
    assert result.reasons
    for reason in result.reasons:
        assert reason.message.template, reason.code
        assert reason.message.text == reason.text
        with translation.override("en"):
            assert translate(reason.message) == reason.text
        with translation.override("zh-hans"):
            chinese = translate(reason.message)
        assert CJK.search(chinese), (reason.code, chinese)
        for name, value in reason.message.params.items():  # Kubernetes values stay as they are
            if isinstance(value, str) and f"%({name})s" in reason.message.template:
                assert value in chinese
    with translation.override("zh-hans"):
        assert CJK.search(translate(result.eviction_priority))


@pytest.mark.parametrize("index", range(len(PODS)))
def test_node_texts_render_to_their_english_text_and_translate(index: int) -> None:
    for capacity in (None, Quantity.parse("64Gi")):
        view = node_view(PODS[index], capacity)
        messages = [
            view.eviction_order,
            view.throttling,
            *(c.oom_reason for c in view.containers),
            *view.notes,
        ]
        for message in messages:
            with translation.override("en"):
                assert translate(message) == message.text
            with translation.override("zh-hans"):
                assert CJK.search(translate(message)), message.text


# --- pages ---------------------------------------------------------------------------------


def preview_of(html: str) -> str:
    match = re.search(r'<pre id="manifest-yaml"[^>]*>(.*?)</pre>', html, re.S)
    assert match, "the page shows no YAML preview"
    return html_lib.unescape(match.group(1))


def qos_of(html: str) -> str:
    match = re.search(r'data-qos-class="([^"]*)"', html)
    assert match, "the page shows no QoS class"
    return match.group(1)


def design_url(**changes: str) -> str:
    query = design_query(preset_design("training"))
    query.update(changes)
    return "/?" + urlencode(query)


DESIGNS = [
    "/",
    "/?preset=inference",
    "/?preset=batch",
    design_url(**{"c-0-memory_limit": "64Mi", "c-0-gpus": "0.5", "c-0-cpu_request": "2G"}),
    design_url(node_source="catalog", node_catalog_id="p4d.24xlarge", headroom_peak="12Gi"),
    design_url(export_kind="Deployment", export_hpa="on", export_hpa_gpu_metric="on"),
    design_url(export_kind="IndexedJob", export_workers="4", gpu_mode="mig-mixed"),
]


def test_english_is_the_default(client: Client) -> None:
    html = client.get("/").content.decode()
    assert '<html lang="en">' in html
    for label in ("CPU request", "CPU limit", "Memory request", "Memory limit", "GPUs"):
        assert f">{label}</label>" in html
    assert ">Workload type</label>" in html
    assert "so the pod is Guaranteed" in html


def test_accept_language_picks_simplified_chinese(client: Client) -> None:
    response = client.get("/", **ZH)
    html = response.content.decode()
    assert response["Content-Language"] == "zh-hans"
    assert '<html lang="zh-hans">' in html
    assert ">Pod 资源设计器</a>" in html
    assert ">CPU request</label>" in html and ">工作负载类型</label>" in html
    assert ">为什么是这些默认值</summary>" in html  # the workload rationale heading
    assert "训练（单节点，多 GPU）" in html  # a workload label from the engine
    assert "因此 Pod 为 Guaranteed" in html  # a QoS reason from the engine
    assert "最后被驱逐" in html  # the eviction priority
    assert "kubelet 按以下顺序" in html  # the node view
    # Kubernetes terms stay as Kubernetes prints them.
    assert qos_of(html) == "Guaranteed"
    assert "QoS 类别： <strong>Guaranteed</strong>" in html


def test_a_browser_asking_for_zh_cn_gets_simplified_chinese(client: Client) -> None:
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.8").content.decode()
    assert '<html lang="zh-hans">' in html


def test_api_server_messages_stay_english_with_a_chinese_explanation(client: Client) -> None:
    url = design_url(**{"c-0-cpu_limit": "1", "c-0-gpus": "0.5"})
    html = client.get(url, **ZH).content.decode()
    assert "must be less than or equal to cpu limit of 1" in html
    assert "must be an integer" in html
    assert "API 服务器拒绝：" in html  # the translated prefix beside the field
    assert "以上是 API 服务器自己的消息" in html  # the line under the error list
    assert "个错误：API 服务器会拒绝这个 Pod。" in html
    assert "Kubernetes 中的 GPU 不能按小数切分" in html  # our own hint is translated
    english = client.get(url).content.decode()
    assert "API 服务器" not in english and "API server’s own messages" not in english


@pytest.mark.parametrize("url", DESIGNS)
def test_the_yaml_and_qos_class_are_the_same_in_both_languages(client: Client, url: str) -> None:
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chinese = client.get(url, **ZH).content.decode()
    assert CJK.search(chinese) and not CJK.search(english.replace("简体中文", ""))
    assert preview_of(chinese) == preview_of(english)
    assert qos_of(chinese) == qos_of(english)
    partial = client.get(url, **ZH, **HTMX_RESULTS).content.decode()
    assert preview_of(partial) == preview_of(english)
    assert "QoS 类别" in partial


def test_the_downloaded_yaml_is_the_same_in_both_languages(client: Client) -> None:
    url = "/export.yaml" + DESIGNS[5][1:]
    english = client.get(url).content
    assert client.get(url, **ZH).content == english


def test_the_language_switch_sets_the_cookie_and_returns_to_the_same_design(
    client: Client,
) -> None:
    url = DESIGNS[4]
    english = client.get(url).content.decode()
    assert 'action="/i18n/setlang/"' in english
    assert f'name="next" value="{html_lib.escape(url)}"' in english
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": url})
    assert response.status_code == 302
    assert response["Location"] == url
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "zh-hans"
    assert int(cookie["max-age"]) >= 30 * 24 * 3600  # remembered, not a session cookie
    # The cookie is remembered: Chinese from now on, even when the browser asks for English.
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="zh-hans">' in chinese
    assert preview_of(chinese) == preview_of(english)
    assert qos_of(chinese) == qos_of(english)
    back = client.post("/i18n/setlang/", {"language": "en", "next": url})
    assert back["Location"] == url
    assert '<html lang="en">' in client.get(url).content.decode()


def test_the_switch_refuses_to_redirect_elsewhere(client: Client) -> None:
    response = client.post(
        "/i18n/setlang/", {"language": "zh-hans", "next": "https://example.com/"}
    )
    assert response.status_code == 302
    assert not response["Location"].startswith("https://example.com")


def test_the_switch_needs_the_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"}).status_code == 403
    page = client.get("/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token
    response = client.post(
        "/i18n/setlang/",
        {"language": "zh-hans", "next": "/", "csrfmiddlewaretoken": token.group(1)},
    )
    assert response.status_code == 302


def test_a_share_link_shows_the_same_design_in_every_language(client: Client) -> None:
    query = design_query(preset_design("batch"))
    query["c-0-memory_limit"] = "20Gi"
    response = client.post("/share", query, **ZH)
    assert response.status_code == 302
    link = response["Location"]
    english = client.get(link).content.decode()
    chinese = client.get(link, **ZH).content.decode()
    assert 'memory: "20Gi"' in preview_of(english)
    assert preview_of(chinese) == preview_of(english)
    assert qos_of(chinese) == qos_of(english) == "Burstable"


def test_the_analyze_page_and_its_results_in_chinese(client: Client) -> None:
    html = client.get("/analyze", **ZH).content.decode()
    assert "<h1>分析清单</h1>" in html
    manifest = """\
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
"""
    location = client.post("/analyze", {"text": manifest}, **ZH)["Location"]
    chinese = html_lib.unescape(client.get(location, **ZH).content.decode())
    english = html_lib.unescape(client.get(location).content.decode())
    assert "已分析：粘贴的文本。" in chinese and "Analyzed: pasted text." in english
    assert '容器 "main"（spec.containers[0]）：cpu request 2 与 limit 1 不相等。' in chinese
    assert 'container "main" (spec.containers[0]): cpu request 2 differs from limit 1.' in english
    # The API server's own messages stay English in both.
    for page in (chinese, english):
        assert "must be less than or equal to cpu limit of 1" in page
        assert ">Burstable</span>" in page
    assert "1 个文档无法读取" in chinese


def test_the_api_docs_page_is_translated_but_the_json_api_stays_english(client: Client) -> None:
    docs = client.get("/api/", **ZH).content.decode()
    assert "与页面和 podspec CLI 使用同一个引擎" in docs
    assert "<h1>HTTP API</h1>" in docs
    answer = client.post(
        "/api/v1/analyze",
        data="kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\n",
        content_type="application/yaml",
        **ZH,
    ).json()
    assert answer["objects"][0]["qosReasons"] == [
        "No container sets a cpu or memory request or limit greater than zero, so the pod "
        "is BestEffort."
    ]
    empty = client.post("/api/v1/analyze", data="", content_type="application/yaml", **ZH)
    assert empty.status_code == 400
    assert not CJK.search(empty.content.decode())


def test_error_pages_are_translated(client: Client) -> None:
    html = client.get("/s/nonexistent", **ZH).content.decode()
    assert "没有与此链接对应的分享设计" in html
    html = client.get("/no/such/page", **ZH).content.decode()
    assert "此地址没有内容。" in html and "Resolver404" not in html


def test_stored_reasons_round_trip_and_older_analyses_still_show() -> None:
    from designer.analyze import _reason_texts, _source_label
    from designer.i18n import message_data, message_from_data

    reasons = qos.pod_qos(PODS[1]).reasons
    stored = [message_data(r.message) for r in reasons]
    assert [message_from_data(d) for d in stored] == [r.message for r in reasons]
    row = {"reasons": [r.message for r in reasons], "reason_messages": stored}
    with translation.override("zh-hans"):
        assert all(CJK.search(text) for text in _reason_texts(row))
        # An analysis stored before the reasons were kept as messages: English as stored.
        assert _reason_texts({"reasons": ["as stored"]}) == ["as stored"]
        assert _source_label({"source": "pods.yaml"}) == "pods.yaml"
        assert _source_label({"source": "pasted text", "source_kind": "pasted"}) == "粘贴的文本"
        assert _source_label({"source": "a.yaml", "source_kind": "file"}) == "a.yaml"
