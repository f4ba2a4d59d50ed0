"""A CronJob's schedule and time zone as the API server reads them: robfig/cron v3's
``ParseStandard`` (the error strings it returns) and Go's ``time.LoadLocation`` and
``time.ParseDuration``.

Written by hand: no Python library parses cron the way robfig/cron does (its descriptors, ``?``,
names, ``N/step`` meaning ``N-max/step``, its error wording), and ``kubectl apply`` shows its
errors verbatim (``spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum
(59): 61``).

Go sources mirrored: github.com/robfig/cron/v3 parser.go (v3.0.1, vendored by Kubernetes:
``Parser.Parse``, ``normalizeFields``, ``getField``, ``getRange``, ``parseIntOrName``,
``mustParseInt``, ``parseDescriptor``) and spec.go (bounds, names); Go's time/format.go
``ParseDuration``, time/zoneinfo_read.go ``LoadLocation`` (Python's zoneinfo reads the same IANA
database); strconv ``Atoi`` errors.
"""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass

from designer.k8s.core import go_quote


@dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# ParseStandard: minute, hour, day of month, month, day of week (the seconds field is "0").
_FIELDS = (
    _Bounds(0, 59),
    _Bounds(0, 23),
    _Bounds(1, 31),
    _Bounds(1, 12, _MONTHS),
    _Bounds(0, 6, _DAYS),
)
DESCRIPTORS = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
INT64_MAX = 2**63 - 1
# Go's strings.Fields splits on Unicode white space (unicode.IsSpace).
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


def _fields(text: str) -> list[str]:
    return [f for f in _GO_SPACE.split(text) if f]


def _go_list(values: list[str]) -> str:
    """``%s`` of a []string."""
    return "[" + " ".join(values) + "]"


def atoi(text: str) -> tuple[int | None, str | None]:
    """strconv.Atoi: the number, or the error's text."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None, f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax"
    value = int(text) if len(digits) < 30 else INT64_MAX + 1
    if not -(2**63) <= value <= INT64_MAX:
        return None, f"strconv.Atoi: parsing {go_quote(text)}: value out of range"
    return value, None


def _must_parse_int(expr: str) -> int:
    number, err = atoi(expr)
    if err is not None:
        raise ValueError(f"failed to parse int from {expr}: {err}")
    assert number is not None
    if number < 0:
        raise ValueError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _must_parse_int(expr)


def _range(expr: str, bounds: _Bounds) -> None:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds.names)
        else:
            raise ValueError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if single:
            end = bounds.high
    else:
        raise ValueError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise ValueError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise ValueError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise ValueError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise ValueError(f"step of range should be a positive number: {expr}")


def parse_standard(spec: str) -> str | None:
    """cron.ParseStandard: None when the schedule parses, else the error's text."""
    try:
        _parse(spec)
    except ValueError as exc:
        return str(exc)
    return None


def _parse(spec: str) -> None:
    if not spec:
        raise ValueError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        if space == -1:
            # Go slices spec[eq+1:-1] and panics; the API server answers with an error.
            raise ValueError(f"provided bad location {spec}: no space after the time zone")
        name = spec[spec.index("=") + 1 : space]
        err = load_location(name)
        if err is not None:
            raise ValueError(f"provided bad location {name}: {err}")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = _fields(spec)
    if len(fields) != len(_FIELDS):
        raise ValueError(
            f"expected exactly {len(_FIELDS)} fields, found {len(fields)}: {_go_list(fields)}"
        )
    for text, bounds in zip(fields, _FIELDS, strict=True):
        # strings.FieldsFunc on ",": empty ranges are skipped.
        for expr in (e for e in text.split(",") if e):
            _range(expr, bounds)


def _descriptor(spec: str) -> None:
    if spec in DESCRIPTORS:
        return
    every = "@every "
    if spec.startswith(every):
        err = parse_duration(spec[len(every) :])
        if err is not None:
            raise ValueError(f"failed to parse duration {spec}: {err}")
        return
    raise ValueError(f"unrecognized descriptor: {spec}")


_UNITS = {"ns", "us", "µs", "μs", "ms", "s", "m", "h"}


def time_quote(text: str) -> str:
    """The time package's quote: non-ASCII and control bytes as ``\\xNN``, not strconv's."""
    out = ['"']
    for ch in text:
        if ord(ch) >= 0x80 or ord(ch) < 0x20:
            out += [f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")]
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


def parse_duration(text: str) -> str | None:
    """time.ParseDuration: None when ``text`` is a duration, else the error's text (the
    overflow checks aside: a duration past 290 years is refused as Go refuses it)."""
    original = text
    bad = f"time: invalid duration {time_quote(original)}"
    if text[:1] in ("-", "+"):
        text = text[1:]
    if text == "0":
        return None
    if not text:
        return bad
    total = 0.0
    while text:
        m = re.match(r"([0-9]*)(\.([0-9]*))?", text)
        assert m is not None
        whole, dot, fraction = m.group(1), m.group(2), m.group(3) or ""
        if not whole and not fraction:
            return bad  # no digits (e.g. ".s")
        text = text[m.end() :]
        unit = re.match(r"[^0-9.]*", text)
        assert unit is not None
        name = unit.group(0)
        if not name:
            return f"time: missing unit in duration {time_quote(original)}"
        if name not in _UNITS:
            return f"time: unknown unit {time_quote(name)} in duration {time_quote(original)}"
        text = text[unit.end() :]
        scale = {
            "ns": 1,
            "us": 1e3,
            "µs": 1e3,
            "μs": 1e3,
            "ms": 1e6,
            "s": 1e9,
            "m": 6e10,
            "h": 3.6e12,
        }
        total += float((whole or "0") + (dot and "." + fraction or "")) * scale[name]
        if total > INT64_MAX:
            return bad
    return None


def load_location(name: str) -> str | None:
    """time.LoadLocation: None when Go loads the location, else the error's text."""
    if name in ("", "UTC", "Local"):
        return None
    if ".." in name or name.startswith(("/", "\\")):
        return "time: invalid location name"
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    return None
