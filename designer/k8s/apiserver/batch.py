"""The API server's validation of the batch/v1 kinds beyond their pod template: Job (Indexed
included) and CronJob, with Go's field paths, order and wording, after batch/v1 defaulting.

Each ``*_own`` function returns the errors the API server lists before the pod template's and
those after; the template's own are the pod report's (``validate_pod``). A CronJob's job
template is validated by the same rules as a Job's spec, at ``spec.jobTemplate.spec``.

Go sources mirrored (kubernetes/kubernetes, pkg/apis/batch/validation/validation.go):
``ValidateJob`` (``validateGeneratedSelector``, ``ValidateJobSpec`` -> ``validateJobSpec``:
counts, backoffLimitPerIndex and maxFailedIndexes, managedBy, completionMode, podFailurePolicy
and its rules, successPolicy, podReplacementPolicy, the template, its restartPolicy; then the
selector; the Indexed hostname), ``ValidateCronJobCreate`` (``validateCronJobSpec``: schedule
through robfig/cron, startingDeadlineSeconds, ``validateTimeZone``,
``validateConcurrencyPolicy``, ``ValidateJobTemplateSpec``, history limits; the 52-character
name); pkg/registry/batch/job/strategy.go ``generateSelector`` (a Job without
``manualSelector: true`` selects its own controller-uid, so a selector of its own fails).

Decisions: the controller-uid a Job is given at creation is unknown here; where Go prints it
(the generated selector), ``<uid>`` stands in for it.
"""

from __future__ import annotations

import re
from typing import Any

from designer.k8s.apiserver.cron import atoi, load_location, parse_standard
from designer.k8s.apiserver.fields import (
    MSG_SELECTOR_MISMATCH,
    OmitValueError,
    is_int,
    nonnegative,
    object_meta,
    pod_template_errors,
    template_parts,
)
from designer.k8s.apiserver.pod import too_long
from designer.k8s.apiserver.selectors import (
    go_label_selector,
    selector_matcher,
    validate_label_selector,
)
from designer.k8s.apiserver.versions import LATEST, ClusterVersion
from designer.k8s.core import (
    FieldError,
    Unquoted,
    child,
    go_map,
    go_quote,
    index,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    max_len_error,
    name_is_dns_subdomain,
    not_supported,
    regex_error,
    required,
)

MSG_INDEXED_COMPLETIONS = "when completion mode is Indexed"
MAX_INDEXED_PARALLELISM = 100000  # maxParallelismForIndexedJob
MAX_FAILED_INDEXES = 100_000  # maxFailedIndexesForIndexedJob
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS = 10_000
MAX_MANAGED_BY = 63
MAX_PFP_RULES = 20
MAX_EXIT_CODES = 255
MAX_CONDITION_PATTERNS = 20
MSG_INDEXED_PARALLELISM = "must be less than or equal to 100000 when completion mode is Indexed"
MSG_INDEXED_HOSTNAME = "will not able to create pod with invalid DNS label: {hostname}"
MSG_JOB_RESTART = 'valid values: "OnFailure", "Never"'
MSG_PFP_RESTART = 'only "Never" is supported when podFailurePolicy is specified'
MSG_REQUIRES_INDEXED = "requires indexed completion mode"
SUPPORTED_COMPLETION_MODES = ("NonIndexed", "Indexed")
SUPPORTED_PFP_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")  # sets.List: sorted
SUPPORTED_EXIT_OPERATORS = ("In", "NotIn")
SUPPORTED_CONDITION_STATUSES = ("False", "True", "Unknown")
SUPPORTED_REPLACEMENT = ("Failed", "TerminatingOrFailed")
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
CRONJOB_NAME_MAX = 52  # DNS1035LabelMaxLength - 11 (the "-<timestamp>" of its Jobs)
JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
UID_STAND_IN = "<uid>"
# validTimeZoneCharacters: a component of an IANA name.
_TIME_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")
ErrorPair = tuple[list[FieldError], list[FieldError]]


def _valid_values(values: tuple[str, ...]) -> str:
    """``fmt.Sprintf("valid values: %q", sets.List(...))``: a []string printed by %q."""
    return "valid values: [" + " ".join(go_quote(v) for v in values) + "]"


