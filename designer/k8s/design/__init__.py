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
from designer.k8s.design.explain import (
    EXPLAINERS,
    MSG_HPA_NO_CPU,
    MSG_INDEXED_TOTAL_GPU,
    MSG_ONFAILURE,
    MSG_PFP,
    MSG_ROLLOUT_DEFAULT,
    MSG_ROLLOUT_GPU,
    duration_text,
    explain_export,
)
from designer.k8s.design.export import (
    COMPLETION_INDEX_FIELD,
    EXPORT_KINDS,
    GPU_METRIC_ANNOTATION,
    GPU_METRIC_NAME,
    JOB_NAME_LABEL,
    ExportKind,
    ExportSettings,
    PodFacts,
    UnknownExportKind,
    effective_kind,
    export_kind,
    export_objects,
    job_totals,
    register_export_kind,
    rollout_values,
    settings_field,
    unregister_export_kind,
    warn_objects,
)
from designer.k8s.design.headroom import (
    HeadroomError,
    memory_headroom,
)
from designer.k8s.design.hints import (
    FieldHint,
    design_hints,
    quantity_hint,
)
from designer.k8s.design.model import (
    GPU_RESOURCE_CHOICES,
    MAX_CONTAINERS,
    ContainerDesign,
    Design,
    ExtraResource,
    apply_size,
    preset_design,
)
from designer.k8s.design.planning import (
    GpuChoice,
    HeadroomChoice,
    NodeChoice,
    headroom_proposal,
)
from designer.k8s.design.render import (
    Rendered,
    applicable_choices,
    render_design,
)
from designer.k8s.design.report import (
    PodReport,
    failed_report,
    pod_report,
)
from designer.k8s.design.workload_types import (
    SIZE_KEYS,
    TRAITS,
    WORKLOAD_OF_KIND,
    WORKLOAD_TYPES,
    Size,
    UnknownWorkloadType,
    WorkloadType,
    register_workload_type,
    unregister_workload_type,
    workload_of_kind,
    workload_type,
)

__all__ = [
    "COMPLETION_INDEX_FIELD",
    "ContainerDesign",
    "Design",
    "DesignError",
    "EXPLAINERS",
    "EXPORT_KINDS",
    "ExportKind",
    "ExportSettings",
    "ExtraResource",
    "FieldHint",
    "GPU_METRIC_ANNOTATION",
    "GPU_METRIC_NAME",
    "GPU_RESOURCE_CHOICES",
    "GpuChoice",
    "HeadroomChoice",
    "HeadroomError",
    "JOB_NAME_LABEL",
    "MAX_CONTAINERS",
    "MSG_HPA_NO_CPU",
    "MSG_INDEXED_TOTAL_GPU",
    "MSG_ONFAILURE",
    "MSG_PFP",
    "MSG_ROLLOUT_DEFAULT",
    "MSG_ROLLOUT_GPU",
    "NodeChoice",
    "PodFacts",
    "PodReport",
    "Rendered",
    "SIZE_KEYS",
    "Size",
    "TRAITS",
    "UnknownExportKind",
    "UnknownWorkloadType",
    "WORKLOAD_OF_KIND",
    "WORKLOAD_TYPES",
    "WorkloadType",
    "applicable_choices",
    "apply_size",
    "design_action",
    "design_from_pod",
    "design_hints",
    "design_to_pod",
    "duration_text",
    "effective_kind",
    "explain_export",
    "export_kind",
    "export_objects",
    "failed_report",
    "headroom_proposal",
    "job_totals",
    "memory_headroom",
    "pod_manifest",
    "pod_report",
    "pod_yaml",
    "preset_design",
    "quantity_hint",
    "register_export_kind",
    "register_workload_type",
    "removable",
    "render_design",
    "rollout_values",
    "settings_field",
    "unregister_export_kind",
    "unregister_workload_type",
    "warn_objects",
    "workload_of_kind",
    "workload_type",
]
