"""One call that answers everything the product shows about a pod.

Views, the CLI and the JSON API all call ``pod_report`` (or ``workload_report`` for a
manifest read from a file), so they cannot disagree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from designer.k8s.advice import Advice, pod_advice
from designer.k8s.defaults import shared_defaults
from designer.k8s.model import Pod
from designer.k8s.qos import QosResult, pod_qos
from designer.k8s.quantity import Quantity
from designer.k8s.scheduling import effective_limits, effective_requests, format_resources
from designer.k8s.validation import (
    FieldError,
    FieldWarning,
    Unquoted,
    ValidationResult,
    validate_pod,
)


@dataclass(frozen=True)
class PodReport:
    pod: Pod | None
    qos: QosResult | None
    requests: dict[str, Quantity]
    limits: dict[str, Quantity]
    errors: list[FieldError]
    warnings: list[FieldWarning]
    advice: list[Advice] = field(default_factory=list)

    @property
    def qos_class(self) -> str | None:
        return self.qos.qos_class if self.qos else None

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        """The per-object fields of ``podspec check --format json`` (computed once: a report
        is shared by every pod of a ReplicaSet in a cluster dump; treat it as read-only)."""
        return self._as_dict

    @functools.cached_property
    def _as_dict(self) -> dict[str, Any]:
        return {
            "qosClass": self.qos_class,
            "effectiveRequests": format_resources(self.requests),
            "effectiveLimits": format_resources(self.limits),
            "errors": [e.as_dict() for e in self.errors],
            "warnings": [w.as_dict() for w in self.warnings],
            "qosReasons": [r.message for r in self.qos.reasons] if self.qos else [],
        }


def _path(loc: tuple[Any, ...], prefix: str) -> str:
    """A pydantic error location as a Kubernetes field path (``containers[0].resources``)."""
    text = prefix
    keyed = False
    for part in loc:
        if isinstance(part, int) or keyed:
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
        keyed = part in ("requests", "limits", "overhead", "labels", "annotations", "nodeSelector")
    return text


UNION_TAGS = frozenset({"str", "int", "float", "bool", "none"})
# pydantic error types -> the JSON type the API expects there.
EXPECTED_TYPES = {
    "string_type": "string",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
}


def _json_type(err: Any) -> Unquoted:
    """The JSON type of the value found, as Go's decoder names it in its message."""
    value = err.get("input")
    if isinstance(value, bool):
        name = "bool"
    elif isinstance(value, int | float):
        name = "number"
    elif isinstance(value, str):
        name = "string"
    elif isinstance(value, dict):
        name = "object"
    elif isinstance(value, list):
        name = "array"
    else:
        name = "null"
    return Unquoted(name)


def pod_from_parts(
    metadata: Any, spec: Any, *, metadata_path: str = "metadata", spec_path: str = "spec"
) -> tuple[Pod | None, list[FieldError]]:
    """A Pod model from a manifest's metadata and spec, or the decoding errors at their paths.

    The API server refuses a wrongly typed field at decoding time; we report it at its path.
    """
    errors: list[FieldError] = []
    meta_obj = metadata if isinstance(metadata, dict) else {}
    spec_obj = spec if isinstance(spec, dict) else {}
    if metadata is not None and not isinstance(metadata, dict):
        errors.append(FieldError(metadata_path, "FieldValueTypeInvalid", "expected an object"))
    if not isinstance(spec, dict):
        errors.append(FieldError(spec_path, "FieldValueTypeInvalid", "expected an object"))
    try:
        pod = Pod.model_validate({"metadata": meta_obj, "spec": spec_obj})
    except ValidationError as exc:
        seen: set[str] = set()
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            # A union (a resource value: string or number) reports each member: drop the tag.
            while loc and isinstance(loc[-1], str) and loc[-1] in UNION_TAGS:
                loc = loc[:-1]
            head, rest = (loc[0], loc[1:]) if loc else ("spec", ())
            prefix = metadata_path if head == "metadata" else spec_path
            path = _path(rest, prefix)
            if path in seen:
                continue
            seen.add(path)
            expected = EXPECTED_TYPES.get(err["type"])
            message = f"must be of type {expected}" if expected else err["msg"]
            errors.append(FieldError(path, "FieldValueTypeInvalid", message, _json_type(err)))
        return None, errors
    return (None, errors) if errors else (pod, [])


def pod_report(
    pod: Pod,
    *,
    workload: str | None = None,
    spec_path: str = "spec",
    metadata_path: str = "metadata",
    template: bool = False,
) -> PodReport:
    """QoS with reasons, effective requests/limits, validation and (for a workload) advice."""
    with shared_defaults():
        validation: ValidationResult = validate_pod(
            pod, spec_path=spec_path, metadata_path=metadata_path, template=template
        )
        qos = pod_qos(pod, spec_path=spec_path)
        requests = effective_requests(pod)
        limits = effective_limits(pod)
    advice = pod_advice(pod, workload, qos.qos_class, requests, limits) if workload else []
    return PodReport(pod, qos, requests, limits, validation.errors, validation.warnings, advice)


def failed_report(errors: list[FieldError]) -> PodReport:
    """A report for a pod that could not even be decoded."""
    return PodReport(None, None, {}, {}, errors, [])
