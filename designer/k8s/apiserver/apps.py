"""The API server's validation of the apps/v1 kinds beyond their pod template: Deployment,
ReplicaSet, StatefulSet and DaemonSet, with Go's field paths, order and wording, on the object
after apps/v1 defaulting (what ``kubectl apply`` sends is defaulted before it is validated).

Each ``*_own`` function returns the errors the API server lists before the pod template's and
those after; the template's own are the pod report's (``validate_pod``). The pod report is
given for a StatefulSet too, whose create the API server validates without its pod spec (only
its labels and annotations): the StatefulSet controller's pods are refused with those errors.

Go sources mirrored (kubernetes/kubernetes, pkg/apis/apps/validation/validation.go):
``ValidateDeploymentSpec`` (replicas, selector, ``ValidatePodTemplateSpecForReplicaSet``,
strategy, minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds),
``ValidateReplicaSetSpec``, ``ValidateStatefulSetSpec`` (podManagementPolicy, updateStrategy,
``validateRollingUpdateStatefulSet``, persistentVolumeClaimRetentionPolicy, replicas,
minReadySeconds, ordinals, selector, ``ValidatePodTemplateSpecForStatefulSet``),
``ValidateDaemonSetSpec`` (``ValidateDaemonSetUpdateStrategy``, ``ValidateRollingUpdateDaemonSet``);
pkg/apis/apps/v1/defaults.go (``SetDefaults_Deployment``, ``SetDefaults_StatefulSet``,
``SetDefaults_DaemonSet``: a strategy type, a DaemonSet's maxUnavailable 1 and maxSurge 0, a
StatefulSet's partition 0 and Retain policies, revisionHistoryLimit 10, progressDeadlineSeconds
600). A StatefulSet's maxUnavailable follows the release (versions.py: MaxUnavailableStatefulSet is
beta and on from 1.35; before, the API server's strategy drops the field before validation).

Decisions: when the selector does not convert (``invalid label selector``), Go skips the
template checks; the pod report still gives the template's errors, which the pods would get.
"""

from __future__ import annotations

from typing import Any

from designer.k8s.apiserver.fields import (
    MSG_SELECTOR_MISMATCH,
    int32_errors,
    int_or_percent_value,
    iostr,
    nonnegative,
    not_more_than_100,
    object_meta,
    pod_template_errors,
    positive_int_or_percent,
    template_parts,
    validate_annotations,
)
from designer.k8s.apiserver.pod import validate_labels
from designer.k8s.apiserver.selectors import (
    go_label_selector,
    is_empty_selector,
    is_everything,
    selector_matcher,
    validate_label_selector,
)
from designer.k8s.apiserver.versions import LATEST, ClusterVersion
from designer.k8s.core import (
    FieldError,
    Unquoted,
    child,
    forbidden,
    go_map,
    go_quote,
    invalid,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_supported,
    required,
)

MSG_ZERO_SURGE = "may not be 0 when `maxSurge` is 0"
MSG_INVALID_SELECTOR = "invalid label selector"
MSG_PROGRESS_DEADLINE = "must be greater than minReadySeconds"
MSG_DS_SURGE_AND_UNAVAILABLE = "may not be set when maxUnavailable is non-zero"
MSG_DS_BOTH_ZERO = "cannot be 0 when maxSurge is 0"
MSG_POD_MANAGEMENT = "must be 'OrderedReady' or 'Parallel'"
MSG_STS_STRATEGY = "must be 'RollingUpdate' or 'OnDelete'"
MSG_STS_ON_DELETE = "only allowed for updateStrategy 'RollingUpdate'"
RETENTION_POLICIES = ("Retain", "Delete")
DEFAULT_PROGRESS_DEADLINE = 600
ErrorPair = tuple[list[FieldError], list[FieldError]]


def _spec_int(spec: dict[str, Any], name: str, default: Any = None) -> Any:
    value = spec.get(name)
    return default if value is None else value


def _empty_selector_message(kind: str) -> str:
    return f"empty selector is invalid for {kind}"


def _required_selector(spec: dict[str, Any], empty_for: str) -> list[FieldError]:
    """A selector that must be set: Required, or ValidateLabelSelector and the empty check."""
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return [required("spec.selector")]
    errs = validate_label_selector(selector, "spec.selector")
    if is_empty_selector(selector):
        errs.append(
            invalid(
                "spec.selector", go_label_selector(selector), _empty_selector_message(empty_for)
            )
        )
    return errs


def _mismatch(template_meta: dict[str, Any]) -> FieldError:
    labels = template_meta.get("labels")
    labels = labels if isinstance(labels, dict) else None
    return invalid("spec.template.metadata.labels", go_map(labels), MSG_SELECTOR_MISMATCH)


