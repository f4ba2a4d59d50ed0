"""designer.k8s.manifest: reading manifests the way kubectl does, and writing them back.

The values expected for unquoted scalars were measured with kubectl v1.32
(tests/k8s/manifest/test_manifest_kubectl.py checks them against the real binary).
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.k8s.manifest import (
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_INPUT_BYTES,
    Document,
    ManifestError,
    QuotedStr,
    ReadError,
    Skipped,
    Workload,
    _fastpath,
    _goyaml,
    dump_yaml,
    dump_yaml_all,
    find_workloads,
    load,
    read_documents,
    reader,
)

DATA = Path(__file__).parents[1] / "data"


def read_one(text: str | bytes) -> Any:
    documents = read_documents(text)
    assert len(documents) == 1, documents
    assert documents[0].error is None, documents[0].error
    return documents[0].data


def slow(text: str) -> tuple[Any, str | None]:
    """The correct path alone (libyaml events + go-yaml v2 rules)."""
    value, error, _hostile = reader._parse_slow(text, text.encode(), 1)
    return value, error


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types (1 != 1.0 != True here)."""
    return type(a) is type(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ---------------------------------------------------------------------------
# Unquoted scalars resolve like go-yaml v2 (sigs.k8s.io/yaml/goyaml.v2 resolve.go)
# ---------------------------------------------------------------------------

PLAIN_SCALARS = [
    ("1", 1),
    ("-1", -1),
    ("+1", 1),
    ("0", 0),
    ("-0", 0),
    ("0777", 511),  # YAML 1.1 octal
    ("010", 8),
    ("0o17", 15),
    ("0x1F", 31),
    ("0X1f", 31),
    ("-0x1F", -31),
    ("+0x1F", 31),
    ("0b101", 5),
    ("-0b101", -5),
    ("1_000", 1000),  # go-yaml removes underscores
    ("0_x1F", 31),
    ("1__0", 10),
    ("1_", 1),
    ("_1", "_1"),  # a leading underscore is not a number
    ("08", 8.0),  # not octal, so yamlStyleFloat: a float
    ("09.5", 9.5),
    ("1e3", 1000.0),
    ("1E3", 1000.0),
    ("1.5e3", 1500.0),
    ("1e+3", 1000.0),
    ("1e-3", 0.001),
    ("1e_3", 1000.0),
    (".5", 0.5),
    ("+.5", 0.5),
    ("-.5", -0.5),
    ("5.", 5.0),
    ("0.5", 0.5),
    ("1.0", 1.0),
    ("-0.0", -0.0),
    ("1e400", "1e400"),  # ParseFloat overflows: a string
    ("1e-400", 0.0),
    ("9223372036854775807", 9223372036854775807),
    ("9223372036854775808", 9223372036854775808),  # uint64
    ("18446744073709551615", 18446744073709551615),
    ("18446744073709551616", 1.8446744073709552e19),  # beyond uint64: a float
    ("99999999999999999999", 1e20),
    ("-9223372036854775809", -9.223372036854776e18),
    ("0xFFFFFFFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFFFFFF"),  # kubectl 1.32: no big.Int
    ("yes", True),
    ("Yes", True),
    ("YES", True),
    ("y", True),
    ("Y", True),
    ("on", True),
    ("On", True),
    ("ON", True),
    ("true", True),
    ("True", True),
    ("TRUE", True),
    ("no", False),
    ("n", False),
    ("N", False),
    ("off", False),
    ("OFF", False),
    ("false", False),
    ("False", False),
    ("tRue", "tRue"),
    ("yEs", "yEs"),
    ("~", None),
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("", None),
    ("nULL", "nULL"),
    ("1:30", "1:30"),  # go-yaml v2 has no sexagesimal numbers
    ("2001-12-14", "2001-12-14"),  # timestamps stay strings for interface{}
    ("2001-12-14T21:59:43.10Z", "2001-12-14T21:59:43.10Z"),
    ("2001-12-14 21:59:43.10", "2001-12-14 21:59:43.10"),
    ("<<", "<<"),  # only a key merges
    ("=", "="),
    ("0.0.0.0", "0.0.0.0"),
    ("10.244.1.7", "10.244.1.7"),
    ("1.2.3", "1.2.3"),
    ("500m", "500m"),
    ("1Gi", "1Gi"),
    ("1e", "1e"),
    ("0x", "0x"),
    ("0b", "0b"),
    ("0b102", "0b102"),
    ("Infinity", "Infinity"),
    ("nan", "nan"),
    (".iNf", ".iNf"),
    ("v1", "v1"),
    ("-", None),  # a sequence entry with no value, handled separately below
]


@pytest.mark.parametrize(("text", "expected"), [c for c in PLAIN_SCALARS if c[0] != "-"])
def test_plain_scalars_resolve_like_go_yaml_v2(text: str, expected: Any) -> None:
    for source in (f"k: {text}\n", f"- {text}\n", f"k:\n  {text}\n"):
        value = read_one(source)
        got = value["k"] if isinstance(value, dict) else value[0]
        assert same(got, expected), (source, got, expected)
        slow_value, error = slow(source)
        assert error is None
        slow_got = slow_value["k"] if isinstance(slow_value, dict) else slow_value[0]
        assert same(slow_got, expected), (source, slow_got, expected)


@pytest.mark.parametrize("text", ["0777", "yes", "1e3", "~", "", "0x1F", "true", "1:30"])
@pytest.mark.parametrize("quote", ['"', "'"])
def test_quoted_scalars_are_always_strings(text: str, quote: str) -> None:
    assert read_one(f"k: {quote}{text}{quote}\n") == {"k": text}
    assert read_one(f"k: |-\n  {text or 'x'}\n") == {"k": text or "x"}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("yes", "true"),
        ("on", "true"),
        ("y", "true"),
        ("n", "false"),
        ("off", "false"),
        ("true", "true"),
        ("1", "1"),
        ("0777", "511"),
        ("0x10", "16"),
        ("1.5", "1.5"),
        ("1.0", "1"),
        ("1e3", "1000"),
        ("0.1", "0.1"),
        ("1e20", "1e+20"),  # FormatFloat(k, 'g', -1, 32)
        ("1e6", "1e+06"),
        ("16777217.0", "1.6777216e+07"),  # rounded to float32
        ("1e300", ".inf"),  # float32 overflow
        (".inf", ".inf"),
        ("-.inf", "-.inf"),
        (".nan", ".nan"),
        ("08", "8"),
        ("2001-12-14", "2001-12-14"),
        ('"yes"', "yes"),
        ("'1'", "1"),
        ('"<<"', "<<"),
    ],
)
def test_map_keys_become_strings_like_sigs_k8s_yaml(text: str, key: str) -> None:
    assert read_one(f"{text}: v\n") == {key: "v"}
    assert slow(f"{text}: v\n") == ({key: "v"}, None)


