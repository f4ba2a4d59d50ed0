"""A design in its namespace: the pod through the LimitRanges and ResourceQuotas the user
pasted into the designer's "Namespace policy" panel (or sent as ``namespacePolicy`` to
``POST /api/v1/render``), as the API server's admission would take it in.

Which namespace the pod is in: the design's own ``namespace`` when it sets one; otherwise, when
the pasted objects name exactly one namespace, that one (the pod is meant for it, as ``kubectl
apply -n team`` would create it); otherwise ``default``. Pasted objects that name no namespace
are in the pod's. Policies of another namespace are listed, not applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.k8s.admission import (
    DEFAULT_NAMESPACE,
    Admission,
    PolicyNote,
    PolicyReport,
    admit,
    read_policy_text,
)
from designer.k8s.apiserver import ClusterVersion
from designer.k8s.core import Message, Pod, gettext_noop
from designer.k8s.design.advice import Advice, pod_advice
from designer.k8s.kubelet import QosResult, pod_qos

NAMESPACE_FROM_DESIGN = "design"  # the design sets metadata.namespace
NAMESPACE_FROM_POLICY = "policy"  # the only namespace the pasted objects name
NAMESPACE_DEFAULT = "default"  # neither: the pod goes to "default"

M_IN_POLICY_NAMESPACE = gettext_noop(
    "Admitted in namespace %(namespace)s, the one the pasted objects name: the pod sets no "
    "namespace, so it goes where you apply it (kubectl apply -n %(namespace)s)."
)
M_OTHER_NAMESPACES = gettext_noop(
    "The pasted objects of namespace %(namespaces)s do not apply: this pod is in namespace "
    "%(namespace)s. Set the pod's Namespace to the one you deploy to."
)
M_UNREADABLE_TEXT = gettext_noop("The pasted text cannot be read: %(message)s")
M_UNREADABLE_DOCUMENT = gettext_noop("Document %(document)s cannot be read: %(message)s")
M_NO_POLICY_OBJECT = gettext_noop(
    "The pasted text holds no LimitRange or ResourceQuota: nothing is admitted differently."
)
M_SET_BY = gettext_noop("On admission, %(object)s sets %(value)s here.")


@dataclass(frozen=True)
class DesignAdmission:
    """The answer of the Namespace policy panel."""

    namespace: str  # the namespace the pod is admitted in
    namespace_from: str  # NAMESPACE_FROM_DESIGN | NAMESPACE_FROM_POLICY | NAMESPACE_DEFAULT
    policies: list[PolicyReport]  # every LimitRange/ResourceQuota pasted, applied or not
    admission: Admission | None  # None: no accepted policy in the pod's namespace
    qos: QosResult | None  # the admitted pod's QoS class with its reasons
    notes: list[PolicyNote] = field(default_factory=list)  # objects read but not applied
    unreadable: list[tuple[int | None, str]] = field(default_factory=list)
    other_namespaces: list[str] = field(default_factory=list)  # pasted, not the pod's
    advice: list[Advice] = field(default_factory=list)  # for the admitted pod (a workload's)

    @property
    def invalid(self) -> list[PolicyReport]:
        """The pasted policies the API server would refuse (not applied)."""
        return [r for r in self.policies if not r.policy.ok]

    @property
    def admitted_pod(self) -> Pod | None:
        return self.admission.pod if self.admission else None

    def panel_notes(self) -> list[tuple[str, Message]]:
        """What the panel says about the pasted text itself, as (level, message): what
        cannot be read, what is not read, which namespace the pod is admitted in."""
        out: list[tuple[str, Message]] = []
        for document, text in self.unreadable:
            if document is None:
                out.append(("error", Message(M_UNREADABLE_TEXT, {"message": text})))
            else:
                out.append(
                    (
                        "error",
                        Message(M_UNREADABLE_DOCUMENT, {"document": document, "message": text}),
                    )
                )
        out += [("warning", n.message) for n in self.notes]
        if not self.policies and not self.unreadable:
            out.append(("warning", Message(M_NO_POLICY_OBJECT, {})))
        if self.other_namespaces:
            params = {"namespaces": ", ".join(self.other_namespaces), "namespace": self.namespace}
            out.append(("warning", Message(M_OTHER_NAMESPACES, params)))
        if self.namespace_from == NAMESPACE_FROM_POLICY:
            out.append(("hint", Message(M_IN_POLICY_NAMESPACE, {"namespace": self.namespace})))
        return out

    def field_notes(self) -> list[tuple[str, str, Message]]:
        """Each value LimitRanger sets, for the field it sets: (pod path, resource, message)."""
        if self.admission is None:
            return []
        return [
            (
                f"spec.{d.field}",
                d.resource,
                Message(M_SET_BY, {"object": d.source, "value": d.value}),
            )
            for d in self.admission.defaulted
        ]

    def as_dict(self) -> dict[str, Any]:
        """The ``namespacePolicy`` part of the ``POST /api/v1/render`` answer."""
        return {
            "namespace": self.namespace,
            "admission": self.admission.as_dict() if self.admission else None,
            "policies": [r.as_dict() for r in self.policies],
            "policyNotes": [
                {"document": n.document, "message": n.message.text} for n in self.notes
            ],
            "policyErrors": [{"document": d, "message": m} for d, m in self.unreadable],
        }


def admit_design(
    pod: Pod,
    defaulted: Pod,
    policy_text: str,
    *,
    version: ClusterVersion,
    written_qos: str | None,
    kind: str = "Pod",
    replicas: int = 1,
    workload: str | None = None,
    claim_gpus: int = 0,
) -> DesignAdmission:
    """``pod`` (a design's, as written; ``defaulted`` as the API server stores it for
    ``version``) through the namespace policy of ``policy_text``. ``kind`` and ``replicas``
    are the export's: how many such pods the workload runs at once, and whether the API
    server's messages can name the pod (only a bare Pod has its name before it exists).
    With ``workload``, the advice is the admitted pod's (what runs: a BestEffort pod a
    LimitRange makes Burstable is advised as Burstable)."""
    text = read_policy_text(policy_text, version=version)
    own = pod.metadata.namespace or ""
    named = text.namespaces
    if own:
        namespace, source = own, NAMESPACE_FROM_DESIGN
    elif len(named) == 1:
        namespace, source = named[0], NAMESPACE_FROM_POLICY
    else:
        namespace, source = DEFAULT_NAMESPACE, NAMESPACE_DEFAULT
    policies, reports = text.policies(version, namespace)
    policy = policies.get(namespace)
    admission = qos = None
    advice: list[Advice] = []
    if policy is not None:
        name = (pod.metadata.name or None) if kind == "Pod" else None
        admission = admit(
            pod,
            defaulted,
            policy,
            version=version,
            replicas=replicas,
            written_qos=written_qos,
            pod_name=lambda _ordinal: name,
        )
        qos = pod_qos(admission.pod, defaulted=admission.pod, version=version)
        if workload:
            advice = pod_advice(
                admission.pod,
                workload,
                admission.qos_class,
                admission.requests,
                admission.limits,
                claim_gpus=claim_gpus,
            )
    return DesignAdmission(
        namespace=namespace,
        namespace_from=source,
        policies=reports,
        admission=admission,
        qos=qos,
        notes=text.notes,
        unreadable=text.unreadable,
        other_namespaces=sorted(set(policies) - {namespace}),
        advice=advice,
    )
