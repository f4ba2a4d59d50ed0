"""The API server's validation of the objects a pod is exported in: Deployment, Job (Indexed
included), headless Service and HorizontalPodAutoscaler, with its field paths and wording; each
pod template runs through ``validate_pod``.

Go sources mirrored (kubernetes/kubernetes, current master):

* pkg/apis/apps/validation/validation.go: ``ValidateDeployment`` -> ``ValidateDeploymentSpec``
  (replicas, selector, ``ValidatePodTemplateSpecForReplicaSet``, ``ValidateDeploymentStrategy``
  -> ``ValidateRollingUpdateDeployment`` / ``ValidatePositiveIntOrPercent`` /
  ``IsNotMoreThan100Percent``);
* pkg/apis/batch/validation/validation.go: ``ValidateJob`` -> ``validateJobSpec`` (counters,
  completionMode, podFailurePolicy, the template's restartPolicy) and the Indexed Job
  hostname check;
* pkg/apis/autoscaling/validation/validation.go: ``validateHorizontalPodAutoscalerSpec``,
  ``ValidateCrossVersionObjectReference``, ``validateMetricSpec``, ``validateMetricTarget``;
* pkg/apis/core/validation/validation.go: ``ValidateService`` (name is a DNS-1035 label,
  ``validateServicePort``, selector labels), ``ValidateObjectMeta``;
* apimachinery field/errors.go ``ErrorBody``: an IntOrString prints bare (it is a
  ``fmt.Stringer`` through its pointer), a label map prints as Go's ``%#v``.

Decisions:

"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from designer.k8s.apiserver.decode import pod_from_parts
from designer.k8s.apiserver.dra import DRA_VALIDATORS
from designer.k8s.apiserver.pod import MSG_NAME_REQUIRED, validate_labels, validate_pod
from designer.k8s.apiserver.resources import MSG_NEGATIVE
from designer.k8s.core import (
    ERROR_TYPE_TEXT,
    FieldError,
    FieldWarning,
    Pod,
    Quantity,
    QuantityError,
    Unquoted,
    child,
    forbidden,
    go_map,
    go_quote,
    index,
    invalid,
    is_dns1123_label,
    is_valid_path_segment_name,
    max_len_error,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_supported,
    regex_error,
    required,
)

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
COMPLETION_INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# --- Go messages, verbatim --------------------------------------------------------------

MSG_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
MSG_SELECTOR_EMPTY = "empty selector is invalid for deployment"
# The generated String() of an empty *metav1.LabelSelector (a Stringer: printed bare).
EMPTY_SELECTOR = Unquoted(
    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
)
MSG_ZERO_SURGE = "may not be 0 when `maxSurge` is 0"
MSG_OVER_100 = "must not be greater than 100%"
MSG_RS_DEADLINE = "activeDeadlineSeconds in ReplicaSet is not Supported"
PERCENT_FMT = "[0-9]+%"
PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"
MSG_INDEXED_COMPLETIONS = "when completion mode is Indexed"
MAX_INDEXED_PARALLELISM = 100000  # batch validation: maxParallelismForIndexedJob
MSG_INDEXED_PARALLELISM = "must be less than or equal to 100000 when completion mode is Indexed"
MSG_INDEXED_HOSTNAME = "will not able to create pod with invalid DNS label: {hostname}"
MSG_JOB_RESTART = 'valid values: "OnFailure", "Never"'
MSG_PFP_RESTART = 'only "Never" is supported when podFailurePolicy is specified'
SUPPORTED_COMPLETION_MODES = ("NonIndexed", "Indexed")
SUPPORTED_PFP_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")  # sets.List: sorted
MSG_HPA_MIN = "must be greater than or equal to 1"  # HPAScaleToZero is alpha, off
MSG_HPA_MAX = "must be greater than 0"
MSG_HPA_MAX_MIN = "must be greater than or equal to `minReplicas`"
MSG_UTILIZATION = "must be greater than 0"
MSG_POSITIVE = "must be positive"
MSG_TARGET_TYPE = "must be either Utilization, Value, or AverageValue"
MSG_METRIC_TYPE_REQUIRED = "must specify a metric source type"
MSG_METRIC_SOURCE = "must populate information for the given metric source"
MSG_RESOURCE_NAME = "must specify a resource name"
MSG_METRIC_NAME = "must specify a metric name"
MSG_TARGET_TYPE_REQUIRED = "must specify a metric target type"
MSG_RESOURCE_TARGET = "must set either a target raw value or a target utilization"
MSG_PODS_TARGET = "must specify a positive target averageValue"
SUPPORTED_METRIC_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
MSG_PORT_RANGE = "must be between 1 and 65535, inclusive"
SUPPORTED_PROTOCOLS = ("SCTP", "TCP", "UDP")
MSG_INT32 = "must be a 32-bit integer"

_PERCENT_RE = re.compile("^" + PERCENT_FMT + "$")
INT_RE = re.compile(r"^[+-]?[0-9]+$")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int32(value: Any, path: str) -> list[FieldError]:
    """The decoder refuses a value that is not an int32 (a 400, not a field.Error)."""
    if value is None or (is_int(value) and INT32_MIN <= value <= INT32_MAX):
        return []
    return [FieldError(path, "FieldValueTypeInvalid", MSG_INT32, value)]


def _nonnegative(value: Any, path: str) -> list[FieldError]:
    """ValidateNonnegativeField (after the int32 decoding check)."""
    errs = _int32(value, path)
    if errs or value is None:
        return errs
    return [invalid(path, value, MSG_NEGATIVE)] if value < 0 else []


def _object_meta(meta: Any, name_fn: Callable[..., list[str]]) -> list[FieldError]:
    """ValidateObjectMeta for the parts we write: generateName, name, namespace, labels."""
    meta = meta if isinstance(meta, dict) else {}
    errs: list[FieldError] = []
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        path = "metadata.generateName"
        errs += [invalid(path, generate, m) for m in name_fn(generate, prefix=True)]
    name = meta.get("name")
    if not name:
        if not (isinstance(generate, str) and generate):
            errs.append(required("metadata.name", MSG_NAME_REQUIRED))
    else:
        errs += [invalid("metadata.name", name, m) for m in name_fn(str(name))]
    namespace = meta.get("namespace")
    if namespace:
        errs += [invalid("metadata.namespace", namespace, m) for m in name_is_dns_label(namespace)]
    labels = meta.get("labels")
    errs += validate_labels(labels if isinstance(labels, dict) else None, "metadata.labels")
    return errs


def template_parts(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    pod_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    return spec, meta, pod_spec


def _pod_template_errors(
    meta: dict[str, Any], pod_spec: dict[str, Any]
) -> tuple[list[FieldError], Pod | None]:
    """ValidatePodTemplateSpec through the engine. Template labels are reported at
    ``spec.template.labels``: Go passes ``fldPath.Child("labels")`` there."""

    pod, errors = pod_from_parts(
        meta,
        pod_spec,
        metadata_path="spec.template.metadata",
        spec_path="spec.template.spec",
    )
    if pod is None:
        return errors, None
    result = validate_pod(pod, spec_path="spec.template.spec", template=True)
    errors = list(result.errors)
    subdomain = pod_spec.get("subdomain")
    if isinstance(subdomain, str) and subdomain:
        # ValidatePodSpec: ValidateDNS1123Label(spec.Subdomain, fldPath.Child("subdomain")).
        path = "spec.template.spec.subdomain"
        errors += [invalid(path, subdomain, m) for m in is_dns1123_label(subdomain)]
    return errors, pod


def template_warnings(obj: dict[str, Any]) -> list[FieldWarning]:

    _, meta, pod_spec = template_parts(obj)
    pod, _ = pod_from_parts(meta, pod_spec)
    if pod is None:
        return []
    return validate_pod(pod, spec_path="spec.template.spec", template=True).warnings


# --- int or percent (apps validation) ------------------------------------------------------


def _percent_value(value: Any) -> int | None:
    """getPercentValue: the number of a valid percent string, else None."""
    if isinstance(value, str) and _PERCENT_RE.fullmatch(value):
        # strconv.Atoi, clamped past int64 (Python will not convert past 4,300 digits).
        return INT64_MAX if len(value) > 20 else min(int(value[:-1]), INT64_MAX)
    return None


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a percent's number, an int, or IntValue() of a string."""
    percent = _percent_value(value)
    if percent is not None:
        return percent
    if is_int(value):
        return value
    if isinstance(value, str):
        # strconv.Atoi: 0 when it is not a number (Python's int() also takes spaces and
        # underscores, Go's does not); out of int64, the clamped value with ErrRange, which
        # IntValue ignores (and Python will not convert past 4,300 digits).
        if not INT_RE.fullmatch(value):
            return 0
        if len(value.lstrip("+-")) > 19:
            return INT64_MIN if value.startswith("-") else INT64_MAX
        return max(INT64_MIN, min(INT64_MAX, int(value)))
    return 0


