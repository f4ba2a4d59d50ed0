"""Read Kubernetes manifests exactly the way kubectl reads them, and write them back.

Reading semantics
-----------------
kubectl (v1.32) splits a stream into documents at every line that starts with
``---`` (k8s.io/apimachinery/pkg/util/yaml YAMLReader), sends a stream whose
first non-space byte is ``{`` to encoding/json, and converts every other
document with sigs.k8s.io/yaml: go-yaml v2 (the fork in
sigs.k8s.io/yaml/goyaml.v2) decodes it into ``interface{}`` with YAML 1.1
resolution, then encoding/json prints it.  For every document we return the
Python value whose JSON form is what that produces:

* plain (unquoted) scalars resolve by go-yaml v2's resolve.go: ``0777`` is the
  octal int 511, ``0x1F`` 31, ``1e3`` the float 1000.0, ``08`` the float 8.0,
  ``1_000`` 1000, ``y``/``yes``/``on``/``off``/``n`` are bools, ``~`` null,
  timestamps and ``1:30`` stay strings, ints beyond uint64 become floats
  (kubectl 1.32 has no big.Int branch); quoted scalars are always strings;
* map keys become strings like sigs.k8s.io/yaml's convertToJSONableObject does
  (``yes:`` -> ``"true"``, ``1.5:`` -> ``"1.5"`` via FormatFloat(k, 'g', -1, 32));
  null, uint64 and collection keys are errors, as are ``.inf``/``.nan`` values
  (encoding/json: "unsupported value") -- if they survive to the end, as in
  kubectl, where a later duplicate key can replace them;
* merge keys ``<<`` follow go-yaml v2 (merged keys overwrite earlier ones),
  ``!!binary`` is base64-decoded, other tags behave as in go-yaml v2, and the
  first document of a chunk is read (``...`` ends it).

Everything above is checked against the real kubectl in
tests/k8s/test_manifest_kubectl.py (hundreds of scalars, syntax corner cases
and 400 random documents; ad hoc runs of 10,000 more found no difference).

Parser choice (why)
-------------------
No Python YAML parser resolves scalars like go-yaml v2 (PyYAML: YAML 1.1 with
other rules, ``1e3`` stays a string; yaml-rs: YAML 1.2, ``0777`` is 777), so we
keep two paths that give identical results:

* The correct path (the reference): libyaml's C event parser (PyYAML's
  ``CParser``: go-yaml v2 is a Go port of libyaml, so syntax is judged alike
  and errors read like kubectl's) feeding an iterative builder written here
  that applies go-yaml v2 resolution, sigs.k8s.io key conversion, go-yaml's
  alias-ratio check ("document contains excessive aliasing") and MAX_DEPTH.
  It never recurses, so no input can raise RecursionError, and it is ~6x
  faster than PyYAML's CSafeLoader, whose Python composer is its slow part.
  Where libyaml 0.2.5 and go-yaml v2's scanner differ it follows go-yaml:
  ``\\'`` is accepted and ``\\/`` refused in double quotes, and in flow context
  a plain scalar may end in ":" (``[a:, b]``) but not hold a "?"
  (``[http://x?y=1]`` is an error).
* The fast path: yaml-rs (Rust, Production/Stable; ~2x faster than the
  correct path and ~12x faster than CSafeLoader on a pod dump; duplicate keys:
  last wins as in go-yaml; alias expansion limits of its own).  Its YAML 1.2
  rules differ (``0777`` -> 777, ``yes`` -> "yes", ``_1`` -> 1, ``1e999`` ->
  inf, tags and merge keys ignored, an empty block scalar at the very end ->
  "\\n", tabs after "-" accepted), so it reads a
  document only when a scan of the raw text proves nothing in it can be read
  differently: no plain scalar either parser could resolve to a non-string
  other than decimal ints, floats and true/false/null, no non-string keys, no
  tags, anchors, aliases, merge keys, non-empty flow collections, tabs,
  directives, ``...``, ``\\'``/``\\/``, control or YAML 1.1 line-break
  characters, indentation of 40 columns or more (so it never sees more than 80
  levels), or a block scalar header on the last line.  Over-reporting only
  costs speed.  kubectl's own output quotes every ambiguous string, so
  whole-cluster dumps take the fast path.  The scan looks at each distinct
  whitespace-separated token once (digits collapsed, which keeps the rules
  exact): ~25% of the parse time.  Any yaml-rs error re-reads the document on
  the correct path, so error messages always come from libyaml.
* JSON input (first byte ``{`` or ``[``) goes to orjson, or to a JSON stream
  decoder (kubectl accepts concatenated objects), or else is read as YAML.

Hostile input is refused before parsing where it can be: over ``max_bytes``,
invalid UTF-8 (with the byte offset), NUL bytes, more than MAX_DOCUMENTS
documents.  Depth and alias limits are enforced while building; every refusal
takes well under a second.

Writing
-------
``dump_yaml`` prints like ``kubectl get -o yaml`` (sigs.k8s.io/yaml.Marshal:
JSON, then the go-yaml v2 encoder): keys in go-yaml's sort order (digit runs
compare as numbers: ``item2`` < ``item10``), block style, sequences not
indented under their key, floats as encoding/json then FormatFloat(f, 'g', -1,
64) print them, strings quoted only when go-yaml v2 would read them back as
something else, multi-line strings as literal blocks.  PyYAML's C emitter is
libyaml, of which go-yaml's emitter is a port, so the output is byte for byte
kubectl's (tested), except that long strings are not wrapped at 80 columns and
U+0085/U+2028/U+2029 are escaped (kubectl writes them raw and reads them back
as line breaks).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as _dt
import functools
import io
import json
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

import orjson
import yaml
import yaml_rs
from yaml import events as _events
from yaml import nodes as _nodes

try:  # libyaml: PyYAML wheels ship it; the pure-Python parser is a fallback.
    from yaml._yaml import CParser as _CParser  # type: ignore[import-not-found]

    _CEmitterDumper: type = yaml.CSafeDumper
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None
    _CEmitterDumper = yaml.SafeDumper

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENTS",
    "MAX_INPUT_BYTES",
    "Document",
    "ManifestError",
    "QuotedStr",
    "ReadError",
    "Skipped",
    "Workload",
    "WorkloadScan",
    "dump_yaml",
    "dump_yaml_all",
    "find_workloads",
    "load",
    "read_documents",
]

MAX_INPUT_BYTES = 20 * 1024 * 1024
# Real manifests nest ~20 levels (CRD schemas ~60); anything deeper is refused.
MAX_DEPTH = 100
# Bound on nodes copied for aliases in one document, on top of go-yaml's ratio.
MAX_ALIAS_NODES = 1_000_000
# Helm renders and dumps of single objects have hundreds or thousands; each one
# costs a few microseconds of bookkeeping, so millions of "---" lines are refused.
MAX_DOCUMENTS = 50_000


class ManifestError(ValueError):
    """The whole input is unreadable: oversize, invalid UTF-8, not text at all."""


@dataclass(frozen=True)
class Document:
    index: int  # 0-based position among the non-empty documents of the input
    line: int  # 1-based line where the document's content starts
    data: Any | None  # parsed value (dict for a k8s object) or None on error
    error: str | None  # e.g. "line 7: mapping values are not allowed in this context"


@dataclass(frozen=True)
class Workload:
    document: int
    path: str  # "" or "items[3]"
    kind: str
    name: str | None
    namespace: str | None
    obj: dict
    pod_spec_path: str
    pod_spec: dict
    pod_metadata: dict


@dataclass(frozen=True)
class ReadError:
    document: int
    message: str

    @property
    def hostile(self) -> bool:
        """The document was refused to protect the reader (alias bomb, excessive nesting),
        not merely malformed: callers such as the HTTP API refuse the whole input."""
        return is_hostile(self.message)


# How the reader words the documents it refuses because they are hostile.
HOSTILE_MARKERS = (
    "excessive aliasing",
    "nesting is deeper than",
    "exceeded maximum nesting depth",
    "value contains itself",
)


def is_hostile(message: str) -> bool:
    """A read error that means "refused as hostile" rather than "malformed"."""
    return any(marker in message for marker in HOSTILE_MARKERS)


@dataclass(frozen=True)
class Skipped:
    """An object of a kind that has no pod template (Service, ConfigMap, ...)."""

    document: int
    path: str
    kind: str
    name: str | None


class WorkloadScan(tuple):
    """``(workloads, errors)``; unpacks as a 2-tuple.  ``.skipped`` lists other kinds."""

    skipped: list[Skipped]

    def __new__(
        cls, workloads: list[Workload], errors: list[ReadError], skipped: list[Skipped]
    ) -> WorkloadScan:
        self = super().__new__(cls, (workloads, errors))
        self.skipped = skipped
        return self

    def __getnewargs__(self) -> tuple[list[Workload], list[ReadError], list[Skipped]]:
        return (self[0], self[1], self.skipped)  # for pickle and copy

    @property
    def workloads(self) -> list[Workload]:
        return self[0]

    @property
    def errors(self) -> list[ReadError]:
        return self[1]


class QuotedStr(str):
    """A string that dump_yaml always writes double-quoted (quantities: ``cpu: "500m"``)."""

    __slots__ = ()


# ---------------------------------------------------------------------------
# go-yaml v2 scalar resolution (sigs.k8s.io/yaml/goyaml.v2/resolve.go)
# ---------------------------------------------------------------------------

_MERGE = object()  # the "<<" merge key

# resolveTable: the first byte hints what a plain scalar may be.
_HINT = {c: "D" for c in "0123456789"}
_HINT.update({"+": "S", "-": "S", ".": "."})
_HINT.update({c: "M" for c in "yYnNtTfFoO~"})

_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _words, _tag, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), "!!bool", True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), "!!bool", False),
    (("", "~", "null", "Null", "NULL"), "!!null", None),
    ((".nan", ".NaN", ".NAN"), "!!float", math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), "!!float", math.inf),
    (("-.inf", "-.Inf", "-.INF"), "!!float", -math.inf),
    # resolve.go also maps "<<" to !!merge, but no hint leads there ("<" is not
    # in resolveTable): "<<" resolves as a string and decode.go's isMerge()
    # spots merge keys by their text.  _compose does the same.
):
    for _word in _words:
        _RESOLVE_MAP[_word] = (_tag, _value)

_UINT64_MAX = (1 << 64) - 1
_INT64_MIN = -(1 << 63)
_INT64_LIMIT = 1 << 63
_BASE_DIGITS = {
    2: re.compile(r"[01]+"),
    8: re.compile(r"[0-7]+"),
    10: re.compile(r"[0-9]+"),
    16: re.compile(r"[0-9a-fA-F]+"),
}
# resolve.go yamlStyleFloat, applied after underscores are removed.
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# strconv.ParseFloat on a scalar starting with "." (underscores only between digits).
_GO_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")


def _go_parse_uint(s: str) -> int | None:
    """strconv.ParseUint(s, 0, 64) without underscores; None on any error."""
    if not s:
        return None
    if s[0] == "0":
        if len(s) >= 3 and s[1] in "bBoOxX":
            base = {"b": 2, "o": 8, "x": 16}[s[1].lower()]
            digits = s[2:]
        else:
            base, digits = 8, s[1:]
            if not digits:
                return 0
    else:
        base, digits = 10, s
    if not _BASE_DIGITS[base].fullmatch(digits):
        return None
    value = int(digits, base)
    return value if value <= _UINT64_MAX else None


def _go_parse_int(s: str) -> int | None:
    """strconv.ParseInt(s, 0, 64) without underscores; None on any error."""
    if not s:
        return None
    body = s[1:] if s[0] in "+-" else s
    value = _go_parse_uint(body)
    if value is None:
        return None
    if s[0] == "-":
        return -value if value <= _INT64_LIMIT else None
    return value if value < _INT64_LIMIT else None


def _go_resolve(s: str, *, timestamps: bool = True) -> tuple[str, Any]:
    """resolve("", s) of go-yaml v2 for a plain scalar: (short tag, value).

    Timestamps resolve to ("!!timestamp", s): go-yaml v2 hands them to
    interface{} as the original string (decode.go, "backward compatibility").
    """
    hint = _HINT.get(s[0]) if s else "N"
    if hint is None:
        return "!!str", s
    item = _RESOLVE_MAP.get(s)
    if item is not None:
        return item
    if hint == "M":
        return "!!str", s
    if hint == ".":
        if _GO_DOT_FLOAT.fullmatch(s):
            f = float(s.replace("_", ""))
            if not math.isinf(f):  # ParseFloat reports overflow as an error
                return "!!float", f
        return "!!str", s
    # hint D or S: timestamp, int, uint, float.  (The later 0b/-0b branches of
    # resolve.go are covered by ParseInt's base-0 prefixes; kubectl 1.32's
    # vendored copy has no big.Int branch: verified, 0xFFFFFFFFFFFFFFFFFFFF
    # stays a string.)
    if timestamps and _go_is_timestamp(s):
        return "!!timestamp", s
    plain = s.replace("_", "")
    value = _go_parse_int(plain)
    if value is None:
        value = _go_parse_uint(plain)
    if value is not None:
        return "!!int", value
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        f = float(plain)
        if not math.isinf(f):
            return "!!float", f
    return "!!str", s


# parseTimestamp's layouts: "2006-1-2T15:4:5.999999999Z07:00" (T or t),
# "2006-1-2 15:4:5.999999999" and "2006-1-2".
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})"
    r"| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?)?"
)


def _go_is_timestamp(s: str) -> bool:
    if len(s) < 8 or s[4] != "-":
        return False
    m = _TIMESTAMP.fullmatch(s)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    clock = [int(x) for x in (m[4] or m[7], m[5] or m[8], m[6] or m[9]) if x is not None]
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return not clock or (clock[0] < 24 and clock[1] < 60 and clock[2] < 60)


_RESOLVABLE = frozenset({"!!str", "!!bool", "!!int", "!!float", "!!null", "!!timestamp"})
_LONG_TAG_PREFIX = "tag:yaml.org,2002:"


class _DocError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def _resolve_tagged(tag: str, value: str, line: int) -> Any:
    """resolve(tag, value) + decode.go's scalar() for an explicitly tagged scalar."""
    short = "!!" + tag[len(_LONG_TAG_PREFIX) :] if tag.startswith(_LONG_TAG_PREFIX) else tag
    if short == "!!binary":
        try:
            data = base64.b64decode(value.replace("\n", "").replace("\r", ""), validate=True)
        except (binascii.Error, ValueError):
            raise _DocError(line, "!!binary value contains invalid base64 data") from None
        return data.decode("utf-8", "replace")
    if short == "!!merge" and value == "<<":
        return _MERGE
    if short not in _RESOLVABLE or short == "!!str":
        return value  # unknown tags keep the scalar as a string
    rtag, out = _go_resolve(value, timestamps=short == "!!timestamp")
    if rtag == short:
        return value if rtag == "!!timestamp" else out
    if short == "!!float" and rtag == "!!int" and out < _INT64_LIMIT:
        return float(out)
    raise _DocError(line, f"cannot decode {rtag} `{value}` as a {short}")


