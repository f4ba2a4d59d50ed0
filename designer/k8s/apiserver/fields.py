"""What the API server's validation of workload objects shares: int32 and non-negative
fields, ObjectMeta, the pod template (through ``validate_pod``), IntOrString percentages, and
the ``field.OmitValueType`` error. The kinds are in apps.py, batch.py and workloads.py.

Go sources mirrored (kubernetes/kubernetes): pkg/apis/core/validation/validation.go
(``ValidateNonnegativeField``, ``ValidateObjectMeta``, ``ValidatePodTemplateSpec``),
pkg/apis/apps/validation/validation.go (``ValidatePositiveIntOrPercent``, ``getPercentValue``,
``getIntOrPercentValue``, ``IsNotMoreThan100Percent``), apimachinery field/errors.go
``ErrorBody`` (an IntOrString value prints as ``%#v``: its String() has a pointer receiver).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from designer.k8s.apiserver.decode import pod_from_parts
from designer.k8s.apiserver.pod import (
    MSG_NAME_REQUIRED,
    validate_annotations,
    validate_labels,
    validate_pod,
)
from designer.k8s.apiserver.resources import MSG_NEGATIVE
from designer.k8s.apiserver.versions import LATEST, ClusterVersion
from designer.k8s.core import (
    ERROR_TYPE_TEXT,
    FieldError,
    FieldWarning,
    Pod,
    Unquoted,
    go_quote,
    invalid,
    name_is_dns_label,
    regex_error,
    required,
)

PERCENT_FMT = "[0-9]+%"
PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"
MSG_OVER_100 = "must not be greater than 100%"
MSG_INT32 = "must be a 32-bit integer"
MSG_SELECTOR_MISMATCH = "`selector` does not match template `labels`"

_PERCENT_RE = re.compile("^" + PERCENT_FMT + "$")
INT_RE = re.compile(r"^[+-]?[0-9]+$")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int32_errors(value: Any, path: str) -> list[FieldError]:
    """The decoder refuses a value that is not an int32 (a 400, not a field.Error)."""
    if value is None or (is_int(value) and INT32_MIN <= value <= INT32_MAX):
        return []
    return [FieldError(path, "FieldValueTypeInvalid", MSG_INT32, value)]


def nonnegative(value: Any, path: str) -> list[FieldError]:
    """ValidateNonnegativeField (after the int32 decoding check)."""
    errs = int32_errors(value, path)
    if errs or value is None:
        return errs
    return [invalid(path, value, MSG_NEGATIVE)] if value < 0 else []


def object_meta(
    meta: Any, name_fn: Callable[..., list[str]], version: ClusterVersion = LATEST
) -> list[FieldError]:
    """ValidateObjectMeta for the parts we write: generateName, name, namespace, labels,
    annotations."""
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
    errs += validate_annotations(meta.get("annotations"), "metadata.annotations", version)
    return errs


def template_parts(
    obj: dict[str, Any], template_path: str = "spec.template"
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The object's spec holding the pod template at ``template_path`` (a CronJob's is
    ``spec.jobTemplate.spec.template``: its Job spec), the template's metadata and pod spec
    (each ``{}`` when absent or not a mapping)."""
    *parents, _template = template_path.split(".")
    spec: Any = obj
    for key in parents:
        spec = spec.get(key) if isinstance(spec, dict) else None
    spec = spec if isinstance(spec, dict) else {}
    template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    pod_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    return spec, meta, pod_spec


def pod_template_errors(
    meta: dict[str, Any], pod_spec: dict[str, Any], template_path: str = "spec.template"
) -> tuple[list[FieldError], Pod | None]:
    """ValidatePodTemplateSpec through the engine. Template labels are reported at
    ``spec.template.labels``: Go passes ``fldPath.Child("labels")`` there."""
    spec_path = template_path + ".spec"
    pod, errors = pod_from_parts(
        meta, pod_spec, metadata_path=template_path + ".metadata", spec_path=spec_path
    )
    if pod is None:
        return errors, None
    return list(validate_pod(pod, spec_path=spec_path, template=True).errors), pod


def template_warnings(obj: dict[str, Any]) -> list[FieldWarning]:

    _, meta, pod_spec = template_parts(obj)
    pod, _ = pod_from_parts(meta, pod_spec)
    if pod is None:
        return []
    return validate_pod(pod, spec_path="spec.template.spec", template=True).warnings


# --- int or percent (apps validation) ------------------------------------------------------


def percent_value(value: Any) -> int | None:
    """getPercentValue: the number of a valid percent string, else None."""
    if isinstance(value, str) and _PERCENT_RE.fullmatch(value):
        # strconv.Atoi, clamped past int64 (Python will not convert past 4,300 digits);
        # leading zeros count for nothing ("0001%" is 1).
        digits = value[:-1].lstrip("0") or "0"
        return INT64_MAX if len(digits) > 19 else min(int(digits), INT64_MAX)
    return None


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a percent's number, an int, or IntValue() of a string."""
    percent = percent_value(value)
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
        if len(value.lstrip("+-").lstrip("0")) > 19:
            return INT64_MIN if value.startswith("-") else INT64_MAX
        return max(INT64_MIN, min(INT64_MAX, int(value)))
    return 0


def positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        if percent_value(value) is None:
            msg = regex_error(PERCENT_MSG, PERCENT_FMT, "1%", "93%")
            return [invalid(path, iostr(value), msg)]
        return []
    if is_int(value):
        errs = int32_errors(value, path)
        return errs or ([invalid(path, value, MSG_NEGATIVE)] if value < 0 else [])
    return [FieldError(path, "FieldValueTypeInvalid", "must be an integer or percentage", value)]


def not_more_than_100(value: Any, path: str) -> list[FieldError]:
    percent = percent_value(value)
    if percent is None or percent <= 100:
        return []
    return [invalid(path, iostr(value), MSG_OVER_100)]


def iostr(value: Any) -> Any:
    """How an intstr.IntOrString bad value prints: ``%#v`` of the struct (its String() has a
    pointer receiver, and ErrorBody only dereferences pointers), as ``kubectl apply`` shows:
    ``Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 ...``."""
    if isinstance(value, str):
        return Unquoted(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}")
    if is_int(value):
        return Unquoted(f'intstr.IntOrString{{Type:0, IntVal:{value}, StrVal:""}}')
    return value


class OmitValueError(FieldError):
    """A field.Error whose BadValue is ``field.OmitValueType{}``: ErrorBody prints the
    type and the detail, no value (``Invalid value: specifying ...``)."""

    def body(self) -> str:
        text = ERROR_TYPE_TEXT.get(self.type, self.type)
        return f"{text}: {self.message}" if self.message else text