def _positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        if _percent_value(value) is None:
            msg = regex_error(PERCENT_MSG, PERCENT_FMT, "1%", "93%")
            return [invalid(path, Unquoted(value), msg)]
        return []
    if is_int(value):
        errs = _int32(value, path)
        return errs or ([invalid(path, value, MSG_NEGATIVE)] if value < 0 else [])
    return [FieldError(path, "FieldValueTypeInvalid", "must be an integer or percentage", value)]


def _not_more_than_100(value: Any, path: str) -> list[FieldError]:
    percent = _percent_value(value)
    if percent is None or percent <= 100:
        return []
    return [invalid(path, Unquoted(value), MSG_OVER_100)]


def _iostr(value: Any) -> Any:
    """How an IntOrString bad value prints: bare (String() of the pointer)."""
    return Unquoted(str(value)) if isinstance(value, str | int) else value


# --- per kind ------------------------------------------------------------------------------


def _selector_labels(selector: Any) -> dict[str, Any] | None:
    if not isinstance(selector, dict):
        return None
    labels = selector.get("matchLabels")
    return labels if isinstance(labels, dict) else {}


def _matches(selector: dict[str, Any], labels: dict[str, Any] | None) -> bool:
    """matchLabels only (the exporter writes no matchExpressions)."""
    labels = labels or {}
    return all(k in labels and str(labels[k]) == str(v) for k, v in selector.items())


