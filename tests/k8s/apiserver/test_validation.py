"""The API server's resource validation: paths, wording and order as kubectl prints them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.k8s.apiserver import ValidationResult, cluster_version, validate_pod
from designer.k8s.core import (
    FieldError,
    FieldWarning,
    Quantity,
    QuantityError,
    Unquoted,
    go_quote,
    is_dns1123_label,
    is_qualified_name,
)
from tests.builders import pod_from_spec as make_pod

V131 = cluster_version("1.31")

DATA = Path(__file__).parents[1] / "data"

DNS_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def one(resources: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A spec with one container ``app``."""
    container: dict[str, Any] = {"name": "app", "image": "busybox", **extra}
    if resources is not None:
        container["resources"] = resources
    return {"containers": [container]}


def errors(spec: dict[str, Any], **kwargs: Any) -> list[str]:
    return [str(e) for e in validate_pod(make_pod(spec), **kwargs).errors]


def warnings(spec: dict[str, Any]) -> list[str]:
    return [str(w) for w in validate_pod(make_pod(spec)).warnings]


def quantity_error(text: Any) -> str:
    with pytest.raises(QuantityError) as exc:
        Quantity.from_json(text)
    return str(exc.value)


# --- extended resources (GPUs): where common advice disagrees with the API server -------


def test_limits_only_gpu_is_accepted() -> None:
    result = validate_pod(make_pod(one({"limits": {"nvidia.com/gpu": 1}})))
    assert result.ok
    assert result.errors == [] and result.warnings == []


def test_gpu_requests_without_limits_is_refused() -> None:
    assert errors(one({"requests": {"nvidia.com/gpu": 1}})) == [
        "spec.containers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources"
    ]