def test_bool_keys_collide_and_the_last_wins() -> None:
    # on: and yes: are both "true"; go-yaml v2 keeps the last value.
    assert read_one("on: a\nyes: b\n") == {"true": "b"}
    assert read_one("a: 1\na: 2\n") == {"a": 2}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("k: .inf\n", "line 1: unsupported value .inf: JSON has no infinity or NaN"),
        ("k: -.Inf\n", "line 1: unsupported value -.Inf"),
        ("a: 1\nk: .nan\n", "line 2: unsupported value .nan"),
        ("k: !!float .inf\n", "line 1: unsupported value .inf"),
        ("~: v\n", "line 1: unsupported map key: null"),
        ("18446744073709551615: v\n", "line 1: unsupported map key of type uint64"),
        ("? [a]\n: v\n", "line 1: invalid map key: a list"),
        ("? {a: 1}\n: v\n", "line 1: invalid map key: a mapping"),
        ("a: *nope\n", "line 1: unknown anchor 'nope' referenced"),
        ("a: &x [*x]\n", "line 1: anchor 'x' value contains itself"),
        ("a: !!int 1.5\n", "line 1: cannot decode !!float `1.5` as a !!int"),
        ("a: !!bool 1\n", "line 1: cannot decode !!int `1` as a !!bool"),
        ("a: !!timestamp foo\n", "line 1: cannot decode !!str `foo` as a !!timestamp"),
        ("a: !!binary '!!'\n", "line 1: !!binary value contains invalid base64 data"),
        ("a:\n  <<: 1\n", "line 2: map merge requires map or sequence of maps as the value"),
        ('a: "x\\/y"\n', "line 1: found unknown escape character"),  # go-yaml v2 lacks \/
        ("a: [http://x?y=1]\n", "line 1: did not find expected ',' or ']'"),  # "?" in flow
        ("a: {b: c?d}\n", "line 1: did not find expected ',' or '}'"),
        ("a: b\x07c\n", "line 1: control characters are not allowed"),
    ],
)
def test_values_kubectl_refuses_are_errors(source: str, message: str) -> None:
    (document,) = read_documents(source)
    assert document.data is None
    assert document.error is not None and document.error.startswith(message), document.error


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a: !!str 0777\n", {"a": "0777"}),
        ("a: !!int '0777'\n", {"a": 511}),
        ("a: !!float 1\n", {"a": 1.0}),
        ("a: !!float 0x10\n", {"a": 16.0}),
        ("a: !!bool yes\n", {"a": True}),
        ("a: !!null ~\n", {"a": None}),
        ("a: !!timestamp 2001-12-14\n", {"a": "2001-12-14"}),
        ("a: !!binary aGVsbG8=\n", {"a": "hello"}),
        ("a: !foo 0777\n", {"a": "0777"}),  # unknown tags keep the text
        ("a: ! 12\n", {"a": "12"}),
        ("a: !foo {b: 1}\n", {"a": {"b": 1}}),
        ("a: !!merge <<\n", {"a": "<<"}),
        ('a: "it\\\'s"\n', {"a": "it's"}),  # go-yaml v2 knows \' (libyaml does not)
        ('a: "\\x41\\u00e9\\N"\n', {"a": "Aé\x85"}),
    ],
)
def test_explicit_tags_and_escapes(source: str, expected: Any) -> None:
    assert read_one(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # go-yaml v2 reads a plain scalar ending in ":" before ,]} in flow context
        # (libyaml 0.2.5 refuses it).
        ("a: [x:, z]\n", {"a": ["x:", "z"]}),
        ("a: {b: c:}\n", {"a": {"b": "c:"}}),
        ("a: [it's:]\n", {"a": ["it's:"]}),
        # An empty block scalar at the very end (yaml-rs would say "\n").
        ("a: |\n", {"a": ""}),
        ("a: >\n\n", {"a": ""}),
        ("a: |+\n", {"a": ""}),
        ("a: |+\n\n", {"a": "\n"}),
        ("a: |2\n  \n", {"a": ""}),
        # Go float map keys: -0.0 == 0.0, and the key written last is kept.
        ("-0.0: a\n1e-400: b\n", {"0": "b"}),
        ("1e-400: a\n-0.0: b\n", {"-0": "b"}),
        # What kubectl refuses only matters if it survives to the end.
        ("a: .inf\na: 1\n", {"a": 1}),
        ("a: {~: 1}\na: 2\n", {"a": 2}),
        ("on: .nan\nyes: 3\n", {"true": 3}),
    ],
)
def test_where_libyaml_yaml_rs_and_go_yaml_differ(source: str, expected: Any) -> None:
    assert read_one(source) == expected
    assert slow(source) == (expected, None)