# ---------------------------------------------------------------------------
# sigs.k8s.io/yaml convertToJSONableObject: map keys become strings
# ---------------------------------------------------------------------------


def _go_format_float32_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32) with go-yaml's .inf/.nan spellings."""
    if f != f:
        return ".nan"
    try:
        f32 = struct.unpack("f", struct.pack("f", f))[0]
    except OverflowError:
        f32 = math.copysign(math.inf, f)
    if math.isinf(f32):
        return ".inf" if f32 > 0 else "-.inf"
    if f32 == 0:
        return "-0" if math.copysign(1.0, f32) < 0 else "0"
    for precision in range(1, 10):  # shortest decimal that round-trips float32
        text = f"{f32:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            break
    return _go_g_format(text)


def _go_format_float64_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64) as go-yaml v2's encoder prints floats."""
    if f != f:
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    return _go_g_format(repr(f))


def _go_g_format(text: str) -> str:
    """Format a shortest decimal (Python repr or %e text) with Go's %g rules."""
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    point = len(int_part) + (int(exp_text) if exp_text else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    exp = point - 1
    if exp < -4 or exp >= 6:  # shortest 'g' uses %e when exp < -4 || exp >= 6
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


class _Refused:
    """A key or value sigs.k8s.io/yaml refuses after go-yaml has decoded the
    document (null and uint64 keys; .inf/.nan values for encoding/json).

    kubectl fails only if it is still there at the end (a later duplicate key
    may replace it), so it is kept in the tree and looked for once at the end.
    Each one is its own dict key, like a Go nil or uint64 key among strings.
    """

    __slots__ = ("line", "message", "number")

    def __init__(self, line: int, message: str, number: float = 0.0) -> None:
        self.line = line
        self.message = message
        self.number = number


def _key_to_str(key: Any, line: int) -> str | _Refused:
    if type(key) is str:
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if type(key) is int:
        if key >= _INT64_LIMIT:  # go-yaml returns uint64 here; sigs.k8s.io rejects it
            return _Refused(line, f"unsupported map key of type uint64: {key}")
        return str(key)
    if type(key) is float:
        return _go_format_float32_g(key)
    if key is None:
        return _Refused(line, "unsupported map key: null (keys must be strings)")
    raise _DocError(line, f"invalid map key: {_type_name(key)}")


def _first_refused(root: Any) -> _Refused | None:
    """The first _Refused key or value left in the tree, in document order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is _Refused:
            return node
        if type(node) is dict:
            for k, v in node.items():
                if type(k) is _Refused:
                    return k
                if type(v) is _Refused:
                    return v
            stack.extend(reversed([v for v in node.values() if type(v) in (dict, list)]))
        elif type(node) is list:
            stack.extend(reversed(node))
    return None


# ---------------------------------------------------------------------------
# The correct path: libyaml events -> go-yaml v2 / sigs.k8s.io/yaml values
# ---------------------------------------------------------------------------


def _excessive_aliasing(alias_count: int, decode_count: int) -> bool:
    """go-yaml v2 decode.go: allowedAliasRatio check."""
    if alias_count <= 100 or decode_count <= 1000:
        return False
    if decode_count <= 400_000:
        allowed = 0.99
    elif decode_count >= 4_000_000:
        allowed = 0.10
    else:
        allowed = 0.99 - 0.89 * (decode_count - 400_000) / 3_600_000
    return alias_count / decode_count > allowed


def _copy_tree(value: Any) -> Any:
    """Deep copy of dicts and lists without recursion (alias expansion)."""
    if type(value) is dict:
        root: Any = {}
    elif type(value) is list:
        root = []
    else:
        return value
    stack = [(value, root)]
    while stack:
        src, dst = stack.pop()
        items = src.items() if type(src) is dict else enumerate(src)
        for k, v in items:
            tv = type(v)
            if tv is dict or tv is list:
                c = {} if tv is dict else []
                stack.append((v, c))
                v = c
            if type(dst) is dict:
                dst[k] = v
            else:
                dst.append(v)
    return root


class _Frame:
    __slots__ = (
        "anchor",
        "container",
        "depth",
        "float_keys",
        "flow",
        "have_key",
        "is_map",
        "key",
        "max_depth",
    )

    def __init__(
        self, container: Any, is_map: bool, depth: int, anchor: str | None, flow: bool
    ) -> None:
        self.container = container
        self.is_map = is_map
        self.flow = flow
        self.have_key = False
        self.key: Any = None
        self.depth = depth
        self.max_depth = depth
        self.anchor = anchor
        self.float_keys: dict[float, str] | None = None


_ScalarEvent = _events.ScalarEvent
_MappingStartEvent = _events.MappingStartEvent
_SequenceStartEvent = _events.SequenceStartEvent
_MappingEndEvent = _events.MappingEndEvent
_SequenceEndEvent = _events.SequenceEndEvent
_AliasEvent = _events.AliasEvent
_DocumentEndEvent = _events.DocumentEndEvent
_StreamEndEvent = _events.StreamEndEvent


def _event_iter(data: bytes) -> Any:
    if _CParser is not None:
        return iter(_CParser(data).get_event, None)
    return yaml.parse(data, Loader=yaml.SafeLoader)  # pragma: no cover


def _merge_into(target: dict, value: Any, line: int) -> None:
    """decode.go merge(): merged keys overwrite earlier keys; in a sequence of
    maps the earlier maps win (they are applied last)."""
    if type(value) is dict:
        target.update(value)
        return
    if type(value) is list and all(type(v) is dict for v in value):
        for v in reversed(value):
            target.update(v)
        return
    raise _DocError(line, "map merge requires map or sequence of maps as the value")


def _compose(data: bytes, line0: int) -> Any:
    """Build the first document of ``data`` the way go-yaml v2 + sigs.k8s.io/yaml do.

    Iterative (no recursion), with go-yaml v2's alias ratio check, a copy
    limit for aliases and MAX_DEPTH.  Raises _DocError or yaml.YAMLError.
    """
    stack: list[_Frame] = []
    cur: _Frame | None = None
    result: Any = None
    anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, size, height)
    open_anchors: dict[str, int] = {}
    cache: dict[str, Any] = {}
    decode_count = 1  # the document node
    alias_count = 0
    copied = 0
    starts: list[int] = []  # decode_count when each open collection started
    done = False
    refused = False  # a _Refused key or value was placed

    def place(value: Any, line: int) -> None:
        nonlocal result, done, refused
        is_key = cur is not None and cur.is_map and not cur.have_key
        if value is _MERGE and not is_key:
            value = "<<"  # only a key merges; elsewhere it is the string "<<"
        elif type(value) is _Refused:
            if is_key:
                value = value.number  # keys may be infinite: ".inf"
            else:
                refused = True
        if cur is None:
            result = value
            done = True
            return
        if not cur.is_map:
            cur.container.append(value)
        elif not cur.have_key:
            if value is _MERGE:
                cur.key = value
            else:
                cur.key = key = _key_to_str(value, line)
                if type(key) is _Refused:
                    refused = True
                elif type(value) is float:
                    # Go map keys: -0.0 == 0.0, and the key written last is kept.
                    if cur.float_keys is None:
                        cur.float_keys = {}
                    old = cur.float_keys.get(value)
                    if old is not None and old != key:
                        cur.container.pop(old, None)
                    cur.float_keys[value] = key
            cur.have_key = True
        else:
            cur.have_key = False
            if cur.key is _MERGE:
                _merge_into(cur.container, value, line)
            else:
                cur.container[cur.key] = value

    for ev in _event_iter(data):
        t = type(ev)
        if t is _ScalarEvent:
            decode_count += 1
            if alias_count > 100 and _excessive_aliasing(alias_count, decode_count):
                raise _DocError(line0 + ev.start_mark.line, "document contains excessive aliasing")
            tag = ev.tag
            value = ev.value
            if cur is not None and cur.flow and ev.style == "" and "?" in value:
                # go-yaml v2's scanner ends a plain scalar at "?" in flow context
                # (libyaml 0.2.5 no longer does), and then fails.
                closer = "}" if cur.is_map else "]"
                raise _DocError(
                    line0 + ev.start_mark.line, f"did not find expected ',' or '{closer}'"
                )
            if tag is None:
                if value == "<<" and ev.implicit[0]:
                    value = _MERGE  # decode.go isMerge(): a plain "<<" key merges
                elif ev.implicit[0]:  # plain scalar: resolve like go-yaml v2
                    resolved = cache.get(value, cache)
                    if resolved is cache:
                        resolved = _go_resolve(value)[1]
                        if type(resolved) is float and not math.isfinite(resolved):
                            resolved = _non_finite(value, resolved, line0 + ev.start_mark.line)
                        else:
                            cache[value] = resolved
                    value = resolved
            else:
                value = _resolve_tagged(tag, value, line0 + ev.start_mark.line)
                if type(value) is float and not math.isfinite(value):
                    value = _non_finite(ev.value, value, line0 + ev.start_mark.line)
            if ev.anchor is not None:
                anchors[ev.anchor] = (value, 1, 0)
            place(value, line0 + ev.start_mark.line)
        elif t is _MappingStartEvent or t is _SequenceStartEvent:
            decode_count += 1
            line = line0 + ev.start_mark.line
            if alias_count > 100 and _excessive_aliasing(alias_count, decode_count):
                raise _DocError(line, "document contains excessive aliasing")
            is_map = t is _MappingStartEvent
            if cur is not None and cur.is_map and not cur.have_key:
                what = "a mapping" if is_map else "a list"
                raise _DocError(line, f"invalid map key: {what} (keys must be scalars)")
            depth = 1 if cur is None else cur.depth + 1
            if depth > MAX_DEPTH:
                raise _DocError(line, f"nesting is deeper than {MAX_DEPTH} levels")
            if ev.anchor is not None:
                open_anchors[ev.anchor] = open_anchors.get(ev.anchor, 0) + 1
            frame = _Frame({} if is_map else [], is_map, depth, ev.anchor, bool(ev.flow_style))
            if cur is not None:
                stack.append(cur)
            starts.append(decode_count)
            cur = frame
        elif t is _MappingEndEvent or t is _SequenceEndEvent:
            frame = cur
            assert frame is not None
            size = decode_count - starts.pop() + 1
            if frame.anchor is not None:
                anchors[frame.anchor] = (frame.container, size, frame.max_depth - frame.depth + 1)
                open_anchors[frame.anchor] -= 1
            cur = stack.pop() if stack else None
            if cur is not None and frame.max_depth > cur.max_depth:
                cur.max_depth = frame.max_depth
            place(frame.container, line0 + ev.start_mark.line)
        elif t is _AliasEvent:
            line = line0 + ev.start_mark.line
            name = ev.anchor
            if open_anchors.get(name):
                raise _DocError(line, f"anchor '{name}' value contains itself")
            target = anchors.get(name)
            if target is None:
                raise _DocError(line, f"unknown anchor '{name}' referenced")
            value, size, height = target
            decode_count += 1 + size
            alias_count += size
            if _excessive_aliasing(alias_count, decode_count):
                raise _DocError(line, "document contains excessive aliasing")
            if height:
                depth = (0 if cur is None else cur.depth) + height
                if depth > MAX_DEPTH:
                    raise _DocError(line, f"nesting is deeper than {MAX_DEPTH} levels")
                if cur is not None and depth > cur.max_depth:
                    cur.max_depth = depth
                copied += size
                if copied > MAX_ALIAS_NODES:
                    raise _DocError(line, "document contains excessive aliasing")
                if cur is not None and cur.is_map and not cur.have_key:
                    raise _DocError(line, f"invalid map key: {_type_name(value)}")
                value = _copy_tree(value)
            place(value, line)
        elif t is _DocumentEndEvent or t is _StreamEndEvent:
            break
        if done:
            break  # go-yaml's Unmarshal reads only the first document
    if refused:
        found = _first_refused(result)
        if found is not None:
            raise _DocError(found.line, found.message)
    return result


def _non_finite(text: str, number: float, line: int) -> _Refused:
    """.inf/.nan: fine as a map key, refused by encoding/json as a value."""
    message = (
        f"unsupported value {text}: JSON has no infinity or NaN (quote it to make it a string)"
    )
    return _Refused(line, message, number)


def _compose_like_go(text: str, data: bytes, line0: int) -> Any:
    """_compose, adjusted where libyaml 0.2.5 and go-yaml v2's scanner differ.

    go-yaml v2 accepts two things libyaml refuses: the escape \\' in double
    quotes, and in flow context a plain scalar that ends in ":" before one of
    ",?[]{}" (``[a:, b]`` is ``["a:", "b"]``).  Each spot libyaml stops at is
    rewritten to an equivalent libyaml accepts (\\x27 for every \\' of that
    quoted scalar; the plain scalar single-quoted: one ending in ":" always
    resolves to a string) and the text parsed again; lines don't move.  Re-parsing
    is bounded by a byte budget.  go-yaml v2 also refuses \\/, which libyaml takes.
    """
    check_slash = "\\/" in text
    budget = max(8 * len(data), 1 << 21)
    while True:
        try:
            value = _compose(data, line0)
        except yaml.MarkedYAMLError as e:
            budget -= len(data)
            rewritten = _rewrite_for_libyaml(text, e)
            if rewritten is None:
                raise
            if budget < 0:
                line = line0 + (e.problem_mark.line if e.problem_mark else 0)
                message = (
                    "too many go-yaml-only constructs to read: \\' in double quotes "
                    "(write \\x27) or flow scalars ending in ':' (quote them)"
                )
                raise _DocError(line, message) from None
            text = rewritten
            data = text.encode("utf-8")
            continue
        if check_slash:
            _reject_slash_escapes(text, data, line0)
        return value


def _rewrite_for_libyaml(text: str, e: yaml.MarkedYAMLError) -> str | None:
    """``text`` with the go-yaml-only construct at ``e`` rewritten, or None."""
    mark, start = e.problem_mark, e.context_mark
    if mark is None or start is None:
        return None
    i = mark.index
    if e.problem == "found unknown escape character" and text.startswith("\\'", i):
        # Every \' of this double-quoted scalar (it starts at the context mark).
        j = start.index + 1
        parts = [text[:j]]
        while j < len(text) and text[j] != '"':
            if text[j] == "\\":
                parts.append("\\x27" if text[j + 1 : j + 2] == "'" else text[j : j + 2])
                j += 2
            else:
                parts.append(text[j])
                j += 1
        parts.append(text[j:])
        return "".join(parts)
    if (
        e.problem == "found unexpected ':'"
        and e.context == "while scanning a plain scalar"
        and text[i : i + 1] == ":"
        and text[i + 1 : i + 2] in (",", "?", "[", "]", "{", "}")
    ):
        raw = text[start.index : i + 1]
        return text[: start.index] + "'" + raw.replace("'", "''") + "'" + text[i + 1 :]
    return None


def _reject_slash_escapes(text: str, data: bytes, line0: int) -> None:
    """go-yaml v2 rejects the escape \\/ in double-quoted scalars."""
    for ev in _event_iter(data):
        if type(ev) is _DocumentEndEvent:
            return
        if type(ev) is _ScalarEvent and ev.style == '"':
            raw = text[ev.start_mark.index : ev.end_mark.index]
            i = raw.find("\\")
            while i != -1:
                if raw[i + 1 : i + 2] == "/":
                    line = line0 + ev.start_mark.line + raw.count("\n", 0, i)
                    raise _DocError(line, "found unknown escape character")
                i = raw.find("\\", i + 2)


# ---------------------------------------------------------------------------
# The fast path: yaml-rs, when a scan proves it reads the document identically
# ---------------------------------------------------------------------------

_LAST_WINS = yaml_rs.DuplicateKeyPolicy.LastWins  # go-yaml v2 Unmarshal: last key wins
_DIGITS_TO_ONE = bytes.maketrans(b"23456789", b"11111111")

# The scan looks at the distinct whitespace-separated tokens of the document
# (digits 2-9 collapsed to 1, which keeps every rule below exact).  In block
# context a plain scalar starts a token; flow collections are refused whole.
_TT = rb"(?=[#:,\]}\n]|\Z)"  # what may end a plain scalar inside a token
_EOT = rb"(?:\n|\Z)"  # end of token (tokens are joined with newlines)
# Decimal ints of at most 18 digits and decimal floats with a small exponent:
# both parsers agree (a huge exponent overflows: yaml-rs says inf, go a string).
_SAFE = rb"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]+)?(?:[eE][-+]?[0-9]{1,2})?"
# Everything either parser may read as a number (ParseInt/ParseUint/ParseFloat
# after go-yaml's underscore removal; yaml-rs's is_int/is_float/inf/nan).
# go-yaml removes every "_" before parsing, so "0_x1F" is hex and "1e_5" a float.
# (Alternatives in this order: it is used in atomic groups, where the first
# one that matches wins, and the decimal one would take the "." of ".inf".)
_NUMISH = (
    rb"(?=[-+]?[0-9._])[-+]?_*(?:\.[iInN][nNaA][fFnN]"
    rb"|0_*[xXoObB][0-9a-fA-F_]*"
    rb"|[0-9_]*\.?[0-9_]*(?:[eE]_*[-+]?[0-9_]*[0-9][0-9_]*)?)"
)
# Matched at the start of each distinct token ("\n" + token): the literal "\n"
# lets the regex engine skip from token to token, and each branch starts with
# its own first characters, so most tokens fail at once.  ":" ends a plain
# scalar inside a token (_TT), so a risky word is caught as a key too.
_RISKY_TOKEN = re.compile(
    rb"\n(?:"
    + b"|".join(
        [
            # go-yaml v2 bools that yaml-rs reads as strings
            rb"[yY](?:es)?" + _TT,
            rb"YES" + _TT,
            rb"[nN]o?" + _TT,
            rb"NO" + _TT,
            rb"[oO](?:n|ff)" + _TT,
            rb"O(?:N|FF)" + _TT,
            # keys sigs.k8s.io/yaml converts to strings ("true") or refuses (null)
            rb"(?:[tT]rue|TRUE|[fF]alse|FALSE|[nN]ull|NULL|~):",
            # numbers the parsers read differently, and any number as a key.  The
            # groups are atomic: no character a number is made of can end a token,
            # so the longest match is the only one that matters (and UIDs such as
            # "73a0000c-..." fail without backtracking).
            rb"(?=[-+0-9._])(?:(?>" + _SAFE + rb"):|(?!(?>" + _SAFE + rb")" + _TT + rb")"
            rb"(?>" + _NUMISH + rb")" + _TT + rb")",
            rb"[!&*]|<<",  # tags, anchors, aliases, merge keys
            rb"[\[{](?!(?:\]|})" + _EOT + rb")",  # non-empty flow collections ({} and [] are fine)
            # directives, document end, complex/empty/spaced keys
            rb"%|\.\.\." + _EOT + rb"|\?" + _EOT + rb"|:",
        ]
    )
    + rb")"
)
# Indentation (with "- ", "? " and ": " indicators) of 40 columns or more: the
# fast path then never sees more than 2*40 block levels (MAX_DEPTH is 100).
_DEEP = re.compile(rb"\n[ ?:-]{40}")
# Characters libyaml rejects or treats as line breaks (YAML 1.1) but yaml-rs
# does not, found by a translate() pre-check on their first byte.
_ODD_CHAR = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]"
    rb"|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]"
)
_NOT_ODD_LEAD = bytes(
    c for c in range(256) if not (c < 0x20 and c not in b"\t\n\r" or c in b"\x7f\xc2\xe2\xef")
)
_LONE_CR = re.compile(rb"\r(?!\n)")
# A block scalar header ("|", ">-", "|+2" ...) on the last line that is not
# blank or a comment.
_BLOCK_HEADER_AT_END = re.compile(rb"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?(?:\s*\n[ \t]*#[^\n]*)*\s*\Z")


def _needs_correct_path(data: bytes) -> bool:
    """True unless yaml-rs is proven to read ``data`` exactly like go-yaml v2."""
    if b"\t" in data:
        return True  # yaml-rs accepts "-\tx", libyaml and go-yaml do not
    if b"\\" in data and (b"\\/" in data or b"\\'" in data):
        return True  # escapes where go-yaml v2 and libyaml differ
    if data.translate(None, _NOT_ODD_LEAD) and _ODD_CHAR.search(data):
        return True
    if b"\r" in data and _LONE_CR.search(data):
        return True
    if _BLOCK_HEADER_AT_END.search(data[-256:]):
        return True  # yaml-rs reads an empty block scalar at the very end as "\n"
    # Distinct lines (iterating a BytesIO frees each duplicate at once, which is
    # much cheaper than splitting first); each keeps its "\n".
    lines = b"".join(set(io.BytesIO(data.translate(_DIGITS_TO_ONE))))
    if _DEEP.search(b"\n" + lines):
        return True
    tokens = b"\n".join(set(lines.split()))
    return _RISKY_TOKEN.search(b"\n" + tokens) is not None


def _parse_fast(text: str) -> Any:
    return yaml_rs.loads(text, parse_datetime=False, duplicate_key_policy=_LAST_WINS)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

_CONTENT_B = re.compile(rb"^[ \t]*[^\s#]", re.M)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def _as_bytes(text: str | bytes, max_bytes: int) -> tuple[bytes, str | None]:
    """The input as UTF-8 bytes (and as str when given one), size and type checked."""
    if isinstance(text, str):
        if len(text) > max_bytes:
            raise ManifestError(f"input is larger than the {max_bytes:,}-byte limit")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:
            bad = ord(text[e.start])
            raise ManifestError(
                f"input is not valid text: unpaired surrogate U+{bad:04X} at character {e.start}"
            ) from None
        if len(data) > max_bytes:
            raise ManifestError(f"input is {len(data):,} bytes; the limit is {max_bytes:,} bytes")
        if text.startswith("\ufeff"):  # go-yaml skips a UTF-8 byte-order mark
            return data[3:], text[1:]
        return data, text
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise ManifestError(f"input must be text (str or bytes), not {type(text).__name__}")
    data = bytes(text)
    if len(data) > max_bytes:
        raise ManifestError(f"input is {len(data):,} bytes; the limit is {max_bytes:,} bytes")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ManifestError(
            "input is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8"
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data, None


def _as_text(data: bytes, text: str | None) -> str:
    """The input as str: valid UTF-8 without NUL bytes, or ManifestError."""
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            raise ManifestError(
                f"input is not valid UTF-8: byte 0x{data[e.start]:02x} at byte offset "
                f"{e.start} (line {line}) is not part of a UTF-8 character"
            ) from None
    nul = data.find(b"\x00")
    if nul != -1:
        line = data.count(b"\n", 0, nul) + 1
        raise ManifestError(
            f"input is not text: NUL byte at byte offset {nul} (line {line}); "
            "is it binary or UTF-16?"
        )
    return text


def _error_message(e: yaml.YAMLError, line0: int, data: bytes) -> str:
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        # A mark at the end of the input can sit on the line after the last one.
        last = line0 + data.rstrip(b"\n").count(b"\n")
        line = min(line0 + (mark.line if mark else 0), last)
        problem = e.problem or e.context or "invalid YAML"
        if problem == "exceeded maximum nesting depth":  # libyaml's own limit (1000)
            return f"line {line}: nesting is deeper than {MAX_DEPTH} levels"
        message = f"line {line}: {problem}"
        if e.context and e.problem and e.context_mark is not None:
            context_line = min(line0 + e.context_mark.line, last)
            message += f" ({e.context} that starts on line {context_line})"
        return message
    if isinstance(e, yaml.reader.ReaderError):
        line = line0 + data.count(b"\n", 0, e.position)
        return f"line {line}: {e.reason} (found #x{e.character:04x})"
    return f"line {line0}: {e}"  # pragma: no cover


def _parse_slow(text: str, data: bytes, line0: int) -> tuple[Any, str | None]:
    try:
        return _compose_like_go(text, data, line0), None
    except _DocError as e:
        return None, f"line {e.line}: {e.message}"
    except yaml.YAMLError as e:
        return None, _error_message(e, line0, data)


_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")


def _json_depth_ok(data: bytes) -> bool:
    """Whether JSON nesting stays within MAX_DEPTH, judged from brackets alone
    (one pass of "()" removal per level); False sends it to the correct path,
    which checks depth exactly."""
    brackets = data.translate(_BRACKETS, _NOT_BRACKETS)
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        shorter = brackets.replace(b"()", b"")
        if len(shorter) == len(brackets):
            depth += shorter.count(b"(")
            break
        brackets = shorter
        depth += 1
    return depth <= MAX_DEPTH


def _json_stream(text: str) -> tuple[list[tuple[int, Any]], tuple[int, str] | None]:
    """kubectl decodes a stream starting with "{" or "[" as a stream of JSON values
    (yaml.NewYAMLOrJSONDecoder guesses JSON from the first byte): not YAML, so a flow
    mapping such as ``{kind: Pod}`` or a ``NaN`` is an error, as kubectl says. Returns the
    values read and, if the stream breaks, the line and message of the break."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_json_float)
    documents = []
    pos = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]
    line, counted = 1, 0
    while pos < len(text):
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            return documents, (exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})")
        except (ValueError, RecursionError) as exc:
            return documents, (line, f"invalid JSON: {exc}")
        documents.append((line, value))
        pos = _JSON_SPACE.match(text, end).end()  # type: ignore[union-attr]
    return documents, None


