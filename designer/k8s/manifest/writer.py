"""Writing YAML the way kubectl get -o yaml prints it (see the package docs)."""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml
from yaml import nodes as _nodes

try:  # libyaml: PyYAML wheels ship it; the pure-Python parser is a fallback.
    from yaml._yaml import CParser as _CParser  # type: ignore[import-not-found]

    _CEmitterDumper: type = yaml.CSafeDumper
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None
    _CEmitterDumper = yaml.SafeDumper
from designer.k8s.manifest._goyaml import _INT64_MIN, _UINT64_MAX, _go_format_float64_g, _go_resolve


class QuotedStr(str):
    """A string that dump_yaml always writes double-quoted (quantities: ``cpu: "500m"``)."""

    __slots__ = ()


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
    # kubectl prints through JSON and go-yaml, which reads such digits as a float; past
    # float64 (ParseFloat overflows) go-yaml keeps them as a string, which prints plain.
    try:
        return _plain(_go_format_float64_g(float(value)))
    except OverflowError:
        return _plain(str(value))


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


# --- the fast path ------------------------------------------------------------------------
#
# PyYAML's representer and serializer are Python and take most of the time of a dump. The
# manifests this product writes are almost always made of mappings, lists, numbers and short
# one-line strings, which libyaml writes in one obvious way; for those the text is built here
# directly. Anything else (a string the emitter might quote or fold, a multi-line string, a
# huge number, another type) sends the whole object to PyYAML, so the two can never differ:
# tests/k8s/manifest/test_manifest_writer.py checks it with hypothesis, byte for byte.


class _Slow(Exception):
    """The object holds something only PyYAML's emitter decides how to write."""


# A string libyaml writes plain in block context: no indicator first, no ": " or " #", no
# leading or trailing space, printable ASCII, and (checked apart) not a value go-yaml v2 would
# read as something else.
_PLAIN_CHARS = r"[A-Za-z0-9._/=+@~%^()$;,<>*&!?':#\[\]{}-]"
_PLAIN_SAFE = re.compile(rf"[A-Za-z0-9._/=+~^()$;]{_PLAIN_CHARS}*(?: {_PLAIN_CHARS}+)*")
_DQ_SAFE = re.compile(r"[ -!#-\[\]-~]*")  # printable ASCII but '"' and '\\'


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        if (
            not _PLAIN_SAFE.fullmatch(value)
            or value.endswith(":")
            or ": " in value
            or " #" in value
        ):
            if _needs_quotes(value) and _DQ_SAFE.fullmatch(value):
                return f'"{value}"'
            raise _Slow
        if _needs_quotes(value):
            return f'"{value}"'
        return value
    if kind is QuotedStr:
        if _DQ_SAFE.fullmatch(value):
            return f'"{value}"'
        raise _Slow
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        if _INT64_MIN <= value <= _UINT64_MAX:
            return str(value)
        raise _Slow
    if value is None:
        return "null"
    if kind is float and value.is_integer() and _INT64_MIN <= value < 2.0**63:
        return str(int(value))
    raise _Slow


def _key(key: Any) -> str:
    if type(key) is not str or key == "<<":
        raise _Slow
    return _scalar(key)


def _fast_map(value: dict, pad: str, out: list[str]) -> None:
    keys = list(value)
    for k in _sorted_keys(keys) if len(keys) > 1 else keys:
        v = value[k]
        head = f"{pad}{_key(k)}:"
        kind = type(v)
        if kind is dict:
            if v:
                out.append(head)
                _fast_map(v, pad + "  ", out)
            else:
                out.append(head + " {}")
        elif kind is list:
            if v:
                out.append(head)
                _fast_seq(v, pad, out)  # block sequences are not indented under their key
            else:
                out.append(head + " []")
        else:
            out.append(f"{head} {_scalar(v)}")


def _fast_seq(value: list, pad: str, out: list[str]) -> None:
    for item in value:
        kind = type(item)
        if kind is dict and item:
            start = len(out)
            _fast_map(item, pad + "  ", out)
            out[start] = f"{pad}- {out[start][len(pad) + 2 :]}"
        elif kind is list and item:
            start = len(out)
            _fast_seq(item, pad + "  ", out)
            out[start] = f"{pad}- {out[start][len(pad) + 2 :]}"
        elif kind is dict:
            out.append(f"{pad}- {{}}")
        elif kind is list:
            out.append(f"{pad}- []")
        else:
            out.append(f"{pad}- {_scalar(item)}")


def _dump_fast(obj: Any) -> str | None:
    out: list[str] = []
    try:
        if type(obj) is dict and obj:
            _fast_map(obj, "", out)
        elif type(obj) is list and obj:
            _fast_seq(obj, "", out)
        else:
            return None
    except _Slow:
        return None
    return "\n".join(out) + "\n"


def dump_yaml(obj: Any) -> str:
    """YAML the way ``kubectl get -o yaml`` prints it (no line wrapping)."""
    fast = _dump_fast(obj)
    if fast is not None:
        return fast
    return _dump_pyyaml(obj)


def _dump_pyyaml(obj: Any) -> str:
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
