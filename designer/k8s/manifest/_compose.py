"""The correct path: libyaml events -> go-yaml v2 / sigs.k8s.io/yaml values."""

from __future__ import annotations

import math
from typing import Any

import yaml
from yaml import events as _events

try:  # libyaml: PyYAML wheels ship it; the pure-Python parser is a fallback.
    from yaml._yaml import CParser as _CParser  # type: ignore[import-not-found]

    _CEmitterDumper: type = yaml.CSafeDumper
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None
    _CEmitterDumper = yaml.SafeDumper
from designer.k8s.manifest._common import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    _DocError,
    _type_name,
    copy_tree,
)
from designer.k8s.manifest._goyaml import (
    _MERGE,
    _first_refused,
    _go_resolve,
    _key_to_str,
    _Refused,
    _resolve_tagged,
)

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
                raise _DocError(
                    line0 + ev.start_mark.line, "document contains excessive aliasing", hostile=True
                )
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
                raise _DocError(line, "document contains excessive aliasing", hostile=True)
            is_map = t is _MappingStartEvent
            if cur is not None and cur.is_map and not cur.have_key:
                what = "a mapping" if is_map else "a list"
                raise _DocError(line, f"invalid map key: {what} (keys must be scalars)")
            depth = 1 if cur is None else cur.depth + 1
            if depth > MAX_DEPTH:
                raise _DocError(line, f"nesting is deeper than {MAX_DEPTH} levels", hostile=True)
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
                raise _DocError(line, f"anchor '{name}' value contains itself", hostile=True)
            target = anchors.get(name)
            if target is None:
                raise _DocError(line, f"unknown anchor '{name}' referenced")
            value, size, height = target
            decode_count += 1 + size
            alias_count += size
            if _excessive_aliasing(alias_count, decode_count):
                raise _DocError(line, "document contains excessive aliasing", hostile=True)
            if height:
                depth = (0 if cur is None else cur.depth) + height
                if depth > MAX_DEPTH:
                    raise _DocError(
                        line, f"nesting is deeper than {MAX_DEPTH} levels", hostile=True
                    )
                if cur is not None and depth > cur.max_depth:
                    cur.max_depth = depth
                copied += size
                if copied > MAX_ALIAS_NODES:
                    raise _DocError(line, "document contains excessive aliasing", hostile=True)
                if cur is not None and cur.is_map and not cur.have_key:
                    raise _DocError(line, f"invalid map key: {_type_name(value)}")
                value = copy_tree(value)
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