def _go_int32s(values: list[Any]) -> Unquoted:
    return Unquoted("[]int32{" + ", ".join(str(v) for v in values) + "}")


# --- the Job's spec, at a path (a Job's "spec", a CronJob's "spec.jobTemplate.spec") ----------


def job_defaults(spec: dict[str, Any]) -> dict[str, Any]:
    """SetDefaults_Job (a Job's, not a CronJob's job template's): completions and parallelism
    1 when both are unset, parallelism 1, an onPodConditions pattern's status True."""
    spec = dict(spec)
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    policy = spec.get("podFailurePolicy")
    rules = policy.get("rules") if isinstance(policy, dict) else None
    if isinstance(rules, list):
        defaulted = []
        for rule in rules:
            patterns = rule.get("onPodConditions") if isinstance(rule, dict) else None
            if isinstance(patterns, list):
                patterns = [
                    {**p, "status": "True"} if isinstance(p, dict) and not p.get("status") else p
                    for p in patterns
                ]
                rule = {**rule, "onPodConditions": patterns}
            defaulted.append(rule)
        spec["podFailurePolicy"] = {**policy, "rules": defaulted}
    return spec


def job_spec_errors(
    spec: dict[str, Any],
    pod_spec: dict[str, Any],
    at: str,
    *,
    managed_by: bool = True,
    version: ClusterVersion = LATEST,
) -> tuple[list[FieldError], list[FieldError]]:
    """validateJobSpec: the errors before the pod template's and the restart policy's after
    (``managed_by``: the field is kept; the Job strategy drops it where JobManagedBy is off)."""
    errs: list[FieldError] = []
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"):
        if spec.get(name) is not None:
            errs += nonnegative(spec.get(name), f"{at}.{name}")
    for name in ("ttlSecondsAfterFinished", "backoffLimitPerIndex"):
        if spec.get(name) is not None:
            errs += nonnegative(spec.get(name), f"{at}.{name}")
    per_index = spec.get("backoffLimitPerIndex")
    max_failed = spec.get("maxFailedIndexes")
    if max_failed is not None:
        errs += nonnegative(max_failed, f"{at}.maxFailedIndexes")
        if per_index is None:
            errs.append(
                required(f"{at}.backoffLimitPerIndex", "when maxFailedIndexes is specified")
            )
    managed = spec.get("managedBy") if managed_by else None
    if isinstance(managed, str):
        errs += _domain_prefixed_path(f"{at}.managedBy", managed)
        if len(managed) > MAX_MANAGED_BY and version.has("too_long_wording"):
            errs.append(too_long(f"{at}.managedBy", MAX_MANAGED_BY, version))
        elif len(managed) > MAX_MANAGED_BY:
            message = f"may not be longer than {MAX_MANAGED_BY}"  # TooLongMaxLength (1.31)
            errs.append(FieldError(f"{at}.managedBy", "FieldValueTooLong", message, ""))
    mode = spec.get("completionMode")
    indexed = mode == "Indexed"
    completions = spec.get("completions")
    if mode is not None:
        if mode not in SUPPORTED_COMPLETION_MODES:
            errs.append(not_supported(f"{at}.completionMode", mode, SUPPORTED_COMPLETION_MODES))
        if indexed:
            errs += _indexed_errors(spec, at)
    if mode is None or mode == "NonIndexed":
        if per_index is not None:
            errs.append(invalid(f"{at}.backoffLimitPerIndex", per_index, MSG_REQUIRES_INDEXED))
        if max_failed is not None:
            errs.append(invalid(f"{at}.maxFailedIndexes", max_failed, MSG_REQUIRES_INDEXED))
    policy = spec.get("podFailurePolicy")
    if policy is not None:
        errs += _pod_failure_policy(policy, spec, pod_spec, f"{at}.podFailurePolicy")
    success = spec.get("successPolicy")
    if success is not None and not indexed:
        errs.append(
            invalid(f"{at}.successPolicy", _go_success_policy(success), MSG_REQUIRES_INDEXED)
        )
    elif success is not None and is_int(completions):
        errs += _success_policy(success, completions, f"{at}.successPolicy", version)
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        where = f"{at}.podReplacementPolicy"
        if policy is not None:
            if replacement != "Failed":
                errs.append(not_supported(where, replacement, ["Failed"]))
        elif replacement not in SUPPORTED_REPLACEMENT:
            errs.append(not_supported(where, replacement, SUPPORTED_REPLACEMENT))
    after: list[FieldError] = []
    restart = pod_spec.get("restartPolicy") or ""
    restart_path = f"{at}.template.spec.restartPolicy"
    if restart in ("", "Always"):
        after.append(required(restart_path, MSG_JOB_RESTART))
    elif restart not in ("OnFailure", "Never"):
        after.append(not_supported(restart_path, restart, ["OnFailure", "Never"]))
    elif policy is not None and restart != "Never":
        after.append(invalid(restart_path, restart, MSG_PFP_RESTART))
    return errs, after