_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is out of range")
    return value


def _separators(buf: Any) -> list[int]:
    """Offsets of the lines that start with "---" (str or bytes)."""
    dashes, newline = ("---", "\n") if isinstance(buf, str) else (b"---", b"\n")
    found = [0] if buf.startswith(dashes) else []
    i = buf.find(newline + dashes)
    while i != -1:
        found.append(i + 1)
        i = buf.find(newline + dashes, i + 1)
    return found


def _chunks(text: str, data: bytes, separators: int) -> list[tuple[int, str, bytes, str | None]]:
    """Split like kubectl's YAMLReader: at every line starting with "---".

    Returns (first line, str chunk, bytes chunk, separator error) per chunk.
    """
    if separators == 0:
        return [(1, text, data, None)]
    seps_b = _separators(data)
    seps_s = seps_b if text.isascii() else _separators(text)
    out = []
    prev_b = prev_s = 0
    line = 1
    error = None
    for sb, ss in zip([*seps_b, len(data)], [*seps_s, len(text)], strict=True):
        out.append((line, text[prev_s:ss], data[prev_b:sb], error))
        if sb == len(data):
            break
        line += data.count(b"\n", prev_b, sb)
        end_b = data.find(b"\n", sb)
        end_b = len(data) if end_b == -1 else end_b + 1
        end_s = text.find("\n", ss)
        end_s = len(text) if end_s == -1 else end_s + 1
        rest = data[sb + 3 : end_b].strip()
        error = None
        if rest and not rest.startswith(b"#"):
            shown = data[sb:end_b].rstrip().decode("utf-8", "replace")
            error = (
                f"line {line}: invalid document separator {shown!r}: kubectl accepts only "
                "'---' optionally followed by a comment"
            )
        line += 1
        prev_b, prev_s = end_b, end_s
    return out


