"""The API server's validation of LimitRange and ResourceQuota objects (ValidateLimitRange,
ValidateResourceQuota in pkg/apis/core/validation/validation.go), messages verbatim."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.apiserver import decode_limit_range, decode_resource_quota


def lr(*items: dict[str, Any], name: str = "lr") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "team"}, "spec": {"limits": list(items)}}


def errors(obj: dict[str, Any], decode: Any = decode_limit_range) -> list[str]:
    return [str(e) for e in decode(obj, namespace="team").errors]


# --- LimitRange --------------------------------------------------------------------------------


def test_a_container_item_is_stored_with_default_from_max_and_default_request_from_default() -> (
    None
):
    decoded = decode_limit_range(
        lr({"type": "Container", "max": {"cpu": "2"}, "min": {"cpu": "100m"}}), namespace="team"
    )
    assert decoded.ok
    item = decoded.limit_range.items[0]
    assert item.default["cpu"].canonical() == "2"
    # defaultRequest takes default (which came from max) before min: 2, not 100m.
    assert item.default_request["cpu"].canonical() == "2"


def test_values_are_rounded_up_to_millis_when_stored() -> None:
    decoded = decode_limit_range(
        lr({"type": "Container", "default": {"cpu": "0.0001"}}), namespace="team"
    )
    assert decoded.limit_range.items[0].default["cpu"].canonical() == "1m"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
            "spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is greater than max value 1",
        ),
        (
            {"type": "Container", "max": {"memory": "1Gi"}, "defaultRequest": {"memory": "2Gi"}},
            "spec.limits[0].defaultRequest[memory]: Invalid value: 2Gi: default request value 2Gi "
            "is greater than max value 1Gi",
        ),
        (
            {"type": "Container", "default": {"cpu": "1"}, "defaultRequest": {"cpu": "2"}},
            "spec.limits[0].defaultRequest[cpu]: Invalid value: 2: default request value 2 is "
            "greater than default limit value 1",
        ),
        (
            {
                "type": "Container",
                "min": {"cpu": "2"},
                "default": {"cpu": "1"},
                "defaultRequest": {"cpu": "2"},
            },
            "spec.limits[0].default[cpu]: Invalid value: 2: min value 2 is greater than default "
            "value 1",
        ),
        (
            {
                "type": "Container",
                "max": {"cpu": "1"},
                "default": {"cpu": "2"},
                "defaultRequest": {"cpu": "1"},
            },
            "spec.limits[0].default[cpu]: Invalid value: 1: default value 2 is greater than max "
            "value 1",
        ),
        (
            {"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}},
            "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: 500m: ratio 500m is less "
            "than 1",
        ),
        (
            {
                "type": "Pod",
                "min": {"cpu": "1"},
                "max": {"cpu": "2"},
                "maxLimitRequestRatio": {"cpu": "3"},
            },
            "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: 3: ratio 3 is greater than "
            "max/min = 2.000000",
        ),
        (
            {
                "type": "Container",
                "default": {"nvidia.com/gpu": "2"},
                "defaultRequest": {"nvidia.com/gpu": "1"},
            },
            "spec.limits[0].defaultRequest[nvidia.com/gpu]: Invalid value: 1: default value 2 must "
            "equal to defaultRequest value 1 in nvidia.com/gpu",
        ),
        (
            {"type": "Pod", "defaultRequest": {"cpu": "1"}},
            "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'",
        ),
        (
            {"type": "PersistentVolumeClaim", "max": {"cpu": "1"}},
            "spec.limits[0].limits: Required value: either minimum or maximum storage value is "
            "required, but neither was provided",
        ),
        (
            {"type": "Node"},
            'spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully '
            "qualified",
        ),
        (
            {"type": "Container", "max": {"gpu": "1"}},
            "spec.limits[0].max[gpu]: Invalid value: gpu: must be a standard resource type or "
            "fully qualified",
        ),
    ],
)
def test_limit_range_errors_are_the_api_servers(item: dict[str, Any], message: str) -> None:
    assert message in errors(lr(item))


def test_a_duplicate_type_is_a_duplicate_value() -> None:
    assert 'spec.limits[1].type: Duplicate value: "Container"' in errors(
        lr({"type": "Container"}, {"type": "Container"})
    )


def test_a_value_that_is_not_a_quantity_is_reported_at_its_path_and_nothing_is_applied() -> None:
    decoded = decode_limit_range(
        lr({"type": "Container", "max": {"cpu": "lots"}}), namespace="team"
    )
    assert not decoded.ok
    (error,) = decoded.errors
    assert error.field == "spec.limits[0].max[cpu]"
    assert decoded.message.startswith(
        'LimitRange "lr" is invalid: spec.limits[0].max[cpu]: Invalid value: "lots"'
    )


def test_wrongly_typed_fields_are_decoding_errors() -> None:
    obj = {"metadata": {"name": "lr"}, "spec": {"limits": {"type": "Container"}}}
    assert errors(obj) == ["spec.limits: Invalid value: object: must be of type array"]


def test_the_name_is_required_and_must_be_a_dns_subdomain() -> None:
    assert "metadata.name: Required value: name or generateName is required" in errors(
        {"spec": {"limits": []}}
    )
    assert any(
        e.startswith('metadata.name: Invalid value: "Bad_Name"')
        for e in errors(lr(name="Bad_Name"))
    )


# --- ResourceQuota ----------------------------------------------------------------------------


def rq(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": "q", "namespace": "team"}, "spec": spec}
    if status is not None:
        obj["status"] = status
    return obj


def quota_errors(spec: dict[str, Any], status: dict[str, Any] | None = None) -> list[str]:
    return errors(rq(spec, status), decode_resource_quota)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"hard": {"limit.cpu": "1"}},
            "spec.hard[limit.cpu]: Invalid value: limit.cpu: must be a standard resource type or "
            "fully qualified",
        ),
        (
            {"hard": {"limit.cpu": "1"}},
            "spec.hard[limit.cpu]: Invalid value: limit.cpu: must be a standard resource for quota",
        ),
        (
            {"hard": {"pods": "-1"}},
            'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
        ),
        ({"hard": {"pods": "1.5"}}, "spec.hard[pods]: Invalid value: 1500m: must be an integer"),
        (
            {"hard": {"pods": "1"}, "scopes": ["Nope"]},
            'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Nope"}: unsupported scope',
        ),
        (
            {"hard": {"cpu": "1"}, "scopes": ["BestEffort"]},
            'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: '
            "unsupported scope applied to resource",
        ),
        (
            {"hard": {"pods": "1"}, "scopes": ["Terminating", "NotTerminating"]},
            "spec.scopes: Invalid value: "
            '[]core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes',
        ),
        (
            {
                "hard": {"pods": "1"},
                "scopeSelector": {
                    "matchExpressions": [
                        {"scopeName": "BestEffort", "operator": "In", "values": ["x"]}
                    ]
                },
            },
            "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' "
            "when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
            "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
            "ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
        (
            {
                "hard": {"pods": "1"},
                "scopeSelector": {
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In"}]
                },
            },
            "spec.scopeSelector.matchExpressions.values: Required value: must be at least one "
            "value when `operator` is 'In' or 'NotIn' for scope selector",
        ),
        (
            {
                "hard": {"pods": "1"},
                "scopeSelector": {
                    "matchExpressions": [
                        {"scopeName": "PriorityClass", "operator": "Exists", "values": ["a"]}
                    ]
                },
            },
            'spec.scopeSelector.matchExpressions.values: Invalid value: []string{"a"}: must be no '
            "value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
        ),
        (
            {
                "hard": {"pods": "1"},
                "scopeSelector": {
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "Has"}]
                },
            },
            'spec.scopeSelector.matchExpressions.operator: Invalid value: "Has": not a valid '
            "selector operator",
        ),
        (
            {
                "hard": {"cpu": "1"},
                "scopeSelector": {
                    "matchExpressions": [{"scopeName": "BestEffort", "operator": "Exists"}]
                },
            },
            "spec.scopeSelector.matchExpressions: Invalid value: "
            "core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{"
            'ScopeName:"BestEffort", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope '
            "applied to resource",
        ),
    ],
)
def test_resource_quota_errors_are_the_api_servers(spec: dict[str, Any], message: str) -> None:
    assert message in quota_errors(spec)


def test_extended_resources_and_counts_are_fully_qualified_and_skip_the_standard_check() -> None:
    assert quota_errors({"hard": {"requests.nvidia.com/gpu": "8", "count/pods": "10"}}) == []


def test_status_lists_are_validated_too() -> None:
    assert "status.used[pods]: Invalid value: 500m: must be an integer" in quota_errors(
        {"hard": {"pods": "1"}}, {"hard": {"pods": "1"}, "used": {"pods": "0.5"}}
    )


def test_an_invalid_quota_is_one_message_as_the_api_server_prints_it() -> None:
    decoded = decode_resource_quota(rq({"hard": {"limit.cpu": "1"}}), namespace="team")
    assert decoded.message == (
        'ResourceQuota "q" is invalid: [spec.hard[limit.cpu]: Invalid value: limit.cpu: must be a '
        "standard resource type or fully qualified, spec.hard[limit.cpu]: Invalid value: "
        "limit.cpu: must be a standard resource for quota]"
    )


# --- no input crashes the decoders ------------------------------------------------------------

json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(spec=json_value, status=json_value, meta=json_value)
def test_decoding_any_json_never_raises(spec: Any, status: Any, meta: Any) -> None:
    for decode in (decode_limit_range, decode_resource_quota):
        decoded = decode({"metadata": meta, "spec": spec, "status": status}, namespace="team")
        assert decoded.ok == (decoded.message is None)
