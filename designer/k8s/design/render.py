"""A design rendered: the pod, its report, the exported objects and their YAML, and what the
designer page shows beside them (hints, the choice fields that apply, the panels).

The designer page, ``POST /api/v1/render`` and ``podspec render`` all call
``render_design`` (once per request), so the preview, the download, the API and the CLI print
the same bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.apiserver import (
    LATEST,
    ClusterVersion,
    VersionNote,
    validate_objects_own,
    version_notes,
)
from designer.k8s.core import FieldError, FieldWarning, Message, Pod, Quantity, format_resources
from designer.k8s.design.actions import apply_action, apply_gpu_choice
from designer.k8s.design.canonical import pod_manifest
from designer.k8s.design.convert import DesignError, design_to_pod
from designer.k8s.design.dra import (
    DRA_CHOICES,
    DraDesign,
    container_hints,
    dra_design,
    explain_dra,
)
from designer.k8s.design.explain import explain_export
from designer.k8s.design.export import (
    PodFacts,
    effective_kind,
    export_kind,
    export_objects,
    job_totals,
    warn_objects,
)
from designer.k8s.design.hints import FieldHint, design_hints
from designer.k8s.design.model import Design, KeptEdit, matching_size
from designer.k8s.design.namespace import DesignAdmission, admit_design
from designer.k8s.design.operators import OPERATOR_KINDS, operator_problems, setting_hints
from designer.k8s.design.origin import (
    MSG_ORIGIN_PODS,
    OriginExport,
    export_origin,
    origin_design,
)
from designer.k8s.design.planning import DRA_MODE, Plan, plan
from designer.k8s.design.report import PodReport, pod_report
from designer.k8s.design.roundtrip import RoundTripError, pod_path
from designer.k8s.gpu import sharing_modes
from designer.k8s.manifest import dump_yaml_all
from designer.k8s.operators import Finding


@dataclass(frozen=True)
class ObjectProblem:
    """An error or warning on a wrapper object (Deployment, HPA, Job, Service)."""

    index: int  # position in ``objects``
    kind: str
    problem: FieldError | FieldWarning | Finding
    # The field of the designed pod the problem is about, when it is inside a pod template
    # the design makes (an operator's rule on a container, a CRD refusal of a quantity).
    pod_field: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"object": self.index, "kind": self.kind, **self.problem.as_dict()}


@dataclass(frozen=True)
class Rendered:
    design: Design
    pod: Pod
    report: PodReport
    kind: str
    objects: list[dict[str, Any]]
    object_errors: list[ObjectProblem]
    object_warnings: list[ObjectProblem]
    explanation: list[Message]
    totals: dict[str, str]
    yaml: str
    plan: Plan
    hints: list[FieldHint]
    # The choice fields of the design that apply to it ("gpu.profile", "node.cpu",
    # "export.replicas", ...): a page shows those and no others.
    applicable: frozenset[str]
    # GPUs through Dynamic Resource Allocation: the claims, the exported templates, the
    # problems per choice field ("gpu.selectors[0]", ...). None for device-plugin modes.
    dra: DraDesign | None = None
    # The user's edits a preset kept (design.actions.apply_action), and the edited fields.
    kept: tuple[KeptEdit, ...] = ()
    touched: frozenset[str] = frozenset()
    # The part of ``explanation`` that is about the claims (a page shows it with them).
    claim_explanation: tuple[Message, ...] = ()
    # A design opened from an object (Design.origin): the export is that object, patched.
    origin: OriginExport | None = None
    # Errors the object it was opened from already had: shown, not blocking.
    inherited_errors: list[ObjectProblem] = field(default_factory=list)
    # What to say beside an export setting (ExportSettings field -> message).
    setting_hints: dict[str, Message] = field(default_factory=dict)
    # The Kubernetes release the answers are for (None: the newest the engine models) and
    # what it does differently to the pod (pod paths).
    kubernetes_version: str | None = None
    version_notes: tuple[VersionNote, ...] = ()
    # The pod through the pasted namespace policy (None: no policy text). When it applies,
    # ``plan`` (node fit, cgroups, eviction) is the admitted pod's: what the node runs.
    namespace: DesignAdmission | None = None

    @property
    def ok(self) -> bool:
        """The API server accepts the YAML (admission may still refuse it in a namespace:
        ``namespace.admission.allowed``)."""
        return self.report.ok and not self.object_errors

    @property
    def qos_class(self) -> str | None:
        """The class of the pod the node runs: after admission when a policy applies."""
        admission = self.namespace.admission if self.namespace else None
        return admission.qos_class if admission else self.report.qos_class

    def as_dict(self) -> dict[str, Any]:
        """The ``POST /api/v1/render`` answer."""
        return {
            "yaml": self.yaml,
            "kind": self.kind,
            "qosClass": self.report.qos_class,
            "qosReasons": [r.text for r in self.report.qos.reasons] if self.report.qos else [],
            "errors": [e.as_dict() for e in self.report.errors]
            + [p.as_dict() for p in self.object_errors],
            "warnings": [w.as_dict() for w in self.report.warnings]
            + [p.as_dict() for p in self.object_warnings],
            "totals": self.totals,
            "claims": [c.as_dict() for c in self.dra.claims] if self.dra else [],
            "explanation": [line.text for line in self.explanation],
            "origin": self.origin.as_dict() if self.origin else None,
            "kubernetesVersion": self.kubernetes_version,
            "versionNotes": [n.as_dict() for n in self.version_notes],
            **(self.namespace.as_dict() if self.namespace else {}),
        }


def _problems_of(
    objects: list[dict[str, Any]], problems: list[tuple[int, Any]]
) -> list[ObjectProblem]:
    return [ObjectProblem(i, str(objects[i].get("kind")), p) for i, p in problems]


def _own(objects: list[dict[str, Any]], problems: list[tuple[int, Any]]) -> list[ObjectProblem]:
    """Problems of the wrapper objects themselves; the pod template's are the pod report's
    (same rules, other path prefix), so they are not repeated."""
    return [
        ObjectProblem(i, str(objects[i].get("kind")), p)
        for i, p in problems
        if not p.field.startswith(("spec.template.", "spec.jobTemplate."))
    ]


# The node choice fields each node source uses (design.planning.NodeChoice).
NODE_SOURCE_CHOICES: dict[str, tuple[str, ...]] = {
    "catalog": ("catalog_id", "provider"),
    "custom": ("cpu", "memory", "gpus", "gpu_resource", "provider"),
    "manifest": ("manifest",),
}
NODE_COMMON_CHOICES = ("max_pods", "ds_cpu", "ds_memory")
# The node's kubelet configuration: "What the node does" uses it with or without a node.
KUBELET_CHOICES = ("cpu_cfs_quota", "cpu_cfs_quota_period")
HPA_SETTINGS = ("hpa_min", "hpa_max", "hpa_cpu_utilization", "hpa_gpu_metric")


def origin_active(design: Design) -> bool:
    """Whether the design exports the object it was opened from."""
    return design.origin is not None and design.origin.object is not None


def applicable_choices(design: Design, kind: str) -> frozenset[str]:
    """The choice fields (``<group>.<field>``) that apply to a design exported as ``kind``."""
    mode = next((m for m in sharing_modes() if m.key == design.gpu.mode), None)
    fields = {f"gpu.{name}" for name in (mode.choices if mode else ())}
    if design.gpu.mode != DRA_MODE:
        fields.add("gpu.mode")  # the device plugin's sharing mode; a claim replaces it
    else:
        fields |= {f"gpu.{name}" for name in DRA_CHOICES}
        if design.gpu.allocation_mode == "All":
            fields.discard("gpu.count")  # every matching device: no count to give
        if design.node.source in NODE_SOURCE_CHOICES:
            fields.add("node.resource_slices")
    if design.node.source in NODE_SOURCE_CHOICES:
        names = (*NODE_SOURCE_CHOICES[design.node.source], *NODE_COMMON_CHOICES)
        fields |= {f"node.{name}" for name in names}
        if design.node.source != "manifest" and mode is not None:
            # A pasted Node shows what its device plugin advertises; a shape needs saying.
            fields |= {f"node.{name}" for name in mode.node_choices}
    fields |= {f"node.{name}" for name in KUBELET_CHOICES}
    # The object a design came from is exported as it is: no export setting applies.
    settings = () if origin_active(design) else export_kind(kind).settings
    if not design.export.hpa:
        settings = tuple(name for name in settings if name not in HPA_SETTINGS)
    fields |= {f"export.{name}" for name in settings}
    return frozenset(fields)


def render_design(
    design: Design,
    action: str = "",
    changed: str = "",
    *,
    touched: Collection[str] = (),
    was: str = "",
    since: Collection[str] = (),
    version: ClusterVersion | None = None,
    namespace_policy: str | None = None,
) -> Rendered:
    """Render a design, after a designer ``action`` (a button: add a container, apply a
    preset, ...) when one is given (``changed``, ``touched``, ``was``, ``since``: see
    actions.apply_action); raises DesignError when its kept manifest fields cannot form a
    Pod. The design's size is the preset its sized fields match ("custom" after edits).
    ``version`` answers for that Kubernetes release (None: the newest the engine models).
    ``namespace_policy`` is the text of the namespace's LimitRanges and ResourceQuotas
    (``kubectl get limitrange,resourcequota -n team -o yaml``): read once, and the pod the
    node runs is the admitted one (design.namespace)."""
    if origin_active(design) and not design.containers:
        # A design given as its origin alone (the API): the origin's template.
        try:
            design = origin_design(design)
        except RoundTripError as exc:
            raise DesignError(exc.message.template, exc.message.params) from exc
    kept: tuple[KeptEdit, ...] = ()
    edited = frozenset(touched)
    if action:
        result = apply_action(design, action, changed, touched=edited, was=was, since=since)
        design, kept, edited = result.design, result.kept, result.touched
    size = matching_size(design)
    if size != design.size:
        design = design.model_copy(update={"size": size})
    if design.gpu.mode != "whole":
        # A sharing mode decides the GPU container's resource name (MIG slice, .shared).
        design = apply_gpu_choice(design)
    pod = design_to_pod(design)
    dra = dra_design(design)
    devices = dra.devices_per_pod if dra else 0
    kind = effective_kind(design.export, design.workload)
    # An operator's controller may add volumes to the pods (JobSet's volumeClaimPolicies).
    report = pod_report(
        pod,
        workload=design.workload,
        claim_gpus=devices,
        version=version,
        volumes_known=kind not in OPERATOR_KINDS,
    )
    facts = PodFacts(pod_manifest(pod), report.defaulted, report.requests, devices)
    origin: OriginExport | None = None
    inherited: list[ObjectProblem] = []
    hints_for_settings: dict[str, Message] = {}
    if origin_active(design):
        # ==== issue 11: the object the design was opened from, with its resources patched
        assert design.origin is not None
        try:
            origin = export_origin(design.origin, pod, design)
        except RoundTripError as exc:
            raise DesignError(exc.message.template, exc.message.params) from exc
        kind = origin.kind
        if origin.filled:
            # What the operator fills in (KServe's image) is no error of the object's pod.
            kept = [e for e in report.errors if e.field not in origin.filled]
            report = dataclasses.replace(report, errors=kept)
        objects = [origin.document]
        object_errors = []
        for p in origin.errors:
            (inherited if p.inherited else object_errors).append(
                ObjectProblem(0, kind, p.problem, p.pod_field)
            )
        object_warnings = [ObjectProblem(0, kind, p.problem, p.pod_field) for p in origin.warnings]
        explanation = list(origin.explanation)
        pods = origin.replicas if origin.replicas is not None else 1
        totals = _times(report.requests, pods)
        if origin.replicas is not None and origin.replicas > 1 and totals:
            text = ", ".join(f"{k} {v}" for k, v in totals.items())
            source = origin.replicas_source or "replicas"
            explanation.append(
                Message(MSG_ORIGIN_PODS, {"pods": pods, "source": source, "totals": text})
            )
        claim_explanation: list[Message] = []
        hints = design_hints(design)
        claim_objects: list[dict[str, Any]] = []
        dra = None  # a claim is not written back (origin.unwritten says so)
        # ==== end of issue 11
    else:
        # A DRA claim's ResourceClaimTemplate (or ResourceClaim) goes first, in the same file.
        claim_objects = list(dra.objects) if dra else []
        objects = claim_objects + export_objects(facts, design.export, design.workload)
        wrapped = kind != "Pod"
        checked = objects if wrapped else claim_objects
        object_errors = _problems_of(objects, validate_objects_own(checked, version))
        object_warnings = _own(objects, warn_objects(objects)) if wrapped else []
        if kind in OPERATOR_KINDS:
            # An ML operator's object: its CRD schema and its operator's own rules check it,
            # each problem beside the pod field it is about when there is one.
            errors, warnings = operator_problems(objects)
            object_errors += [
                ObjectProblem(i, kind, p, pod_path(objects[i], p.field)) for i, p in errors
            ]
            object_warnings += [
                ObjectProblem(i, kind, p, pod_path(objects[i], p.field)) for i, p in warnings
            ]
            hints_for_settings = setting_hints(kind, design.export)
        explanation = explain_export(design.export, design.workload, facts)
        claim_explanation = []
        hints = design_hints(design)
        pods = export_kind(kind).copies(design.export)
        if dra is not None:
            claim_explanation = explain_dra(dra, design, kind, pods)
            explanation = [*explanation, *claim_explanation]
            hints += [
                FieldHint(i, name, message) for i, name, message in container_hints(design, dra)
            ]
        totals = job_totals(facts, design.export, design.workload)
    cluster = version or LATEST
    namespace = None
    if namespace_policy and namespace_policy.strip():
        namespace = admit_design(
            pod,
            report.defaulted or pod,
            namespace_policy,
            version=cluster,
            written_qos=report.qos_class,
            kind=kind,
            replicas=pods,
            workload=design.workload,
            claim_gpus=devices,
        )
    admitted = namespace.admission if namespace else None
    return Rendered(
        design=design,
        pod=pod,
        report=report,
        kind=kind,
        objects=objects,
        object_errors=object_errors,
        object_warnings=object_warnings,
        explanation=explanation,
        totals=totals,
        yaml=origin.yaml if origin is not None else dump_yaml_all(objects),
        plan=plan(
            admitted.pod if admitted else pod,
            design.gpu,
            design.node,
            design.headroom,
            design.shm_size,
            defaulted=admitted.pod if admitted else report.defaulted,
            qos=namespace.qos if admitted and namespace else report.qos,
            claim_objects=tuple(claim_objects),
        ),
        hints=hints,
        applicable=applicable_choices(design, kind),
        dra=dra,
        kept=kept,
        touched=edited,
        claim_explanation=tuple(claim_explanation),
        origin=origin,
        inherited_errors=inherited,
        setting_hints=hints_for_settings,
        kubernetes_version=cluster.version,
        version_notes=tuple(version_notes(pod, cluster)) if cluster.version else (),
        namespace=namespace,
    )


def _times(requests: dict[str, Quantity], pods: int) -> dict[str, str]:
    """Effective requests of one pod x ``pods``, canonical."""
    totals: dict[str, Quantity] = {}
    for name, q in requests.items():
        try:
            totals[name] = Quantity.from_fraction(q.as_fraction() * pods, q.format)
        except (ValueError, OverflowError):
            continue
    return format_resources(totals)
