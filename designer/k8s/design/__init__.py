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
from designer.k8s.design.dra import (
    CLAIM_NAME,
    COMMON_SELECTORS,
    DRA_CHOICES,
    CommonSelector,
    DraClaim,
    DraDesign,
    dra_design,
    explain_dra,
)
from designer.k8s.design.explain import (
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
    MAX_CONTAINERS,
    ContainerDesign,
    Design,
    ExtraResource,
    apply_size,
    preset_design,
)
from designer.k8s.design.planning import (
    DRA_MODE,
    DraAlternative,
    GpuChoice,
    HeadroomChoice,
    NodeChoice,
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
from designer.k8s.design.workload_types import (
    SIZE_KEYS,
    WORKLOAD_TYPES,
    UnknownWorkloadType,
    workload_of_kind,
    workload_type,
)

__all__ = [
    "apply_size",
    "CLAIM_NAME",
    "COMMON_SELECTORS",
    "CommonSelector",
    "COMPLETION_INDEX_FIELD",
    "ContainerDesign",
    "Design",
    "design_action",
    "design_from_pod",
    "design_to_pod",
    "DesignError",
    "DRA_CHOICES",
    "dra_design",
    "DRA_MODE",
    "DraAlternative",
    "DraClaim",
    "DraDesign",
    "duration_text",
    "effective_kind",
    "explain_dra",
    "explain_export",
    "EXPORT_KINDS",
    "export_objects",
    "ExportSettings",
    "ExtraResource",
    "F_LIMIT",
    "F_PEAK",
    "F_SHM",
    "failed_report",
    "GPU_METRIC_ANNOTATION",
    "GPU_METRIC_NAME",
    "GPU_RESOURCE_CHOICES",
    "GpuChoice",
    "headroom_proposal",
    "HeadroomChoice",
    "HeadroomError",
    "JOB_NAME_LABEL",
    "job_totals",
    "MAX_CONTAINERS",
    "memory_headroom",
    "MSG_HPA_NO_CPU",
    "MSG_INDEXED_TOTAL_GPU",
    "MSG_ONFAILURE",
    "MSG_PFP",
    "MSG_ROLLOUT_DEFAULT",
    "MSG_ROLLOUT_GPU",
    "NodeChoice",
    "pod_manifest",
    "pod_report",
    "pod_yaml",
    "PodFacts",
    "PodReport",
    "preset_design",
    "quantity_hint",
    "removable",
    "render_design",
    "Rendered",
    "rollout_values",
    "settings_field",
    "SIZE_KEYS",
    "UnknownWorkloadType",
    "warn_objects",
    "workload_of_kind",
    "workload_type",
    "WORKLOAD_TYPES",
]