def test_gpu_requests_different_from_limits_are_refused() -> None:
    assert errors(one({"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 2}})) == [
        'spec.containers[0].resources.requests: Invalid value: "1": '
        "must be equal to nvidia.com/gpu limit of 2"
    ]


def test_gpu_requests_above_limits_say_equal_not_less_than() -> None:
    # Non-overcommitable resources are checked for equality first.
    assert errors(one({"requests": {"nvidia.com/gpu": 4}, "limits": {"nvidia.com/gpu": 2}})) == [
        'spec.containers[0].resources.requests: Invalid value: "4": '
        "must be equal to nvidia.com/gpu limit of 2"
    ]


def test_half_gpu_is_refused() -> None:
    # The Quantity itself is the bad value (a Go Stringer): printed without quotes. The
    # request defaulted from the limit is refused too, as the API server does.
    result = validate_pod(make_pod(one({"limits": {"nvidia.com/gpu": 0.5}})))
    assert [str(e) for e in result.errors] == [
        "spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: 500m: "
        "must be an integer",
        "spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: 500m: "
        "must be an integer",
    ]
    assert result.errors[0].as_dict() == {
        "field": "spec.containers[0].resources.limits[nvidia.com/gpu]",
        "type": "FieldValueInvalid",
        "message": "must be an integer",
        "text": "Invalid value: 500m: must be an integer",
    }


def test_unqualified_gpu_name_is_refused() -> None:
    assert errors(one({"limits": {"gpu": 1}})) == [
        "spec.containers[0].resources.limits[gpu]: Invalid value: gpu: "
        "must be a standard resource type or fully qualified",
        "spec.containers[0].resources.limits[gpu]: Invalid value: gpu: "
        "must be a standard resource for containers",
        "spec.containers[0].resources.requests[gpu]: Invalid value: gpu: "
        "must be a standard resource type or fully qualified",
        "spec.containers[0].resources.requests[gpu]: Invalid value: gpu: "
        "must be a standard resource for containers",
    ]


def test_standard_but_not_container_resource_is_refused_once() -> None:
    assert errors(one({"requests": {"pods": 1}})) == [
        "spec.containers[0].resources.requests[pods]: Invalid value: pods: "
        "must be a standard resource for containers"
    ]


def test_extended_resource_name_too_long_for_quota_is_refused() -> None:
    # "requests." + the name must still be a qualified name (the prefix stays <= 253).
    name = "a" * 250 + ".io/gpu"
    assert errors(one({"limits": {name: 1}, "requests": {name: 1}})) == [
        f"spec.containers[0].resources.limits[{name}]: Invalid value: {name}: "
        "doesn't follow extended resource name standard",
        f"spec.containers[0].resources.requests[{name}]: Invalid value: {name}: "
        "doesn't follow extended resource name standard",
    ]


def test_malformed_resource_name_gets_the_qualified_name_messages() -> None:
    assert errors(one({"requests": {"nvidia.com/": 1}})) == [
        "spec.containers[0].resources.requests[nvidia.com/]: Invalid value: nvidia.com/: "
        "name part must be non-empty",
        "spec.containers[0].resources.requests[nvidia.com/]: Invalid value: nvidia.com/: "
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "spec.containers[0].resources.requests[nvidia.com/]: Invalid value: nvidia.com/: "
        "doesn't follow extended resource name standard",
        "spec.containers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources",
    ]


def test_extended_resource_in_init_container_is_checked_too() -> None:
    spec = {
        "containers": [{"name": "app", "image": "busybox"}],
        "initContainers": [
            {"name": "init", "image": "busybox", "resources": {"requests": {"example.com/a": 1}}}
        ],
    }
    assert errors(spec) == [
        "spec.initContainers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources"
    ]


# --- cpu and memory -------------------------------------------------------------------------


def test_cpu_request_above_limit_is_refused_at_the_requests_map() -> None:
    assert errors(one({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})) == [
        'spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1"
    ]


def test_quantities_are_quoted_in_their_canonical_form() -> None:
    assert errors(one({"requests": {"memory": "1.5Gi"}, "limits": {"memory": "1Gi"}})) == [
        'spec.containers[0].resources.requests: Invalid value: "1536Mi": '
        "must be less than or equal to memory limit of 1Gi"
    ]


def test_negative_cpu_is_refused() -> None:
    assert errors(one({"requests": {"cpu": "-1"}})) == [
        'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": '
        "must be greater than or equal to 0"
    ]


def test_negative_limit_is_refused_on_the_limit_and_the_defaulted_request() -> None:
    assert errors(one({"limits": {"memory": "-1Gi"}})) == [
        'spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": '
        "must be greater than or equal to 0",
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": '
        "must be greater than or equal to 0",
    ]


def test_requests_below_limits_are_fine_for_cpu_and_memory() -> None:
    spec = one(
        {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": 1, "memory": "128Mi"}}
    )
    assert validate_pod(make_pod(spec)).ok


def test_zero_and_fractional_cpu_are_fine() -> None:
    assert errors(one({"requests": {"cpu": 0}, "limits": {"cpu": 0.5}})) == []


# --- warnings -------------------------------------------------------------------------------


def test_memory_128m_warns_fractional_byte() -> None:
    result = validate_pod(make_pod(one({"requests": {"memory": "128m"}})))
    assert result.ok
    assert [str(w) for w in result.warnings] == [
        'spec.containers[0].resources.requests[memory]: fractional byte value "128m" is '
        "invalid, must be an integer"
    ]
    assert result.warnings[0] == FieldWarning(
        "spec.containers[0].resources.requests[memory]",
        'fractional byte value "128m" is invalid, must be an integer',
    )
    assert result.warnings[0].as_dict() == {
        "field": "spec.containers[0].resources.requests[memory]",
        "message": 'fractional byte value "128m" is invalid, must be an integer',
    }


def test_memory_limit_128m_warns_on_the_limit_and_the_defaulted_request() -> None:
    assert warnings(one({"limits": {"memory": "128m"}})) == [
        'spec.containers[0].resources.limits[memory]: fractional byte value "128m" is '
        "invalid, must be an integer",
        'spec.containers[0].resources.requests[memory]: fractional byte value "128m" is '
        "invalid, must be an integer",
    ]


def test_fractional_ephemeral_storage_and_overhead_warn_init_containers_first() -> None:
    spec = {
        "overhead": {"memory": "0.5"},
        "initContainers": [
            {
                "name": "init",
                "image": "busybox",
                "resources": {"requests": {"ephemeral-storage": "1.5"}},
            }
        ],
        "containers": [
            {"name": "app", "image": "busybox", "resources": {"requests": {"memory": "1m"}}}
        ],
    }
    assert warnings(spec) == [
        'spec.overhead[memory]: fractional byte value "500m" is invalid, must be an integer',
        "spec.initContainers[0].resources.requests[ephemeral-storage]: fractional byte value "
        '"1500m" is invalid, must be an integer',
        'spec.containers[0].resources.requests[memory]: fractional byte value "1m" is invalid, '
        "must be an integer",
    ]


def test_whole_bytes_do_not_warn() -> None:
    assert warnings(one({"requests": {"memory": "128Mi", "ephemeral-storage": "1G"}})) == []


def test_negative_termination_grace_period_warns() -> None:
    spec = {**one(), "terminationGracePeriodSeconds": -5}
    assert warnings(spec) == [
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and "
        "will be treated as 1"
    ]


# --- hugepages ------------------------------------------------------------------------------


def test_hugepages_alone_are_forbidden() -> None:
    assert errors(one({"limits": {"hugepages-2Mi": "4Mi"}})) == [
        "spec.containers[0].resources: Forbidden: HugePages require cpu or memory"
    ]


def test_hugepages_with_memory_are_accepted() -> None:
    assert errors(one({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}})) == []


def test_hugepages_must_be_a_whole_number_of_pages() -> None:
    assert errors(one({"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}})) == [
        'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": '
        "3Mi is not positive integer multiple of hugepages-2Mi",
        'spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": '
        "3Mi is not positive integer multiple of hugepages-2Mi",
    ]


def test_hugepages_cannot_overcommit() -> None:
    assert errors(one({"requests": {"hugepages-1Gi": "1Gi", "cpu": "1"}})) == [
        "spec.containers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources"
    ]


def test_hugepages_with_an_unparsable_page_size_are_never_a_multiple() -> None:
    assert errors(one({"limits": {"hugepages-big": "2Mi", "cpu": "1"}})) == [
        'spec.containers[0].resources.limits[hugepages-big]: Invalid value: "2Mi": '
        "2Mi is not positive integer multiple of hugepages-big",
        'spec.containers[0].resources.requests[hugepages-big]: Invalid value: "2Mi": '
        "2Mi is not positive integer multiple of hugepages-big",
    ]


# --- names and uniqueness -------------------------------------------------------------------


def test_duplicate_container_names_across_init_and_app_are_refused() -> None:
    spec = {
        "initContainers": [{"name": "app", "image": "busybox"}],
        "containers": [{"name": "app", "image": "busybox"}],
    }
    result = validate_pod(make_pod(spec))
    assert [str(e) for e in result.errors] == [
        'spec.initContainers[0].name: Duplicate value: "app"'
    ]
    assert result.errors[0].type == "FieldValueDuplicate"


def test_duplicate_app_container_names_are_refused_on_the_second() -> None:
    spec = {"containers": [{"name": "a", "image": "x"}, {"name": "a", "image": "x"}]}
    assert errors(spec) == ['spec.containers[1].name: Duplicate value: "a"']


def test_duplicate_ephemeral_container_name_is_refused() -> None:
    spec = {
        "containers": [{"name": "app", "image": "busybox"}],
        "ephemeralContainers": [{"name": "app", "image": "busybox"}],
    }
    assert errors(spec) == [
        'spec.ephemeralContainers[0].name: Duplicate value: "app"',
        "spec.ephemeralContainers: Forbidden: cannot be set on create",
    ]


def test_ephemeral_containers_may_not_set_resources() -> None:
    spec = {
        "containers": [{"name": "app", "image": "busybox"}],
        "ephemeralContainers": [
            {"name": "debug", "image": "busybox", "resources": {"limits": {"cpu": "1"}}}
        ],
    }
    assert errors(spec, spec_path="spec.template.spec", template=True) == [
        "spec.template.spec.ephemeralContainers[0].resources: Forbidden: "
        "cannot be set for an Ephemeral Container",
        "spec.template.spec.ephemeralContainers: Forbidden: "
        "ephemeral containers not allowed in pod template",
    ]


def test_container_name_must_be_a_dns_label() -> None:
    assert errors(one() | {"containers": [{"name": "My_App", "image": "x"}]}) == [
        f'spec.containers[0].name: Invalid value: "My_App": {DNS_LABEL_MSG}'
    ]


def test_container_name_with_dots_is_told_about_the_dots() -> None:
    assert errors({"containers": [{"name": "a.b.c", "image": "x"}]}) == [
        'spec.containers[0].name: Invalid value: "a.b.c": must not contain dots'
    ]


def test_long_container_name_gets_both_messages() -> None:
    name = "a" * 64
    assert errors({"containers": [{"name": name, "image": "x"}]}) == [
        f'spec.containers[0].name: Invalid value: "{name}": must be no more than 63 characters'
    ]
    name = "A" * 64
    assert errors({"containers": [{"name": name, "image": "x"}]}) == [
        f'spec.containers[0].name: Invalid value: "{name}": must be no more than 63 characters',
        f'spec.containers[0].name: Invalid value: "{name}": {DNS_LABEL_MSG}',
    ]


def test_missing_container_name_and_image_are_required() -> None:
    assert errors({"containers": [{}]}) == [
        "spec.containers[0].name: Required value",
        "spec.containers[0].image: Required value",
    ]


def test_a_pod_needs_containers() -> None:
    assert errors({"containers": []}) == ["spec.containers: Required value"]


def test_pod_name_must_be_a_dns_subdomain() -> None:
    result = validate_pod(make_pod(one(), {"name": "My_Pod"}))
    assert [str(e) for e in result.errors] == [
        f'metadata.name: Invalid value: "My_Pod": {DNS_SUBDOMAIN_MSG}'
    ]


def test_pod_name_is_required_but_not_for_a_template() -> None:
    pod = make_pod(one(), {})
    assert [str(e) for e in validate_pod(pod).errors] == [
        "metadata.name: Required value: name or generateName is required"
    ]
    assert validate_pod(pod, spec_path="spec.template.spec", template=True).ok


def test_generate_name_may_end_with_a_dash() -> None:
    assert validate_pod(make_pod(one(), {"generateName": "job-"})).ok
    result = validate_pod(make_pod(one(), {"generateName": "Job-"}))
    assert [e.field for e in result.errors] == ["metadata.generateName"]


def test_namespace_must_be_a_dns_label() -> None:
    result = validate_pod(make_pod(one(), {"name": "p", "namespace": "Team.A"}))
    assert [str(e) for e in result.errors] == [
        f'metadata.namespace: Invalid value: "Team.A": {DNS_LABEL_MSG}'
    ]


def test_bad_label_key_and_value_use_the_label_messages() -> None:
    result = validate_pod(make_pod(one(), {"name": "p", "labels": {"app/x/y": "ok", "k": "-v"}}))
    assert [e.field for e in result.errors] == ["metadata.labels", "metadata.labels"]
    assert result.errors[0].message.startswith("a valid label key must consist of")
    assert result.errors[1].message.startswith("a valid label must be an empty string")
    assert str(result.errors[1]).startswith('metadata.labels: Invalid value: "-v": ')


def test_template_labels_use_the_template_path() -> None:
    pod = make_pod(one(), {"labels": {"bad key": "v"}})
    result = validate_pod(pod, spec_path="spec.template.spec", template=True)
    assert {e.field for e in result.errors} == {"spec.template.labels"}


def test_annotation_keys_are_qualified_names_after_labels() -> None:
    # ValidateObjectMeta: labels, then ValidateAnnotations (IsQualifiedName of the lowered key).
    pod = make_pod(one(), {"name": "p", "labels": {"-x": "v"}, "annotations": {"Bad Key": "v"}})
    result = validate_pod(pod)
    assert [e.field for e in result.errors] == ["metadata.labels", "metadata.annotations"]
    assert str(result.errors[1]).startswith(
        'metadata.annotations: Invalid value: "Bad Key": name part must consist of'
    )
    upper = make_pod(one(), {"name": "p", "annotations": {"Example.COM/Note": "v"}})
    assert validate_pod(upper).errors == []


def test_annotations_over_256_kib_are_too_long_in_the_releases_wording() -> None:
    big = {"name": "p", "annotations": {"note": "x" * (256 * 1024)}}
    assert [str(e) for e in validate_pod(make_pod(one(), big)).errors] == [
        "metadata.annotations: Too long: may not be more than 262144 bytes"
    ]
    assert [str(e) for e in validate_pod(make_pod(one(), big), version=V131).errors] == [
        "metadata.annotations: Too long: must have at most 262144 bytes"
    ]
    exact = {"name": "p", "annotations": {"note": "x" * (256 * 1024 - 4)}}
    assert validate_pod(make_pod(one(), exact)).errors == []


def test_template_annotations_use_the_template_path() -> None:
    pod = make_pod(one(), {"annotations": {"bad key": "v"}})
    result = validate_pod(pod, spec_path="spec.template.spec", template=True)
    assert [e.field for e in result.errors] == ["spec.template.annotations"]


@pytest.mark.parametrize("cost", ["high", "+1", "007", "-", "", "2147483648", "-2147483649", "1.5"])
def test_a_pod_deletion_cost_must_be_a_32bit_integer(cost: str) -> None:
    # ValidatePodSpecificAnnotations -> GetDeletionCostFromPodAnnotations: no "+", no
    # leading zero, strconv.ParseInt(value, 10, 32).
    meta = {"name": "p", "annotations": {"controller.kubernetes.io/pod-deletion-cost": cost}}
    assert [str(e) for e in validate_pod(make_pod(one(), meta)).errors] == [
        "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: "
        f'Invalid value: "{cost}": must be a 32bit integer'
    ]


@pytest.mark.parametrize("cost", ["-5", "0", "10", "-007", "2147483647", "-2147483648"])
def test_a_pod_deletion_cost_in_range_is_accepted(cost: str) -> None:
    meta = {"name": "p", "annotations": {"controller.kubernetes.io/pod-deletion-cost": cost}}
    assert validate_pod(make_pod(one(), meta)).errors == []


def test_a_mirror_pod_annotation_needs_a_node_name() -> None:
    meta = {"name": "p", "annotations": {"kubernetes.io/config.mirror": "abc"}}
    assert [str(e) for e in validate_pod(make_pod(one(), meta)).errors] == [
        'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "abc": '
        "must set spec.nodeName if mirror pod annotation is set"
    ]
    on_a_node = {**one(), "nodeName": "node-1"}
    assert validate_pod(make_pod(on_a_node, meta)).errors == []


def test_pod_specific_annotations_are_checked_in_templates_at_the_template_path() -> None:
    meta = {"annotations": {"controller.kubernetes.io/pod-deletion-cost": "high"}}
    result = validate_pod(make_pod(one(), meta), spec_path="spec.template.spec", template=True)
    assert [e.field for e in result.errors] == [
        "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]"
    ]


def test_image_with_whitespace_is_refused_for_a_pod_only() -> None:
    spec = {"containers": [{"name": "app", "image": " busybox"}]}
    assert errors(spec) == [
        'spec.containers[0].image: Invalid value: " busybox": '
        "must not have leading or trailing whitespace"
    ]
    assert errors(spec, spec_path="spec.template.spec", template=True) == []


# --- restart policies and sidecars ----------------------------------------------------------


def test_restart_policy_must_be_supported() -> None:
    assert errors({**one(), "restartPolicy": "Sometimes"}) == [
        'spec.restartPolicy: Unsupported value: "Sometimes": '
        'supported values: "Always", "OnFailure", "Never"'
    ]


def test_init_container_restart_policy_may_only_be_always() -> None:
    spec = {**one(), "initContainers": [{"name": "i", "image": "x", "restartPolicy": "OnFailure"}]}
    assert errors(spec) == [
        'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": '
        'supported values: "Always"'
    ]


def test_app_container_restart_policy_is_forbidden() -> None:
    assert errors(one(restartPolicy="Always")) == [
        "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"
    ]


def test_probes_on_a_plain_init_container_are_forbidden_but_fine_on_a_sidecar() -> None:
    probe = {"tcpSocket": {"port": 80}}
    plain = {"name": "i", "image": "x", "readinessProbe": probe, "lifecycle": {"preStop": {}}}
    spec = {**one(), "initContainers": [plain]}
    assert errors(spec) == [
        "spec.initContainers[0].lifecycle: Forbidden: "
        "may not be set for init containers without restartPolicy=Always",
        "spec.initContainers[0].readinessProbe: Forbidden: "
        "may not be set for init containers without restartPolicy=Always",
    ]
    sidecar = {**plain, "lifecycle": None, "restartPolicy": "Always"}
    assert errors({**one(), "initContainers": [sidecar]}) == []


def test_invalid_image_pull_and_dns_policies_list_the_supported_values() -> None:
    spec = {**one(imagePullPolicy="Sometimes"), "dnsPolicy": "Google"}
    assert errors(spec) == [
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": '
        'supported values: "Always", "IfNotPresent", "Never"',
        'spec.dnsPolicy: Unsupported value: "Google": supported values: '
        '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]


def test_priority_class_name_must_be_a_dns_subdomain() -> None:
    assert errors({**one(), "priorityClassName": "High"}) == [
        f'spec.priorityClassName: Invalid value: "High": {DNS_SUBDOMAIN_MSG}'
    ]


# --- pod-level resources and overhead -------------------------------------------------------


def test_pod_level_ephemeral_storage_is_not_supported() -> None:
    spec = {**one(), "resources": {"limits": {"ephemeral-storage": "1Gi"}}}
    assert errors(spec) == [
        "spec.resources.limits[ephemeral-storage]: Unsupported value: ephemeral-storage: "
        'supported values: "cpu", "hugepages-", "memory"'
    ]


def test_pod_level_requests_below_the_containers_are_refused() -> None:
    spec = {**one({"requests": {"cpu": "2"}}), "resources": {"requests": {"cpu": "1"}}}
    assert errors(spec) == [
        'spec.resources.requests[cpu]: Invalid value: "1": '
        "must be greater than or equal to aggregate container requests of 2"
    ]


def test_pod_level_requests_cover_the_largest_init_container() -> None:
    spec = {
        "initContainers": [
            {"name": "init", "image": "x", "resources": {"requests": {"memory": "2Gi"}}}
        ],
        "containers": [{"name": "app", "image": "x", "resources": {"requests": {"memory": "1Gi"}}}],
        "resources": {"requests": {"memory": "1Gi"}},
    }
    assert errors(spec) == [
        'spec.resources.requests[memory]: Invalid value: "1Gi": '
        "must be greater than or equal to aggregate container requests of 2Gi"
    ]


def test_container_limit_above_the_pod_limit_is_refused_at_gos_odd_path() -> None:
    spec = {**one({"limits": {"cpu": "2"}}), "resources": {"limits": {"cpu": "1"}}}
    assert errors(spec) == [
        # The pod-level request defaults to the containers' 2 CPUs, above the pod limit.
        'spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
        'spec.resources.containers[0][cpu].limits: Invalid value: "2": '
        "must be less than or equal to pod limits of 1",
    ]


def test_pod_level_resources_within_limits_are_accepted() -> None:
    spec = {
        **one({"requests": {"cpu": "500m", "memory": "256Mi"}}),
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
    }
    assert validate_pod(make_pod(spec)).ok


def test_pod_level_gpu_is_not_supported() -> None:
    spec = {**one(), "resources": {"limits": {"nvidia.com/gpu": 1}}}
    assert errors(spec) == [
        "spec.resources.limits[nvidia.com/gpu]: Unsupported value: nvidia.com/gpu: "
        'supported values: "cpu", "hugepages-", "memory"'
    ]


def test_pod_level_claims_are_forbidden() -> None:
    spec = {**one(), "resources": {"claims": [{"name": "gpu"}]}}
    assert errors(spec) == [
        "spec.resources.claims: Forbidden: claims cannot be set for Resources at pod-level"
    ]


def test_overhead_is_validated_as_limits() -> None:
    spec = {**one(), "overhead": {"memory": "-1", "gpu": "1"}}
    assert errors(spec) == [
        'spec.overhead.limits[memory]: Invalid value: "-1": must be greater than or equal to 0',
        "spec.overhead.limits[gpu]: Invalid value: gpu: "
        "must be a standard resource type or fully qualified",
        "spec.overhead.limits[gpu]: Invalid value: gpu: must be a standard resource for containers",
    ]


# --- unparsable values ----------------------------------------------------------------------


def test_unparsable_quantity_is_reported_at_its_path_once() -> None:
    result = validate_pod(make_pod(one({"limits": {"memory": "1 GB", "cpu": "1"}})))
    assert [e.as_dict() for e in result.errors] == [
        {
            "field": "spec.containers[0].resources.limits[memory]",
            "type": "FieldValueInvalid",
            "message": quantity_error("1 GB"),
            "text": 'Invalid value: "1 GB": ' + quantity_error("1 GB"),
        }
    ]
    assert str(result.errors[0]).startswith(
        'spec.containers[0].resources.limits[memory]: Invalid value: "1 GB": '
    )
    assert "quantities must match the regular expression" in result.errors[0].message


def test_unparsable_value_does_not_hide_other_errors() -> None:
    spec = one({"requests": {"cpu": "two", "nvidia.com/gpu": 1}})
    assert [e.field for e in validate_pod(make_pod(spec)).errors] == [
        "spec.containers[0].resources.requests[cpu]",
        "spec.containers[0].resources.limits",
    ]


def test_value_of_the_wrong_type_is_reported_at_its_path() -> None:
    result = validate_pod(make_pod(one({"requests": {"cpu": True}})))
    assert [(e.field, e.type) for e in result.errors] == [
        ("spec.containers[0].resources.requests[cpu]", "FieldValueInvalid")
    ]


# --- order and paths ------------------------------------------------------------------------


def test_errors_come_in_the_api_servers_order() -> None:
    spec = {
        "restartPolicy": "Sometimes",
        "initContainers": [{"name": "init", "image": "x", "restartPolicy": "Never"}],
        "containers": [
            {
                "name": "App",
                "image": "",
                "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
            },
            {"name": "init", "image": "x"},
        ],
        "overhead": {"cpu": "-1"},
    }
    assert [e.field for e in validate_pod(make_pod(spec, {"name": "P"})).errors] == [
        "metadata.name",
        "spec.containers[0].name",
        "spec.containers[0].image",
        "spec.containers[0].resources.requests",
        "spec.initContainers[0].restartPolicy",
        "spec.initContainers[0].name",
        "spec.restartPolicy",
        "spec.overhead.limits[cpu]",
    ]


def test_template_paths_follow_the_workload() -> None:
    spec = one({"requests": {"nvidia.com/gpu": 1}})
    result = validate_pod(make_pod(spec, {}), spec_path="spec.template.spec", template=True)
    assert [str(e) for e in result.errors] == [
        "spec.template.spec.containers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources"
    ]
    deep = "spec.jobTemplate.spec.template.spec"
    result = validate_pod(
        make_pod(one({"limits": {"memory": "1m"}}), {}), spec_path=deep, template=True
    )
    assert [w.field for w in result.warnings] == [
        f"{deep}.containers[0].resources.limits[memory]",
        f"{deep}.containers[0].resources.requests[memory]",
    ]


def test_validation_does_not_change_the_pod() -> None:
    pod = make_pod(one({"limits": {"cpu": "1"}}))
    before = pod.manifest()
    validate_pod(pod)
    assert pod.manifest() == before


# --- FieldError formatting (field.Error.Error()) --------------------------------------------


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (FieldError("a.b", "FieldValueRequired", "", ""), "a.b: Required value"),
        (
            FieldError("a.b", "FieldValueRequired", "must be set"),
            "a.b: Required value: must be set",
        ),
        (FieldError("a", "FieldValueForbidden", "no", "x"), "a: Forbidden: no"),
        (FieldError("a", "FieldValueInvalid", "d", "v"), 'a: Invalid value: "v": d'),
        (FieldError("a", "FieldValueInvalid", "d", Unquoted("500m")), "a: Invalid value: 500m: d"),
        (FieldError("a", "FieldValueInvalid", "d", 5), "a: Invalid value: 5: d"),
        (FieldError("a", "FieldValueInvalid", "d", True), "a: Invalid value: true: d"),
        (FieldError("a", "FieldValueInvalid", "d", 0.5), "a: Invalid value: 0.5: d"),
        (FieldError("a", "FieldValueInvalid", "d", None), 'a: Invalid value: "null": d'),
        (FieldError("a", "FieldValueInvalid", "", 'say "hi"'), 'a: Invalid value: "say \\"hi\\""'),
        (FieldError("a", "FieldValueDuplicate", "", "x"), 'a: Duplicate value: "x"'),
        (FieldError("a", "FieldValueNotFound", "", "x"), 'a: Not found: "x"'),
        (
            FieldError("a", "FieldValueTypeInvalid", "expected an object", "x"),
            'a: Invalid value: "x": expected an object',
        ),
        (
            FieldError("a", "FieldValueTooLong", "must have at most 5 bytes", "xxxxxxx"),
            "a: Too long: must have at most 5 bytes",
        ),
        (
            FieldError("a", "FieldValueNotSupported", 'supported values: "Always"', "x"),
            'a: Unsupported value: "x": supported values: "Always"',
        ),
    ],
)
def test_field_error_prints_like_go(error: FieldError, text: str) -> None:
    assert str(error) == text


def test_unquoted_values_still_compare_as_strings() -> None:
    assert Unquoted("gpu") == "gpu"
    assert FieldError("f", "FieldValueInvalid", "m", Unquoted("gpu")).value == "gpu"


def test_go_quote_escapes_like_strconv_quote() -> None:
    assert go_quote("a\tb\n\x01é") == '"a\\tb\\n\\x01é"'


def test_result_is_ok_without_errors_even_with_warnings() -> None:
    assert ValidationResult([], [FieldWarning("f", "m")]).ok
    assert not ValidationResult([FieldError("f", "FieldValueRequired", "")], []).ok


def test_name_helpers_match_apimachinery() -> None:
    assert is_dns1123_label("my-name") == []
    assert is_dns1123_label("-x") == [DNS_LABEL_MSG]
    assert is_qualified_name("example.com/MyName") == []
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]


# --- cases transcribed from the Go tests ----------------------------------------------------


def _go_cases() -> list[Any]:
    cases = yaml.safe_load((DATA / "validation_go_cases.yaml").read_text())
    return [pytest.param(c, id=f"{c['source']}: {c['name']}") for c in cases]


@pytest.mark.parametrize("case", _go_cases())
def test_go_validation_cases(case: dict[str, Any]) -> None:
    result = validate_pod(make_pod(case["spec"], {"name": "123"}))
    if "errors" in case:
        assert [[e.field, e.type] for e in result.errors] == case["errors"]
    if "contains" in case:
        assert any(case["contains"] in str(e) for e in result.errors), result.errors


GO_VALID_CONTAINERS = [
    # TestValidateContainers success cases with resources.
    {
        "name": "resources-test",
        "image": "image",
        "resources": {"limits": {"cpu": "10", "memory": "10G", "my.org/resource": "10"}},
    },
    {
        "name": "resources-test-with-request-and-limit",
        "image": "image",
        "resources": {
            "requests": {"cpu": "10", "memory": "10G"},
            "limits": {"cpu": "10", "memory": "10G"},
        },
    },
    {
        "name": "resources-request-limit-simple",
        "image": "image",
        "resources": {"requests": {"cpu": "8"}, "limits": {"cpu": "10"}},
    },
    {
        "name": "resources-request-limit-edge",
        "image": "image",
        "resources": {
            "requests": {"cpu": "10", "memory": "10G", "my.org/resource": "10"},
            "limits": {"cpu": "10", "memory": "10G", "my.org/resource": "10"},
        },
    },
    {
        "name": "resources-request-limit-partials",
        "image": "image",
        "resources": {
            "requests": {"cpu": "9.5", "memory": "4G"},
            "limits": {"cpu": "10", "my.org/resource": "10"},
        },
    },
    {
        "name": "resources-request",
        "image": "image",
        "resources": {"requests": {"cpu": "9.5", "memory": "4G"}},
    },
    {
        "name": "resources-resize-policy",
        "image": "image",
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
    },
    {"name": "same-host-port-different-protocol", "image": "image"},
    {
        "name": "hugepages",
        "image": "image",
        "resources": {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}},
    },
]


def test_go_valid_containers_are_accepted() -> None:
    result = validate_pod(make_pod({"containers": GO_VALID_CONTAINERS}, {"name": "123"}))
    assert result.errors == []


# --- robustness -----------------------------------------------------------------------------

_names = st.sampled_from(
    [
        "cpu",
        "memory",
        "ephemeral-storage",
        "hugepages-2Mi",
        "nvidia.com/gpu",
        "gpu",
        "pods",
        "a/b/c",
    ]
)
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["500m", "1Gi", "128m", "-1", "1e3", "0.5", "1 GB", "Mi", "+5.", ""]),
    st.text(max_size=8),
)
_lists = st.none() | st.dictionaries(_names, _values, max_size=4)


