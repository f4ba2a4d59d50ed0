"""A pod's way through its namespace's admission: the pod the user actually gets.

The API server's order for a CREATE, which ``admit`` follows on the *defaulted* pod
(apiserver.pod_with_defaults, the version's field drops included):

1. mutating admission: LimitRanger fills missing requests/limits (limitranger.mutate) and
   writes the ``kubernetes.io/limit-ranger`` annotation;
2. validation of the mutated pod: a default limit below the request the user wrote fails
   here (``Pod "x" is invalid: ...``), reported as a LimitRanger denial because its default
   caused it;
3. validating admission: LimitRanger's min/max/ratio, then ResourceQuota (always last).

The first denial is what the API server answers (it stops there); the later ones are what
the next plugin or policy would say once that one is fixed. The QoS class, requests and
limits are recomputed on the admitted pod. For a workload that runs several pods at once
(replicas, a Job's parallelism) each pod is admitted after the previous one was counted, so
the quota answer says how many of them fit and what the first refused one is told.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.admission.limitranger import ANNOTATION, Defaulted, mutate, validate_all
from designer.k8s.admission.quota import (
    LimitedResource,
    advanced_usage,
    check_request,
    room,
)
from designer.k8s.apiserver import (
    ClusterVersion,
    LimitRange,
    ResourceQuota,
    aggregate,
    forbidden_message,
    invalid_text,
    validate_pod,
)
from designer.k8s.core import FieldError, Message, Pod, format_resources, gettext_noop
from designer.k8s.kubelet import compute_qos_class
from designer.k8s.scheduler import effective_limits, effective_requests

PLUGIN_LIMIT_RANGER = "LimitRanger"
PLUGIN_RESOURCE_QUOTA = "ResourceQuota"
QOS_RESOURCES = ("cpu", "memory")

M_ADMITTED_AS = gettext_noop(
    "written as %(written)s; admitted as %(admitted)s because %(objects)s sets %(resources)s"
)
M_AND = gettext_noop("%(first)s and %(second)s")


@dataclass(frozen=True)
class NamespacePolicy:
    """The accepted LimitRanges and ResourceQuotas of one namespace, in input order."""

    namespace: str
    limit_ranges: tuple[LimitRange, ...] = ()
    quotas: tuple[ResourceQuota, ...] = ()
    limited: tuple[LimitedResource, ...] = ()  # AdmissionConfiguration (not in manifests)

    @property
    def empty(self) -> bool:
        return not self.limit_ranges and not self.quotas


WRAP_FORBIDDEN = "forbidden"  # admission.NewForbidden: 'pods "x" is forbidden: ...'
WRAP_INVALID = "invalid"  # validation of the mutated pod: 'Pod "x" is invalid: ...'
WRAP_NONE = "none"  # returned as is (a cluster-configuration refusal of quota)


@dataclass(frozen=True)
class Denial:
    plugin: str  # "LimitRanger" | "ResourceQuota"
    source: str  # "LimitRange/<name>", "ResourceQuota/<name>" ("" for cluster configuration)
    message: str  # the plugin's own error, exactly
    wrap: str = WRAP_FORBIDDEN  # how the API server words it around the pod's name
    replica: int | None = None  # the 1-based pod of the workload this is about (quota)

    @property
    def ordinal(self) -> int:
        """The 0-based pod of the workload the message is for."""
        return self.replica - 1 if self.replica else 0

    def api_server_message(self, name: str | None) -> str | None:
        """The API server's whole answer for a pod named ``name`` (None: a name the
        controller generates, so the text cannot be known)."""
        if self.wrap == WRAP_NONE:
            return self.message
        if name is None:
            return None
        if self.wrap == WRAP_INVALID:
            return invalid_text("Pod", name, self.message)
        return forbidden_message("pods", name, self.message)

    def as_dict(self, name: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "plugin": self.plugin,
            "object": self.source or None,
            "message": self.message,
            "apiServerMessage": self.api_server_message(name),
        }
        if self.replica is not None:
            out["replica"] = self.replica
        return out


@dataclass(frozen=True)
class QuotaRoom:
    fits: int | None
    bottleneck: str | None
    quota: str | None
    replicas: int
    usage: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "fits": self.fits,
            "bottleneck": self.bottleneck,
            "object": self.quota,
            "replicas": self.replicas,
            "usage": self.usage,
        }


@dataclass
class Admission:
    pod: Pod  # the admitted pod (defaulted, then mutated)
    denials: list[Denial]
    defaulted: list[Defaulted]
    spec_path: str
    annotations: dict[str, str]
    written_qos: str | None
    qos_class: str | None
    requests: dict[str, Any]
    limits: dict[str, Any]
    quota: QuotaRoom | None
    policies: list[str] = field(default_factory=list)  # the objects that applied
    # The name the API server prints for the workload's pod number n (0-based), or None when
    # a controller generates it; one admission is shared by the pods of one template.
    pod_name: Callable[[int], str | None] | None = None

    def name_of(self, ordinal: int) -> str | None:
        return self.pod_name(ordinal) if self.pod_name is not None else None

    def api_server_messages(self) -> list[str | None]:
        return [d.api_server_message(self.name_of(d.ordinal)) for d in self.denials]

    @property
    def allowed(self) -> bool:
        return not self.denials

    def explanation(self) -> Message | None:
        """'written as BestEffort; admitted as Burstable because LimitRange/x sets cpu and
        memory', when the class changed."""
        if not self.written_qos or not self.qos_class or self.written_qos == self.qos_class:
            return None
        by_source: dict[str, set[str]] = {}
        for d in self.defaulted:
            if d.resource in QOS_RESOURCES:
                by_source.setdefault(d.source, set()).add(d.resource)
        if not by_source:
            return None
        names = sorted({r for rs in by_source.values() for r in rs}, key=QOS_RESOURCES.index)
        resources: Any = (
            names[0]
            if len(names) == 1
            else Message(M_AND, dict(zip(("first", "second"), names, strict=True)))
        )
        return Message(
            M_ADMITTED_AS,
            {
                "written": self.written_qos,
                "admitted": self.qos_class,
                "objects": ", ".join(sorted(by_source)),
                "resources": resources,
            },
        )

    def as_dict(self) -> dict[str, Any]:
        why = self.explanation()
        return {
            "allowed": self.allowed,
            "denials": [d.as_dict(self.name_of(d.ordinal)) for d in self.denials],
            "defaulted": [
                {"field": f"{self.spec_path}.{d.field}", "value": d.value, "from": d.source}
                for d in self.defaulted
            ],
            "annotations": self.annotations,
            "qosClass": self.qos_class,
            "qosChange": why.text if why else None,
            "effectiveRequests": format_resources(self.requests),
            "effectiveLimits": format_resources(self.limits),
            "quota": self.quota.as_dict() if self.quota else None,
            "policies": self.policies,
        }


