"""A cluster dump cut between its items, so that it can be read a slice at a time.

``kubectl get pods -A -o yaml`` (or ``-o json``) prints one ``List`` document whose items are
the pods. Reading it whole holds every pod's tree at once (a 100,000-pod dump: gigabytes);
reading it a slice of items at a time holds one slice, and lets slices be read on several
cores. The slices read exactly what the whole would, because the cut is only made where
kubectl's layout makes it unambiguous, and every slice is checked:

* YAML: a single document whose top-level ``items:`` line is followed by block sequence
  entries at column 0 (``- apiVersion: v1``). A line starting ``- `` at column 0 can only
  start an entry of that sequence: any scalar or collection inside an entry is indented.
  Each slice is read as ``items:`` followed by its entries (the same nesting depth, the same
  reader), and must give exactly its number of items;
* JSON: kubectl's layout (``{``, 4-space keys, ``"apiVersion"`` then ``"items": [``, one
  item per ``        {`` ... ``        }``). JSON strings hold no raw newline, so a line
  of 8 spaces and a brace is structure. Each slice is read as ``{"items": [...]}``;
* JSON on one line (``{"apiVersion": "v1", "items": [{"apiVersion": ..., "kind": ...,
  "metadata": {...`` with or without spaces): cut where ``}, `` is followed by an item's
  start. ``}, {"`` cannot be inside a string (its quote would end it), so a cut is always
  between two values, at the items' depth or deeper: a deeper one leaves a slice that does
  not parse or gives another number of items, and the text is read whole.

The text without its items (``items: [<a random token>]``) must read as a mapping whose
``items`` is that token: a second ``items`` key (in any spelling), a directive or anything
else the cut could change makes :func:`split_list` answer None, and the text is read whole.
A slice that does not read back as its items raises :class:`SplitError`: the caller reads
the whole text instead, which gives the reader's own answer (and error message).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from designer.k8s.manifest.finder import is_list
from designer.k8s.manifest.reader import Document, ManifestError, read_documents

_YAML_ITEMS = b"items:\n"
_JSON_HEAD = re.compile(rb'\{\n    "apiVersion": "[^"\\\n]*",\n    "items": \[\n')
_JSON_SEPARATOR = b"\n        },\n        {\n"
# An item's closing "\n        }" before a separator or the end (a lookahead: the next
# item's "{" may be followed at once by its own closing brace).
_JSON_CUTS = re.compile(rb"\n        \}(?=,\n        \{\n|\n    \])")


class SplitError(ValueError):
    """A slice did not read back as its items: read the text whole."""


@dataclass(frozen=True)
class SplitList:
    """One List document cut between its items: ``document`` is the List with no items (its
    index and line are the whole document's), ``items`` the byte range of each item."""

    data: bytes
    document: Document
    items: list[tuple[int, int]]
    is_json: bool

    def read(self, first: int, last: int) -> list[Any]:
        """Items ``first`` to ``last`` (exclusive), read as the whole text would read them."""
        if first >= last:
            return []
        start, end = self.items[first][0], self.items[last - 1][1]
        if self.is_json:
            text = b'{"items": [\n' + self.data[start:end] + b"\n]}"
        else:
            text = _YAML_ITEMS + self.data[start:end]
        try:
            documents = read_documents(text, max_bytes=len(text) + 1)
        except ManifestError as exc:
            raise SplitError(str(exc)) from None
        if len(documents) != 1 or documents[0].error is not None:
            raise SplitError("a slice of items does not read on its own")
        value = documents[0].data
        items = value.get("items") if isinstance(value, dict) else None
        if not isinstance(items, list) or len(items) != last - first or len(value) != 1:
            raise SplitError("a slice of items reads as something else")
        return items

    @property
    def count(self) -> int:
        """The number of items."""
        return len(self.items)


@dataclass(frozen=True)
class ReadList:
    """A List document already read whole (a text :func:`split_list` does not cut: JSON or
    YAML in another layout), handed out a slice of items at a time as a SplitList
    does: ``document`` is the List with no items, ``values`` its items as read."""

    document: Document
    values: list[Any]

    def read(self, first: int, last: int) -> list[Any]:
        """Items ``first`` to ``last`` (exclusive)."""
        return self.values[first:last]

    @property
    def count(self) -> int:
        """The number of items."""
        return len(self.values)


def read_list(documents: list[Document], min_items: int = 2) -> ReadList | None:
    """``documents`` (a text read whole) as a ReadList, or None when they are not one List
    (read without error) with at least ``min_items`` items."""
    if len(documents) != 1:
        return None
    (document,) = documents
    data = document.data
    if document.error is not None or document.hostile or not is_list(data):
        return None
    items = data["items"]
    if type(items) is not list or len(items) < min_items:  # noqa: E721
        return None
    return ReadList(Document(document.index, document.line, {**data, "items": []}, None), items)


def split_list(data: bytes, min_items: int = 2) -> SplitList | None:
    """``data`` (one document, UTF-8) cut between its List items, or None when it is not a
    List in kubectl's layout with at least ``min_items`` items."""
    found = _split_json(data) if data.startswith(b"{") else _split_yaml(data)
    if found is None:
        return None
    (before, after), items, is_json = found
    if len(items) < min_items:
        return None
    # The items stand in for a token no text can guess: a later "items" key replaces it.
    token = "split-" + secrets.token_hex(16)
    placeholder = (f'["{token}"]' if is_json else f"[{token}]").encode()
    skeleton = before + placeholder + after
    try:
        documents = read_documents(skeleton, max_bytes=len(skeleton) + 1)
    except ManifestError:
        return None
    if len(documents) != 1 or documents[0].error is not None or documents[0].hostile:
        return None
    document = documents[0]
    if not isinstance(document.data, dict) or document.data.get("items") != [token]:
        return None
    document = Document(document.index, document.line, {**document.data, "items": []}, None)
    return SplitList(data, document, items, is_json)


Cut = tuple[tuple[bytes, bytes], list[tuple[int, int]], bool]


# A line at column 0 that is not indented, a comment or blank: inside the items only an
# entry ("- " or "-" alone); anything else ends them.
_YAML_COLUMN_0 = re.compile(rb"\n[^ #\n]")
_DASH = 45  # "-"
_ENTRY_NEXT = frozenset(b" \n")


def _split_yaml(data: bytes) -> Cut | None:
    # One document, no directives, plain LF lines: the layout kubectl prints.
    if data.startswith((b"---", b"%")) or b"\r" in data or b"\t" in data:
        return None
    if data.startswith(_YAML_ITEMS):
        head = 0
    else:
        head = data.find(b"\n" + _YAML_ITEMS)
        if head == -1:
            return None
        head += 1
    body = head + len(_YAML_ITEMS) - 1  # at the newline that ends "items:"
    # One scan for the lines at column 0 (three scans before: a tenth of a dump's check).
    starts: list[int] = []
    end = len(data)
    for m in _YAML_COLUMN_0.finditer(data, body):
        line = m.start() + 1
        if data[line] != _DASH:
            end = line  # the first line after the items
            break
        if line + 1 == len(data) or data[line + 1] not in _ENTRY_NEXT:
            return None  # "-x", "---" or a "-" ending the text: not kubectl's layout
        starts.append(line)
    # A document marker before or after the items ("---" inside them is refused above).
    if not starts or b"\n---" in data[:body] or b"\n---" in data[end - 1 :]:
        return None
    # Before the first entry only comments and blank lines.
    if data[body + 1 : starts[0]].strip(b"\n") and not all(
        line.startswith(b"#") or not line for line in data[body + 1 : starts[0]].split(b"\n")
    ):
        return None
    items = list(zip(starts, [*starts[1:], end], strict=True))
    return (data[:head] + b"items: ", b"\n" + data[end:]), items, False


def _split_json(data: bytes) -> Cut | None:
    head = _JSON_HEAD.match(data)
    if head is None:
        return _split_json_line(data)
    if data[head.end() : head.end() + 9] != b"        {":
        return None
    start = head.end()
    # Cut at each "\n        },\n        {\n": an item keeps its braces ("        {" opens
    # the next one, "\n        }" closes this one); the first "\n        }\n    ]" closes
    # the last one and the items. Found in one regex scan: splitting copied the whole dump
    # once more, and bytes.find is slower on such needles (twice, and four times when
    # called once per item: it prepares its search again each time).
    closing = len(b"\n        }")
    opening = len(b"        {\n")
    items = []
    first = start
    end = -1
    for m in _JSON_CUTS.finditer(data, start):
        cut = m.start()
        if data[cut + closing] != 44:  # not ",": the end
            end = cut + closing
            break
        items.append((first, cut + closing))
        first = cut + len(_JSON_SEPARATOR) - opening
    if end == -1:
        return None
    items.append((first, end))
    # "items": [ ... ] becomes "items": ["token"]
    return (data[: start - 2], data[end + len(b"\n    ]") :]), items, True


# JSON on one line (as a program posts a dump, or ``jq -c`` writes it): ``{"apiVersion":
# "v1", "items": [`` then items that each start ``{"apiVersion": ..., "kind": ...,
# "metadata": {`` (kubectl's order), written with the spacing of the head. A cut is where
# ``}, `` is followed by such a start; one inside an item (a List in a List) or a boundary
# not found (an item in another order) only makes a slice read as other items than
# counted, and the text is read whole (see the module docstring).
_LINE_HEAD = re.compile(
    rb'\{"apiVersion"( ?):( ?)"[^"\\]*"( ?),( ?)"items"\1:\2\[(?=\{"apiVersion")'
)
_LINE_START = rb'\{"apiVersion"%b:%b"[^"\\]*"%b,%b"kind"%b:%b"[^"\\]*"%b,%b"metadata"%b:%b\{'


def _split_json_line(data: bytes) -> Cut | None:
    head = _LINE_HEAD.match(data)
    if head is None:
        return None
    colon = head.group(1) + b":" + head.group(2)
    comma = head.group(3) + b"," + head.group(4)
    g1, g2, g3, g4 = (re.escape(head.group(i)) for i in range(1, 5))
    start_of_item = re.compile(_LINE_START % (g1, g2, g3, g4, g1, g2, g3, g4, g1, g2))
    start = head.end()
    if start_of_item.match(data, start) is None:
        return None
    # The items' closing "]": the last one of the text, after an item's "}".
    end = data.rfind(b"]")
    if end <= start or data[end - 1 : end] != b"}":
        return None
    # Candidates by a literal search (fast), each confirmed by the item's start.
    separator = b"}" + comma + b'{"apiVersion"' + colon
    items = []
    first = start
    for m in re.compile(re.escape(separator)).finditer(data, start, end):
        following = m.start() + 1 + len(comma)
        if start_of_item.match(data, following) is None:
            continue
        items.append((first, m.start() + 1))
        first = following
    items.append((first, end))
    return (data[: start - 1], data[end + 1 :]), items, True