@settings(max_examples=200, deadline=None)
@given(requests=_lists, limits=_lists, pod_level=_lists, overhead=_lists)
def test_any_resource_values_give_errors_not_exceptions(
    requests: dict[str, Any] | None,
    limits: dict[str, Any] | None,
    pod_level: dict[str, Any] | None,
    overhead: dict[str, Any] | None,
) -> None:
    spec = {
        **one({"requests": requests, "limits": limits}),
        "resources": {"requests": pod_level},
        "overhead": overhead,
    }
    result = validate_pod(make_pod(spec))
    for error in result.errors:
        assert error.field.startswith("spec.")
        assert str(error).startswith(error.field + ": ")
    for warning in result.warnings:
        assert "fractional byte value" in warning.message


@pytest.mark.parametrize("digits", [19, 25, 5000])
def test_a_rollout_value_of_many_digits_is_refused_at_its_field(digits: int) -> None:
    """strconv.Atoi clamps a number past int64 (IntValue ignores ErrRange): a maxSurge of
    thousands of digits is not 0, and its error is at its field, never Python's own words."""
    from designer.k8s.apiserver import int_or_percent_value, validate_objects

    big = "1" * digits
    expected = int(big) if digits <= 19 else 2**63 - 1  # 19 ones fit in an int64
    assert int_or_percent_value(big) == expected
    assert int_or_percent_value(big + "%") == expected
    assert int_or_percent_value("-" + big) == (-expected if digits <= 19 else -(2**63))
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "strategy": {"rollingUpdate": {"maxSurge": big, "maxUnavailable": big + "%"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
        },
    }
    fields = [e.field for _, e in validate_objects([deployment])]
    assert fields == [
        "spec.strategy.rollingUpdate.maxSurge",
        "spec.strategy.rollingUpdate.maxUnavailable",
    ]