def _template_selector(
    spec: dict[str, Any], meta: dict[str, Any], invalid_detail: str
) -> list[FieldError]:
    """LabelSelectorAsSelector, then (ValidatePodTemplateSpecFor{ReplicaSet,StatefulSet})
    whether a selector with requirements matches the template's labels."""
    selector = spec.get("selector")
    matcher = selector_matcher(selector)
    if matcher is None:
        return [invalid("spec.selector", go_label_selector(selector), invalid_detail)]
    if not is_everything(matcher) and not matcher(meta.get("labels")):
        return [_mismatch(meta)]
    return []


def _always_restart(pod_spec: dict[str, Any], kind: str) -> list[FieldError]:
    """The template's restartPolicy (defaulted Always) and activeDeadlineSeconds."""
    errs: list[FieldError] = []
    restart = pod_spec.get("restartPolicy") or "Always"
    if restart != "Always":
        errs.append(not_supported("spec.template.spec.restartPolicy", restart, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        message = f"activeDeadlineSeconds in {kind} is not Supported"
        errs.append(forbidden("spec.template.spec.activeDeadlineSeconds", message))
    return errs


def _go_strategy(struct: str, rolling_struct: str, kind: str, rolling: Any) -> Unquoted:
    """``%#v`` of an internal update strategy (a pointer field prints as its address, which
    differs from request to request: shown as ``0xc000…``)."""
    pointer = "nil" if rolling is None else "0xc000…"
    return Unquoted(
        f"apps.{struct}{{Type:{go_quote(kind)}, RollingUpdate:(*apps.{rolling_struct})({pointer})}}"
    )


# --- Deployment ----------------------------------------------------------------------------


def deployment_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateDeployment's errors that are not its pod template's: those before the
    template's (metadata, replicas, selector) and those after (the template's restart
    policy and deadline, the strategy, the other counts)."""
    errs = object_meta(obj.get("metadata"), name_is_dns_subdomain, version)
    spec, meta, pod_spec = template_parts(obj)
    if "replicas" in spec:
        errs += nonnegative(spec.get("replicas"), "spec.replicas")
    errs += _required_selector(spec, "deployment")
    errs += _template_selector(spec, meta, MSG_INVALID_SELECTOR)
    # ValidatePodTemplateSpecForReplicaSet (the restart policy and deadline too) runs only
    # when the selector converts.
    converts = selector_matcher(spec.get("selector")) is not None
    after = _always_restart(pod_spec, "ReplicaSet") if converts else []
    after += _validate_strategy(spec.get("strategy"))
    min_ready = _spec_int(spec, "minReadySeconds", 0)
    after += nonnegative(min_ready, "spec.minReadySeconds")
    if spec.get("revisionHistoryLimit") is not None:
        after += nonnegative(spec["revisionHistoryLimit"], "spec.revisionHistoryLimit")
    deadline = _spec_int(spec, "progressDeadlineSeconds", DEFAULT_PROGRESS_DEADLINE)
    after += nonnegative(deadline, "spec.progressDeadlineSeconds")
    decoded = not int32_errors(deadline, "") and not int32_errors(min_ready, "")
    if decoded and _numbers(deadline, min_ready) and deadline <= min_ready:
        after.append(invalid("spec.progressDeadlineSeconds", deadline, MSG_PROGRESS_DEADLINE))
    return errs, after


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


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
        value = _go_strategy("DeploymentStrategy", "RollingUpdateDeployment", str(kind), rolling)
        return [not_supported(path, value, ["Recreate", "RollingUpdate"])]
    rolling = rolling if isinstance(rolling, dict) else {}
    surge = rolling.get("maxSurge", "25%")
    unavailable = rolling.get("maxUnavailable", "25%")
    surge = "25%" if surge is None else surge
    unavailable = "25%" if unavailable is None else unavailable
    ru = child(path, "rollingUpdate")
    unavailable_path, surge_path = child(ru, "maxUnavailable"), child(ru, "maxSurge")
    errs = positive_int_or_percent(unavailable, unavailable_path)
    errs += positive_int_or_percent(surge, surge_path)
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        errs.append(invalid(unavailable_path, iostr(unavailable), MSG_ZERO_SURGE))
    errs += not_more_than_100(unavailable, unavailable_path)
    return errs


# --- ReplicaSet ----------------------------------------------------------------------------


def replicaset_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateReplicaSet: metadata, replicas, minReadySeconds, the selector (Go's message
    says "deployment" for a ReplicaSet too), then after the template its restart policy."""
    errs = object_meta(obj.get("metadata"), name_is_dns_subdomain, version)
    spec, meta, pod_spec = template_parts(obj)
    if "replicas" in spec:
        errs += nonnegative(spec.get("replicas"), "spec.replicas")
    errs += nonnegative(_spec_int(spec, "minReadySeconds", 0), "spec.minReadySeconds")
    errs += _required_selector(spec, "deployment")
    errs += _template_selector(spec, meta, MSG_INVALID_SELECTOR)
    if selector_matcher(spec.get("selector")) is None:
        return errs, []  # the template is not checked (see deployment_own)
    return errs, _always_restart(pod_spec, "ReplicaSet")


# --- ReplicationController (core/v1) -----------------------------------------------------


def replicationcontroller_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateReplicationController (core validation): metadata, minReadySeconds, a
    non-empty selector (a map; SetDefaults_ReplicationController copies the template's labels
    into an empty one), replicas, the selector against the template's labels, then after the
    template its restart policy and deadline."""
    spec, meta, pod_spec = template_parts(obj)
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if labels and not metadata.get("labels"):
        metadata = {**metadata, "labels": labels}  # defaulted from the template too
    errs = object_meta(metadata, name_is_dns_subdomain, version)
    errs += nonnegative(_spec_int(spec, "minReadySeconds", 0), "spec.minReadySeconds")
    selector = spec.get("selector")
    selector = selector if isinstance(selector, dict) and selector else labels
    if not selector:
        errs.append(required("spec.selector"))
    if "replicas" in spec:
        errs += nonnegative(spec.get("replicas"), "spec.replicas")
    if not isinstance(spec.get("template"), dict):
        errs.append(required("spec.template"))
        return errs, []
    if selector:
        wanted = {str(k): str(v) for k, v in selector.items()}
        have = {str(k): str(v) for k, v in (labels or {}).items()}
        if any(have.get(k) != v for k, v in wanted.items()):
            errs.append(_mismatch(meta))
    return errs, _always_restart(pod_spec, "ReplicationController")


# --- StatefulSet ---------------------------------------------------------------------------


def _go_rolling_update_sts(rolling: dict[str, Any]) -> Unquoted:
    """``%#v`` of the internal RollingUpdateStatefulSetStrategy (a set maxUnavailable is a
    pointer: its address)."""
    partition = rolling.get("partition")
    partition = partition if _numbers(partition) else 0
    pointer = "nil" if rolling.get("maxUnavailable") is None else "0xc000…"
    return Unquoted(
        f"apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, "
        f"MaxUnavailable:(*intstr.IntOrString)({pointer})}}"
    )


def statefulset_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateStatefulSet: metadata (a DNS-1123 label: pods are named after it), then
    ValidateStatefulSetSpec in its order."""
    errs = object_meta(obj.get("metadata"), name_is_dns_label, version)
    spec, meta, pod_spec = template_parts(obj)
    policy = spec.get("podManagementPolicy") or "OrderedReady"
    if policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid("spec.podManagementPolicy", policy, MSG_POD_MANAGEMENT))
    strategy = spec.get("updateStrategy")
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    path = "spec.updateStrategy"
    if kind == "OnDelete":
        if rolling is not None:
            kept = rolling if isinstance(rolling, dict) else {}
            if not version.statefulset_max_unavailable:
                kept = {k: v for k, v in kept.items() if k != "maxUnavailable"}
            rolling_value = _go_rolling_update_sts(kept)
            errs.append(invalid(child(path, "rollingUpdate"), rolling_value, MSG_STS_ON_DELETE))
    elif kind == "RollingUpdate":
        rolling = rolling if isinstance(rolling, dict) else {}
        if rolling.get("partition") is not None:
            errs += nonnegative(rolling["partition"], child(path, "rollingUpdate", "partition"))
        unavailable = rolling.get("maxUnavailable")
        if version.statefulset_max_unavailable and unavailable is not None:
            where = child(path, "rollingUpdate", "maxUnavailable")
            errs += positive_int_or_percent(unavailable, where)
            if int_or_percent_value(unavailable) == 0:
                errs.append(invalid(where, iostr(unavailable), "cannot be 0"))
            errs += not_more_than_100(unavailable, where)
    else:
        errs.append(
            invalid(
                path,
                _go_strategy(
                    "StatefulSetUpdateStrategy",
                    "RollingUpdateStatefulSetStrategy",
                    str(kind),
                    rolling,
                ),
                MSG_STS_STRATEGY,
            )
        )
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    retention = retention if isinstance(retention, dict) else {}
    for name in ("whenDeleted", "whenScaled"):
        value = retention.get(name) or "Retain"
        if value not in RETENTION_POLICIES:
            where = child("spec.persistentVolumeClaimRetentionPolicy", name)
            errs.append(not_supported(where, value, RETENTION_POLICIES))
    if "replicas" in spec:
        errs += nonnegative(spec.get("replicas"), "spec.replicas")
    errs += nonnegative(_spec_int(spec, "minReadySeconds", 0), "spec.minReadySeconds")
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict) and ordinals.get("start") is not None:
        errs += nonnegative(ordinals["start"], "spec.ordinals.start")
    errs += _required_selector(spec, "statefulset")
    errs += _template_selector(spec, meta, "")
    return errs, _always_restart(pod_spec, "StatefulSet")