def read_documents(text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES) -> list[Document]:
    """Read every document of a YAML or JSON stream the way kubectl does.

    Empty documents (only comments or whitespace) and ``null`` documents are
    skipped, as kubectl skips them.  A broken document gets an error and does
    not stop the others.  Raises ManifestError when the whole input is
    unreadable.
    """
    data, given_text = _as_bytes(text, max_bytes)
    start = _LEADING_SPACE.match(data).end()  # type: ignore[union-attr]
    is_json = data[start : start + 1] in (b"{", b"[") and _json_depth_ok(data)
    found: list[tuple[int, Any]] | None = None
    if is_json:  # orjson also checks UTF-8; any failure takes the long way below
        with contextlib.suppress(orjson.JSONDecodeError):
            found = [(data.count(b"\n", 0, start) + 1, orjson.loads(data))]
    text = _as_text(data, given_text) if found is None else ""
    broken: tuple[int, str] | None = None
    if is_json and found is None:
        found, broken = _json_stream(text)
    if found is not None:
        documents = [
            Document(index=i, line=line, data=value, error=None)
            for i, (line, value) in enumerate(v for v in found if v[1] is not None)
        ]
        if broken is not None:
            line, message = broken
            documents.append(Document(len(documents), line, None, f"line {line}: {message}"))
        return documents

    separators = 0
    if b"\n---" in data or data.startswith(b"---"):
        separators = data.count(b"\n---") + data.startswith(b"---")
    if separators >= MAX_DOCUMENTS:
        raise ManifestError(
            f"input has {separators:,} document separators (---); "
            f"the limit is {MAX_DOCUMENTS - 1:,}"
        )
    chunks = _chunks(text, data, separators)
    # One scan of the whole input usually proves every document safe for the
    # fast parser; otherwise each document is scanned on its own.
    if not _needs_correct_path(data):
        slow_docs: set[int] = set()
    elif len(chunks) == 1:
        slow_docs = {0}
    else:
        slow_docs = {n for n, chunk in enumerate(chunks) if _needs_correct_path(chunk[2])}

    documents: list[Document] = []
    for n, (line0, chunk_text, chunk_data, sep_error) in enumerate(chunks):
        content = _CONTENT_B.search(chunk_data)
        if content is None and sep_error is None:
            continue  # only comments and blank lines: kubectl skips it
        start_line = line0 + (chunk_data.count(b"\n", 0, content.start()) if content else 0)
        if sep_error is not None:
            documents.append(Document(len(documents), start_line, None, sep_error))
            continue
        value: Any = None
        error: str | None = None
        if n in slow_docs:
            value, error = _parse_slow(chunk_text, chunk_data, line0)
        else:
            try:
                value = _parse_fast(chunk_text)
            except Exception:  # any disagreement: let libyaml have the final word
                value, error = _parse_slow(chunk_text, chunk_data, line0)
        if value is None and error is None:
            continue  # a null document: kubectl skips it
        documents.append(Document(len(documents), start_line, value, error))
    return documents