RFC1123_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
RFC1123_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def test_names_and_deadline_of_a_pod_spec_are_validated_in_go_order() -> None:
    # ValidatePodSpec: serviceAccountName, nodeName (DNS subdomains), activeDeadlineSeconds
    # (1..MaxInt32), hostname, subdomain (DNS labels), each only when set.
    spec = {
        **one(),
        "subdomain": "Bad_Sub",
        "hostname": "web.0",
        "activeDeadlineSeconds": 0,
        "nodeName": "Node_1",
        "serviceAccountName": "Robot",
    }
    assert errors(spec) == [
        f'spec.serviceAccountName: Invalid value: "Robot": {RFC1123_SUBDOMAIN}',
        f'spec.nodeName: Invalid value: "Node_1": {RFC1123_SUBDOMAIN}',
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
        # IsDNS1123Label: a valid subdomain that is no label "must not contain dots".
        'spec.hostname: Invalid value: "web.0": must not contain dots',
        f'spec.subdomain: Invalid value: "Bad_Sub": {RFC1123_LABEL}',
    ]


@pytest.mark.parametrize("deadline", [-1, 0, 2147483648])
def test_an_active_deadline_out_of_range_is_refused(deadline: int) -> None:
    assert errors({**one(), "activeDeadlineSeconds": deadline}) == [
        f"spec.activeDeadlineSeconds: Invalid value: {deadline}: "
        "must be between 1 and 2147483647, inclusive"
    ]


