"""Hints turn the API server's terse quantity errors into the fix users meant."""

from __future__ import annotations

import pytest

from designer.k8s.design import quantity_hint


@pytest.mark.parametrize(
    "resource,text,expected",
    [
        ("memory", "8GB", {"decimal": "8G", "binary": "8Gi"}),
        ("memory", "512mb", {"decimal": "512M", "binary": "512Mi"}),
        ("memory", "1.5 GiB", {"decimal": "1.5G", "binary": "1.5Gi"}),
        ("memory", "128m", {"value": "128m", "binary": "128Mi", "decimal": "128M"}),
    ],
)
def test_misspelt_units_get_the_intended_value(resource: str, text: str, expected: dict) -> None:
    hint = quantity_hint(resource, text)
    assert hint is not None
    assert hint[1] == expected


@pytest.mark.parametrize(
    "resource,text",
    [("memory", "8Gi"), ("memory", "8G"), ("cpu", "500m"), ("cpu", "2"), ("memory", "")],
)
def test_correct_values_get_no_hint(resource: str, text: str) -> None:
    assert quantity_hint(resource, text) is None


def test_cpu_in_gigabytes_suggests_cores() -> None:
    hint = quantity_hint("cpu", "2GB")
    assert hint is not None and "cores" in hint[0]
