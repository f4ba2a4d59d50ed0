"""A pod's DRA fields as the API server validates them: spec.resourceClaims and each
container's resources.claims, with Go's paths and messages.

The cases of ``data/dra_pod_claims_cases.json`` are kubernetes/kubernetes
``TestValidateDynamicResourceAllocation`` (pkg/apis/core/validation/validation_test.go), whose
test only checks that an error occurs; the expected errors (field, type, detail) were derived
from validation.go and are checked here exactly, plus four derived cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.k8s.apiserver import pod_from_parts, validate_pod
from designer.k8s.core import FieldError, Pod

DATA = Path(__file__).parents[1] / "data"
CASES = json.loads((DATA / "dra_pod_claims_cases.json").read_text())["cases"]

# Create-time rules that ValidatePodCreate adds to ValidatePodSpec's errors.
CREATE_ONLY = {"spec.ephemeralContainers: Forbidden: cannot be set on create"}


def _pod(case: dict[str, Any]) -> Pod:
    pod, problems = pod_from_parts(case.get("podMeta") or {"name": "some-pod"}, case["pod"])
    assert pod is not None, problems
    return pod


def _expected(case: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(e["field"], e["type"], e["detail"]) for e in case["errors"]]


def _got(errors: list[FieldError]) -> list[tuple[str, str, str]]:
    return [(e.field, e.type, e.message) for e in errors if str(e) not in CREATE_ONLY]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_transcribed_case_gives_the_api_servers_errors(case: dict[str, Any]) -> None:
    result = validate_pod(_pod(case))
    assert _got(result.errors) == _expected(case)
    for want, got in zip(case["errors"], result.errors, strict=False):
        if isinstance(want.get("value"), str):
            assert got.value == want["value"]


def test_a_missing_pod_claim_prints_as_kubectl_shows_it() -> None:
    case = next(c for c in CASES if c["name"] == "claim not found")
    assert [str(e) for e in validate_pod(_pod(case)).errors] == [
        'spec.containers[0].resources.claims[0]: Not found: "no-such-claim": '
        "must be one of the names in pod.spec.resourceClaims: my-claim"
    ]


def test_a_claim_without_a_source_prints_the_go_struct() -> None:
    case = next(c for c in CASES if c["name"] == "resource claim source empty")
    assert [str(e) for e in validate_pod(_pod(case)).errors] == [
        'spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:"my-claim", '
        "ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}: "
        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
    ]


def test_an_empty_claim_name_counts_as_set_like_a_go_pointer() -> None:
    spec = {
        "containers": [{"name": "c", "image": "i"}],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": ""}],
    }
    pod, _ = pod_from_parts({"name": "p"}, spec)
    assert pod is not None
    fields = [(e.field, e.type) for e in validate_pod(pod).errors]
    assert fields == [("spec.resourceClaims[0].resourceClaimName", "FieldValueInvalid")]


def test_claim_errors_in_a_template_carry_the_templates_path() -> None:
    spec = {
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
        "restartPolicy": "Never",
    }
    pod, _ = pod_from_parts({}, spec, spec_path="spec.template.spec")
    assert pod is not None
    result = validate_pod(pod, spec_path="spec.template.spec", template=True)
    assert [str(e) for e in result.errors] == [
        'spec.template.spec.containers[0].resources.claims[0]: Not found: "x": '
        "must be one of the names in pod.spec.resourceClaims which is empty"
    ]


def test_claim_errors_come_after_the_containers_request_errors() -> None:
    spec = {
        "resourceClaims": [{"name": "gpu"}],
        "containers": [
            {
                "name": "c",
                "image": "i",
                "resources": {"requests": {"nvidia.com/gpu": 1}, "claims": [{"name": "nic"}]},
            }
        ],
    }
    pod, _ = pod_from_parts({"name": "p"}, spec)
    assert pod is not None
    assert [e.field for e in validate_pod(pod).errors] == [
        "spec.resourceClaims[0]",
        "spec.containers[0].resources.limits",
        "spec.containers[0].resources.claims[0]",
    ]


def test_a_wrongly_typed_claim_is_a_decoding_error_at_its_path() -> None:
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"claims": "gpu"}}]}
    pod, problems = pod_from_parts({"name": "p"}, spec)
    assert pod is None
    assert [(p.field, p.type, p.message) for p in problems] == [
        ("spec.containers[0].resources.claims", "FieldValueTypeInvalid", "must be of type array")
    ]


def test_claims_survive_a_round_trip_through_the_model() -> None:
    spec = {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
        "containers": [
            {"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu", "request": "r"}]}}
        ],
    }
    pod, _ = pod_from_parts({"name": "p"}, spec)
    assert pod is not None
    assert pod.manifest()["spec"]["resourceClaims"] == spec["resourceClaims"]
    container = pod.manifest()["spec"]["containers"][0]
    assert container["resources"] == spec["containers"][0]["resources"]


names = st.text(alphabet="ab-.", min_size=0, max_size=4)


@given(
    pod_names=st.lists(names, max_size=4),
    refs=st.lists(st.tuples(names, st.one_of(st.none(), names)), max_size=5),
)
def test_container_claims_never_crash_and_name_only_claim_paths(
    pod_names: list[str], refs: list[tuple[str, str | None]]
) -> None:
    spec = {
        "resourceClaims": [{"name": n, "resourceClaimTemplateName": "t"} for n in pod_names],
        "containers": [
            {
                "name": "c",
                "image": "i",
                "resources": {"claims": [{"name": n, "request": r} for n, r in refs]},
            }
        ],
    }
    pod, _ = pod_from_parts({"name": "p"}, spec)
    assert pod is not None
    for error in validate_pod(pod).errors:
        assert error.field.startswith(
            ("spec.resourceClaims[", "spec.containers[0].resources.claims[")
        )
        if error.type == "FieldValueNotFound":
            assert error.value not in pod_names
