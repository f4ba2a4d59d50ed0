"""One call that answers everything the product shows about a pod.

Views, the CLI and the JSON API all call ``pod_report``, so they cannot disagree. The pod is
defaulted once, as the API server stores it, and that defaulted pod is what validation, QoS
and the scheduler's sums read (and what the report hands on, e.g. to planning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.k8s.apiserver import (
    LATEST,
    ClusterVersion,
    ValidationResult,
    pod_with_defaults,
    validate_pod,
)
from designer.k8s.core import (
    FieldError,
    FieldWarning,
    Pod,
    Quantity,
    Unreadable,
    cached_property,
    format_resources,
    unreadable_quantities,
)
from designer.k8s.design.advice import Advice, pod_advice
from designer.k8s.kubelet import QosResult, pod_qos
from designer.k8s.scheduler import effective_limits, effective_requests


@dataclass(frozen=True)
class PodReport:
    pod: Pod | None
    qos: QosResult | None
    requests: dict[str, Quantity]
    limits: dict[str, Quantity]
    errors: list[FieldError]
    warnings: list[FieldWarning]
    advice: list[Advice] = field(default_factory=list)
    defaulted: Pod | None = None  # the pod as the API server stores it
    # Values that are not quantities: left out of ``requests``/``limits``, never read as 0.
    unreadable: tuple[Unreadable, ...] = ()

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

    @cached_property
    def _as_dict(self) -> dict[str, Any]:
        return {
            "qosClass": self.qos_class,
            "effectiveRequests": format_resources(self.requests),
            "effectiveLimits": format_resources(self.limits),
            "errors": [e.as_dict() for e in self.errors],
            "warnings": [w.as_dict() for w in self.warnings],
            "qosReasons": [r.text for r in self.qos.reasons] if self.qos else [],
            "advice": [a.as_dict() for a in self.advice],
        }


def pod_report(
    pod: Pod,
    *,
    workload: str | None = None,
    spec_path: str = "spec",
    metadata_path: str = "metadata",
    template: bool = False,
    claim_gpus: int = 0,
    advise: bool | None = None,
    version: ClusterVersion | None = None,
    volumes_known: bool = True,
) -> PodReport:
    """QoS with reasons, effective requests/limits, validation and advice; ``claim_gpus`` are
    GPUs the pod gets through DRA claims (no request counts them). ``version`` answers for
    that Kubernetes release (apiserver.versions); None: the newest. ``volumes_known=False``:
    a controller adds volumes to the pods made from this template (an operator's kind), so
    a mount is not looked up among the template's volumes.

    Advice is given for a ``workload`` type (its rules and the rules for every type), or with
    ``advise`` and no workload type, the rules for every workload type only."""
    defaulted = pod_with_defaults(pod, version=version)
    validation: ValidationResult = validate_pod(
        pod,
        spec_path=spec_path,
        metadata_path=metadata_path,
        template=template,
        defaulted=defaulted,
        version=version or LATEST,
        volumes_known=volumes_known,
    )
    qos = pod_qos(pod, spec_path=spec_path, defaulted=defaulted, version=version)
    requests = effective_requests(defaulted, apply_defaults=False)
    limits = effective_limits(defaulted, apply_defaults=False)
    unreadable = tuple(unreadable_quantities(pod, spec_path))
    advice = (
        pod_advice(
            pod,
            workload,
            qos.qos_class,
            requests,
            limits,
            claim_gpus=claim_gpus,
            spec_path=spec_path,
            unreadable=unreadable,
        )
        if (workload is not None if advise is None else advise)
        else []
    )
    return PodReport(
        pod,
        qos,
        requests,
        limits,
        validation.errors,
        validation.warnings,
        advice,
        defaulted,
        unreadable,
    )


def failed_report(errors: list[FieldError]) -> PodReport:
    """A report for a pod that could not even be decoded."""
    return PodReport(None, None, {}, {}, errors, [])
