"""apimachinery's string formats: Go's ``^...$`` anchors the whole text (RE2 has no
"before a final newline"), and Go's ``\\d`` is ASCII; the engine agrees on both."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.apiserver import cluster_version, validate_pod
from designer.k8s.core import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
)
from tests.builders import pod_from_spec

VALIDATORS = [
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
]

valid_labels = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")


@pytest.mark.parametrize("validate", VALIDATORS, ids=lambda f: f.__name__)
@given(value=valid_labels)
def test_a_valid_name_followed_by_a_newline_is_refused(validate, value: str) -> None:
    assert validate(value) == []
    assert validate(value + "\n") != []


def test_a_pod_named_with_a_trailing_newline_is_refused_at_its_name() -> None:
    pod = pod_from_spec({"containers": [{"name": "c", "image": "x"}]}, {"name": "abc\n"})
    fields = {e.field for e in validate_pod(pod).errors}
    assert "metadata.name" in fields


@pytest.mark.parametrize("text", ["1.3\u0663", "1.\u0663\u0664"])
def test_a_kubernetes_version_is_read_with_ascii_digits_only(text: str) -> None:
    with pytest.raises(ValueError):
        cluster_version(text)