def test_merge_keys_follow_go_yaml_v2() -> None:
    source = """\
base: &b {x: 1, w: 2}
other: &c {w: 5, z: 6}
m1:
  x: 0
  <<: *b
m2:
  <<: *b
  x: 0
m3:
  <<: [*b, *c]
m4:
  "<<": {x: 1}
m5:
  x: 0
  <<: [*b, *c]
  z: 9
"""
    # go-yaml v2: merged keys overwrite earlier ones, later keys win, earlier maps of
    # a merge sequence win (measured with kubectl).
    data = read_one(source)
    assert data["m1"] == {"x": 1, "w": 2}
    assert data["m2"] == {"x": 0, "w": 2}
    assert data["m3"] == {"x": 1, "w": 2, "z": 6}
    assert data["m4"] == {"<<": {"x": 1}}
    assert data["m5"] == {"x": 1, "w": 2, "z": 9}


def test_aliases_are_independent_copies() -> None:
    data = read_one("a: &x {b: [1]}\nc: *x\n")
    assert data == {"a": {"b": [1]}, "c": {"b": [1]}}
    data["c"]["b"].append(2)
    assert data["a"] == {"b": [1]}


# ---------------------------------------------------------------------------
# Documents, lines and errors
# ---------------------------------------------------------------------------


def test_documents_split_like_kubectl_with_lines_counted_in_the_whole_input() -> None:
    source = """\
# a header comment
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
---   # an empty document with a comment: skipped
# only a comment: skipped
---
~
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  labels: x: y
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
"""
    documents = read_documents(source)
    assert [(d.index, d.line) for d in documents] == [(0, 2), (1, 11), (2, 17)]
    assert documents[0].data["metadata"] == {"name": "a"}
    assert documents[1].data is None
    assert documents[1].error == "line 15: mapping values are not allowed in this context"
    assert documents[2].data["metadata"] == {"name": "c"}


def test_a_syntax_error_names_its_line_and_context() -> None:
    source = "a: 1\n---\nb:\n  - x\n  y: 2\n---\nc: 3\n"
    documents = read_documents(source)
    assert [d.data for d in documents] == [{"a": 1}, None, {"c": 3}]
    assert documents[1].error == (
        "line 5: did not find expected '-' indicator "
        "(while parsing a block collection that starts on line 4)"
    )


def test_a_separator_with_content_is_an_error_for_that_document_only() -> None:
    # kubectl: "invalid Yaml document separator" (for the whole file).
    documents = read_documents("a: 1\n--- b: 2\nc: 3\n---\nd: 4\n")
    assert [d.data for d in documents] == [{"a": 1}, None, {"d": 4}]
    assert documents[1].error is not None
    assert documents[1].error.startswith("line 2: invalid document separator '--- b: 2'")


