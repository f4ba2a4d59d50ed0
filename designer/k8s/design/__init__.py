"""The product's own model on top of the components: the Design, workload types, planning
(GPU, node, headroom), export as Pod/Deployment/Job/Indexed Job, advice and rendering.
"""

from __future__ import annotations

from designer.k8s.design.actions import (
    design_action,
    removable,
)
from designer.k8s.design.canonical import (
    pod_manifest,
    pod_yaml,
)
from designer.k8s.design.convert import (
    DesignError,
    design_from_pod,
    design_to_pod,
)
from designer.k8s.design.crd_schema import (
    SchemaProblem,
    validate_custom_resource,
)
from designer.k8s.design.explain import (
    KIND_REASONS,
    MSG_HPA_NO_CPU,
    MSG_INDEXED_TOTAL_GPU,
    MSG_ONFAILURE,
    MSG_PFP,
    MSG_ROLLOUT_DEFAULT,
    MSG_ROLLOUT_GPU,
    duration_text,
    explain_export,
    render_line,
)
from designer.k8s.design.export import (
    COMPLETION_INDEX_FIELD,
    DEFAULT_KINDS,
    EXPORT_KINDS,
    GPU_METRIC_ANNOTATION,
    GPU_METRIC_NAME,
    JOB_NAME_LABEL,
    POD_EXPORT_KINDS,
    ExportSettings,
    PodFacts,
    effective_kind,
    export_objects,
    job_totals,
    rollout_values,
    settings_field,
    warn_objects,
)
from designer.k8s.design.headroom import (
    F_LIMIT,
    F_PEAK,
    F_SHM,
    HeadroomError,
    memory_headroom,
)
from designer.k8s.design.hints import (
    quantity_hint,
)
from designer.k8s.design.model import (
    GPU_RESOURCE_CHOICES,
    ContainerDesign,
    Design,
    ExtraResource,
    apply_size,
    preset_design,
)
from designer.k8s.design.operators import (
    OPERATOR_KINDS,
    OperatorExport,
    export_operator_object,
)
from designer.k8s.design.planning import (
    GpuChoice,
    HeadroomChoice,
    NodeChoice,
    Plan,
    headroom_proposal,
)
from designer.k8s.design.render import (
    Rendered,
    render_design,
)
from designer.k8s.design.report import (
    PodReport,
    failed_report,
    pod_report,
)
from designer.k8s.design.roundtrip import (
    Patched,
    RoundTripError,
    patch_object,
    template_pod,
)
from designer.k8s.design.workload_types import (
    SIZE_KEYS,
    WORKLOADS,
)

__all__ = [
    "COMPLETION_INDEX_FIELD",
    "DEFAULT_KINDS",
    "EXPORT_KINDS",
    "F_LIMIT",
    "F_PEAK",
    "F_SHM",
    "GPU_METRIC_ANNOTATION",
    "GPU_METRIC_NAME",
    "GPU_RESOURCE_CHOICES",
    "JOB_NAME_LABEL",
    "KIND_REASONS",
    "MSG_HPA_NO_CPU",
    "MSG_INDEXED_TOTAL_GPU",
    "MSG_ONFAILURE",
    "MSG_PFP",
    "MSG_ROLLOUT_DEFAULT",
    "MSG_ROLLOUT_GPU",
    "OPERATOR_KINDS",
    "SIZE_KEYS",
    "WORKLOADS",
    "ContainerDesign",
    "Design",
    "DesignError",
    "ExportSettings",
    "ExtraResource",
    "GpuChoice",
    "HeadroomChoice",
    "HeadroomError",
    "NodeChoice",
    "OperatorExport",
    "Patched",
    "Plan",
    "POD_EXPORT_KINDS",
    "PodFacts",
    "PodReport",
    "Rendered",
    "RoundTripError",
    "SchemaProblem",
    "apply_size",
    "design_action",
    "design_from_pod",
    "design_to_pod",
    "duration_text",
    "effective_kind",
    "explain_export",
    "export_objects",
    "export_operator_object",
    "failed_report",
    "headroom_proposal",
    "job_totals",
    "memory_headroom",
    "patch_object",
    "pod_manifest",
    "pod_report",
    "pod_yaml",
    "preset_design",
    "quantity_hint",
    "removable",
    "render_design",
    "render_line",
    "rollout_values",
    "settings_field",
    "template_pod",
    "validate_custom_resource",
    "warn_objects",
]
