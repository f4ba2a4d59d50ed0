"""Reading a stream of YAML or JSON documents the way kubectl does (see the package docs)."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
import yaml

from designer.k8s.manifest._common import MAX_DEPTH, MAX_DOCUMENTS, MAX_INPUT_BYTES, _DocError
from designer.k8s.manifest._compose import _compose_like_go
from designer.k8s.manifest._fastpath import _needs_correct_path, _parse_fast


class ManifestError(ValueError):
    """The whole input is unreadable: oversize, invalid UTF-8, not text at all."""


@dataclass(frozen=True)
class Document:
    index: int  # 0-based position among the non-empty documents of the input
    line: int  # 1-based line where the document's content starts
    data: Any | None  # parsed value (dict for a k8s object) or None on error
    error: str | None  # e.g. "line 7: mapping values are not allowed in this context"
    # The reader refused it to protect itself (alias bomb, nesting too deep), not merely
    # because it is malformed: callers such as the HTTP API refuse the whole input then.
    hostile: bool = False


@dataclass(frozen=True)
class ReadError:
    document: int
    message: str
    hostile: bool = False  # see Document.hostile


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

_CONTENT_B = re.compile(rb"^[ \t]*[^\s#]", re.M)


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


def _parse_slow(text: str, data: bytes, line0: int) -> tuple[Any, str | None, bool]:
    """(value, error, hostile) of one document read on the correct path."""
    try:
        return _compose_like_go(text, data, line0), None, False
    except _DocError as e:
        return None, f"line {e.line}: {e.message}", e.hostile
    except yaml.YAMLError as e:
        # libyaml's own nesting limit (1000 levels) is a refusal, like ours.
        deep = isinstance(e, yaml.MarkedYAMLError) and e.problem == "exceeded maximum nesting depth"
        return None, _error_message(e, line0, data), deep


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
    decoder = json.JSONDecoder(
        parse_constant=_reject_constant, parse_float=_json_float, parse_int=_json_int
    )
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
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
        documents.append((line, _replace_surrogates(value) if surrogates else value))
        pos = _JSON_SPACE.match(text, end).end()  # type: ignore[union-attr]
    return documents, None


_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Python refuses to convert longer digit strings (sys.int_max_str_digits): quadratic time.
MAX_INTEGER_DIGITS = 4300


def _json_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise ValueError(
            f"a number of {digits:,} digits is longer than the {MAX_INTEGER_DIGITS:,} "
            "digits the designer reads"
        )
    return int(text)


# orjson reads integers past 64 bits as floats (1e30 loses its digits); kubectl keeps them.
# A JSON number starts a value: at the start, or after ':', '[' or ','. Digits inside
# strings (a uid, a container ID) do not send a dump to the slow path; a string that happens
# to hold ": 12345678901234567890" only costs time.
# Digits become "0", everything else " ": digit runs keep their positions.
_DIGIT_MASK = bytes(0x30 if 0x30 <= c <= 0x39 else 0x20 for c in range(256))
_TWENTY_DIGITS = b"0" * 20
_NUMBER_AFTER = frozenset(b":[,")


def _has_long_integer(data: bytes) -> bool:
    """Whether a JSON text may hold an integer of 20 digits or more (outside a string).
    Digit runs are found with bytes.find on a digits-only mask (a regex over a dump of hex
    IDs tries every digit: ten times slower than orjson's whole parse)."""
    mask = data.translate(_DIGIT_MASK)
    i = mask.find(_TWENTY_DIGITS)
    while i != -1:
        j = i - 1
        if j >= 0 and data[j] == 0x2D:  # "-"
            j -= 1
        while j >= 0 and data[j] in b" \t\r\n":
            j -= 1
        if j < 0 or data[j] in _NUMBER_AFTER:
            return True
        # Skip to the end of this run.
        end = mask.find(b" ", i)
        if end == -1:
            return False
        i = mask.find(_TWENTY_DIGITS, end)
    return False


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> Any:
    """encoding/json's unquote: an escape of an unpaired surrogate decodes to U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


_GO_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_json_int)


def go_json_loads(text: str | bytes) -> Any:
    """One JSON value as Go's encoding/json decodes it into ``interface{}``: unpaired
    surrogate escapes become U+FFFD, NaN and Infinity are errors, and integers keep every
    digit (up to MAX_INTEGER_DIGITS). Raises ValueError with a message for people."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"not valid UTF-8: byte 0x{text[exc.start]:02x} at byte offset {exc.start}"
            ) from None
    if not _json_depth_ok(text.encode("utf-8", "surrogatepass")):
        raise ValueError(f"nesting is deeper than {MAX_DEPTH} levels")
    try:
        value = _GO_JSON.decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    return _replace_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


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