def test_crlf_line_ends_and_a_byte_order_mark() -> None:
    source = "\ufeffa: 1\r\nb: yes\r\n---\r\nc: 0777\r\n"
    documents = read_documents(source.encode())
    assert [d.data for d in documents] == [{"a": 1, "b": True}, {"c": 511}]
    assert [d.line for d in documents] == [1, 4]


def test_only_the_first_document_of_a_chunk_counts() -> None:
    # go-yaml's Unmarshal reads one document; kubectl splits only at "---".
    assert read_documents("a: 1\n...\nb: 2\n")[0].data == {"a": 1}


def test_empty_input_has_no_documents() -> None:
    assert read_documents("") == []
    assert read_documents("\n\n# nothing\n---\n---\n") == []
    assert read_documents(b"   ") == []


# ---------------------------------------------------------------------------
# JSON input
# ---------------------------------------------------------------------------


def test_json_input() -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "Pod", "spec": {"replicas": 1e3, "x": 0.5}})
    assert read_one(text) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {"replicas": 1000.0, "x": 0.5},
    }
    assert read_one(text.encode()) == read_one(text)


def test_a_json_stream_is_several_documents() -> None:
    documents = read_documents('\n {"a": 1}\n{"b": 2}\n\n[3]')
    assert [(d.line, d.data) for d in documents] == [(2, {"a": 1}), (3, {"b": 2}), (5, [3])]


def test_a_stream_starting_with_a_brace_is_json_as_kubectl_reads_it() -> None:
    # kubectl: "json: offset 16: invalid character '}' looking for beginning of object key
    # string" for a trailing comma, and the same for a YAML flow mapping or NaN.
    for text in ('{"a": 0777, "b": yes,}', "{kind: Pod}", '{"x": NaN}', '{"a": 1'):
        (document,) = read_documents(text)
        assert document.data is None
        assert document.error is not None and document.error.startswith("line 1: invalid JSON")
    first, second = read_documents('{"a": 1}\n{"b": oops}')
    assert (first.data, second.line) == ({"a": 1}, 2)
    assert second.error is not None and "invalid JSON" in second.error


# ---------------------------------------------------------------------------
# Hostile input: refused with a clear message (and quickly: none of these
# builds anything big or recurses)
# ---------------------------------------------------------------------------


def test_oversize_input_is_refused() -> None:
    with pytest.raises(ManifestError, match=r"input is 101 bytes; the limit is 100 bytes"):
        read_documents(b"x" * 101, max_bytes=100)
    with pytest.raises(ManifestError, match="larger than the 100-byte limit"):
        read_documents("x" * 101, max_bytes=100)
    with pytest.raises(ManifestError, match="input is 102 bytes"):
        read_documents("é" * 51, max_bytes=100)
    assert MAX_INPUT_BYTES == 20 * 1024 * 1024
    with pytest.raises(ManifestError, match="the limit is 20,971,520 bytes"):
        read_documents(b" " * (MAX_INPUT_BYTES + 1))


def test_invalid_utf8_is_refused_with_its_offset() -> None:
    with pytest.raises(ManifestError) as info:
        read_documents(b"a: 1\nb: caf\xe9\n")
    assert str(info.value) == (
        "input is not valid UTF-8: byte 0xe9 at byte offset 11 (line 2) "
        "is not part of a UTF-8 character"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("a: 1\n".encode("utf-16"), "UTF-16"),
        (b"a: 1\n\x00\x00", "NUL byte at byte offset 5 (line 2)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not valid UTF-8"),
        (12, "input must be text (str or bytes), not int"),
        ("a: \ud800", "unpaired surrogate U+D800 at character 3"),
    ],
)
def test_input_that_is_not_text(data: Any, message: str) -> None:
    with pytest.raises(ManifestError, match=re.escape(message)):
        read_documents(data)


def test_billion_laughs_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    (document,) = read_documents("\n".join(lines) + "\n")
    assert document.data is None
    assert document.error == "line 4: document contains excessive aliasing"


def test_moderate_aliasing_is_fine() -> None:
    source = "base: &b {cpu: 1, memory: 1Gi}\n" + "".join(f"c{i}: *b\n" for i in range(300))
    data = read_one(source)
    assert len(data) == 301 and data["c299"] == {"cpu": 1, "memory": "1Gi"}