# ---------------------------------------------------------------------------
# Finding pod templates
# ---------------------------------------------------------------------------

# kind -> (API groups, path of the PodSpec, path of the pod metadata)
_TEMPLATE_KINDS: dict[str, tuple[frozenset[str], str, str]] = {
    "Pod": (frozenset({""}), "spec", "metadata"),
    "PodTemplate": (frozenset({""}), "template.spec", "template.metadata"),
    "ReplicationController": (frozenset({""}), "spec.template.spec", "spec.template.metadata"),
    "Deployment": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "ReplicaSet": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "DaemonSet": (
        frozenset({"apps", "extensions"}),
        "spec.template.spec",
        "spec.template.metadata",
    ),
    "StatefulSet": (frozenset({"apps"}), "spec.template.spec", "spec.template.metadata"),
    "Job": (frozenset({"batch"}), "spec.template.spec", "spec.template.metadata"),
    "CronJob": (
        frozenset({"batch"}),
        "spec.jobTemplate.spec.template.spec",
        "spec.jobTemplate.spec.template.metadata",
    ),
}
# kind -> (API groups, PodSpec path, fields of the pod template: the object that
# holds "spec" and "metadata"; () for a Pod, which is its own template)
_TEMPLATE_FIELDS = {
    kind: (groups, spec, tuple(spec.split(".")[:-1]))
    for kind, (groups, spec, meta) in _TEMPLATE_KINDS.items()
}