def validate_deployment(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateDeployment (apps/validation): metadata, then ValidateDeploymentSpec."""
    before, after = _deployment_own(obj)
    _spec, meta, pod_spec = template_parts(obj)
    return before + _pod_template_errors(meta, pod_spec)[0] + after


def _deployment_own(obj: dict[str, Any]) -> tuple[list[FieldError], list[FieldError]]:
    """ValidateDeployment's errors that are not its pod template's: those before the
    template's (metadata, replicas, selector) and those after (the template's restart
    policy and deadline, the strategy)."""
    errs = _object_meta(obj.get("metadata"), name_is_dns_subdomain)
    spec, meta, pod_spec = template_parts(obj)
    if "replicas" in spec:
        errs += _nonnegative(spec.get("replicas"), "spec.replicas")
    selector = spec.get("selector")
    labels = _selector_labels(selector)
    if labels is None:
        errs.append(required("spec.selector"))
    else:
        errs += validate_labels(labels, "spec.selector.matchLabels")
        expressions = selector.get("matchExpressions") or []
        if not labels and not expressions:
            errs.append(invalid("spec.selector", EMPTY_SELECTOR, MSG_SELECTOR_EMPTY))
    # ValidatePodTemplateSpecForReplicaSet
    template_labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
    # LabelSelectorAsSelector: nil -> Nothing (matches nothing, not Empty); {} -> Everything.
    if labels is None or (labels and not _matches(labels, template_labels)):
        errs.append(
            invalid("spec.template.metadata.labels", go_map(template_labels), MSG_SELECTOR_MISMATCH)
        )
    after: list[FieldError] = []
    restart = pod_spec.get("restartPolicy") or "Always"  # defaulted before validation
    if restart != "Always":
        after.append(not_supported("spec.template.spec.restartPolicy", restart, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        after.append(forbidden("spec.template.spec.activeDeadlineSeconds", MSG_RS_DEADLINE))
    after += _validate_strategy(spec.get("strategy"))
    return errs, after


def _validate_strategy(strategy: Any) -> list[FieldError]:
    """ValidateDeploymentStrategy on the defaulted strategy (RollingUpdate, 25%/25%)."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    path = "spec.strategy"
    if kind == "Recreate":
        if rolling is not None:
            return [
                forbidden(
                    child(path, "rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                )
            ]
        return []
    if kind != "RollingUpdate":
        return [not_supported(path, Unquoted(str(kind)), ["Recreate", "RollingUpdate"])]
    rolling = rolling if isinstance(rolling, dict) else {}
    surge = rolling.get("maxSurge", "25%")
    unavailable = rolling.get("maxUnavailable", "25%")
    surge = "25%" if surge is None else surge
    unavailable = "25%" if unavailable is None else unavailable
    ru = child(path, "rollingUpdate")
    unavailable_path, surge_path = child(ru, "maxUnavailable"), child(ru, "maxSurge")
    errs = _positive_int_or_percent(unavailable, unavailable_path)
    errs += _positive_int_or_percent(surge, surge_path)
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        errs.append(invalid(unavailable_path, _iostr(unavailable), MSG_ZERO_SURGE))
    errs += _not_more_than_100(unavailable, unavailable_path)
    return errs


def validate_job(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateJob (batch/validation): metadata, validateJobSpec, the Indexed hostname check."""
    before, after = _job_own(obj)
    _spec, meta, pod_spec = template_parts(obj)
    return before + _pod_template_errors(meta, pod_spec)[0] + after


def _job_own(obj: dict[str, Any]) -> tuple[list[FieldError], list[FieldError]]:
    """ValidateJob's errors that are not its pod template's: those before the template's
    (metadata, the counts, completion mode, pod failure policy, the job-name label) and
    those after (the template's restart policy, the Indexed hostname)."""
    meta_obj = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    errs = _object_meta(meta_obj, name_is_dns_subdomain)
    spec, meta, pod_spec = template_parts(obj)
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"):
        if spec.get(name) is not None:
            errs += _nonnegative(spec.get(name), f"spec.{name}")
    if spec.get("ttlSecondsAfterFinished") is not None:
        errs += _nonnegative(spec.get("ttlSecondsAfterFinished"), "spec.ttlSecondsAfterFinished")
    mode = spec.get("completionMode")
    indexed = mode == "Indexed"
    if mode is not None:
        if mode not in SUPPORTED_COMPLETION_MODES:
            errs.append(not_supported("spec.completionMode", mode, SUPPORTED_COMPLETION_MODES))
        if indexed:
            if spec.get("completions") is None:
                errs.append(required("spec.completions", MSG_INDEXED_COMPLETIONS))
            parallelism = spec.get("parallelism")
            if is_int(parallelism) and parallelism > MAX_INDEXED_PARALLELISM:
                errs.append(invalid("spec.parallelism", parallelism, MSG_INDEXED_PARALLELISM))
    policy = spec.get("podFailurePolicy")
    if policy is not None:
        errs += _validate_pod_failure_policy(policy)
    # ValidatePodTemplateSpec: the strategy has already added the job-name labels, whose
    # value is the Job's name (at most 63 characters as a label value).
    name = meta_obj.get("name")
    if isinstance(name, str) and len(name) > 63:
        errs.append(invalid("spec.template.labels", name, max_len_error(63)))
    after: list[FieldError] = []
    restart = pod_spec.get("restartPolicy") or ""
    restart_path = "spec.template.spec.restartPolicy"
    if restart in ("", "Always"):
        after.append(required(restart_path, MSG_JOB_RESTART))
    elif restart not in ("OnFailure", "Never"):
        after.append(not_supported(restart_path, restart, ["OnFailure", "Never"]))
    elif policy is not None and restart != "Never":
        after.append(invalid(restart_path, restart, MSG_PFP_RESTART))
    completions = spec.get("completions")
    if indexed and is_int(completions) and completions > 0 and isinstance(name, str):
        # ValidateJob: pods are named <job>-<index>; the last must be a DNS-1123 label.
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            msg = MSG_INDEXED_HOSTNAME.format(hostname=hostname)
            after.append(invalid("metadata.name", name, msg))
    return errs, after


def _validate_pod_failure_policy(policy: Any) -> list[FieldError]:
    """validatePodFailurePolicy: the rule checks our export can get wrong."""
    rules = policy.get("rules") if isinstance(policy, dict) else None
    errs: list[FieldError] = []
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        path = index("spec.podFailurePolicy.rules", i)
        rule = rule if isinstance(rule, dict) else {}
        action = rule.get("action") or ""
        if not action:
            detail = "valid values: [" + " ".join(go_quote(a) for a in SUPPORTED_PFP_ACTIONS) + "]"
            errs.append(required(child(path, "action"), detail))
        elif action not in SUPPORTED_PFP_ACTIONS:
            errs.append(not_supported(child(path, "action"), action, SUPPORTED_PFP_ACTIONS))
        has_codes = rule.get("onExitCodes") is not None
        has_conditions = bool(rule.get("onPodConditions"))
        if has_codes and has_conditions:
            msg = "specifying both OnExitCodes and OnPodConditions is not supported"
            errs.append(OmitValueError(path, "FieldValueInvalid", msg))
        if not has_codes and not has_conditions:
            msg = "specifying one of OnExitCodes and OnPodConditions is required"
            errs.append(OmitValueError(path, "FieldValueInvalid", msg))
    return errs


class OmitValueError(FieldError):
    """A field.Error whose BadValue is ``field.OmitValueType{}``: ErrorBody prints the
    type and the detail, no value (``Invalid value: specifying ...``)."""

    def body(self) -> str:
        text = ERROR_TYPE_TEXT.get(self.type, self.type)
        return f"{text}: {self.message}" if self.message else text


def validate_service(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateService (core/validation): the parts of a headless Service we write."""
    errs = _object_meta(obj.get("metadata"), name_is_dns1035_label)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    ports = spec.get("ports") if isinstance(spec.get("ports"), list) else []
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and spec.get("type") != "ExternalName":
        errs.append(required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        path = index("spec.ports", i)
        port = port if isinstance(port, dict) else {}
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(required(child(path, "name")))
        elif name:
            errs += [invalid(child(path, "name"), name, m) for m in is_dns1123_label(name)]
            if name in names:
                errs.append(FieldError(child(path, "name"), "FieldValueDuplicate", "", name))
            names.add(name)
        number = port.get("port")
        int_errs = _int32(number, child(path, "port"))
        errs += int_errs
        if not int_errs and not (is_int(number) and 1 <= number <= 65535):
            errs.append(
                invalid(child(path, "port"), number if number is not None else 0, MSG_PORT_RANGE)
            )
        protocol = port.get("protocol") or "TCP"
        if protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child(path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
        target = port.get("targetPort")
        if is_int(target) and not 1 <= target <= 65535:
            errs.append(invalid(child(path, "targetPort"), target, MSG_PORT_RANGE))
    selector = spec.get("selector")
    errs += validate_labels(selector if isinstance(selector, dict) else None, "spec.selector")
    return errs


def validate_hpa(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateHorizontalPodAutoscaler (autoscaling/validation), autoscaling/v2."""
    errs = _object_meta(obj.get("metadata"), name_is_dns_subdomain)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    low = spec.get("minReplicas")
    high = spec.get("maxReplicas", 0)
    errs += _int32(low, "spec.minReplicas") + _int32(high, "spec.maxReplicas")
    if is_int(low) and low < 1:
        errs.append(invalid("spec.minReplicas", low, MSG_HPA_MIN))
    if is_int(high) and high < 1:
        errs.append(invalid("spec.maxReplicas", high, MSG_HPA_MAX))
    if is_int(low) and is_int(high) and high < low:
        errs.append(invalid("spec.maxReplicas", high, MSG_HPA_MAX_MIN))
    ref = spec.get("scaleTargetRef") if isinstance(spec.get("scaleTargetRef"), dict) else {}
    for name in ("kind", "name"):
        path = child("spec.scaleTargetRef", name)
        value = ref.get(name)
        if not value:
            errs.append(required(path))
        else:
            errs += [invalid(path, value, m) for m in is_valid_path_segment_name(str(value))]
    metrics = spec.get("metrics") if isinstance(spec.get("metrics"), list) else []
    for i, metric in enumerate(metrics):
        errs += _validate_metric(
            metric if isinstance(metric, dict) else {}, index("spec.metrics", i)
        )
    return errs


_SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "External": "external",
    "ContainerResource": "containerResource",
}


def _validate_metric(metric: dict[str, Any], path: str) -> list[FieldError]:
    """validateMetricSpec for Resource and Pods sources (what the exporter writes)."""
    errs: list[FieldError] = []
    kind = metric.get("type") or ""
    if not kind:
        errs.append(required(child(path, "type"), MSG_METRIC_TYPE_REQUIRED))
    if kind not in SUPPORTED_METRIC_TYPES:
        errs.append(not_supported(child(path, "type"), kind, SUPPORTED_METRIC_TYPES))
    pods = metric.get("pods")
    resource = metric.get("resource")
    if isinstance(pods, dict):
        source = child(path, "pods")
        errs += _metric_identifier(pods.get("metric"), child(source, "metric"))
        target = pods.get("target") if isinstance(pods.get("target"), dict) else {}
        errs += _metric_target(target, child(source, "target"))
        if target.get("averageValue") is None:
            errs.append(required(child(source, "target", "averageValue"), MSG_PODS_TARGET))
    if isinstance(resource, dict):
        source = child(path, "resource")
        if not resource.get("name"):
            errs.append(required(child(source, "name"), MSG_RESOURCE_NAME))
        target = resource.get("target") if isinstance(resource.get("target"), dict) else {}
        errs += _metric_target(target, child(source, "target"))
        if target.get("averageUtilization") is None and target.get("averageValue") is None:
            errs.append(
                required(child(source, "target", "averageUtilization"), MSG_RESOURCE_TARGET)
            )
    expected = _SOURCE_FIELDS.get(kind)
    if expected and metric.get(expected) is None:
        errs.append(required(child(path, expected), MSG_METRIC_SOURCE))
    return errs


def _metric_identifier(metric: Any, path: str) -> list[FieldError]:
    name = metric.get("name") if isinstance(metric, dict) else None
    if not name:
        return [required(child(path, "name"), MSG_METRIC_NAME)]
    return [invalid(child(path, "name"), name, m) for m in is_valid_path_segment_name(str(name))]


def _metric_target(target: dict[str, Any], path: str) -> list[FieldError]:
    """validateMetricTarget."""
    errs: list[FieldError] = []
    kind = target.get("type") or ""
    if not kind:
        errs.append(required(child(path, "type"), MSG_TARGET_TYPE_REQUIRED))
    if kind not in ("Utilization", "Value", "AverageValue"):
        errs.append(invalid(child(path, "type"), kind, MSG_TARGET_TYPE))
    for name in ("value", "averageValue"):
        raw = target.get(name)
        if raw is None:
            continue
        try:
            q = Quantity.from_json(raw)
        except (QuantityError, ValueError, TypeError) as exc:
            errs.append(invalid(child(path, name), raw, str(exc)))
            continue
        if q.sign() != 1:  # *resource.Quantity: a Stringer, printed bare
            errs.append(invalid(child(path, name), Unquoted(q.canonical()), MSG_POSITIVE))
    utilization = target.get("averageUtilization")
    if utilization is not None:
        int_errs = _int32(utilization, child(path, "averageUtilization"))
        errs += int_errs
        if not int_errs and utilization < 1:
            errs.append(invalid(child(path, "averageUtilization"), utilization, MSG_UTILIZATION))
    return errs


def validate_pod_object(obj: dict[str, Any]) -> list[FieldError]:
    """A bare Pod: validate_pod as for ``kubectl apply``."""

    pod, errors = pod_from_parts(obj.get("metadata"), obj.get("spec"))
    if pod is None:
        return errors
    return list(validate_pod(pod).errors)


VALIDATORS: dict[str, Callable[[dict[str, Any]], list[FieldError]]] = {
    "Pod": validate_pod_object,
    "Deployment": validate_deployment,
    "Job": validate_job,
    "Service": validate_service,
    "HorizontalPodAutoscaler": validate_hpa,
    # ResourceClaimTemplate, ResourceClaim, DeviceClass (resource.k8s.io/v1)
    **DRA_VALIDATORS,
}


# The workload kinds whose object the API server validates beyond its pod template: the
# apiVersion it is served at (a CRD kind of the same name is not it) and the validation.
OwnErrors = Callable[[dict[str, Any]], tuple[list[FieldError], list[FieldError]]]
OWN_VALIDATORS: dict[str, tuple[str, OwnErrors]] = {
    "Deployment": ("apps/v1", _deployment_own),
    "Job": ("batch/v1", _job_own),
}


def object_errors(obj: Any) -> tuple[list[FieldError], list[FieldError]]:
    """The errors the API server gives a workload object (a Deployment, a Job) that are not
    its pod template's (the pod report gives those, by the same rules): the ones it lists
    before the template's and the ones after. ``([], [])`` for other kinds."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    found = OWN_VALIDATORS.get(kind) if isinstance(kind, str) else None
    if found is None or obj.get("apiVersion") != found[0]:
        return [], []
    return found[1](obj)


def validate_objects(objects: list[dict[str, Any]]) -> list[tuple[int, FieldError]]:
    """Every object's errors as the API server reports them, with the object's index."""
    out: list[tuple[int, FieldError]] = []
    for i, obj in enumerate(objects):
        validator = VALIDATORS.get(str(obj.get("kind"))) if isinstance(obj, dict) else None
        if validator is not None:
            out += [(i, e) for e in validator(obj)]
    return out


def validate_objects_own(objects: list[dict[str, Any]]) -> list[tuple[int, FieldError]]:
    """validate_objects without the errors of the objects' pod templates (a design's pod
    report gives those): a Deployment's and a Job's own (object_errors), every error of the
    other kinds (a Service, an autoscaler, a claim)."""
    out: list[tuple[int, FieldError]] = []
    for i, obj in enumerate(objects):
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind in OWN_VALIDATORS:
            before, after = object_errors(obj)
            out += [(i, e) for e in before + after]
        elif kind != "Pod":
            out += [(i, e) for _, e in validate_objects([obj])]
    return out