def test_valid_names_and_deadlines_pass() -> None:
    spec = {
        **one(),
        "subdomain": "web",
        "hostname": "web-0",
        "activeDeadlineSeconds": 2147483647,
        "nodeName": "node-1.example.com",
        "serviceAccountName": "robot.v1",
    }
    assert errors(spec) == []
    assert errors({**one(), "hostname": "", "subdomain": "", "nodeName": ""}) == []
    assert errors({**one(), "activeDeadlineSeconds": 1}) == []


def test_a_template_hostname_is_checked_at_the_template_path() -> None:
    result = validate_pod(
        make_pod({**one(), "hostname": "Web"}), spec_path="spec.template.spec", template=True
    )
    assert [e.field for e in result.errors] == ["spec.template.spec.hostname"]


LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    "toleration",
    [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"operator": "Exists"},  # tolerates every taint
        {"key": "dedicated", "value": "ml", "effect": "NoExecute", "tolerationSeconds": 60},
        {"key": "dedicated", "operator": "Equal", "value": "", "effect": "PreferNoSchedule"},
    ],
)
def test_valid_tolerations_pass(toleration: dict[str, Any]) -> None:
    assert errors({**one(), "tolerations": [toleration]}) == []


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        (
            {"operator": "Equal", "value": "x"},
            [
                'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
                'when `key` is empty, which means "match all values and all keys"'
            ],
        ),
        (
            {"value": "x"},
            [
                'spec.tolerations[0].operator: Invalid value: "": operator must be Exists when '
                '`key` is empty, which means "match all values and all keys"'
            ],
        ),
        (
            # Go reports a bad value at .operator.
            {"key": "k", "value": "-bad-"},
            [f'spec.tolerations[0].operator: Invalid value: "-bad-": {LABEL_VALUE}'],
        ),
        (
            # kubernetes#128119 (1.32): the value, not the whole toleration.
            {"key": "k", "operator": "Exists", "value": "v"},
            [
                'spec.tolerations[0].operator: Invalid value: "v": value must be empty when '
                "`operator` is 'Exists'"
            ],
        ),
        (
            {"key": "k", "operator": "In", "effect": "Sometimes", "tolerationSeconds": 5},
            [
                'spec.tolerations[0].effect: Invalid value: "Sometimes": effect must be '
                "'NoExecute' when `tolerationSeconds` is set",
                'spec.tolerations[0].operator: Unsupported value: "In": supported values: '
                '"Equal", "Exists"',
                'spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: '
                '"NoSchedule", "PreferNoSchedule", "NoExecute"',
            ],
        ),
    ],
)
def test_tolerations_are_validated_as_validate_tolerations_does(
    toleration: dict[str, Any], expected: list[str]
) -> None:
    assert errors({**one(), "tolerations": [{"key": "ok", "operator": "Exists"}, toleration]}) == [
        e.replace("tolerations[0]", "tolerations[1]") for e in expected
    ]