def _walk(obj: dict, fields: tuple[str, ...]) -> dict | str:
    """The mapping at ``fields`` ({} when a field is missing or null), or an
    error message when a field on the way is not a mapping."""
    node: Any = obj
    for n, field in enumerate(fields):
        node = node.get(field)
        if node is None:
            return {}
        if type(node) is not dict and not isinstance(node, dict):
            return f"{'.'.join(fields[: n + 1])} is {_type_name(node)}, expected a mapping"
    return node  # type: ignore[no-any-return]


def _template_parts(obj: dict, fields: tuple[str, ...]) -> tuple[dict, dict] | str:
    """(PodSpec, pod metadata) of the template at ``fields``, or an error message."""
    template = _walk(obj, fields) if fields else obj
    if type(template) is str:
        return template
    spec = template.get("spec")
    metadata = template.get("metadata")
    for field, value in (("spec", spec), ("metadata", metadata)):
        if value is not None and type(value) is not dict and not isinstance(value, dict):
            where = ".".join((*fields, field))
            return f"{where} is {_type_name(value)}, expected a mapping"
    return (spec if spec is not None else {}), (metadata if metadata is not None else {})


class _Finder:
    """find_workloads' state: the three result lists and a cache of API groups."""

    def __init__(self) -> None:
        self.workloads: list[Workload] = []
        self.errors: list[ReadError] = []
        self.skipped: list[Skipped] = []
        self.groups: dict[str, str] = {}  # apiVersion -> API group

    def error(self, doc: Document, path: str, message: str) -> None:
        where = f"line {doc.line}: {path + ': ' if path else ''}"
        self.errors.append(ReadError(doc.index, where + message))

    def object(self, doc: Document, obj: Any, path: str) -> list[Any] | None:
        """Record one object; return the items of a List to look at next."""
        if type(obj) is not dict and not isinstance(obj, dict):
            message = f"expected a mapping (a Kubernetes object), got {_type_name(obj)}"
            self.error(doc, path, message)
            return None
        kind = obj.get("kind")
        if type(kind) is not str or not kind:
            self.error(doc, path, 'object has no "kind"')
            return None
        fields = _TEMPLATE_FIELDS.get(kind)
        if fields is None and kind.endswith("List") and "items" in obj:
            items = obj["items"]
            if items is None or type(items) is list or isinstance(items, list):
                return items or []
            self.error(doc, path, f"{kind}: items is {_type_name(items)}, expected a list")
            return None
        metadata = obj.get("metadata")
        name = namespace = None
        if type(metadata) is dict or isinstance(metadata, dict):
            name = metadata.get("name")
            if type(name) is not str:
                name = None
            namespace = metadata.get("namespace")
            if type(namespace) is not str:
                namespace = None
        if fields is not None:
            api_version = obj.get("apiVersion")
            if type(api_version) is str:
                group = self.groups.get(api_version)
                if group is None:
                    group = self.groups[api_version] = api_version.rpartition("/")[0]
                if group not in fields[0]:
                    fields = None
        if fields is None:
            self.skipped.append(Skipped(doc.index, path, kind, name))
            return None
        parts = _template_parts(obj, fields[2])
        if type(parts) is str:
            what = f'{kind} "{name}"' if name else kind
            self.error(doc, path, f"{what}: {parts}")
            return None
        self.workloads.append(
            Workload(doc.index, path, kind, name, namespace, obj, fields[1], parts[0], parts[1])
        )
        return None