@pytest.mark.parametrize(
    "source",
    [
        "[" * 1_000_000,
        "[" * 200_000 + "]" * 200_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        "".join(" " * i + "a:\n" for i in range(2_000)),
        "- " * 50_000 + "x\n",
        "a: &a [" + "[" * 99 + "]" * 99 + "]\nb: [*a]\n",
    ],
    ids=["unclosed-flow", "flow", "json", "block", "compact-sequences", "alias"],
)
def test_deep_nesting_is_refused(source: str) -> None:
    (document,) = read_documents(source)
    assert document.data is None
    assert document.error is not None
    assert document.error.endswith(f"nesting is deeper than {MAX_DEPTH} levels"), document.error


def test_nesting_up_to_the_limit_is_fine() -> None:
    data = read_one("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for _ in range(MAX_DEPTH - 1):
        (data,) = data
    assert data == []
    deep_block = "".join("  " * i + "a:\n" for i in range(MAX_DEPTH)) + "  " * MAX_DEPTH + "b\n"
    assert read_documents(deep_block)[0].error is None


def test_too_many_documents_are_refused() -> None:
    with pytest.raises(ManifestError, match=r"input has 4,194,304 document separators \(---\)"):
        read_documents(b"---\n" * (4 * 1024 * 1024))


def test_go_yaml_only_syntax_costs_bounded_work() -> None:
    # Each spot libyaml refuses costs a re-parse: a few are fine, thousands are not.
    assert read_one("a: [" + "b:, " * 50 + "]\n") == {"a": ["b:"] * 50}
    assert read_one('a: "' + "\\'" * 100_000 + '"\n') == {"a": "'" * 100_000}
    (document,) = read_documents("".join(f'k{i}: "it\\\'s"\n' for i in range(5_000)))
    assert document.error is not None
    assert "too many go-yaml-only constructs to read" in document.error


def test_many_documents_and_a_huge_flat_document() -> None:
    count = MAX_DOCUMENTS - 1
    many = "".join(f"---\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(count))
    assert len(read_documents(many)) == count
    flat = "".join(f"k{i}: {i}\n" for i in range(200_000))
    assert len(read_one(flat)) == 200_000


# ---------------------------------------------------------------------------
# Finding pod templates
# ---------------------------------------------------------------------------

KINDS = [
    ("Pod", "pod", "spec", "pod"),
    ("PodTemplate", "podtemplate", "template.spec", "podtemplate"),
    ("ReplicationController", "rc", "spec.template.spec", "rc"),
    ("Deployment", "deployment", "spec.template.spec", "deployment"),
    ("ReplicaSet", "replicaset", "spec.template.spec", "replicaset"),
    ("StatefulSet", "statefulset", "spec.template.spec", "statefulset"),
    ("DaemonSet", "daemonset", "spec.template.spec", "daemonset"),
    ("Job", "job", "spec.template.spec", "job"),
    ("CronJob", "cronjob", "spec.jobTemplate.spec.template.spec", "cronjob"),
]


def test_every_kind_with_a_pod_template() -> None:
    scan = load((DATA / "manifest_kinds.yaml").read_text())
    workloads, errors = scan
    assert errors == []
    assert [
        (w.kind, w.name, w.pod_spec_path, w.pod_metadata["labels"]["app"]) for w in workloads
    ] == [(kind, name, path, app) for kind, name, path, app in KINDS]
    for number, workload in enumerate(workloads):
        assert workload.document == number
        assert workload.path == ""
        assert workload.pod_spec == {"containers": [{"name": "c", "image": "nginx"}]}
        node: Any = workload.obj
        for field in workload.pod_spec_path.split("."):
            node = node[field]
        assert node is workload.pod_spec
    assert (workloads[0].namespace, workloads[3].namespace, workloads[1].namespace) == (
        "ns",
        "prod",
        None,
    )
    assert workloads[0].pod_metadata is workloads[0].obj["metadata"]
    assert scan.skipped == [
        Skipped(document=9, path="", kind="Service", name="service"),
        Skipped(document=10, path="", kind="ConfigMap", name="configmap"),
    ]
    assert (scan.workloads, scan.errors) == (workloads, errors)
    again = pickle.loads(pickle.dumps(scan))
    assert again == scan and again.skipped == scan.skipped
    assert copy.deepcopy(scan).skipped == scan.skipped


@pytest.mark.parametrize("kind", ["List", "PodList", "DeploymentList"])
def test_list_items_have_paths(kind: str) -> None:
    source = f"""\
apiVersion: v1
kind: {kind}
items:
- apiVersion: v1
  kind: Pod
  metadata: {{name: a}}
  spec: {{containers: [{{name: c}}]}}
- apiVersion: v1
  kind: Service
  metadata: {{name: s}}
- 42
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: d}}
  spec: {{template: {{spec: {{containers: []}}}}}}
- apiVersion: v1
  kind: List
  items:
  - {{apiVersion: v1, kind: Pod, metadata: {{name: inner}}}}
"""
    workloads, errors = scan = load(source)
    assert [(w.path, w.kind, w.name, w.pod_spec) for w in workloads] == [
        ("items[0]", "Pod", "a", {"containers": [{"name": "c"}]}),
        ("items[3]", "Deployment", "d", {"containers": []}),
        ("items[4].items[0]", "Pod", "inner", {}),
    ]
    documents = read_documents(source)
    found, _errors = find_workloads(documents)
    assert found[0].obj is documents[0].data["items"][0]  # the item itself, not a copy
    assert errors == [
        ReadError(0, "line 1: items[2]: expected a mapping (a Kubernetes object), got a number")
    ]
    assert scan.skipped == [Skipped(0, "items[1]", "Service", "s")]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("- a\n- b\n", "line 1: expected a mapping (a Kubernetes object), got a list"),
        ("just text\n", "line 1: expected a mapping (a Kubernetes object), got a string"),
        ("12\n", "line 1: expected a mapping (a Kubernetes object), got a number"),
        ("true\n", "line 1: expected a mapping (a Kubernetes object), got a boolean"),
        ("apiVersion: v1\nmetadata: {}\n", 'line 1: object has no "kind"'),
        (
            "kind: Deployment\nmetadata: {name: web}\nspec:\n  template: [a]\n",
            'line 1: Deployment "web": spec.template is a list, expected a mapping',
        ),
        (
            "kind: Pod\nspec: 3\n",
            "line 1: Pod: spec is a number, expected a mapping",
        ),
        (
            "kind: CronJob\nspec: {jobTemplate: {spec: {template: {metadata: x}}}}\n",
            "line 1: CronJob: spec.jobTemplate.spec.template.metadata is a string, "
            "expected a mapping",
        ),
        ("kind: List\nitems: {a: 1}\n", "line 1: List: items is a mapping, expected a list"),
    ],
)
def test_objects_that_are_not_workloads_are_errors(source: str, message: str) -> None:
    workloads, errors = load("a: 1\n---\n" + source)
    assert workloads == []
    assert errors[-1].document == 1
    assert errors[-1].message == message.replace("line 1", "line 3", 1)


