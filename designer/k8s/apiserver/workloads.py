"""The API server's validation of the objects a pod is exported in or analyzed with, with its
field paths and wording: the workload kinds (apps.py: Deployment, ReplicaSet, StatefulSet,
DaemonSet; batch.py: Job, CronJob), a headless Service and a HorizontalPodAutoscaler (here),
each pod template through ``validate_pod``.

Go sources mirrored (kubernetes/kubernetes, current master):

* pkg/apis/autoscaling/validation/validation.go: ``validateHorizontalPodAutoscalerSpec``,
  ``ValidateCrossVersionObjectReference``, ``validateMetricSpec``, ``validateMetricTarget``;
* pkg/apis/core/validation/validation.go: ``ValidateService`` (name is a DNS-1035 label,
  ``validateServicePort``, selector labels), ``ValidateObjectMeta``;
* apimachinery field/errors.go ``ErrorBody``: a label map prints as Go's ``%#v``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from designer.k8s.apiserver.apps import (
    daemonset_own,
    deployment_own,
    replicaset_own,
    replicationcontroller_own,
    statefulset_own,
    validate_daemonset,
    validate_deployment,
    validate_replicaset,
    validate_replicationcontroller,
    validate_statefulset,
)
from designer.k8s.apiserver.batch import cronjob_own, job_own, validate_cronjob, validate_job
from designer.k8s.apiserver.decode import pod_from_parts
from designer.k8s.apiserver.dra import DRA_VALIDATORS
from designer.k8s.apiserver.fields import (
    INT_RE,
    OmitValueError,
    int32_errors,
    int_or_percent_value,
    is_int,
    object_meta,
    template_parts,
    template_warnings,
)
from designer.k8s.apiserver.pod import validate_labels, validate_pod
from designer.k8s.apiserver.versions import LATEST, ClusterVersion
from designer.k8s.core import (
    MSG_PORT_NUM,
    FieldError,
    Quantity,
    QuantityError,
    Unquoted,
    child,
    index,
    invalid,
    is_dns1123_label,
    is_valid_path_segment_name,
    name_is_dns1035_label,
    name_is_dns_subdomain,
    not_supported,
    required,
)

__all__ = [
    "INT_RE",
    "OmitValueError",
    "int_or_percent_value",
    "is_int",
    "object_errors",
    "template_parts",
    "template_warnings",
    "validate_objects",
    "validate_objects_own",
]

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
SUPPORTED_PROTOCOLS = ("SCTP", "TCP", "UDP")


def validate_service(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateService (core/validation): the parts of a headless Service we write."""
    errs = object_meta(obj.get("metadata"), name_is_dns1035_label)
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
        int_errs = int32_errors(number, child(path, "port"))
        errs += int_errs
        if not int_errs and not (is_int(number) and 1 <= number <= 65535):
            errs.append(
                invalid(child(path, "port"), number if number is not None else 0, MSG_PORT_NUM)
            )
        protocol = port.get("protocol") or "TCP"
        if protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child(path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
        target = port.get("targetPort")
        if is_int(target) and not 1 <= target <= 65535:
            errs.append(invalid(child(path, "targetPort"), target, MSG_PORT_NUM))
    selector = spec.get("selector")
    errs += validate_labels(selector if isinstance(selector, dict) else None, "spec.selector")
    return errs


def validate_hpa(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateHorizontalPodAutoscaler (autoscaling/validation), autoscaling/v2."""
    errs = object_meta(obj.get("metadata"), name_is_dns_subdomain)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    low = spec.get("minReplicas")
    high = spec.get("maxReplicas", 0)
    errs += int32_errors(low, "spec.minReplicas") + int32_errors(high, "spec.maxReplicas")
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
        int_errs = int32_errors(utilization, child(path, "averageUtilization"))
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
    "ReplicaSet": validate_replicaset,
    "ReplicationController": validate_replicationcontroller,
    "StatefulSet": validate_statefulset,
    "DaemonSet": validate_daemonset,
    "Job": validate_job,
    "CronJob": validate_cronjob,
    "Service": validate_service,
    "HorizontalPodAutoscaler": validate_hpa,
    # ResourceClaimTemplate, ResourceClaim, DeviceClass (resource.k8s.io/v1)
    **DRA_VALIDATORS,
}


# The workload kinds whose object the API server validates beyond its pod template: the
# apiVersion it is served at (a CRD kind of the same name is not it) and the validation.
OwnErrors = Callable[[dict[str, Any], ClusterVersion], tuple[list[FieldError], list[FieldError]]]
OWN_VALIDATORS: dict[str, tuple[str, OwnErrors]] = {
    "Deployment": ("apps/v1", deployment_own),
    "ReplicaSet": ("apps/v1", replicaset_own),
    "ReplicationController": ("v1", replicationcontroller_own),
    "StatefulSet": ("apps/v1", statefulset_own),
    "DaemonSet": ("apps/v1", daemonset_own),
    "Job": ("batch/v1", job_own),
    "CronJob": ("batch/v1", cronjob_own),
}


def object_errors(
    obj: Any, version: ClusterVersion | None = None
) -> tuple[list[FieldError], list[FieldError]]:
    """The errors the API server (of ``version``, the newest by default) gives a workload
    object (OWN_VALIDATORS' kinds) that are not its pod template's (the pod report gives
    those, by the same rules): the ones it lists before the template's and the ones after.
    ``([], [])`` for other kinds."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    found = OWN_VALIDATORS.get(kind) if isinstance(kind, str) else None
    if found is None or obj.get("apiVersion") != found[0]:
        return [], []
    return found[1](obj, version or LATEST)


def validate_objects(objects: list[dict[str, Any]]) -> list[tuple[int, FieldError]]:
    """Every object's errors as the API server reports them, with the object's index."""
    out: list[tuple[int, FieldError]] = []
    for i, obj in enumerate(objects):
        validator = VALIDATORS.get(str(obj.get("kind"))) if isinstance(obj, dict) else None
        if validator is not None:
            out += [(i, e) for e in validator(obj)]
    return out


def validate_objects_own(
    objects: list[dict[str, Any]], version: ClusterVersion | None = None
) -> list[tuple[int, FieldError]]:
    """validate_objects without the errors of the objects' pod templates (a design's pod
    report gives those): a workload's own (object_errors, for ``version``), every error of
    the other kinds (a Service, an autoscaler, a claim)."""
    out: list[tuple[int, FieldError]] = []
    for i, obj in enumerate(objects):
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind in OWN_VALIDATORS:
            before, after = object_errors(obj, version)
            out += [(i, e) for e in before + after]
        elif kind != "Pod":
            out += [(i, e) for _, e in validate_objects([obj])]
    return out
