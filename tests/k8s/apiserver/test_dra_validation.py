"""ResourceClaim, ResourceClaimTemplate and DeviceClass validation (resource.k8s.io/v1) with
the API server's paths and messages.

``data/dra_claim_cases.json`` transcribes kubernetes/kubernetes
pkg/apis/resource/validation/validation_resourceclaim_test.go (T1),
validation_resourceclaimtemplate_test.go (T2), the registry's declarative validation test
(T3) and cases derived from validation.go (C); every case runs. Kubernetes' unit tests
validate undefaulted objects and require a namespace, so the table runs with
``defaults=False, require_namespace=True``; how the API server's defaulting changes the answer
is tested below.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.apiserver import (
    RawJSON,
    dra_warnings,
    validate_device_class,
    validate_dra_object,
    validate_resource_claim,
    validate_resource_claim_template,
    validate_resource_claim_update,
)

DATA = Path(__file__).parents[1] / "data"
TABLE = json.loads((DATA / "dra_claim_cases.json").read_text())
CASES = TABLE["cases"]
# Not emulated, see designer/k8s/dra/cel.py: cel-cpp has no cost estimator.
KNOWN_GAPS = {"CEL-cost"}
VALIDATORS = {
    "ResourceClaim": validate_resource_claim,
    "ResourceClaimTemplate": validate_resource_claim_template,
    "DeviceClass": validate_device_class,
}


def _raw_parameters(obj: Any) -> Any:
    """``parametersRaw`` in the table stands for raw bytes no parsed manifest can hold; the Go
    tests write ``parameters`` as JSON text with Go's spacing (``{"str": "..."}``)."""
    if isinstance(obj, dict):
        out = {k: _raw_parameters(v) for k, v in obj.items() if k != "parametersRaw"}
        if "parametersRaw" in obj:
            out["parameters"] = RawJSON(obj["parametersRaw"].encode())
        elif "driver" in obj and "parameters" in obj:
            out["parameters"] = RawJSON(json.dumps(obj["parameters"]).encode())
        return out
    if isinstance(obj, list):
        return [_raw_parameters(v) for v in obj]
    return obj


def _update_case(case: dict[str, Any]) -> list[Any]:
    kind = case["kind"].removesuffix("(update)")
    old = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "foo", "namespace": "ns"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "a"}}]}},
    }
    new = copy.deepcopy(old)
    new["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "b"
    assert kind in ("ResourceClaim", "ResourceClaimTemplate")
    return validate_resource_claim_update(new, old)


def _errors(case: dict[str, Any]) -> list[Any]:
    if case["kind"].endswith("(update)"):
        return _update_case(case)
    validate = VALIDATORS[case["kind"]]
    obj = _raw_parameters(case["object"])
    if case["kind"] == "DeviceClass":
        return validate(obj)
    return validate(obj, require_namespace=True, defaults=False)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_transcribed_case(case: dict[str, Any]) -> None:
    if case["name"] in KNOWN_GAPS:
        assert _errors(case) == []  # the gap is real: it must fail if it ever closes
        return
    got = _errors(case)
    assert [(e.field, e.type) for e in got] == [(e["field"], e["type"]) for e in case["errors"]]
    if "unverified" not in case.get("note", "") or case["name"] == "configuration":
        assert [e.message for e in got] == [e["detail"] for e in case["errors"]]


def test_the_known_gaps_are_only_the_cost_limit() -> None:
    assert {c["name"] for c in CASES} >= KNOWN_GAPS


def _claim(requests: list[Any], **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": {"requests": requests, **devices}},
    }


def test_defaulting_fills_an_empty_allocation_mode_and_count_as_the_api_server_does() -> None:
    claim = _claim([{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}])
    assert validate_resource_claim(claim) == []
    assert [str(e) for e in validate_resource_claim(claim, defaults=False)] == [
        'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "": supported '
        'values: "All", "ExactCount"'
    ]
    # count: 0 is the same as no count (an int64 with omitempty): defaulted to 1.
    zero = _claim([{"name": "gpu", "exactly": {"deviceClassName": "g", "count": 0}}])
    assert validate_resource_claim(zero) == []


def test_errors_print_as_kubectl_shows_them() -> None:
    claim = _claim(
        [
            {"name": "gpu", "exactly": {"deviceClassName": "g", "count": -2}},
            {
                "name": "all",
                "exactly": {"deviceClassName": "g", "allocationMode": "All", "count": 2},
            },
            {
                "name": "both",
                "exactly": {"deviceClassName": "g"},
                "firstAvailable": [{"name": "x"}],
            },
        ]
    )
    assert [str(e) for e in validate_resource_claim(claim)] == [
        "spec.devices.requests[0].exactly.count: Invalid value: -2: must be greater than zero",
        "spec.devices.requests[1].exactly.count: Invalid value: 2: must not be specified when "
        "allocationMode is 'All'",
        'spec.devices.requests[2]: Invalid value: "null": exactly one of `exactly` or '
        "`firstAvailable` is required, but multiple fields are set",
    ]


def test_a_selector_that_does_not_compile_is_refused_at_its_expression() -> None:
    claim = _claim(
        [
            {
                "name": "gpu",
                "exactly": {
                    "deviceClassName": "gpu.nvidia.com",
                    "selectors": [
                        {"cel": {"expression": "device.capacity['gpu.nvidia.com'].memory >= 40"}}
                    ],
                },
            }
        ]
    )
    (error,) = validate_resource_claim(claim)
    assert error.field == "spec.devices.requests[0].exactly.selectors[0].cel.expression"
    assert error.message.startswith(
        "compilation failed: ERROR: <input>:1:42: found no matching overload for '_>=_' applied "
        "to '(kubernetes.Quantity, int)'"
    )


def test_a_wrongly_typed_count_is_a_decoding_error() -> None:
    claim = _claim([{"name": "gpu", "exactly": {"deviceClassName": "g", "count": "2"}}])
    assert [(e.field, e.type, e.message) for e in validate_resource_claim(claim)] == [
        (
            "spec.devices.requests[0].exactly.count",
            "FieldValueTypeInvalid",
            "must be of type integer",
        )
    ]


def test_a_template_is_checked_at_spec_spec_and_its_metadata_may_only_have_labels() -> None:
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t"},
        "spec": {
            "metadata": {"name": "x", "labels": {"a": "b"}},
            "spec": {
                "devices": {"requests": [{"name": "Bad", "exactly": {"deviceClassName": "g"}}]}
            },
        },
    }
    assert [(e.field, e.type) for e in validate_resource_claim_template(template)] == [
        ("spec.metadata.name", "FieldValueForbidden"),
        ("spec.spec.devices.requests[0].name", "FieldValueInvalid"),
    ]