def find_workloads(documents: list[Document]) -> WorkloadScan:
    """Pod templates of every object in ``documents`` (List items included).

    Returns ``(workloads, errors)``; the result's ``.skipped`` lists objects of
    kinds without a pod template (Service, ConfigMap, ...), which are not errors.
    Objects whose apiVersion names another API group (a CRD that reuses the
    kind name "Job", say) are skipped too.
    """
    finder = _Finder()
    record = finder.object
    for doc in documents:
        if doc.error is not None:
            finder.errors.append(ReadError(doc.index, doc.error))
            continue
        if doc.data is None:
            continue
        # Lists (a kubectl dump is one) nest rarely: a stack of item lists.
        stack: list[tuple[list[Any], str, int]] = []
        items = record(doc, doc.data, "")
        if items is not None:
            stack.append((items, "items", 0))
        while stack:
            items, prefix, start = stack.pop()
            for i in range(start, len(items)):
                nested = record(doc, items[i], f"{prefix}[{i}]")
                if nested is not None:
                    stack.append((items, prefix, i + 1))
                    stack.append((nested, f"{prefix}[{i}].items", 0))
                    break
    return WorkloadScan(finder.workloads, finder.errors, finder.skipped)


def load(text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES) -> WorkloadScan:
    """read_documents + find_workloads."""
    return find_workloads(read_documents(text, max_bytes=max_bytes))


