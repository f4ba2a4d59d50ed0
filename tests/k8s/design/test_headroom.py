"""Memory limits from an observed peak (designer.k8s.headroom)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.core import Quantity
from designer.k8s.design import HeadroomError, memory_headroom

MI = 1024**2
GI = 1024**3


def as_bytes(text: str) -> Fraction:
    return Quantity.parse(text).as_fraction()


@pytest.mark.parametrize(
    ("peak", "headroom", "shm", "limit"),
    [
        ("700Mi", 0.25, None, "875Mi"),  # below 1Gi: whole Mi
        ("800Mi", 0.25, None, "1000Mi"),
        ("500M", 0.25, None, "597Mi"),  # 625,000,000 bytes = 596.05Mi, rounded up
        ("800Mi", 0.28, None, "1Gi"),  # exactly 1024Mi
        ("1Gi", 0.25, None, "1536Mi"),  # 1.25Gi -> 1.5Gi
        ("1000Mi", 0.3, None, "1536Mi"),  # 0.3 is 3/10 exactly: 1300Mi
        ("6Gi", 0.25, None, "7680Mi"),  # 7.5Gi
        ("6Gi", 0.3, None, "8Gi"),  # 7.8Gi -> 8Gi
        ("6Gi", 0.25, "2Gi", "9728Mi"),  # 7.5Gi + 2Gi = 9.5Gi
        ("24Gi", 0.2, "8Gi", "37Gi"),  # 28.8Gi + 8Gi = 36.8Gi -> 37Gi
        (1073741824, 0.25, None, "1536Mi"),  # a plain byte count
    ],
)
def test_the_limit_is_the_peak_plus_headroom_plus_shm_rounded_up(
    peak: str | int, headroom: float, shm: str | None, limit: str
) -> None:
    result = memory_headroom(peak, headroom, shm)
    assert result.limit == limit
    raw = as_bytes(str(peak)) * (1 + Fraction(str(headroom))) + (as_bytes(shm) if shm else 0)
    assert result.limit_bytes >= raw


def test_shm_is_counted_in_the_limit_and_explained() -> None:
    result = memory_headroom("6Gi", 0.25, "2Gi")
    assert [line.text for line in result.lines] == [
        "Observed peak 6Gi plus 25% headroom = 7680Mi.",
        "Plus 2Gi of memory-backed /dev/shm, whose pages are charged to the container's memory "
        "cgroup = 9728Mi.",
        "Rounded up to a multiple of 512Mi (0.5Gi): 9728Mi.",
    ]
    assert result.shm == "2Gi"


def test_small_limits_are_rounded_to_whole_mi_and_say_so() -> None:
    result = memory_headroom("300Mi")
    assert result.limit == "375Mi"
    assert result.lines[-1].text == "Rounded up to a whole Mi: 375Mi."


def test_headroom_outside_twenty_to_thirty_percent_gets_a_note() -> None:
    assert len(memory_headroom("1Gi", 0.25).lines) == 2
    low = memory_headroom("1Gi", 0.05)
    assert "5% headroom is outside the usual 20-30%" in low.lines[-1].text
    assert memory_headroom("1Gi", 0).limit == "1Gi"


def test_the_result_serialises_with_canonical_quantities() -> None:
    data = json.loads(json.dumps(memory_headroom("1.5Gi", 0.25, "512Mi").as_dict()))
    assert data["peak"] == "1536Mi"  # 1.5Gi as the API server writes it
    assert data["limit"] == "2560Mi"  # 1920Mi + 512Mi = 2432Mi -> 2.5Gi
    assert data["unrounded"] == "2432Mi"
    assert data["explanationDetails"][0]["params"]["percent"] == "25"


@pytest.mark.parametrize(
    ("peak", "fragment"),
    [
        (
            "8GB",
            "Observed peak 8GB is not a Kubernetes quantity: Kubernetes writes it as 8G "
            "(powers of 1000) or 8Gi (powers of 1024).",
        ),
        ("8 GiB", "8Gi (powers of 1024)"),
        ("1.5gb", "1.5G (powers of 1000) or 1.5Gi"),
        ("512kB", "512k (powers of 1000) or 512Ki"),
        ("lots", "Observed peak lots is not a Kubernetes quantity"),
        ("-1Gi", "Observed peak -1Gi must not be negative"),
        ("0", "Observed peak 0 must be more than zero"),
        ("1e999999999", "Observed peak 1e999999999 is too large"),
        ("8Ei", "too large"),
        (None, "Observed peak None is not a Kubernetes quantity"),
        (1.5, "Observed peak 1.5 is not a Kubernetes quantity"),
    ],
)
def test_bad_peaks_are_refused_naming_the_value(peak: object, fragment: str) -> None:
    with pytest.raises(HeadroomError) as info:
        memory_headroom(peak)  # type: ignore[arg-type]
    assert fragment in str(info.value)
    assert info.value.message.template  # kept for the web layer to translate


@pytest.mark.parametrize("headroom", [-0.1, 1.5, float("nan"), float("inf"), "25%", None])
def test_headroom_must_be_a_fraction_between_zero_and_one(headroom: object) -> None:
    with pytest.raises(HeadroomError, match="must be a fraction between 0 and 1"):
        memory_headroom("1Gi", headroom)  # type: ignore[arg-type]


def test_a_negative_shm_is_refused_and_a_zero_shm_is_fine() -> None:
    with pytest.raises(HeadroomError, match="/dev/shm size -64Mi must not be negative"):
        memory_headroom("1Gi", 0.25, "-64Mi")
    assert memory_headroom("1Gi", 0.25, "0").limit == "1536Mi"


@given(
    peak_mi=st.integers(min_value=1, max_value=4 * 1024 * 1024),
    percent=st.integers(min_value=0, max_value=100),
    shm_mi=st.integers(min_value=0, max_value=64 * 1024),
)
def test_the_limit_is_the_smallest_clean_value_above_the_need(
    peak_mi: int, percent: int, shm_mi: int
) -> None:
    result = memory_headroom(f"{peak_mi}Mi", percent / 100, f"{shm_mi}Mi")
    need = Fraction(peak_mi * MI) * (1 + Fraction(percent, 100)) + shm_mi * MI
    step = MI if need < GI else GI // 2
    assert result.limit_bytes == math.ceil(need / step) * step
    assert as_bytes(result.limit) == result.limit_bytes