# --- DaemonSet -----------------------------------------------------------------------------


def daemonset_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateDaemonSet: metadata, the selector (not required: an unset one matches no
    template), the template's, then its restart policy, counts and update strategy."""
    errs = object_meta(obj.get("metadata"), name_is_dns_subdomain, version)
    spec, meta, pod_spec = template_parts(obj)
    selector = spec.get("selector")
    errs += validate_label_selector(selector, "spec.selector")
    matcher = selector_matcher(selector)
    if matcher is not None and not matcher(meta.get("labels")):
        errs.append(_mismatch(meta))
    if is_empty_selector(selector):
        message = _empty_selector_message("daemonset")
        errs.append(invalid("spec.selector", go_label_selector(selector), message))
    after = _always_restart(pod_spec, "DaemonSet")
    after += nonnegative(_spec_int(spec, "minReadySeconds", 0), "spec.minReadySeconds")
    after += _daemonset_strategy(spec.get("updateStrategy"))
    if spec.get("revisionHistoryLimit") is not None:
        after += nonnegative(spec["revisionHistoryLimit"], "spec.revisionHistoryLimit")
    return errs, after


def _daemonset_strategy(strategy: Any) -> list[FieldError]:
    """ValidateDaemonSetUpdateStrategy on the defaulted strategy."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    path = "spec.updateStrategy"
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [
            not_supported(
                path,
                _go_strategy(
                    "DaemonSetUpdateStrategy", "RollingUpdateDaemonSet", str(kind), rolling
                ),
                ["RollingUpdate", "OnDelete"],
            )
        ]
    rolling = rolling if isinstance(rolling, dict) else {}
    unavailable = rolling.get("maxUnavailable")
    surge = rolling.get("maxSurge")
    unavailable = 1 if unavailable is None else unavailable
    surge = 0 if surge is None else surge
    ru = child(path, "rollingUpdate")
    unavailable_path, surge_path = child(ru, "maxUnavailable"), child(ru, "maxSurge")
    errs = positive_int_or_percent(unavailable, unavailable_path)
    errs += positive_int_or_percent(surge, surge_path)
    errs += not_more_than_100(unavailable, unavailable_path)
    errs += not_more_than_100(surge, surge_path)
    has_unavailable = int_or_percent_value(unavailable) != 0
    has_surge = int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(invalid(surge_path, iostr(surge), MSG_DS_SURGE_AND_UNAVAILABLE))
    elif not has_unavailable and not has_surge:
        errs.append(required(unavailable_path, MSG_DS_BOTH_ZERO))
    return errs


def _template_checked(obj: dict[str, Any]) -> bool:
    """Whether the selector converts: Go checks the template only then."""
    return selector_matcher(template_parts(obj)[0].get("selector")) is not None


def _pod_template(obj: dict[str, Any]) -> list[FieldError]:
    _spec, meta, pod_spec = template_parts(obj)
    return pod_template_errors(meta, pod_spec)[0]


def validate_deployment(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateDeployment: its own errors around its pod template's (checked only when the
    selector converts)."""
    before, after = deployment_own(obj, version)
    return before + (_pod_template(obj) if _template_checked(obj) else []) + after


