"""A CronJob's schedule as robfig/cron v3's ParseStandard reads it (the error strings Go
returns, computed from parser.go by hand), time zones as time.LoadLocation loads them, and
durations as time.ParseDuration parses them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.apiserver.cron import load_location, parse_duration, parse_standard

VALID = [
    "*/5 * * * *",
    "0 0 * * *",
    "0 9 * * 1-5",
    "15,45 */2 1-15 jan-jun mon,wed,FRI",
    "? * * * *",
    "5/15 * * * *",
    "0 0 1 1 *",
    "59 23 31 12 6",
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
    "@every 1h30m",
    "@every 90s",
    "@every .5h",
    "@every 1.5h",
    "@every 0",
    "CRON_TZ=UTC 0 5 * * *",
    "TZ=Europe/Berlin   0 5 * * *",
    "  0   5 * *   *  ",
    "1,,2 * * * *",
]


@pytest.mark.parametrize("spec", VALID)
def test_schedules_robfig_cron_accepts(spec: str) -> None:
    assert parse_standard(spec) is None


ERRORS = [
    ("", "empty spec string"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("0 0 * * * *", "expected exactly 5 fields, found 6: [0 0 * * * *]"),
    ("61 * * * *", "end of range (61) above maximum (59): 61"),
    ("* 24 * * *", "end of range (24) above maximum (23): 24"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("* * 32 * *", "end of range (32) above maximum (31): 32"),
    ("* * * 13 *", "end of range (13) above maximum (12): 13"),
    ("* * * * 7", "end of range (7) above maximum (6): 7"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("1/2/3 * * * *", "too many slashes: 1/2/3"),
    (
        "a * * * *",
        'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax',
    ),
    (
        "* * * foo *",
        'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax',
    ),
    ("-5 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    (
        "99999999999999999999 * * * *",
        "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
        '"99999999999999999999": value out of range',
    ),
    ("@often", "unrecognized descriptor: @often"),
    ("@every", "unrecognized descriptor: @every"),
    (
        "@every soon",
        'failed to parse duration @every soon: time: invalid duration "soon"',
    ),
    (
        "@every 5",
        'failed to parse duration @every 5: time: missing unit in duration "5"',
    ),
    (
        "@every 5d",
        'failed to parse duration @every 5d: time: unknown unit "d" in duration "5d"',
    ),
    (
        "@every 1é",
        'failed to parse duration @every 1é: time: unknown unit "\\xc3\\xa9" in duration '
        '"1\\xc3\\xa9"',
    ),
    (
        "TZ=Mars/Olympus 0 5 * * *",
        "provided bad location Mars/Olympus: unknown time zone Mars/Olympus",
    ),
]


@pytest.mark.parametrize(("spec", "message"), ERRORS)
def test_schedule_errors_are_robfig_crons_words(spec: str, message: str) -> None:
    assert parse_standard(spec) == message


@given(st.text(max_size=40))
def test_any_text_gets_an_answer_never_an_exception(spec: str) -> None:
    answer = parse_standard(spec)
    assert answer is None or isinstance(answer, str)


def test_time_zones_as_go_loads_them() -> None:
    assert load_location("Europe/Berlin") is None
    assert load_location("UTC") is None
    assert load_location("America/Argentina/Buenos_Aires") is None
    assert load_location("Mars/Olympus") == "unknown time zone Mars/Olympus"
    assert load_location("../etc/passwd") == "time: invalid location name"
    assert load_location("/etc/localtime") == "time: invalid location name"


def test_durations_as_go_parses_them() -> None:
    for text in ("1h", "1h30m", "1.5h", ".5s", "5.s", "300ms", "2us", "2µs", "-1m", "+3s", "0"):
        assert parse_duration(text) is None, text
    assert parse_duration("") == 'time: invalid duration ""'
    assert parse_duration(".s") == 'time: invalid duration ".s"'
    assert parse_duration("1.2.3s") == 'time: missing unit in duration "1.2.3s"'
    assert parse_duration("3x") == 'time: unknown unit "x" in duration "3x"'
