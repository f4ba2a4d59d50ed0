"""Differential tests: designer.k8s.manifest against the real kubectl (v1.32).

kubectl reads manifests offline with ``kubectl label --local -f DIR -o json``
(any kind: it decodes the object as unstructured JSON, adds a label and prints
it) and ``kubectl set resources --local -f DIR -o json`` (typed decoding: Pod
and Deployment fields, quantities in canonical form).  Given a directory, kubectl
reads every file on its own and names each file it rejects, so every batch
below costs one kubectl run whatever its size, and our reader never decides
what kubectl is asked.

What kubectl prints has been through its unstructured decoding
(k8s.io/apimachinery/pkg/util/json: an integral JSON number becomes int64,
anything else float64), so ``kubectl_json`` applies the same step to our value.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import string
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from designer.k8s.core import Quantity, QuantityError
from designer.k8s.manifest import QuotedStr, dump_yaml, read_documents

KUBECTL = shutil.which("kubectl")

pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed"),
]

PROBE_LABEL = "zz-manifest-probe"
# One record per rejected file; a message may go on over several lines.
FILE_ERROR = re.compile(
    r'^(?:error parsing (\S+?)|unable to decode "([^"]+)"): (.*?)'
    r'(?=\n(?:error parsing |unable to decode ")|\n?\Z)',
    re.M | re.S,
)

# Unquoted scalars worth asking kubectl about (see also test_manifest.PLAIN_SCALARS).
TOKENS = [
    "1", "-1", "+1", "0", "-0", "0777", "010", "0o17", "0x1F", "0X1f", "-0x1F", "+0x1F",
    "0b101", "-0b101", "1_000", "0_x1F", "1__0", "1_", "_1", "08", "09.5", "1e3", "1E3",
    "1.5e3", "1e+3", "1e-3", "1e_3", ".5", "+.5", "-.5", "5.", "0.5", "1.0", "-0.0",
    "1e400", "1e-400", "9223372036854775807", "9223372036854775808",
    "18446744073709551615", "18446744073709551616", "99999999999999999999",
    "-9223372036854775809", "0xFFFFFFFFFFFFFFFFFFFF", "yes", "Yes", "YES", "y", "Y", "on",
    "On", "ON", "true", "True", "TRUE", "no", "n", "N", "off", "OFF", "false", "False",
    "tRue", "yEs", "~", "null", "Null", "NULL", "nULL", "1:30", "2001-12-14",
    "2001-12-14T21:59:43.10Z", "<<", "=", "0.0.0.0", "10.244.1.7", "1.2.3", "500m", "1Gi",
    "1e", "0x", "0b", "0b102", "Infinity", "nan", ".iNf", "v1", "1e21", "1e-7", "123e4567",
    "1e20", "1e6", "0.1", "16777217.0", "1e300", "4283e81950", ".inf", "-.Inf", ".nan",
]  # fmt: skip

# Quantities: Pod resources.requests.cpu and Deployment spec.replicas (typed fields).
QUANTITY_TOKENS = [
    "1", "0", "-1", "0777", "0x1F", "0o17", "0b101", "1_000", "08", "1e3", "1E3", "1.5e3",
    ".5", "5.", "0.5", "+1", "1e9", "1e-3", "1e-9", "1e-10", "123456789", "1.5", "1e21",
    "9223372036854775807", "9223372036854775808", "18446744073709551615", "100m", "1Gi",
    "yes", "on", "~", "1:30", "1e", "0x", "2001-12-14", "1e400", "0.1", "1e20", "1e-7",
]  # fmt: skip

LABEL_TOKENS = [
    "abc", "1.0", "1", "yes", "no", "0777", "2001-12-14", "1:30", "~", "null", "'1.0'",
    '"yes"', "v1", "1e3", "1_000", "on", "_1", "08",
]  # fmt: skip


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def go_json_float(f: float) -> str:
    """encoding/json's float64: 'f' format, 'e' below 1e-6 or from 1e21, "e-07" -> "e-7"."""
    if f == 0:
        return "-0" if str(f).startswith("-") else "0"
    d = Decimal(repr(f)).normalize()
    if 1e-6 <= abs(f) < 1e21:
        return format(d, "f")
    sign, digits, exp = d.as_tuple()
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    e = exp + len(digits) - 1
    text = f"{'-' if sign else ''}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    return re.sub(r"e-0(\d)$", r"e-\1", text)