def _new_errors(pod: Pod, defaulted: Pod, admitted: Pod) -> list[FieldError]:
    """Validation errors the admitted pod has and the defaulted one has not (pod paths)."""
    before = {str(e) for e in validate_pod(pod, defaulted=defaulted).errors}
    return [e for e in validate_pod(pod, defaulted=admitted).errors if str(e) not in before]


def _source_of(error: FieldError, defaulted: list[Defaulted]) -> str:
    """The LimitRange whose default made a validation error: one that set a value in the
    container the error is about (else the first that set anything)."""
    for d in defaulted:
        container = d.field.split(".resources", 1)[0]
        if error.field.startswith(f"spec.{container}."):
            return d.source
    return defaulted[0].source


def admit(
    pod: Pod,
    defaulted: Pod,
    policy: NamespacePolicy,
    *,
    version: ClusterVersion,
    spec_path: str = "spec",
    replicas: int = 1,
    written_qos: str | None = None,
    pod_name: Callable[[int], str | None] | None = None,
) -> Admission:
    """``pod`` (as written) and ``defaulted`` (as the API server defaulted it for
    ``version``) through ``policy``. ``pod_name(ordinal)`` gives the name the API server
    prints for the workload's pod number ``ordinal`` (0-based), or None when it is random."""
    mutation = mutate(defaulted, list(policy.limit_ranges))
    admitted = mutation.pod
    denials: list[Denial] = []
    if mutation.defaulted:
        errors = _new_errors(pod, defaulted, admitted)
        if errors:
            source = _source_of(errors[0], mutation.defaulted)
            message = aggregate(str(e) for e in errors) or ""
            denials.append(Denial(PLUGIN_LIMIT_RANGER, source, message, WRAP_INVALID))
    for d in validate_all(admitted, list(policy.limit_ranges), version):
        denials.append(Denial(PLUGIN_LIMIT_RANGER, d.source, d.message))

    qos = compute_qos_class(
        admitted, require_pod_level_values=version.qos_requires_pod_level_values
    )
    quota_room = None
    if policy.quotas or policy.limited:
        check = check_request(
            admitted,
            list(policy.quotas),
            version,
            qos,
            limited=list(policy.limited),
            stop_at_first=False,
        )
        denials += _quota_denials(check.denials)
        if check.matched:
            delta = {k: v for k, v in check.usage.items() if not v.is_zero()}
            r = room(delta, check.matched)
            quota_room = QuotaRoom(r.fits, r.bottleneck, r.quota, replicas, format_resources(delta))
            if not check.denials and r.fits is not None and r.fits < replicas:
                # The first pod of the workload the quotas refuse, after the others counted.
                used = advanced_usage(check.matched, delta, r.fits)
                later = check_request(admitted, check.matched, version, qos, used=used)
                for d in _quota_denials(later.denials):
                    denials.append(dataclasses.replace(d, replica=r.fits + 1))
    applied = [lr.ref for lr in policy.limit_ranges] + [q.ref for q in policy.quotas]
    return Admission(
        pod=admitted,
        denials=denials,
        defaulted=mutation.defaulted,
        spec_path=spec_path,
        annotations={ANNOTATION: mutation.annotation} if mutation.annotation else {},
        written_qos=written_qos,
        qos_class=qos,
        requests=effective_requests(admitted, apply_defaults=False),
        limits=effective_limits(admitted, apply_defaults=False),
        quota=quota_room,
        policies=applied,
        pod_name=pod_name,
    )


def _quota_denials(denials: list[Any]) -> list[Denial]:
    return [
        Denial(
            PLUGIN_RESOURCE_QUOTA, d.source, d.message, WRAP_FORBIDDEN if d.forbidden else WRAP_NONE
        )
        for d in denials
    ]
