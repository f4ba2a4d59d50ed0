"""The kubelet configuration the cgroup values depend on: Go durations and their validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.kubelet import (
    DurationError,
    KubeletConfig,
    go_duration_string,
    kubelet_config,
    parse_go_duration,
)

MS = 1_000_000


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("100ms", 100 * MS),
        ("5000us", 5 * MS),
        ("5000µs", 5 * MS),  # U+00B5
        ("5000μs", 5 * MS),  # U+03BC
        ("1.5ms", 1_500_000),
        (".5s", 500 * MS),
        ("1.s", 1000 * MS),
        ("1m30s", 90_000 * MS),
        ("1h", 3_600_000 * MS),
        ("0", 0),
        ("+2ms", 2 * MS),
        ("-2ms", -2 * MS),
        ("1ms1ms", 2 * MS),
        ("1.0000000001s", 1_000_000_000),  # the fraction is added as float64, like Go
        ("9223372036854775807ns", 2**63 - 1),
    ],
)
def test_durations_parse_like_go_time_parse_duration(text: str, ns: int) -> None:
    assert parse_go_duration(text) == ns


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("fast", 'time: invalid duration "fast"'),
        ("100", 'time: missing unit in duration "100"'),
        ("100 ms", 'time: unknown unit " ms" in duration "100 ms"'),
        ("100MS", 'time: unknown unit "MS" in duration "100MS"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        (".s", 'time: invalid duration ".s"'),
        ("-", 'time: invalid duration "-"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        ("1µ", 'time: unknown unit "\\xc2\\xb5" in duration "1\\xc2\\xb5"'),
    ],
)
def test_bad_durations_get_go_s_own_message(text: str, message: str) -> None:
    with pytest.raises(DurationError) as info:
        parse_go_duration(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (1500, "1.5µs"),
        (500_000, "500µs"),
        (100 * MS, "100ms"),
        (1_500 * MS, "1.5s"),
        (2_000 * MS, "2s"),
        (90_000 * MS, "1m30s"),
        (3_600_000 * MS, "1h0m0s"),
        (-5 * MS, "-5ms"),
    ],
)
def test_durations_print_like_go_duration_string(ns: int, text: str) -> None:
    assert go_duration_string(ns) == text


@given(st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1))
def test_a_printed_duration_parses_back_to_itself(ns: int) -> None:
    assert parse_go_duration(go_duration_string(ns)) == ns


def test_the_default_config_is_the_kubelet_default() -> None:
    config = kubelet_config()
    assert config == KubeletConfig(cpu_cfs_quota=True, cpu_cfs_quota_period_us=100_000)
    assert not config.custom_period
    assert config.as_dict() == {"cpuCFSQuota": True, "cpuCFSQuotaPeriod": "100ms"}


def test_a_custom_period_is_in_microseconds_and_means_the_feature_gate() -> None:
    config = kubelet_config(False, "5000us")
    assert (config.cpu_cfs_quota, config.cpu_cfs_quota_period_us) == (False, 5000)
    assert config.custom_period
    assert kubelet_config(True, "1.0005ms").cpu_cfs_quota_period_us == 1000  # truncated


@pytest.mark.parametrize(
    ("period", "shown"), [("2s", "2s"), ("999us", "999µs"), ("0", "0s"), ("-5ms", "-5ms")]
)
def test_a_period_outside_1ms_to_1s_is_refused_with_the_kubelet_s_message(
    period: str, shown: str
) -> None:
    with pytest.raises(DurationError) as info:
        kubelet_config(True, period)
    assert str(info.value) == (
        f"invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {shown} must be "
        "between 1ms and 1sec, inclusive"
    )


def test_the_bounds_1ms_and_1s_are_accepted() -> None:
    assert kubelet_config(True, "1ms").cpu_cfs_quota_period_us == 1000
    assert kubelet_config(True, "1s").cpu_cfs_quota_period_us == 1_000_000


@pytest.mark.parametrize(("quota", "period"), [("yes", "100ms"), (True, 100), (None, "100ms")])
def test_settings_of_the_wrong_type_are_refused(quota: object, period: object) -> None:
    with pytest.raises(ValueError):
        kubelet_config(quota, period)