def test_a_bad_toleration_key_is_a_qualified_name_error() -> None:
    found = errors({**one(), "tolerations": [{"key": "a b", "operator": "Exists"}]})
    assert len(found) == 1
    assert found[0].startswith('spec.tolerations[0].key: Invalid value: "a b": name part must')


QUALIFIED_NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def test_scheduling_gates_are_qualified_names_listed_once() -> None:
    gates = [{"name": "kueue.x-k8s.io/admission"}, {"name": "kueue.x-k8s.io/admission"}, {}]
    assert errors({**one(), "schedulingGates": gates}) == [
        'spec.schedulingGates[1]: Duplicate value: "kueue.x-k8s.io/admission"',
        'spec.schedulingGates[2]: Invalid value: "": name part must be non-empty',
        f'spec.schedulingGates[2]: Invalid value: "": {QUALIFIED_NAME_PART}',
    ]
    assert errors({**one(), "schedulingGates": [{"name": "example.com/wait"}]}) == []


def test_a_gated_pod_cannot_name_its_node_on_create() -> None:
    spec = {**one(), "nodeName": "node-1", "schedulingGates": [{"name": "example.com/wait"}]}
    assert errors(spec) == [
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"
    ]
    # A template is not a pod being created (ValidatePodCreate only).
    assert errors(spec, spec_path="spec.template.spec", template=True) == []


def test_runtime_class_and_preemption_policy_are_validated() -> None:
    assert errors({**one(), "runtimeClassName": "nvidia", "preemptionPolicy": "Never"}) == []
    assert errors({**one(), "runtimeClassName": "NVIDIA"}) == [
        f'spec.runtimeClassName: Invalid value: "NVIDIA": {RFC1123_SUBDOMAIN}'
    ]
    # Set, even to "" (a pointer in Go), is validated.
    assert errors({**one(), "runtimeClassName": ""}) == [
        f'spec.runtimeClassName: Invalid value: "": {RFC1123_SUBDOMAIN}'
    ]
    assert errors({**one(), "preemptionPolicy": ""}) == ["spec.preemptionPolicy: Required value"]
    assert errors({**one(), "preemptionPolicy": "Sometimes"}) == [
        'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: '
        '"PreemptLowerPriority", "Never"'
    ]