def test_missing_templates_are_empty_and_other_groups_are_skipped() -> None:
    source = """\
kind: Deployment
metadata: {name: bare}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: volcano}
---
kind: Pod
spec: null
"""
    workloads, errors = scan = load(source)
    assert errors == []
    assert [(w.kind, w.name, w.pod_spec, w.pod_metadata) for w in workloads] == [
        ("Deployment", "bare", {}, {}),
        ("Pod", None, {}, {}),
    ]
    assert scan.skipped == [Skipped(1, "", "Job", "volcano")]


def test_documents_with_errors_become_read_errors() -> None:
    documents = [
        Document(0, 1, None, "line 1: broken"),
        Document(1, 3, None, None),
        Document(2, 5, {"kind": "Pod", "spec": {}}, None),
    ]
    workloads, errors = find_workloads(documents)
    assert errors == [ReadError(0, "line 1: broken")]
    assert [w.document for w in workloads] == [2]
    assert isinstance(workloads[0], Workload)


# ---------------------------------------------------------------------------
# Writing like kubectl get -o yaml
# ---------------------------------------------------------------------------


def test_dump_yaml_prints_like_kubectl() -> None:
    obj = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "resources": {"requests": {"memory": QuotedStr("1Gi")}},
                            "name": "app",
                            "args": ["--port", "8080", "-v"],
                        }
                    ]
                }
            },
            "replicas": 2,
        },
        "metadata": {"name": "web", "labels": {"version": "1.0", "enabled": "yes"}},
        "kind": "Deployment",
        "apiVersion": "apps/v1",
    }
    assert (
        dump_yaml(obj)
        == """\
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    enabled: "yes"
    version: "1.0"
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
      - args:
        - --port
        - "8080"
        - -v
        name: app
        resources:
          requests:
            memory: "1Gi"
"""
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        ("yes", '"yes"'),
        ("y", '"y"'),
        ("off", '"off"'),
        ("0777", '"0777"'),
        ("1e3", '"1e3"'),
        ("1_000", '"1_000"'),
        ("0o17", '"0o17"'),
        ("08", '"08"'),
        ("~", '"~"'),
        ("null", '"null"'),
        ("", '""'),
        ("<<", "<<"),  # go-yaml prints it plain: a value "<<" is just a string
        ("2001-12-14", '"2001-12-14"'),
        ("2024-05-01T10:00:00Z", '"2024-05-01T10:00:00Z"'),
        ("1:30", '"1:30"'),
        ("- x", "'- x'"),
        ("a: b", "'a: b'"),
        ("#x", "'#x'"),
        (" lead", "' lead'"),
        ("tab\there", '"tab\\there"'),
        ("é ü", "é ü"),
        ("😀", '"\\U0001F600"'),  # libyaml and go-yaml escape non-BMP characters
        (QuotedStr("500m"), '"500m"'),
        (QuotedStr("a\nb"), '"a\\nb"'),
        ("x" * 300, "x" * 300),  # never wrapped
        (True, "true"),
        (None, "null"),
        (10, "10"),
        (1.0, "1"),
        (1e6, "1000000"),
        (0.5, "0.5"),
        (123456789.5, "1.234567895e+08"),
        (1e-05, "1e-05"),
        (1e21, "1e+21"),
        (2.0**64, "1.8446744073709552e+19"),
        (10**30, "1e+30"),
    ],
)
def test_dump_yaml_scalars(value: Any, text: str) -> None:
    assert dump_yaml({"k": value}) == f"k: {text}\n"