def validate_replicaset(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateReplicaSet, as validate_deployment."""
    before, after = replicaset_own(obj, version)
    return before + (_pod_template(obj) if _template_checked(obj) else []) + after


def validate_replicationcontroller(
    obj: dict[str, Any], version: ClusterVersion = LATEST
) -> list[FieldError]:
    """ValidateReplicationController: its own errors around its pod template's."""
    before, after = replicationcontroller_own(obj, version)
    if not isinstance(template_parts(obj)[0].get("template"), dict):
        return before + after
    return before + _pod_template(obj) + after


def validate_statefulset(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateStatefulSet: of its template only the labels and annotations
    (ValidatePodTemplateSpecForStatefulSet), and only when the selector converts."""
    before, after = statefulset_own(obj, version)
    template: list[FieldError] = []
    if _template_checked(obj):
        _spec, meta, _pod_spec = template_parts(obj)
        labels = meta.get("labels")
        template = validate_labels(labels if isinstance(labels, dict) else None, LABELS_PATH)
        template += validate_annotations(meta.get("annotations"), ANNOTATIONS_PATH, version)
    return before + template + after


def validate_daemonset(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateDaemonSet: its own errors around its pod template's."""
    before, after = daemonset_own(obj, version)
    return before + _pod_template(obj) + after


LABELS_PATH = "spec.template.labels"
ANNOTATIONS_PATH = "spec.template.annotations"
