"""The design model the whole product shares.

A ``Design`` is what the user edits: the form, the share link, the JSON API and the exported
YAML are all views of it. ``convert.design_to_pod`` turns it into a Pod manifest model;
``convert.design_from_pod`` starts a design from an existing manifest and keeps every field
the form does not edit (in ``base``), so an export loses nothing.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from designer.k8s.design.export import ExportSettings
from designer.k8s.design.planning import GpuChoice, HeadroomChoice, NodeChoice
from designer.k8s.design.workload_types import WORKLOAD_TYPES, workload_type

ContainerRole = Literal["app", "sidecar", "init"]

DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"
GPU_RESOURCE_CHOICES = ("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915", "habana.ai/gaudi")
SHM_VOLUME = "dshm"
# The most containers a design may have (the form, the API and the share links alike).
MAX_CONTAINERS = 40


class ExtraResource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = ""
    request: str = ""
    limit: str = ""


class ContainerDesign(BaseModel):
    """One container as the form edits it. Values are kept exactly as typed."""

    model_config = ConfigDict(extra="forbid")

    role: ContainerRole = "app"
    name: str = "main"
    image: str = ""
    command: str = ""
    cpu_request: str = ""
    cpu_limit: str = ""
    memory_request: str = ""
    memory_limit: str = ""
    gpus: str = ""
    gpu_resource: str = DEFAULT_GPU_RESOURCE
    ephemeral_request: str = ""
    ephemeral_limit: str = ""
    extra: list[ExtraResource] = Field(default_factory=list)
    # Fields of the original manifest container that the form does not edit.
    base: dict[str, Any] | None = None


# The most other documents an origin may bring along (a TrainJob's runtime is one).
MAX_ORIGIN_CONTEXT = 8


class Origin(BaseModel):
    """The object a design was opened from (Analyze's "Open in designer", or ``origin`` in
    ``POST /api/v1/render``): the design edits the pod template at ``template`` of
    ``object`` (``path``: the item of a List), and the export is that object with only the
    container resources the design changes written back (design/roundtrip.py).
    ``context``: other documents of the input the template needs (a TrainJob's runtime).

    ``id`` is where the site keeps its copy: the designer's address and form carry the id,
    not the object, and the site fills ``object`` in before rendering. The engine does not
    read it; an origin without ``object`` exports as a plain design."""

    model_config = ConfigDict(extra="forbid")

    object: dict[str, Any] | None = None
    template: str = ""
    path: str = ""
    context: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_ORIGIN_CONTEXT)
    id: str = Field(default="", max_length=64)


class Design(BaseModel):
    """The whole design; the single source of truth for form, link, API and YAML."""

    model_config = ConfigDict(extra="forbid")

    # An id of workload_types.WORKLOAD_TYPES; the JSON schema lists the ids known when it is made.
    workload: str = Field(
        default="training",
        json_schema_extra=lambda schema: schema.update(enum=list(WORKLOAD_TYPES)),
    )
    size: str = "M"
    name: str = "trainer"
    namespace: str = ""
    labels: dict[str, str] = Field(default_factory=dict)
    priority_class_name: str = ""
    restart_policy: str = "Never"
    gpu_toleration: bool = True
    node_selector: dict[str, str] = Field(default_factory=dict)
    shm_size: str = ""
    containers: list[ContainerDesign] = Field(default_factory=list)
    gpu: GpuChoice = Field(default_factory=GpuChoice)
    node: NodeChoice = Field(default_factory=NodeChoice)
    headroom: HeadroomChoice = Field(default_factory=HeadroomChoice)
    export: ExportSettings = Field(default_factory=ExportSettings)
    # The original manifest (without its containers) when the design started from one.
    base: dict[str, Any] | None = None
    # The object the design was opened from; its export is that object (see Origin).
    origin: Origin | None = None

    @model_validator(mode="before")
    @classmethod
    def _preset_for_omitted_fields(cls, data: Any) -> Any:
        """A design given without containers (``{"workload": "inference"}`` to the API) takes
        that workload type's preset for every field it omits."""
        if not isinstance(data, dict) or "containers" in data:
            return data
        origin = data.get("origin")
        if isinstance(origin, Origin):
            origin = {"object": origin.object}
        if isinstance(origin, dict) and origin.get("object") is not None:
            # The origin's template is the design (render_design starts from it).
            return data
        workload = data.get("workload", "training")
        if not isinstance(workload, str) or workload not in WORKLOAD_TYPES:
            return data  # the workload check reports it
        preset = preset_design(
            workload, data.get("size") if isinstance(data.get("size"), str) else None
        )
        return {**preset.model_dump(), **data}

    @field_validator("workload")
    @classmethod
    def _known_workload_type(cls, value: str) -> str:
        workload_type(value)  # raises UnknownWorkloadType (a ValueError) for an unknown id
        return value

    def container_paths(self) -> list[str]:
        """Field path of each design container in the Pod (``spec.containers[0]`` ...)."""
        paths, app, init = [], 0, 0
        for c in self.containers:
            if c.role == "app":
                paths.append(f"spec.containers[{app}]")
                app += 1
            else:
                paths.append(f"spec.initContainers[{init}]")
                init += 1
        return paths


def preset_design(workload: str = "training", size: str | None = None) -> Design:
    """A fresh design for a workload type and size, as the form starts it; raises
    UnknownWorkloadType for an id that is not in the table."""
    spec = workload_type(workload)
    size = size if size in spec.presets else spec.default_size
    design = Design(
        workload=spec.id,
        size=size,
        name=spec.default_name,
        labels={"app": spec.default_name},
        restart_policy=spec.restart_policy,
        containers=[ContainerDesign(name="main", image=spec.image)],
    )
    return apply_size(design, size)


def apply_size(design: Design, size: str) -> Design:
    """Set the main container (the first app container) and /dev/shm to a preset size."""
    spec = workload_type(design.workload)
    preset = spec.presets.get(size)
    if preset is None:
        return design
    design = design.model_copy(deep=True)
    design.size = size
    design.shm_size = preset.shm
    main = next((c for c in design.containers if c.role == "app"), None)
    if main is None:
        main = ContainerDesign(name="main", image=spec.image)
        design.containers.insert(0, main)
    main.cpu_request, main.cpu_limit = preset.cpu_request, preset.cpu_limit
    main.memory_request, main.memory_limit = preset.memory_request, preset.memory_limit
    main.gpus = preset.gpus
    return design