def test_container_ports_are_validated_as_validate_container_ports_does() -> None:
    ports = [
        {"containerPort": 8080, "name": "http"},
        {"containerPort": 8081, "name": "http"},  # a name once per container
        {"name": "123"},  # no port; a name needs a letter
        {"name": "Bad--Name-Too-Long", "containerPort": 70000, "hostPort": -1, "protocol": "HTTP"},
    ]
    prefix = "spec.containers[0].ports"
    bad = f'{prefix}[3].name: Invalid value: "Bad--Name-Too-Long"'
    assert errors(one(ports=ports)) == [
        f'{prefix}[1].name: Duplicate value: "http"',
        f'{prefix}[2].name: Invalid value: "123": must contain at least one letter (a-z)',
        f"{prefix}[2].containerPort: Required value",
        f"{bad}: must be no more than 15 characters",
        f"{bad}: must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        f"{bad}: must not contain consecutive hyphens",
        f"{prefix}[3].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        f"{prefix}[3].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
        f'{prefix}[3].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]
    assert errors(one(ports=[{"name": "-grpc", "containerPort": 9000}])) == [
        f'{prefix}[0].name: Invalid value: "-grpc": must not begin or end with a hyphen'
    ]
    fine = [{"name": "grpc-2", "containerPort": 9000, "protocol": "UDP", "hostPort": 9000}]
    assert errors(one(ports=fine)) == []


def test_host_ports_conflict_across_containers_by_protocol_and_ip() -> None:
    def container(name: str, *ports: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "image": "busybox", "ports": list(ports)}

    spec = {
        "containers": [
            container("a", {"containerPort": 80, "hostPort": 8080}),
            container(
                "b",
                {"containerPort": 81, "hostPort": 8080},
                {"containerPort": 82, "hostPort": 8080, "protocol": "UDP"},
                {"containerPort": 83, "hostPort": 8080, "hostIP": "10.0.0.1"},
            ),
        ]
    }
    # checkHostPortConflicts, after every container's own checks.
    assert errors(spec) == ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']


ENV_NAME_1_31 = (
    "a valid environment variable name must consist of alphabetic characters, digits, '_', "
    "'-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
    "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"
)


def test_env_var_names_follow_the_release() -> None:
    # RelaxedEnvironmentVariableValidation: beta and on from 1.32.
    env = [{"name": "OK", "value": "1"}, {"name": "1_NAME"}, {"name": ""}, {"name": "a=b"}]
    old = [str(e) for e in validate_pod(make_pod(one(env=env)), version=V131).errors]
    new = [str(e) for e in validate_pod(make_pod(one(env=env))).errors]
    at = "spec.containers[0].env"
    # An empty name is Required only (the name's format is checked when it is set).
    assert old == [
        f'{at}[1].name: Invalid value: "1_NAME": {ENV_NAME_1_31}',
        f"{at}[2].name: Required value",
        f'{at}[3].name: Invalid value: "a=b": {ENV_NAME_1_31}',
    ]
    assert new == [
        f"{at}[2].name: Required value",
        f'{at}[3].name: Invalid value: "a=b": a valid environment variable name must consist '
        "only of printable ASCII characters other than '='",
    ]
    assert errors(one(env=[{"name": "..", "value": "x"}]), version=V131) == [
        f"{at}[0].name: Invalid value: \"..\": must not be '..'"
    ]


def test_a_resource_field_ref_names_a_container_resource_and_a_divisor_it_allows() -> None:
    def ref(resource: str, divisor: str | None = None) -> dict[str, Any]:
        selector = {"resource": resource}
        if divisor is not None:
            selector["divisor"] = divisor
        return {"name": "X", "valueFrom": {"resourceFieldRef": selector}}

    fine = [
        ref("limits.cpu", "1m"),
        ref("requests.cpu", "1000m"),  # canonically "1"
        ref("limits.memory", "1Mi"),
        ref("limits.hugepages-2Mi"),
        ref("limits.cpu", "0"),  # zero: unset
    ]
    assert errors(one(env=fine)) == []
    bad = [ref("limits.cpu", "2"), ref("requests.memory", "1024"), ref("limits.nvidia.com/gpu")]
    at = "spec.containers[0].env"
    assert errors(one(env=bad)) == [
        f'{at}[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only '
        "divisor's values 1m and 1 are supported with the cpu resource",
        f'{at}[1].valueFrom.resourceFieldRef.divisor: Invalid value: "requests.memory": only '
        "divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported "
        "with the memory resource",
        f"{at}[2].valueFrom.resourceFieldRef.resource: Unsupported value: "
        '"limits.nvidia.com/gpu": supported values: "limits.cpu", "limits.ephemeral-storage", '
        '"limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"',
    ]


def test_a_field_ref_needs_a_field_path() -> None:
    env = [{"name": "NODE", "valueFrom": {"fieldRef": {}}}]
    assert errors(one(env=env)) == [
        "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Required value"
    ]
    fine = [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]
    assert errors(one(env=fine)) == []


def test_an_env_value_comes_from_exactly_one_source() -> None:
    secret = {"secretKeyRef": {"name": "creds", "key": "token"}}
    env = [
        {"name": "A", "value": "v", "valueFrom": secret},
        {"name": "B", "valueFrom": {}},
        {"name": "C", "valueFrom": {**secret, "configMapKeyRef": {"key": "a b"}}},
    ]
    at = "spec.containers[0].env"
    assert errors(one(env=env)) == [
        f'{at}[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        f'{at}[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, '
        "`resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        f'{at}[2].valueFrom.configMapKeyRef.name: Invalid value: "": {RFC1123_SUBDOMAIN}',
        f'{at}[2].valueFrom.configMapKeyRef.key: Invalid value: "a b": a valid config key must '
        "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  "
        "or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        f'{at}[2].valueFrom: Invalid value: "": may not have more than one field specified at a '
        "time",
    ]


def test_probes_are_validated_as_validate_probe_does() -> None:
    at = "spec.containers[0]"
    spec = one(
        livenessProbe={
            "httpGet": {"path": "/healthz", "port": 8080},
            "successThreshold": 2,
            "initialDelaySeconds": -1,
        },
        readinessProbe={
            "exec": {"command": ["true"]},
            "tcpSocket": {"port": "http"},  # a second handler
            "terminationGracePeriodSeconds": 5,
        },
        startupProbe={},
    )
    assert errors(spec) == [
        f"{at}.livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or "
        "equal to 0",
        f"{at}.livenessProbe.successThreshold: Invalid value: 2: must be 1",
        f"{at}.readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
        f"{at}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set "
        "for readinessProbes",
        f"{at}.startupProbe: Required value: must specify a handler type",
    ]


def test_probe_actions_are_checked() -> None:
    at = "spec.containers[0]"
    spec = one(
        livenessProbe={"httpGet": {"scheme": "http", "httpHeaders": [{"name": "Bad Header"}]}},
        readinessProbe={"grpc": {"port": 70000}},
        startupProbe={"exec": {}, "terminationGracePeriodSeconds": 0},
    )
    assert errors(spec) == [
        # No port: IntOrString's zero value, the number 0.
        f"{at}.livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, "
        "inclusive",
        f'{at}.livenessProbe.httpGet.scheme: Unsupported value: "http": supported values: '
        '"HTTP", "HTTPS"',
        # Go reports a header's name at the list (fldPath.Child("httpHeaders")).
        f'{at}.livenessProbe.httpGet.httpHeaders: Invalid value: "Bad Header": a valid '
        "HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', "
        "regex used for validation is '[-A-Za-z0-9]+')",
        f"{at}.readinessProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, "
        "inclusive",
        f"{at}.startupProbe.exec.command: Required value",
        f"{at}.startupProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater "
        "than 0",
    ]
    # Zero counts are defaulted first (SetDefaults_Probe); readiness may need 3 successes.
    fine = one(
        readinessProbe={"httpGet": {"port": "http"}, "periodSeconds": 0, "successThreshold": 3}
    )
    assert errors(fine) == []
    assert errors(one(livenessProbe={"grpc": {}})) == [
        f"{at}.livenessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive"
    ]


def test_a_sidecars_probes_are_validated_too() -> None:
    sidecar = {
        "name": "proxy",
        "image": "envoy",
        "restartPolicy": "Always",
        "livenessProbe": {"tcpSocket": {"port": 15000}, "successThreshold": 3},
    }
    assert errors({**one(), "initContainers": [sidecar]}) == [
        "spec.initContainers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1"
    ]


def test_volumes_and_mounts_are_validated_as_validate_volumes_does() -> None:
    mounts = [
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "data", "mountPath": "/data"},
        {"name": "cfg", "mountPath": "/data"},
    ]
    spec = {
        **one(volumeMounts=mounts),
        "volumes": [
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "-1Gi"}},
            {"name": "data", "persistentVolumeClaim": {}},
            {"name": "cfg", "configMap": {"name": "c"}, "secret": {"secretName": "s"}},
            {"name": "Bad-", "emptyDir": {}},
            {"name": "cfg2"},
            {"name": "dshm", "emptyDir": {}},  # the first one has errors: this one counts
        ],
    }
    at = "spec.containers[0].volumeMounts"
    assert errors(spec) == [
        "spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource "
        "quantity",
        "spec.volumes[1].persistentVolumeClaim.claimName: Required value",
        # secret comes before configMap in validateVolumeSource: configMap is the second.
        "spec.volumes[2].configMap: Forbidden: may not specify more than 1 volume type",
        f'spec.volumes[3].name: Invalid value: "Bad-": {RFC1123_LABEL}',
        "spec.volumes[4]: Required value: must specify a volume type",
        # A volume with an error is not one a mount can name.
        f'{at}[1].name: Not found: "data"',
        f'{at}[2].name: Not found: "cfg"',
        f'{at}[2].mountPath: Invalid value: "/data": must be unique',
    ]


