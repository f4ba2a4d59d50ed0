"""A cluster dump read a slice of items at a time reads exactly as the whole dump does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.manifest import dump_yaml, read_documents
from designer.k8s.manifest.split import SplitError, split_list

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(
        alphabet=st.sampled_from(list("ab- :#'\"\n\t*&!|>{}[],0123456789yYnN~")),
        max_size=12,
    )
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="abkind-", min_size=1, max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)


@st.composite
def dumps(draw: Any) -> dict[str, Any]:
    items = []
    for i in range(draw(st.integers(2, 6))):
        item = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}}
        item["spec"] = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3))
        items.append(item)
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def whole(data: bytes) -> Any:
    (doc,) = read_documents(data)
    return doc.data


def sliced(data: bytes, cuts: list[int]) -> list[Any]:
    parts = split_list(data)
    assert parts is not None
    n = len(parts.items)
    bounds = sorted({0, n, *(c % (n + 1) for c in cuts)})
    out: list[Any] = []
    for first, last in zip(bounds, bounds[1:], strict=False):
        out += parts.read(first, last)
    assert parts.document.data == {**whole(data), "items": []}
    return out


@settings(max_examples=200)
@given(dump=dumps(), cuts=st.lists(st.integers(0, 10), max_size=3))
def test_a_yaml_dump_reads_the_same_in_slices(dump: dict[str, Any], cuts: list[int]) -> None:
    data = dump_yaml(dump).encode()
    assert sliced(data, cuts) == whole(data)["items"]


@settings(max_examples=200)
@given(dump=dumps(), cuts=st.lists(st.integers(0, 10), max_size=3))
def test_a_json_dump_reads_the_same_in_slices(dump: dict[str, Any], cuts: list[int]) -> None:
    data = json.dumps(dump, indent=4).encode()
    assert sliced(data, cuts) == whole(data)["items"]


def test_the_document_keeps_its_line() -> None:
    data = b"# dump\n\napiVersion: v1\nitems:\n- kind: Pod\n- kind: Pod\nkind: List\n"
    parts = split_list(data)
    assert parts is not None and parts.document.line == 3 == read_documents(data)[0].line


CUT_WRONG_OR_NOT_AT_ALL = [
    # A double-quoted scalar whose continuation line starts at column 0 with "- ".
    b'items:\n- kind: Pod\n  metadata:\n    annotations:\n      a: "x\n- y"\n- kind: Pod\n',
    # An alias to an anchor in another item.
    b"items:\n- &p\n  kind: Pod\n- *p\nkind: List\n",
    # Block scalars whose lines look like entries when they are not at column 0.
    b"items:\n- kind: Pod\n  data: |\n    - not an item\n- kind: Pod\n",
    # Two items keys: the last wins in the whole document.
    b"items:\n- kind: Pod\n- kind: Pod\nitems:\n- kind: Service\n",
    # A flow sequence spread over lines.
    b"items: [\n- 1\n]\n",
    # An indented sequence.
    b"items:\n  - kind: Pod\n  - kind: Pod\n",
    # Tabs, CRLF, directives and documents.
    b"items:\n- kind: Pod\n-\tkind: Pod\n",
    b"items:\r\n- kind: Pod\r\n- kind: Pod\r\n",
    b"%YAML 1.1\n---\nitems:\n- kind: Pod\n- kind: Pod\n",
    b"items:\n- kind: Pod\n- kind: Pod\n---\nkind: Pod\n",
    b"kind: List\n---\nitems:\n- kind: Pod\n- kind: Pod\n",
    b"items:\n- kind: Pod\n- kind: Pod\nkind: List\n---\n",
    b"items:\n- kind: Pod\n---x\n- kind: Pod\n",
    # A "-" that ends the text, and one followed by a letter.
    b"items:\n- kind: Pod\n- kind: Pod\n-",
    b"items:\n- kind: Pod\n-kind: Pod\n",
    b'{\n    "apiVersion": "v1",\n    "items": [\n        {\n            "a": 1\n        },\n'
    b'        {\n            "a": 2\n        }\n    ],\n    "items": []\n}\n',
]


@pytest.mark.parametrize("data", CUT_WRONG_OR_NOT_AT_ALL)
def test_a_text_the_cut_could_change_is_read_whole(data: bytes) -> None:
    docs = read_documents(data)
    parts = split_list(data)
    if parts is None:
        return
    try:
        items = parts.read(0, len(parts.items))
    except SplitError:
        return
    assert len(docs) == 1 and docs[0].data["items"] == items


@pytest.mark.parametrize(
    "items",
    [
        # An item written as "{" and "}" on their own lines (no key between): the cut after
        # the item before it must still find the end of the items right after it.
        '        {\n            "kind": "Pod"\n        },\n        {\n        }',
        "        {\n        },\n        {\n        }",
        '        {\n        },\n        {\n            "kind": "Pod"\n        }',
    ],
)
def test_items_with_empty_braces_read_as_json_reads_them(items: str) -> None:
    data = f'{{\n    "apiVersion": "v1",\n    "items": [\n{items}\n    ],\n    "kind": "List"\n}}'
    split = split_list(data.encode())
    assert split is not None
    assert split.read(0, len(split.items)) == json.loads(data)["items"]


@settings(max_examples=200)
@given(
    dump=dumps(),
    cuts=st.lists(st.integers(0, 10), max_size=3),
    spacing=st.sampled_from([(", ", ": "), (",", ":")]),
)
def test_a_json_dump_on_one_line_reads_the_same_in_slices(
    dump: dict[str, Any], cuts: list[int], spacing: tuple[str, str]
) -> None:
    data = json.dumps(dump, separators=spacing).encode()
    assert split_list(data) is not None and len(split_list(data).items) == len(dump["items"])
    assert sliced(data, cuts) == whole(data)["items"]


def _line(items: list[Any], **rest: Any) -> bytes:
    return json.dumps({"apiVersion": "v1", "items": items, "kind": "List", **rest}).encode()


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
INNER_LIST = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [POD, POD, POD]}
CUT_WRONG_ON_ONE_LINE = [
    # A List in the List: its items look like the outer ones.
    _line([POD, INNER_LIST, POD]),
    _line([INNER_LIST, POD]),
    _line([POD, INNER_LIST]),
    # Items in another key order: no cut before them.
    _line([POD, {"kind": "Pod", "apiVersion": "v1", "metadata": {}}, POD]),
    # Both: a wrong cut and a missing one in one text.
    _line([INNER_LIST, {"kind": "Pod", "apiVersion": "v1", "metadata": {}}, POD]),
    # A "]" after the items, after a "}" too; a second items key.
    _line([POD, POD], metadata={"x": [{}]}),
    _line([POD, POD], metadata={"x": [1]}),
    _line([POD, POD], items2=[]).replace(b'"items2"', b'"items"'),
    # Not JSON after all.
    _line([POD, POD])[:-1],
    _line([POD, POD]).replace(b'"p"}}, {', b'"p"}}}, {', 1),
]


@pytest.mark.parametrize("data", CUT_WRONG_ON_ONE_LINE)
@pytest.mark.parametrize("cuts", [[], [1], [1, 2], [2, 3]])
def test_a_line_the_cut_could_change_reads_as_the_whole_or_not_at_all(
    data: bytes, cuts: list[int]
) -> None:
    docs = read_documents(data)
    parts = split_list(data)
    if parts is None:
        return
    n = len(parts.items)
    bounds = sorted({0, n, *(c % (n + 1) for c in cuts)})
    try:
        items = [i for a, b in zip(bounds, bounds[1:], strict=False) for i in parts.read(a, b)]
    except SplitError:
        return
    assert len(docs) == 1 and docs[0].error is None
    assert docs[0].data["items"] == items
    assert parts.document.data == {**docs[0].data, "items": []}