def kubectl_json(value: Any) -> Any:
    """Our value as kubectl prints it: encoding/json, then unstructured's int64/float64."""
    if isinstance(value, dict):
        return {k: kubectl_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [kubectl_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    text = str(value) if isinstance(value, int) else go_json_float(value)
    if re.fullmatch(r"-?\d+", text) and -(2**63) <= int(text) < 2**63:
        return int(text)
    return json.loads(go_json_float(float(text)))


def _run(command: list[str], directory: Path) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    return subprocess.run(
        [KUBECTL, *command, "-f", str(directory)], capture_output=True, text=True, timeout=60
    )


def kubectl_read(
    files: dict[str, str], workdir: Path, command: list[str] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Run kubectl on a directory of files named by their keys.

    Returns the objects kubectl printed (by metadata.name, without the probe label)
    and kubectl's error message for each file it rejected (by file name).  Some
    commands print nothing when any file fails, so the accepted files get a
    second run.
    """
    command = command or ["label", "--local", "-o", "json", f"{PROBE_LABEL}=1"]
    each = workdir / "each"
    each.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (each / f"{name}.yaml").write_bytes(text.encode("utf-8"))
    run = _run(command, each)
    errors = {}
    for m in FILE_ERROR.finditer(run.stderr):
        errors[Path(m.group(1) or m.group(2)).stem] = m.group(3)
    explained = sum(len(m.group(0)) + 1 for m in FILE_ERROR.finditer(run.stderr))
    assert explained >= len(run.stderr), run.stderr
    if errors:
        accepted = workdir / "accepted"
        accepted.mkdir()
        for name, text in files.items():
            if name not in errors:
                (accepted / f"{name}.yaml").write_bytes(text.encode("utf-8"))
        run = _run(command, accepted)
        assert run.returncode == 0, run.stderr
    objects: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    text = run.stdout
    pos = len(text) - len(text.lstrip())
    while pos < len(text):
        obj, end = decoder.raw_decode(text, pos)
        pos = end + len(text[end:]) - len(text[end:].lstrip())
        items = obj["items"] if obj.get("kind") == "List" and "items" in obj else [obj]
        for item in items:
            labels = item.get("metadata", {}).get("labels", {})
            labels.pop(PROBE_LABEL, None)
            if not labels:
                item["metadata"].pop("labels", None)
            objects[item["metadata"]["name"]] = item
    return objects, errors


def probe(name: str, body: str) -> str:
    return f"apiVersion: example.com/v1\nkind: Probe\nmetadata:\n  name: {name}\n{body}"


def compare(files: dict[str, str], workdir: Path) -> list[str]:
    """Disagreements between kubectl and read_documents, one line each."""
    theirs, their_errors = kubectl_read(files, workdir)
    problems = []
    for name, text in files.items():
        documents = read_documents(text)
        our_errors = [d.error for d in documents if d.error]
        if name in their_errors:
            # Both refuse.  (Line numbers may differ by one: go-yaml v2 reports the
            # 0-based line of parser errors; ours are 1-based, in the whole input.)
            if not our_errors:
                problems.append(f"{name}: kubectl refuses ({their_errors[name]}), we read it")
            continue
        if our_errors:
            problems.append(f"{name}: kubectl reads it, we refuse: {our_errors}")
            continue
        for document in documents:
            mine = kubectl_json(document.data)
            got = theirs.get(mine["metadata"]["name"])
            if got != mine:
                problems.append(f"{name}: kubectl {json.dumps(got)} != ours {json.dumps(mine)}")
    return problems


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def test_unquoted_scalars_match_kubectl(tmp_path: Path) -> None:
    files = {}
    for i, token in enumerate(TOKENS):
        files[f"value{i}"] = probe(f"value{i}", f"spec:\n  value: {token}\n  seq:\n  - {token}\n")
        files[f"key{i}"] = probe(f"key{i}", f"spec:\n  {token}: key\n")
    problems = compare(files, tmp_path)
    assert not problems, "\n".join(problems)


def test_quantities_and_replicas_match_kubectl(tmp_path: Path) -> None:
    files = {}
    for i, token in enumerate(QUANTITY_TOKENS):
        files[f"pod{i}"] = (
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: pod{i}}}\nspec:\n  containers:\n"
            f"  - name: c\n    image: i\n    resources:\n      requests:\n        cpu: {token}\n"
        )
        files[f"deploy{i}"] = (
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: deploy{i}}}\nspec:\n"
            f"  replicas: {token}\n  selector: {{matchLabels: {{a: b}}}}\n  template:\n"
            "    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: i}]}\n"
        )
    command = ["set", "resources", "--local", "-o", "json", "--limits=example.com/probe=1"]
    theirs, their_errors = kubectl_read(files, tmp_path, command)
    problems = []
    for i, token in enumerate(QUANTITY_TOKENS):
        (pod,) = read_documents(files[f"pod{i}"])
        cpu = pod.data["spec"]["containers"][0]["resources"]["requests"]["cpu"]
        try:
            mine: str | None = Quantity.from_json(cpu).canonical()
        except QuantityError:
            mine = None
        if f"pod{i}" in their_errors:
            if mine is not None:
                problems.append(f"cpu: {token}: kubectl refuses, we read {cpu!r} = {mine}")
        else:
            got = theirs[f"pod{i}"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]
            if got != mine:
                problems.append(f"cpu: {token}: kubectl {got}, we read {cpu!r} = {mine}")

        (deploy,) = read_documents(files[f"deploy{i}"])
        replicas = kubectl_json(deploy.data["spec"]["replicas"])
        ok = replicas is None or type(replicas) is int and -(2**31) <= replicas < 2**31
        if f"deploy{i}" in their_errors:
            if ok:
                problems.append(f"replicas: {token}: kubectl refuses, we read {replicas!r}")
        elif not ok or theirs[f"deploy{i}"]["spec"].get("replicas") != replicas:
            got = theirs[f"deploy{i}"]["spec"].get("replicas")
            problems.append(f"replicas: {token}: kubectl {got!r}, we read {replicas!r}")
    assert not problems, "\n".join(problems)


def test_label_values_must_be_strings(tmp_path: Path) -> None:
    files = {
        f"label{i}": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: label{i}\n"
        f"  labels:\n    version: {token}\n"
        for i, token in enumerate(LABEL_TOKENS)
    }
    theirs, their_errors = kubectl_read(files, tmp_path)
    problems = []
    for i, token in enumerate(LABEL_TOKENS):
        (document,) = read_documents(files[f"label{i}"])
        value = document.data["metadata"]["labels"]["version"]
        if f"label{i}" in their_errors:
            if isinstance(value, str):
                problems.append(f"{token}: kubectl refuses ({their_errors[f'label{i}']})")
        elif value is None:
            assert "version" not in theirs[f"label{i}"]["metadata"].get("labels", {})
        elif theirs[f"label{i}"]["metadata"]["labels"]["version"] != value:
            problems.append(f"{token}: kubectl reads {theirs[f'label{i}']}, we read {value!r}")
    assert not problems, "\n".join(problems)


SYNTAX_CASES = {
    "flow-colon": "spec: {a:1}\n",
    "flow-seq-colon": "spec: [a:1]\n",
    "flow-pair": "spec: [a: 1, b]\n",
    "flow-trailing-comma": "spec: {a: 1, b: [x, y, ],}\n",
    "json-style": 'spec: {"a":1, "b":[true,null,"0777"]}\n',
    "escape-slash": 'spec: "a\\/b"\n',
    "escape-quote": 'spec: "it\\\'s"\n',
    "escape-quote-twice": 'spec:\n  a: "\\\'x\\\'"\n  b: "y\\\'"\n',
    "escapes": 'spec: "\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\e"\n',
    "dash-tab": "spec:\n- a\n-\tb\n",
    "colon-tab": "spec:\tv\n",
    "tab-indent": "spec:\n\ta: 1\n",
    "literal": "spec: |\n  a\n   b\n\n  c\n",
    "literal-keep": "spec: |+\n  a\n\n",
    "literal-strip-indent": "spec: |-2\n   x\n  y\n",
    "folded": "spec: >\n  a\n  b\n\n  c\n   d\n  e\n",
    "plain-multiline": "spec: a\n  b\n\n  c\n",
    "quoted-multiline": "spec: 'a\n  b'\n",
    "double-continuation": 'spec: "a\\\n  b"\n',
    "comments": "spec: # c\n  a: b # c\n  # c\n  c: 'd' # e\n",
    "hash-in-plain": "spec: a#b\n",
    "doc-end": "spec: 1\n...\nother: 2\n",
    "duplicate": "spec: 1\nspec: 2\n",
    "anchors": "spec:\n  a: &x {b: 1}\n  c: *x\n  d: &y 0777\n  e: *y\n",
    "merge": "spec:\n  base: &b {x: 1, w: 2}\n  m:\n    x: 0\n    <<: *b\n    z: 3\n",
    "merge-seq": "spec:\n  a: &a {x: 1}\n  b: &b {x: 2, w: 3}\n  m:\n    <<: [*a, *b]\n",
    "tags": "spec:\n  a: !!str 0777\n  b: !!float 1\n  c: !!binary aGVsbG8=\n  d: !foo 1\n",
    "bad-tag": "spec: !!int 1.5\n",
    "unknown-alias": "spec: *nope\n",
    "recursive-alias": "spec: &a [*a]\n",
    "null-key": "spec:\n  ~: 1\n",
    "complex-key": "spec:\n  ? [a]\n  : 1\n",
    "bool-keys": "spec:\n  on: a\n  off: b\n  y: c\n",
    "crlf": "spec:\r\n  a: yes\r\n  b: |\r\n    x\r\n",
    "long-key": "spec:\n  " + "k" * 1100 + ": v\n",
    "control-char": "spec: a\x07b\n",
    "nel": "spec: a\x85b\n",
    "line-separator": "spec: a\u2028b\n",
    "bom-inside": "spec: a\ufeffb\n",
    "trailing-space-key": "spec:\n  a   : 1\n",
    "empty-values": "spec:\n  a:\n  b: ''\n  c: []\n  d: {}\n",
    "indent-seq": "spec:\n  a:\n  - x\n  - - y\n    - z\n",
    "mapping-error": "spec:\n  a: b: c\n",
    "bad-indent": "spec:\n  a: 1\n b: 2\n",
    "unclosed-flow": "spec: [a, b\n",
    "unclosed-quote": 'spec: "abc\n',
    "flow-colon-end": "spec: [a:, b, {c: d:}]\n",
    "flow-question": "spec: [http://x?y=1]\n",
    "flow-question-key": "spec: {a?: b}\n",
    "flow-question-start": "spec: [?a, b]\n",
    "block-question": "spec: http://x?y=1\n",
    "empty-literal-at-end": "spec: |\n",
    "empty-keep-at-end": "spec: |+\n",
    "empty-folded-mid": "spec:\n  a: >\n\n  b: 1\n",
    "zero-keys": "spec:\n  -0.0: a\n  1e-400: b\n",
    "overwritten-inf": "spec: .inf\nspec: 1\n",
    "overwritten-null-key": "spec: {~: 1}\nspec: 2\n",
}


def test_syntax_and_features_match_kubectl(tmp_path: Path) -> None:
    files = {
        name: probe(name, body) if not body.startswith("\ufeff") else body
        for name, body in SYNTAX_CASES.items()
    }
    files["bom"] = "\ufeff" + probe("bom", "spec: 1\n")
    files["directive"] = "%YAML 1.1\n" + probe("directive", "spec: yes\n")
    files["multi"] = (
        "# header\n"
        + probe("multi", "spec: 0777\n")
        + "---\n# only a comment\n---\n"
        + probe("multi2", "spec: on\n")
        + "--- # trailing comment\n"
        + probe("multi3", "spec: [1e3]\n")
    )
    problems = compare(files, tmp_path)
    assert not problems, "\n".join(problems)


def _key_text(token: str) -> str | None:
    """The JSON key a plain or quoted key token becomes, or None if it is no key."""
    documents = read_documents(f"{token}: x\n")
    if len(documents) != 1 or not isinstance(documents[0].data, dict):
        return None
    (key,) = documents[0].data
    return "0" if key == "-0" else key  # Go float keys: -0.0 == 0.0


def _random_documents(seed: int, count: int) -> dict[str, str]:
    """Small documents in assorted YAML styles with tricky plain scalars.

    Keys of one mapping never collide once converted to strings: kubectl keeps
    whichever Go map iteration meets last (``5.`` and ``0b101`` are both "5"),
    which is random.
    """
    rnd = random.Random(seed)
    tokens = TOKENS + ["a b", "x:y", "-x", "#", "'q'", '"d"', "k: v"]
    alphabet = string.ascii_letters + string.digits + "._-+~:"

    def token() -> str:
        if rnd.random() < 0.7:
            return rnd.choice(tokens)
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 6)))

    def key(used: set[str], fallback: str) -> str:
        candidate = token() if rnd.random() < 0.6 else fallback
        text = _key_text(candidate)
        if text is None or text in used:
            candidate = text = fallback
        used.add(text)
        return candidate

    def scalar(indent: str) -> str:
        text = token()
        style = rnd.choice(["plain", "plain", "plain", "single", "double", "literal"])
        if style == "single" or (style == "plain" and text[:1] in "-?:#'\"[{&*!|>%@`,"):
            return "'" + text.replace("'", "''") + "'"
        if style == "double":
            return json.dumps(text)
        if style == "literal":
            return f"|-\n{indent}  {text}"
        return text

    files = {}
    for n in range(count):
        lines = []
        used: set[str] = set()
        for i in range(rnd.randint(1, 5)):
            shape = rnd.choice(["scalar", "seq", "map", "flow", "comment"])
            name = key(used, f"f{i}")
            if shape == "scalar":
                lines.append(f"  {name}: {scalar('  ')}")
            elif shape == "seq":
                lines.append(f"  {name}:")
                lines.extend(f"  - {scalar('  ')}" for _ in range(rnd.randint(1, 3)))
            elif shape == "map":
                lines.append(f"  {name}:")
                inner: set[str] = set()
                for j in range(rnd.randint(1, 3)):
                    lines.append(f"    {key(inner, f'g{j}')}: {scalar('    ')}")
            elif shape == "flow":
                lines.append(f"  {name}: [{', '.join(token() for _ in range(rnd.randint(0, 3)))}]")
            else:
                lines.append(f"  # {token()}")
        files[f"random{n}"] = probe(f"random{n}", "spec:\n" + "\n".join(lines) + "\n")
    return files


def test_random_documents_match_kubectl(tmp_path: Path) -> None:
    problems = compare(_random_documents(seed=20240501, count=400), tmp_path)
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

DUMP_STRINGS = [
    "yes", "no", "on", "off", "y", "n", "Y", "N", "~", "null", "true", "False", "", "0777",
    "08", "0x1F", "0o17", "0b101", "1e3", "1E3", "1_000", "_1", "+1", "-1", ".5", "5.",
    "1:30", "2001-12-14", "2024-05-01T10:00:00Z", "1e400", ".inf", "<<", "=", "0", "-0",
    "500m", "1Gi", "10.0.0.1", "123e4567", "4283e81950", "- x", ": x", "? x", "#x", "a #b",
    "a: b", "[x]", "{x}", "*x", "&x", "!x", "|", ">", "%x", "@x", "`x", "'q'", '"d"', " lead",
    "trail ", "tab\there", "multi\nline\n", "multi\nline", "trailing \nspace", "é ü",
    "😀", "\x85", "\u2028", "\ufeff", "a\\b", "---", "...",
]  # fmt: skip


def test_dumped_strings_read_back_as_the_same_strings(tmp_path: Path) -> None:
    spec = {f"s{i}": s for i, s in enumerate(DUMP_STRINGS)}
    spec.update({s if s else "empty": i for i, s in enumerate(DUMP_STRINGS)})  # as keys too
    spec["quoted"] = QuotedStr("500m")
    spec["numbers"] = [1, -1, 0.5, 1e3, 1e21, 1e-7, 123456789.5, 2**63 - 1, True, None]
    obj = {"apiVersion": "example.com/v1", "kind": "Probe", "metadata": {"name": "dump"}}
    obj["spec"] = spec
    text = dump_yaml(obj)
    theirs, their_errors = kubectl_read({"dump": text}, tmp_path)
    assert not their_errors
    assert theirs["dump"] == kubectl_json(obj)
    assert kubectl_json(read_documents(text)[0].data) == kubectl_json(obj)


def test_dump_yaml_prints_what_kubectl_prints(tmp_path: Path) -> None:
    # Except YAML 1.1 line breaks: go-yaml writes U+0085 and U+2028 raw inside single
    # quotes, which it then reads back as a folded line break; we write "\N", "\L".
    strings = [s for s in DUMP_STRINGS if s not in ("\x85", "\u2028", "\u2029")]
    spec: dict[str, Any] = {f"s{i}": s for i, s in enumerate(strings)}
    spec.update(
        {
            "item10": 1, "item2": 2, "_x": 1, "Z": 2, "a01": 1, "a1": 2, "l": [], "m": {},
            "n": None, "nested": [[1, 2], {"a": ["x"]}], "f1": 123456789.5, "f2": 1e6,
            "f3": 0.00001, "f4": 1.0, "f5": 1e21, "f6": -2.5e-10, "i": 2**63 - 1,
        }
    )  # fmt: skip
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Probe",
        "metadata": {"labels": {PROBE_LABEL: "1"}, "name": "format"},
        "spec": spec,
    }
    workdir = tmp_path / "in"
    workdir.mkdir()
    (workdir / "format.yaml").write_text(json.dumps(obj), encoding="utf-8")
    assert KUBECTL is not None
    run = subprocess.run(
        [KUBECTL, "label", "--local", "-o", "yaml", f"{PROBE_LABEL}=1", "--overwrite"]
        + ["-f", str(workdir)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert dump_yaml(obj) == run.stdout