def test_go_names_two_volume_sources_by_its_own_paths() -> None:
    spec = {**one(), "volumes": [{"name": "v", "configMap": {"name": "c"}, "cephfs": {}}]}
    assert errors(spec) == [
        "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type"
    ]
    spec = {**one(), "volumes": [{"name": "v", "emptyDir": {}, "downwardAPI": {}}]}
    assert errors(spec) == [
        "spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type"
    ]


def test_a_mount_of_a_volume_the_pod_does_not_have_is_not_found() -> None:
    # The /dev/shm mount without its emptyDir: the API server refuses the pod.
    spec = one(volumeMounts=[{"name": "dshm", "mountPath": "/dev/shm"}])
    assert errors(spec) == ['spec.containers[0].volumeMounts[0].name: Not found: "dshm"']
    spec["volumes"] = [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    assert errors(spec) == []
    sidecar = {"name": "s", "image": "x", "restartPolicy": "Always", "volumeMounts": [{}]}
    assert errors({**spec, "initContainers": [sidecar]}) == [
        "spec.initContainers[0].volumeMounts[0].name: Required value",
        'spec.initContainers[0].volumeMounts[0].name: Not found: ""',
        "spec.initContainers[0].volumeMounts[0].mountPath: Required value",
    ]


def test_env_from_is_validated_as_validate_env_from_does() -> None:
    # TestValidateEnvFrom: the missing or second source is reported at the list's path.
    at = "spec.containers[0].envFrom"
    env_from = [
        {"configMapRef": {"name": "settings-"}},  # a trailing "-" is allowed (a prefix name)
        {},
        {"secretRef": {"name": "abc"}, "configMapRef": {"name": "abc"}},
        {"secretRef": {}},
        {"prefix": "a=b", "secretRef": {"name": "s"}},
    ]
    assert errors(one(envFrom=env_from)) == [
        f'{at}: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
        f'{at}: Invalid value: "": may not have more than one field specified at a time',
        f"{at}[3].secretRef.name: Required value",
        f'{at}[4].prefix: Invalid value: "a=b": a valid environment variable name must consist '
        "only of printable ASCII characters other than '='",
    ]
    assert errors(one(envFrom=[{"prefix": "1_", "configMapRef": {"name": "c"}}]), version=V131) == [
        f'{at}[0].prefix: Invalid value: "1_": {ENV_NAME_1_31}'
    ]


# Any JSON value where the pod-spec validators of ports, env, probes, volumes, tolerations,
# gates and names read one: each is an error at a path, or nothing, never an exception.
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.sampled_from(["", "x", "Bad Name", "a=b", "-1Gi", "1m", "http", "TCP", "Exists"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=12,
)
_field_names = st.sampled_from(
    [
        "ports",
        "env",
        "envFrom",
        "volumeMounts",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "name",
        "image",
    ]
)
_spec_names = st.sampled_from(
    [
        "volumes",
        "tolerations",
        "schedulingGates",
        "nodeName",
        "hostname",
        "subdomain",
        "serviceAccountName",
        "activeDeadlineSeconds",
        "runtimeClassName",
        "preemptionPolicy",
    ]
)
_field_values = st.one_of(
    _json,
    st.lists(
        st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "containerPort",
                    "hostPort",
                    "protocol",
                    "value",
                    "valueFrom",
                    "mountPath",
                    "httpGet",
                    "exec",
                    "tcpSocket",
                    "grpc",
                    "key",
                    "operator",
                    "effect",
                    "tolerationSeconds",
                    "emptyDir",
                    "projected",
                    "secretRef",
                    "configMapRef",
                    "prefix",
                    "resourceFieldRef",
                    "divisor",
                    "port",
                ]
            ),
            _json,
            max_size=4,
        ),
        max_size=3,
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    container=st.dictionaries(_field_names, _field_values, max_size=4),
    spec=st.dictionaries(_spec_names, _field_values, max_size=4),
)
def test_any_values_in_the_spec_fields_give_errors_not_exceptions(
    container: dict[str, Any], spec: dict[str, Any]
) -> None:
    try:
        pod = make_pod({"containers": [{"name": "app", "image": "x", **container}], **spec})
    except Exception:  # noqa: BLE001 - a value the model cannot hold is the decoder's error
        return
    for error in validate_pod(pod).errors:
        assert error.field.startswith("spec.")
        assert str(error).startswith(error.field + ": ")


def test_lifecycle_hooks_have_one_handler_each() -> None:
    at = "spec.containers[0].lifecycle"
    hooks = {
        "postStart": {"exec": {"command": ["warm-up"]}, "httpGet": {"port": 80}},
        "preStop": {},
    }
    assert errors(one(lifecycle=hooks)) == [
        f"{at}.postStart.httpGet: Forbidden: may not specify more than 1 handler type",
        f"{at}.preStop: Required value: must specify a handler type",
    ]
    assert errors(one(lifecycle={"preStop": {"sleep": {"seconds": 5}}})) == []


def test_init_containers_host_ports_conflict_within_each_one_named_as_go_names_it() -> None:
    # validateInitContainers: checkHostPortConflicts([]core.Container{ctr}, fldPath), one
    # container at a time, so the path says initContainers[0] whichever it is.
    ports = [{"containerPort": 80, "hostPort": 80}, {"containerPort": 81, "hostPort": 80}]
    inits = [
        {"name": "a", "image": "x"},
        {"name": "b", "image": "x", "ports": ports},
    ]
    assert errors({**one(), "initContainers": inits}) == [
        'spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//80"'
    ]


def test_a_hugepages_field_ref_takes_byte_divisors() -> None:
    def ref(divisor: str) -> list[dict[str, Any]]:
        selector = {"resource": "limits.hugepages-2Mi", "divisor": divisor}
        return [{"name": "HP", "valueFrom": {"resourceFieldRef": selector}}]

    assert errors(one(env=ref("1Mi"))) == []
    assert errors(one(env=ref("3Mi"))) == [
        "spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "
        '"limits.hugepages-2Mi": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, '
        "1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"
    ]


def test_the_deprecated_service_account_field_is_validated_as_the_name() -> None:
    # Convert_v1_PodSpec_To_core_PodSpec copies serviceAccount when serviceAccountName is unset.
    assert errors({**one(), "serviceAccount": "Robot"}) == [
        f'spec.serviceAccountName: Invalid value: "Robot": {RFC1123_SUBDOMAIN}'
    ]


def test_a_pods_image_whitespace_comes_before_its_create_only_errors() -> None:
    # validatePodMetadataAndSpec ends with validateContainersOnlyForPod; ValidatePodCreate's
    # own checks come after it.
    spec = {
        "containers": [{"name": "app", "image": " nginx"}],
        "nodeName": "node-1",
        "schedulingGates": [{"name": "example.com/wait"}],
    }
    assert [e.split(":")[0] for e in errors(spec)] == ["spec.containers[0].image", "spec.nodeName"]


def test_an_exists_toleration_with_a_value_prints_the_whole_toleration_on_1_31() -> None:
    tolerations = [{"key": "pool", "operator": "Exists", "value": "build", "effect": "NoSchedule"}]
    assert errors({**one(), "tolerations": tolerations}, version=V131) == [
        'spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"pool", '
        'Operator:"Exists", Value:"build", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}: '
        "value must be empty when `operator` is 'Exists'"
    ]
    assert errors({**one(), "tolerations": tolerations}) == [
        'spec.tolerations[0].operator: Invalid value: "build": value must be empty when '
        "`operator` is 'Exists'"
    ]
