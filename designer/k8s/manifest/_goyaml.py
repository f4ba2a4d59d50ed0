"""go-yaml v2 scalar resolution and sigs.k8s.io/yaml key conversion (see the package docs)."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import math
import re
import struct
from typing import Any

from designer.k8s.manifest._common import _DocError, _type_name

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


# The most digits a uint64 can have in each base (2**64 - 1).
_UINT64_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}


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
    if len(digits.lstrip("0")) > _UINT64_DIGITS[base]:
        # Cannot fit (and int() refuses more than 4300 decimal digits): ParseUint's
        # "value out of range", so go-yaml tries a float, then keeps the string.
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