def _chunks(
    text: str, data: bytes, separators: int
) -> Iterator[tuple[int, str, bytes, str | None]]:
    """Split like kubectl's YAMLReader: at every line starting with "---".

    Yields (first line, str chunk, bytes chunk, separator error) per chunk.
    """
    if separators == 0:
        yield (1, text, data, None)
        return
    seps_b = _separators(data)
    seps_s = seps_b if text.isascii() else _separators(text)
    prev_b = prev_s = 0
    line = 1
    error = None
    for sb, ss in zip([*seps_b, len(data)], [*seps_s, len(text)], strict=True):
        yield (line, text[prev_s:ss], data[prev_b:sb], error)
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


def read_documents(
    text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES, max_documents: int = MAX_DOCUMENTS
) -> list[Document]:
    """Read every document of a YAML or JSON stream the way kubectl does.

    Empty documents (only comments or whitespace) and ``null`` documents are
    skipped, as kubectl skips them.  A broken document gets an error and does
    not stop the others.  Raises ManifestError when the whole input is
    unreadable.
    """
    return list(iter_documents(text, max_bytes=max_bytes, max_documents=max_documents))


def iter_documents(
    text: str | bytes, *, max_bytes: int = MAX_INPUT_BYTES, max_documents: int = MAX_DOCUMENTS
) -> Iterator[Document]:
    """read_documents, one document at a time: a caller that needs only the first pod
    stops there, and the YAML documents after it are never parsed. The checks on the whole
    input (size, UTF-8, NUL bytes, the number of documents) come before the first one."""
    data, given_text = _as_bytes(text, max_bytes)
    start = _LEADING_SPACE.match(data).end()  # type: ignore[union-attr]
    is_json = data[start : start + 1] in (b"{", b"[") and _json_depth_ok(data)
    found: list[tuple[int, Any]] | None = None
    if is_json and not _has_long_integer(data):
        # orjson also checks UTF-8 (and refuses unpaired surrogates); any failure takes
        # the long way below.
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
        yield from documents
        return

    separators = 0
    if b"\n---" in data or data.startswith(b"---"):
        separators = data.count(b"\n---") + data.startswith(b"---")
    if separators >= max_documents:
        raise ManifestError(
            f"input has {separators:,} document separators (---); "
            f"the limit is {max_documents - 1:,}"
        )
    # One scan of the whole input usually proves every document safe for the
    # fast parser; otherwise each document is scanned on its own, when it is read.
    any_slow = _needs_correct_path(data)
    count = 0
    for line0, chunk_text, chunk_data, sep_error in _chunks(text, data, separators):
        content = _CONTENT_B.search(chunk_data)
        if content is None and sep_error is None:
            continue  # only comments and blank lines: kubectl skips it
        start_line = line0 + (chunk_data.count(b"\n", 0, content.start()) if content else 0)
        if sep_error is not None:
            yield Document(count, start_line, None, sep_error)
            count += 1
            continue
        value: Any = None
        error: str | None = None
        hostile = False
        if any_slow and (separators == 0 or _needs_correct_path(chunk_data)):
            value, error, hostile = _parse_slow(chunk_text, chunk_data, line0)
        else:
            try:
                value = _parse_fast(chunk_text)
            except Exception:  # any disagreement: let libyaml have the final word
                value, error, hostile = _parse_slow(chunk_text, chunk_data, line0)
        if value is None and error is None:
            continue  # a null document: kubectl skips it
        yield Document(count, start_line, value, error, hostile)
        count += 1