def test_dump_yaml_multiline_and_collections() -> None:
    assert dump_yaml({"script": "set -e\necho hi\n"}) == "script: |\n  set -e\n  echo hi\n"
    assert dump_yaml({"s": "trailing \nspace"}) == 's: "trailing \\nspace"\n'
    assert dump_yaml({"l": [], "m": {}, "k": [[1, 2], {"a": ["x"]}]}) == (
        "k:\n- - 1\n  - 2\n- a:\n  - x\nl: []\nm: {}\n"
    )
    # Keys are quoted by the same rules; a "<<" key too, or it would merge.
    assert dump_yaml({"n": 1, "on": 2, "<<": 3}) == '"<<": 3\n"n": 1\n"on": 2\n'
    assert read_one(dump_yaml({"n": 1, "on": 2, "<<": 3})) == {"n": 1, "on": 2, "<<": 3}
    assert dump_yaml("x") == "x\n"
    assert dump_yaml_all([{"a": 1}, {"b": 2}]) == "a: 1\n---\nb: 2\n"


def test_dump_yaml_orders_keys_like_go_yaml() -> None:
    keys = ["item10", "item2", "_x", "Z", "a01", "a1", "b", "apiVersion", "kind", "a"]
    out = dump_yaml(dict.fromkeys(keys, 0))
    assert [line.split(":")[0].strip('"') for line in out.splitlines()] == [
        "_x", "Z", "a", "a1", "a01", "apiVersion", "b", "item2", "item10", "kind",
    ]  # fmt: skip


def test_dump_yaml_shares_nothing_and_refuses_unknown_types() -> None:
    shared = {"a": 1}
    assert "&" not in dump_yaml({"x": shared, "y": shared})
    with pytest.raises(TypeError, match="cannot write a value of type object"):
        dump_yaml({"x": object()})


# ---------------------------------------------------------------------------
# Properties: round trip, and the fast path always agrees with the correct path
# ---------------------------------------------------------------------------

TRICKY = [
    "yes", "no", "on", "off", "y", "n", "Y", "N", "~", "null", "true", "False",
    "0777", "08", "0x1F", "0o17", "0b101", "1e3", "1E3", "1_000", "_1", "+1", "-1",
    ".5", "5.", "1:30", "2001-12-14", "1e400", ".inf", "<<", "=", "0", "-0", "",
    "500m", "1Gi", "10.0.0.1", "v1.2", "9223372036854775808", "123e4567", "0_x1",
]  # fmt: skip

scalar_strings = st.one_of(
    st.sampled_from(TRICKY),
    st.text(alphabet=string.digits + "._-+eExXoObB_:yYnN", max_size=6),
    st.text(max_size=12),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    scalar_strings,
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(scalar_strings, children, max_size=4),
    ),
    max_leaves=25,
)