# ---------------------------------------------------------------------------
# Writing: kubectl get -o yaml style
# ---------------------------------------------------------------------------

# go-yaml v2 encode.go isBase60Float: still quoted for other YAML 1.1 parsers.
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")


def _needs_quotes(s: str) -> bool:
    """encode.go stringv: plain only if go-yaml v2 reads it back as this string."""
    if _go_resolve(s)[0] != "!!str":
        return True
    return s[:1] in "+-0123456789" and ":" in s and _BASE60.fullmatch(s) is not None


@functools.cmp_to_key
def _go_key_order(a: str, b: str) -> int:
    """go-yaml v2 sorter.go keyList.Less for string keys (digit runs compare as numbers)."""
    ar, br = a, b
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            continue
        al, bl = ar[i].isalpha(), br[i].isalpha()
        if al and bl:
            return -1 if ar[i] < br[i] else 1
        if al or bl:
            return -1 if bl else 1
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdecimal():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdecimal():
            an = an * 10 + ord(ar[ai]) - 48
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdecimal():
            bn = bn * 10 + ord(br[bi]) - 48
            bi += 1
        if an != bn:
            return -1 if an < bn else 1
        if ai != bi:
            return -1 if ai < bi else 1
        return -1 if ar[i] < br[i] else 1
    return (len(ar) > len(br)) - (len(ar) < len(br))


_PLAIN_KEY = re.compile(r"[A-Za-z./-]*")


def _sorted_keys(keys: list[str]) -> list[str]:
    # Letters, '.', '/' and '-' only: go's order is code point order.
    if all(_PLAIN_KEY.fullmatch(k) for k in keys):
        return sorted(keys)
    return sorted(keys, key=_go_key_order)


_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return str(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_format_float64_g(key)
    raise TypeError(f"cannot write a map key of type {type(key).__name__}")


class _Dumper(_CEmitterDumper):  # type: ignore[misc, valid-type]
    # Quoting is decided by _needs_quotes (go-yaml v2 rules), not by PyYAML's
    # YAML 1.1 resolvers, so every scalar is "implicitly" a string here.
    yaml_implicit_resolvers: dict = {}
    yaml_representers: dict = {}

    def ignore_aliases(self, data: Any) -> bool:
        return True  # never write anchors: kubectl doesn't


def _plain(value: str) -> _nodes.ScalarNode:
    return _nodes.ScalarNode(_STR_TAG, value, style=None)


_YAML11_BREAKS = re.compile("[\x85\u2028\u2029]")


def _represent_str(dumper: _Dumper, value: str) -> _nodes.ScalarNode:
    if _YAML11_BREAKS.search(value):
        style = '"'  # line breaks in YAML 1.1: go-yaml writes them as \\N, \\L, \\P
    elif "\n" in value:
        style = "|"  # encode.go: literal; the emitter falls back to "..." if needed
    elif _needs_quotes(value):
        style = '"'
    else:
        style = None  # plain if the emitter allows it, else single-quoted
    return _nodes.ScalarNode(_STR_TAG, str(value), style=style)


def _represent_quoted(dumper: _Dumper, value: str) -> _nodes.ScalarNode:
    return _nodes.ScalarNode(_STR_TAG, str(value), style='"')


def _represent_bool(dumper: _Dumper, value: bool) -> _nodes.ScalarNode:
    return _plain("true" if value else "false")


def _represent_int(dumper: _Dumper, value: int) -> _nodes.ScalarNode:
    value = int(value)
    if _INT64_MIN <= value <= _UINT64_MAX:
        return _plain(str(value))
    # kubectl prints through JSON and go-yaml, which reads such digits as a float.
    return _plain(_go_format_float64_g(float(value)))


def _represent_float(dumper: _Dumper, value: float) -> _nodes.ScalarNode:
    # kubectl prints through JSON: encoding/json writes 1000.0 as 1000, which
    # go-yaml then reads as an int; other floats print as FormatFloat 'g'.
    value = float(value)
    if value.is_integer() and _INT64_MIN <= value < 2.0**64:
        return _plain(str(int(value)))
    return _plain(_go_format_float64_g(value))


def _represent_none(dumper: _Dumper, value: None) -> _nodes.ScalarNode:
    return _plain("null")


def _represent_dict(dumper: _Dumper, value: dict) -> _nodes.MappingNode:
    by_key = {_json_key(k): v for k, v in value.items()}
    items = [
        (
            # go-yaml would print a "<<" key plain, and then read it as a merge.
            _represent_quoted(dumper, k) if k == "<<" else _represent_str(dumper, k),
            dumper.represent_data(by_key[k]),
        )
        for k in _sorted_keys(list(by_key))
    ]
    return _nodes.MappingNode(_MAP_TAG, items, flow_style=False)


def _represent_list(dumper: _Dumper, value: list | tuple) -> _nodes.SequenceNode:
    return _nodes.SequenceNode(
        _SEQ_TAG, [dumper.represent_data(v) for v in value], flow_style=False
    )


def _represent_other(dumper: _Dumper, value: Any) -> _nodes.Node:
    raise TypeError(f"cannot write a value of type {type(value).__name__} as YAML")


for _type, _representer in (
    (str, _represent_str),
    (QuotedStr, _represent_quoted),
    (bool, _represent_bool),
    (int, _represent_int),
    (float, _represent_float),
    (type(None), _represent_none),
    (dict, _represent_dict),
    (list, _represent_list),
    (tuple, _represent_list),
    (None, _represent_other),
):
    _Dumper.add_representer(_type, _representer)
# Subclasses (StrEnum, IntEnum, OrderedDict, ...) are written as their base type.
for _type, _representer in (
    (str, _represent_str),
    (int, _represent_int),
    (float, _represent_float),
    (dict, _represent_dict),
    (list, _represent_list),
    (tuple, _represent_list),
):
    _Dumper.add_multi_representer(_type, _representer)


def dump_yaml(obj: Any) -> str:
    """YAML the way ``kubectl get -o yaml`` prints it (no line wrapping)."""
    out = yaml.dump(
        obj,
        Dumper=_Dumper,
        default_flow_style=False,
        allow_unicode=True,
        width=-1,
        sort_keys=False,
    )
    if out.endswith("\n...\n"):  # PyYAML ends a bare root scalar with "..."
        out = out[:-4]
    return out


def dump_yaml_all(objs: Any) -> str:
    """Several objects as one stream, separated by ``---`` lines."""
    return "---\n".join(dump_yaml(obj) for obj in objs)
