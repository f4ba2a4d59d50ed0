"""Absurdly large values answer as Kubernetes does, at their field, and never crash.

``1e999999999`` is held by Go as an int64Amount (value 1, scale 999999999): its
MilliValue is 0 (positiveScaleInt64 gives up at the first overflow), so the API server
accepts it in memory, ephemeral-storage, GPUs and other extended resources alike, and
refuses it only where the sign or a comparison decides. ``1e9999999999``'s exponent is
parsed as an int64 and wrapped to int32 (1410065407): the same. kubectl v1.32 stores them
as ``1e999999999`` and ``10e1410065406`` (tests/k8s/core/test_quantity_kubectl.py checks the
printing against the binary).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.check import check_texts
from designer.k8s.core import Quantity, go_scaled_value
from designer.k8s.manifest import read_documents

ROOT = Path(__file__).resolve().parents[3]
HUGE = ("1e999999999", "1e9999999999")


def pod(resources: str) -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        f"  - name: main\n    image: busybox\n    resources: {resources}\n"
    )


def only_object(text: str) -> dict:
    report = check_texts([("f", text)])
    assert report["errors"] == []
    (obj,) = report["objects"]
    return obj


# ScaledValue as Go v1.32 computes it (amount.go, math.go, scale_int.go), overflow included.
GO_SCALED_VALUES = [
    # text, Value(), MilliValue()
    ("1", 1, 1000),
    ("-1.5", -2, -1500),
    ("9e18", 9_000_000_000_000_000_000, 0),  # milli: *10 loop overflows -> 0
    ("1e18", 1_000_000_000_000_000_000, 0),
    ("1e19", 0, 0),
    ("1e22", 0, 0),
    ("1e999999999", 0, 0),
    ("1e9999999999", 0, 0),  # exponent wraps to 1410065407
    ("-1e999999999", 0, 0),
    # scale difference 9 is a single wrapped multiplication, not the loop
    ("123456789012M", 123_456_789_012_000_000, 123_456_789_012 * 10**9 - 7 * 2**64),
    # inf.Dec: Int64() of the unscaled value is its low 64 bits
    ("-9223372036854775808", 0, 0),
]


@pytest.mark.parametrize(("text", "value", "milli"), GO_SCALED_VALUES)
def test_scaled_values_are_the_int64_go_computes_even_when_it_overflows(
    text: str, value: int, milli: int
) -> None:
    q = Quantity.parse(text)
    assert go_scaled_value(q) == value
    assert go_scaled_value(q, milli=True) == milli


def test_scaled_values_of_a_million_digit_quantity_take_no_big_integer() -> None:
    q = Quantity.parse("7" * 1_000_000)
    # Only the low 64 bits matter: the same as for the last 64 digits alone.
    tail = Quantity.parse("1" + "7" * 64)
    assert go_scaled_value(q, milli=True) == go_scaled_value(tail, milli=True)


@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize(
    "name", ["memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/widgets"]
)
def test_a_huge_limit_is_accepted_where_kubernetes_accepts_it(name: str, value: str) -> None:
    obj = only_object(pod(f"{{limits: {{{name}: {value}}}}}"))
    assert obj["errors"] == []
    stored = Quantity.parse(value).canonical()
    assert obj["effectiveLimits"][name] == stored
    # The request is defaulted from the limit, as the API server does.
    assert obj["effectiveRequests"][name] == stored


@pytest.mark.parametrize("value", HUGE)
def test_a_huge_hugepages_limit_is_a_multiple_of_the_page_for_go(value: str) -> None:
    obj = only_object(pod(f"{{limits: {{hugepages-2Mi: {value}, memory: 1Gi, cpu: 1}}}}"))
    assert obj["errors"] == []


@pytest.mark.parametrize("value", HUGE)
def test_a_huge_negative_value_is_refused_at_its_field(value: str) -> None:
    obj = only_object(pod(f"{{limits: {{memory: -{value}, nvidia.com/gpu: -{value}}}}}"))
    fields = {e["field"] for e in obj["errors"]}
    assert "spec.containers[0].resources.limits[memory]" in fields
    assert "spec.containers[0].resources.limits[nvidia.com/gpu]" in fields


@pytest.mark.parametrize("value", HUGE)
def test_a_huge_request_above_its_limit_is_refused_by_comparison(value: str) -> None:
    obj = only_object(pod(f"{{requests: {{memory: {value}}}, limits: {{memory: 1Gi}}}}"))
    assert [e["field"] for e in obj["errors"]] == ["spec.containers[0].resources.requests"]
    assert "must be less than or equal to memory limit" in obj["errors"][0]["message"]


def test_a_huge_gpu_request_differing_from_its_limit_is_refused() -> None:
    obj = only_object(pod("{requests: {nvidia.com/gpu: 1e999999999}, limits: {nvidia.com/gpu: 1}}"))
    assert obj["errors"], "requests must equal limits for an extended resource"


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_an_integer_longer_than_python_converts_is_read_as_go_yaml_reads_it(digits: int) -> None:
    # ParseInt and ParseUint are out of range, ParseFloat overflows: the scalar stays a string.
    (doc,) = read_documents(f"metadata: {{annotations: {{a: {'1' * digits}}}}}\n")
    assert doc.error is None
    assert doc.data["metadata"]["annotations"]["a"] == "1" * digits
    for prefix in ("0x", "0o", "0b", "0"):
        (doc,) = read_documents(f"a: {prefix}{'1' * digits}\n")
        assert doc.data["a"] == prefix + "1" * digits


def test_an_integer_of_5000_digits_as_a_cpu_value_is_a_valid_quantity_as_kubectl_keeps_it() -> None:
    # kubectl v1.32 `set resources --local` prints the 5000 digits back unchanged.
    obj = only_object(pod(f"{{limits: {{cpu: {'1' * 5000}}}}}"))
    assert obj["errors"] == []
    assert obj["effectiveLimits"]["cpu"] == "1" * 5000


def test_one_huge_value_among_600_documents_keeps_every_report_in_the_cli(
    tmp_path: Path,
) -> None:
    good = pod("{limits: {cpu: 1, memory: 1Gi}}")
    docs = [good] * 599
    docs.insert(300, pod("{limits: {memory: 1e999999999, nvidia.com/gpu: 1e9999999999}}"))
    path = tmp_path / "many.yaml"
    path.write_text("---\n".join(docs))
    result = subprocess.run(
        [sys.executable, "manage.py", "podspec", "check", "--format", "json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert len(report["objects"]) == 600
    assert report["objects"][300]["effectiveLimits"]["memory"] == "1e999999999"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.text(alphabet="0123456789abc: ,[]", max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(value=json_values, indent=st.sampled_from([None, 1, 4]))
def test_json_integers_keep_their_digits_wherever_they_are_and_strings_stay_strings(
    value, indent
) -> None:
    # The fast JSON path (orjson) would turn integers past 64 bits into floats: a number
    # anywhere takes the exact path, digits inside a string do not matter.
    text = json.dumps({"kind": "ConfigMap", "data": value}, indent=indent)
    (doc,) = read_documents(text)
    assert doc.data["data"] == value
    assert json.dumps(doc.data["data"]) == json.dumps(value)