def json_form(value: Any) -> Any:
    """What encoding/json would print, read back: integral floats are ints."""
    if isinstance(value, dict):
        return {k: json_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_form(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_dump_then_read_gives_the_same_json(value: Any) -> None:
    text = dump_yaml({"data": value})
    (document,) = read_documents(text)
    assert document.error is None, (text, document.error)
    assert json_form(document.data) == json_form({"data": value}), text
    assert slow(text) == (document.data, None)


def _plain_or_quoted(draw: Any, text: str) -> str:
    style = draw(st.sampled_from(["plain", "plain", "single", "double", "literal"]))
    if style == "single" or (style == "plain" and (not text or text[0] in "-?:#'\"|>!&*%@`[{,")):
        return "'" + text.replace("'", "''") + "'"
    if style == "double":
        return json.dumps(text)
    if style == "literal" and text:
        return "|-\n{indent}" + text
    return text


@st.composite
def yaml_texts(draw: Any) -> str:
    """Small YAML documents in assorted styles, with tricky plain scalars."""
    lines = []
    tokens = st.one_of(
        st.sampled_from(TRICKY),
        st.text(alphabet=string.ascii_letters + string.digits + "._-+~:/ ", max_size=8),
    )
    for _ in range(draw(st.integers(1, 6))):
        key = draw(st.sampled_from(["a", "b", "yes", "on", "1", "0777", "k-1", "1.5", "x y"]))
        shape = draw(st.sampled_from(["scalar", "seq", "map", "flow", "comment", "nested"]))
        if shape == "scalar":
            value = _plain_or_quoted(draw, draw(tokens)).replace("{indent}", "  ")
            lines.append(f"{key}: {value}")
        elif shape == "seq":
            lines.append(f"{key}:")
            for token in draw(st.lists(tokens, min_size=1, max_size=3)):
                lines.append("- " + _plain_or_quoted(draw, token).replace("{indent}", "  "))
        elif shape == "map":
            lines.append(f"{key}:")
            for sub, token in draw(st.dictionaries(tokens, tokens, min_size=1, max_size=3)).items():
                value = _plain_or_quoted(draw, token).replace("{indent}", "    ")
                lines.append(f"  {json.dumps(sub)}: {value}")
        elif shape == "flow":
            items = draw(st.lists(st.sampled_from(TRICKY[:30]), max_size=3))
            lines.append(f"{key}: [{', '.join(items)}]")
        elif shape == "comment":
            lines.append(f"# {draw(tokens)}")
        else:
            lines.append(f"{key}:\n  - {draw(st.sampled_from(TRICKY))}: {draw(tokens)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_fast_path_agrees_with_the_correct_path(text: str) -> None:
    expected, error = slow(text)
    if _fastpath._needs_correct_path(text.encode()):
        return  # read_documents takes the correct path itself
    try:
        fast = _fastpath._parse_fast(text)
    except Exception:
        return  # read_documents falls back to the correct path
    assert error is None, (text, error)
    assert json.dumps(fast, sort_keys=True) == json.dumps(expected, sort_keys=True), text
    assert same(fast, expected), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.digits + "._-+eExXoObBaAfFiInNyYsS~:_", min_size=1, max_size=7))
def test_fast_path_agrees_on_any_token(token: str) -> None:
    for text in (f"k: {token}\n", f"{token}: v\n", f"- {token}\n", f"k: {token} # c\n"):
        if _fastpath._needs_correct_path(text.encode()):
            continue
        try:
            fast = _fastpath._parse_fast(text)
        except Exception:
            continue
        assert slow(text) == (fast, None), text
        assert same(fast, slow(text)[0]), text


def test_kubectl_dumps_take_the_fast_path() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "labels": {"pod-template-hash": "7c5ddbdf54"},
            "name": "web-7c5ddbdf54-x2bqz",
            "resourceVersion": "123456",
            "uid": "73a0000c-6d07-4f7b-87e9-0d3593ad699f",
        },
        "spec": {
            "containers": [
                {
                    "image": "registry.example.com/web@sha256:" + "0123456789abcdef" * 4,
                    "name": "web",
                    "ports": [{"containerPort": 8080}],
                    "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}},
                }
            ],
            "securityContext": {},
            "tolerations": [],
        },
        "status": {"podIP": "10.244.1.7", "restartCount": 0, "ratio": 0.5},
    }
    text = dump_yaml({"apiVersion": "v1", "kind": "List", "items": [pod] * 3})
    assert not _fastpath._needs_correct_path(text.encode())
    assert read_one(text)["items"][0] == pod


def test_go_float_formatting() -> None:
    cases32 = {0.1: "0.1", 1.5: "1.5", 1000.0: "1000", 1e20: "1e+20", 1e-5: "1e-05", 0.0: "0"}
    for value, text in cases32.items():
        assert _goyaml._go_format_float32_g(value) == text
    assert _goyaml._go_format_float32_g(math.inf) == ".inf"
    cases64 = {
        0.1: "0.1",
        100000.0: "100000",
        1e6: "1e+06",
        123456.7: "123456.7",
        0.0001: "0.0001",
        0.00001: "1e-05",
        -2.5e-10: "-2.5e-10",
        5e-324: "5e-324",
        1.7976931348623157e308: "1.7976931348623157e+308",
    }
    for value, text in cases64.items():
        assert _goyaml._go_format_float64_g(value) == text


def test_hostile_documents_are_flagged_apart_from_malformed_ones() -> None:
    bomb = "a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" + "".join(
        f"c{i}: &c{i} [" + ", ".join([f"*{'b' if i == 0 else f'c{i - 1}'}"] * 9) + "]\n"
        for i in range(8)
    )
    deep = "a: " + "[" * 200 + "]" * 200 + "\n"
    _, errors = find_workloads(read_documents(bomb + "---\n" + deep + "---\nkind: [oops\n"))
    assert [e.hostile for e in errors] == [True, True, False]