_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"


def _domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """validation.IsDomainPrefixedPath: ``<DNS-1123 subdomain>/<path>``."""
    if not value:
        return [required(path)]
    parts = value.split("/", 1)
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    host, rest = parts
    errs = [invalid(path, host, m) for m in is_dns1123_subdomain(host)]
    if not re.fullmatch(_HTTP_PATH_FMT, rest):
        errs.append(invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def _indexed_errors(spec: dict[str, Any], at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    completions = spec.get("completions")
    parallelism = spec.get("parallelism")
    max_failed = spec.get("maxFailedIndexes")
    per_index = spec.get("backoffLimitPerIndex")
    if completions is None:
        errs.append(required(f"{at}.completions", MSG_INDEXED_COMPLETIONS))
    if is_int(parallelism) and parallelism > MAX_INDEXED_PARALLELISM:
        errs.append(invalid(f"{at}.parallelism", parallelism, MSG_INDEXED_PARALLELISM))
    if is_int(completions) and is_int(max_failed) and max_failed > completions:
        errs.append(
            invalid(
                f"{at}.maxFailedIndexes", max_failed, "must be less than or equal to completions"
            )
        )
    if is_int(max_failed) and max_failed > MAX_FAILED_INDEXES:
        errs.append(
            invalid(
                f"{at}.maxFailedIndexes",
                max_failed,
                f"must be less than or equal to {MAX_FAILED_INDEXES}",
            )
        )
    if is_int(completions) and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
        high = (
            f"when completions are above {COMPLETIONS_SOFT_LIMIT} "
            "and used with backoff limit per index"
        )
        if max_failed is None:
            errs.append(
                required(
                    f"{at}.maxFailedIndexes",
                    f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}",
                )
            )
        if is_int(parallelism) and parallelism > PARALLELISM_FOR_HIGH_COMPLETIONS:
            errs.append(
                invalid(
                    f"{at}.parallelism",
                    parallelism,
                    f"must be less than or equal to {PARALLELISM_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
        if is_int(max_failed) and max_failed > MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS:
            errs.append(
                invalid(
                    f"{at}.maxFailedIndexes",
                    max_failed,
                    f"must be less than or equal to "
                    f"{MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
    return errs


def _too_many(path: str, count: int, limit: int) -> FieldError:
    return FieldError(
        path, "FieldValueTooMany", f"must have at most {limit} items", Unquoted(str(count))
    )


def _pod_failure_policy(
    policy: Any, spec: dict[str, Any], pod_spec: dict[str, Any], path: str
) -> list[FieldError]:
    """validatePodFailurePolicy and each rule's validatePodFailurePolicyRule."""
    rules = policy.get("rules") if isinstance(policy, dict) else None
    rules = rules if isinstance(rules, list) else []
    errs: list[FieldError] = []
    rules_path = child(path, "rules")
    if len(rules) > MAX_PFP_RULES:
        errs.append(_too_many(rules_path, len(rules), MAX_PFP_RULES))
    names = {
        c.get("name")
        for key in ("containers", "initContainers")
        for c in (pod_spec.get(key) if isinstance(pod_spec.get(key), list) else [])
        if isinstance(c, dict)
    }
    for i, rule in enumerate(rules):
        where = index(rules_path, i)
        rule = rule if isinstance(rule, dict) else {}
        action = rule.get("action") or ""
        action_path = child(where, "action")
        if not action:
            errs.append(required(action_path, _valid_values(SUPPORTED_PFP_ACTIONS)))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                errs.append(
                    invalid(action_path, action, "requires the backoffLimitPerIndex to be set")
                )
        elif action not in SUPPORTED_PFP_ACTIONS:
            errs.append(not_supported(action_path, action, SUPPORTED_PFP_ACTIONS))
        codes = rule.get("onExitCodes")
        conditions = rule.get("onPodConditions")
        conditions = conditions if isinstance(conditions, list) else []
        if codes is not None:
            errs += _exit_codes(codes, child(where, "onExitCodes"), names)
        if conditions:
            errs += _pod_conditions(conditions, child(where, "onPodConditions"))
        if codes is not None and conditions:
            msg = "specifying both OnExitCodes and OnPodConditions is not supported"
            errs.append(OmitValueError(where, "FieldValueInvalid", msg))
        if codes is None and not conditions:
            msg = "specifying one of OnExitCodes and OnPodConditions is required"
            errs.append(OmitValueError(where, "FieldValueInvalid", msg))
    return errs


def _exit_codes(codes: Any, path: str, names: set[Any]) -> list[FieldError]:
    codes = codes if isinstance(codes, dict) else {}
    errs: list[FieldError] = []
    operator = codes.get("operator") or ""
    if not operator:
        errs.append(required(child(path, "operator"), _valid_values(SUPPORTED_EXIT_OPERATORS)))
    elif operator not in SUPPORTED_EXIT_OPERATORS:
        errs.append(not_supported(child(path, "operator"), operator, SUPPORTED_EXIT_OPERATORS))
    container = codes.get("containerName")
    if container is not None and container not in names:
        msg = "must be one of the container or initContainer names in the pod template"
        errs.append(invalid(child(path, "containerName"), container, msg))
    given = codes.get("values")
    values = given if isinstance(given, list) else []
    values_path = child(path, "values")
    if not values:
        shown = _go_int32s([]) if isinstance(given, list) else Unquoted("[]int32(nil)")
        errs.append(invalid(values_path, shown, "at least one value is required"))
    elif len(values) > MAX_EXIT_CODES:
        errs.append(_too_many(values_path, len(values), MAX_EXIT_CODES))
    seen: set[Any] = set()
    ordered = True
    for j, value in enumerate(values):
        where = index(values_path, j)
        if operator == "In" and value == 0:
            errs.append(invalid(where, value, "must not be 0 for the In operator"))
        if value in seen:
            errs.append(FieldError(where, "FieldValueDuplicate", "", value))
        else:
            seen.add(value)
        if j and is_int(value) and is_int(values[j - 1]) and values[j - 1] > value:
            ordered = False
    if not ordered:
        errs.append(invalid(values_path, _go_int32s(values), "must be ordered"))
    return errs


def _pod_conditions(conditions: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(conditions) > MAX_CONDITION_PATTERNS:
        errs.append(_too_many(path, len(conditions), MAX_CONDITION_PATTERNS))
    for j, pattern in enumerate(conditions):
        where = index(path, j)
        pattern = pattern if isinstance(pattern, dict) else {}
        kind = pattern.get("type") if isinstance(pattern.get("type"), str) else ""
        errs += [invalid(child(where, "type"), kind, m) for m in is_qualified_name(kind)]
        status = pattern.get("status") or ""
        status_path = child(where, "status")
        if not status:
            errs.append(required(status_path, _valid_values(SUPPORTED_CONDITION_STATUSES)))
        elif status not in SUPPORTED_CONDITION_STATUSES:
            errs.append(not_supported(status_path, status, SUPPORTED_CONDITION_STATUSES))
    return errs


def _go_success_policy(policy: Any) -> Unquoted:
    """``%#v`` of the internal batch.SuccessPolicy (its rules' pointer fields print as their
    address, which differs from request to request: shown as ``0xc000…``, as apps does)."""
    rules = policy.get("rules") if isinstance(policy, dict) else None
    if not isinstance(rules, list):
        listed = "[]batch.SuccessPolicyRule(nil)"
    else:
        joined = ", ".join(_go_success_rule(r) for r in rules)
        listed = f"[]batch.SuccessPolicyRule{{{joined}}}"
    return Unquoted(f"batch.SuccessPolicy{{Rules:{listed}}}")


def _go_success_rule(rule: Any) -> str:
    rule = rule if isinstance(rule, dict) else {}
    indexes = "nil" if rule.get("succeededIndexes") is None else "0xc000…"
    count = "nil" if rule.get("succeededCount") is None else "0xc000…"
    return (
        f"batch.SuccessPolicyRule{{SucceededIndexes:(*string)({indexes}), "
        f"SucceededCount:(*int32)({count})}}"
    )


def _success_policy(
    policy: Any, completions: int, path: str, version: ClusterVersion = LATEST
) -> list[FieldError]:
    """validateSuccessPolicy (an Indexed Job's): the rules and their counts."""
    rules = policy.get("rules") if isinstance(policy, dict) else None
    rules = rules if isinstance(rules, list) else []
    rules_path = child(path, "rules")
    errs: list[FieldError] = []
    if not rules:
        msg = "at least one rules must be specified when the successPolicy is specified"
        errs.append(required(rules_path, msg))
    if len(rules) > MAX_PFP_RULES:
        errs.append(_too_many(rules_path, len(rules), MAX_PFP_RULES))
    for i, rule in enumerate(rules):
        where = index(rules_path, i)
        rule = rule if isinstance(rule, dict) else {}
        count = rule.get("succeededCount")
        indexes = rule.get("succeededIndexes")
        if count is None and indexes is None:
            msg = "at least one of succeededCount or succeededIndexes must be specified"
            errs.append(required(where, msg))
        total = 0
        if isinstance(indexes, str):
            indexes_path = child(where, "succeededIndexes")
            if len(indexes) > MAX_SUCCEEDED_INDEXES:
                errs.append(too_long(indexes_path, MAX_SUCCEEDED_INDEXES, version))
            total, err = indexes_format(indexes, completions)
            if err is not None:
                errs.append(
                    invalid(indexes_path, indexes, f"error parsing succeededIndexes: {err}")
                )
        if count is not None:
            count_path = child(where, "succeededCount")
            errs += nonnegative(count, count_path)
            if is_int(count) and count > completions:
                msg = (
                    f"must be less than or equal to {completions} "
                    "(the number of specified completions)"
                )
                errs.append(invalid(count_path, count, msg))
            if isinstance(indexes, str) and is_int(count) and count > total:
                msg = (
                    f"must be less than or equal to {total} "
                    "(the number of indexes in the specified succeededIndexes field)"
                )
                errs.append(invalid(count_path, count, msg))
    return errs


MAX_SUCCEEDED_INDEXES = 64 * 1024  # maxJobSuccessPolicySucceededIndexesLimit


def indexes_format(text: str, completions: int) -> tuple[int, str | None]:
    """validateIndexesFormat: the number of indexes in ``"1,3-5"``, or the parse error."""
    if not text:
        return 0, None
    last: int | None = None
    total = 0
    for interval in text.split(","):
        first, end, err = _index_interval(interval, completions)
        if err is not None:
            return 0, err
        if last is not None and last >= first:
            return 0, f"non-increasing order, previous: {last}, current: {first}"
        total += end - first + 1
        last = end
    return total, None


def _index_interval(text: str, completions: int) -> tuple[int, int, str | None]:
    """parseIndexInterval."""
    limits = text.split("-")
    if len(limits) > 2:
        return (
            0,
            0,
            (
                f"the fragment {go_quote(text)} violates the requirement that an index interval "
                "can have at most two parts separated by '-'"
            ),
        )
    values = []
    for part in limits:
        number, err = atoi(part)
        if err is not None or number is None:
            return 0, 0, f"cannot convert string to integer for index: {go_quote(part)}"
        if number >= completions:
            return 0, 0, f"too large index: {go_quote(part)}"
        values.append(number)
    if len(values) == 2 and values[0] >= values[1]:
        return 0, 0, f"non-increasing order, previous: {values[0]}, current: {values[1]}"
    return values[0], values[-1], None


# --- Job -------------------------------------------------------------------------------------


def job_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateJob's errors that are not its pod template's: those before the template's
    (metadata, the generated selector, the spec's fields, the job-name label) and those after
    (the template's restart policy, the selector, the Indexed hostname)."""
    meta_obj = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    spec, meta, pod_spec = template_parts(obj)
    spec = job_defaults(spec)
    name = meta_obj.get("name")
    # The uid the API server gives the Job (a dump's Job carries it; a new one's is unknown).
    given_uid = meta_obj.get("uid")
    uid = given_uid if isinstance(given_uid, str) and given_uid else _UID
    manual = spec.get("manualSelector") is True
    template_labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
    if template_labels is not None and not meta_obj.get("labels"):
        # SetDefaults_Job: the Job's labels are its template's (the same map, to which
        # generateSelector then adds the job-name and controller-uid labels).
        shared = template_labels if manual else {**_generated_labels(name, uid), **template_labels}
        meta_obj = {**meta_obj, "labels": shared}
    errs = object_meta(meta_obj, name_is_dns_subdomain, version)
    if not manual:
        errs += _generated_selector(spec, meta, name, uid)
    before, after = job_spec_errors(
        spec, pod_spec, "spec", managed_by=version.has("job_managed_by"), version=version
    )
    errs += before
    # ValidatePodTemplateSpec: the strategy has already added the job-name labels, whose
    # value is the Job's name (at most 63 characters as a label value).
    if not manual and isinstance(name, str) and len(name) > 63:
        errs.append(invalid("spec.template.labels", name, max_len_error(63)))
    # ValidateJobSpec's selector: the user's (manualSelector) or the generated one, which
    # the template's generated labels match.
    selector = spec.get("selector") if manual else _generated(spec.get("selector"), uid)
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
    if not manual:
        labels = {**_generated_labels(name, uid), **(labels or {})}
    if not isinstance(selector, dict):
        after.append(required("spec.selector"))
    else:
        after += validate_label_selector(selector, "spec.selector")
    matcher = selector_matcher(selector)
    if matcher is not None and not matcher(labels):
        shown = meta.get("labels") if manual else labels
        after.append(
            invalid(
                "spec.template.metadata.labels", _uid_shown(go_map(shown)), MSG_SELECTOR_MISMATCH
            )
        )
    completions = spec.get("completions")
    if (
        spec.get("completionMode") == "Indexed"
        and is_int(completions)
        and completions > 0
        and isinstance(name, str)
    ):
        # ValidateJob: pods are named <job>-<index>; the last must be a DNS-1123 label.
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            msg = MSG_INDEXED_HOSTNAME.format(hostname=hostname)
            after.append(invalid("metadata.name", name, msg))
    return errs, after


def _generated(selector: Any, uid: str) -> dict[str, Any]:
    """generateSelector: the user's selector with the controller-uid label added."""
    selector = dict(selector) if isinstance(selector, dict) else {}
    labels = selector.get("matchLabels")
    labels = dict(labels) if isinstance(labels, dict) else {}
    labels.setdefault(UID_LABELS[1], uid)
    selector["matchLabels"] = labels
    return selector


def _generated_labels(name: Any, uid: str) -> dict[str, str]:
    """The labels generateSelector adds to the template: the Job's name and uid."""
    job_name = name if isinstance(name, str) else ""
    return dict.fromkeys(JOB_NAME_LABELS, job_name) | dict.fromkeys(UID_LABELS, uid)


# A valid label value standing in for the uid in matching; printed as UID_STAND_IN.
_UID = "0" * 8 + "-0000-0000-0000-" + "0" * 12


def _uid_shown(text: Unquoted) -> Unquoted:
    return Unquoted(text.replace(_UID, UID_STAND_IN))


def _generated_selector(
    spec: dict[str, Any], meta: dict[str, Any], name: Any, uid: str
) -> list[FieldError]:
    """validateGeneratedSelector: the template's generated labels (a label of the same key the
    user wrote is kept, and must have the Job's value), then the selector, which must still
    select the Job's own pods (its uid and name)."""
    job_name = name if isinstance(name, str) else ""
    user_labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    labels = {**_generated_labels(name, uid), **user_labels}
    errs: list[FieldError] = []
    expected = (
        (UID_LABELS[0], uid),
        (JOB_NAME_LABELS[0], job_name),
        (UID_LABELS[1], uid),
        (JOB_NAME_LABELS[1], job_name),
    )
    for key, value in expected:
        if labels.get(key) != value:
            shown = UID_STAND_IN if value == _UID else value
            errs.append(
                invalid(
                    f"spec.template.metadata.labels[{key}]",
                    _uid_shown(go_map(labels)),
                    f"must be '{shown}'",
                )
            )
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return errs
    generated = _generated(selector, uid)
    matcher = selector_matcher(generated)
    if matcher is not None and not matcher(_generated_labels(name, uid)):
        shown = _uid_shown(go_label_selector(generated))
        errs.append(invalid("spec.selector", shown, "`selector` not auto-generated"))
    return errs


# --- CronJob ---------------------------------------------------------------------------------

JOB_TEMPLATE = "spec.jobTemplate.spec"


def cronjob_own(obj: dict[str, Any], version: ClusterVersion = LATEST) -> ErrorPair:
    """ValidateCronJobCreate: metadata, validateCronJobSpec in its order (the job template
    through the Job's rules), then the name's 52 characters."""
    meta_obj = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    errs = object_meta(meta_obj, name_is_dns_subdomain, version)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    schedule = spec.get("schedule")
    time_zone = spec.get("timeZone")
    if not schedule:
        errs.append(required("spec.schedule"))
    else:
        schedule = str(schedule)
        err = parse_standard(schedule)
        if err is not None:
            errs.append(invalid("spec.schedule", schedule, err))
        if "TZ" in schedule:
            msg = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            errs.append(invalid("spec.schedule", schedule, msg))
    if spec.get("startingDeadlineSeconds") is not None:
        errs += nonnegative(spec["startingDeadlineSeconds"], "spec.startingDeadlineSeconds")
    if time_zone is not None:
        errs += _time_zone(str(time_zone), "spec.timeZone")
    policy = spec.get("concurrencyPolicy") or "Allow"
    if policy not in CONCURRENCY_POLICIES:
        errs.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    job_spec, _meta, pod_spec = template_parts(obj, JOB_TEMPLATE + ".template")
    before, after = job_spec_errors(job_spec, pod_spec, JOB_TEMPLATE, version=version)
    errs += before
    if job_spec.get("selector") is not None:
        after.append(
            invalid(
                JOB_TEMPLATE + ".selector",
                go_label_selector(job_spec["selector"]),
                "`selector` will be auto-generated",
            )
        )
    if job_spec.get("manualSelector") is True:
        after.append(not_supported(JOB_TEMPLATE + ".manualSelector", True, ["nil", "false"]))
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if spec.get(name) is not None:
            after += nonnegative(spec[name], f"spec.{name}")
    name = meta_obj.get("name")
    if isinstance(name, str) and len(name) > CRONJOB_NAME_MAX:
        after.append(invalid("metadata.name", name, "must be no more than 52 characters"))
    return errs, after


def _time_zone(zone: str, path: str) -> list[FieldError]:
    """validateTimeZone."""
    if not zone:
        return [invalid(path, zone, "timeZone must be nil or non-empty string")]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [invalid(path, zone, f"unknown time zone {zone}")]
    errs: list[FieldError] = []
    if zone.lower() == "local":
        msg = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        errs.append(invalid(path, zone, msg))
    err = load_location(zone)
    if err is not None:
        errs.append(invalid(path, zone, err))
    return errs


def validate_job(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateJob: the Job's own errors around its pod template's."""
    before, after = job_own(obj, version)
    _spec, meta, pod_spec = template_parts(obj)
    return before + pod_template_errors(meta, pod_spec)[0] + after


def validate_cronjob(obj: dict[str, Any], version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateCronJobCreate: the CronJob's own errors around its pod template's."""
    before, after = cronjob_own(obj, version)
    template = JOB_TEMPLATE + ".template"
    _spec, meta, pod_spec = template_parts(obj, template)
    return before + pod_template_errors(meta, pod_spec, template)[0] + after