def test_a_device_class_is_cluster_scoped() -> None:
    cls = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.nvidia.com", "namespace": "default"},
    }
    assert [str(e) for e in validate_device_class(cls)] == [
        "metadata.namespace: Forbidden: not allowed on this type"
    ]


def test_feature_gated_fields_get_a_warning() -> None:
    cls = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.nvidia.com"},
        "spec": {"extendedResourceName": "nvidia.com/gpu"},
    }
    assert validate_device_class(cls) == []
    assert [str(w) for w in dra_warnings(cls)] == [
        "spec.extendedResourceName: needs the DRAExtendedResource feature gate (alpha in "
        "Kubernetes 1.34, off by default): an API server without it drops this field"
    ]


def test_a_resource_slice_is_only_decoded() -> None:
    bad = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "spec": {"devices": "x"}}
    assert [(e.field, e.type) for e in validate_dra_object(bad)] == [
        ("spec.devices", "FieldValueTypeInvalid")
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
request_fields = st.fixed_dictionaries(
    {},
    optional={
        "name": st.text(alphabet="ab-/!", max_size=4),
        "exactly": st.fixed_dictionaries(
            {},
            optional={
                "deviceClassName": st.text(alphabet="ab.-", max_size=5),
                "count": st.integers(-2, 3) | st.text(max_size=2),
                "allocationMode": st.sampled_from(["All", "ExactCount", "", "x"]),
                "selectors": st.lists(
                    st.fixed_dictionaries(
                        {"cel": st.fixed_dictionaries({"expression": st.text(max_size=12)})}
                    ),
                    max_size=2,
                ),
            },
        ),
        "firstAvailable": st.lists(json_values, max_size=2),
    },
)


@given(
    requests=st.lists(request_fields, max_size=3),
    constraints=st.lists(json_values, max_size=2),
    config=st.lists(json_values, max_size=2),
)
def test_no_claim_makes_validation_crash(
    requests: list[Any], constraints: list[Any], config: list[Any]
) -> None:
    claim = _claim(requests, constraints=constraints, config=config)
    for error in validate_dra_object(claim):
        assert error.field.startswith(("spec", "metadata"))
        assert str(error)
