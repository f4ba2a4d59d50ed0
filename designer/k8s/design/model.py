"""The design model the whole product shares.

A ``Design`` is what the user edits: the form, the share link, the JSON API and the exported
YAML are all views of it. ``convert.design_to_pod`` turns it into a Pod manifest model;
``convert.design_from_pod`` starts a design from an existing manifest and keeps every field
the form does not edit (in ``base``), so an export loses nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
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


# The fields a preset sets, by the keys edits are named with (``touched``): the pod's own, and
# those of the main container (the first app container) as "containers[<i>].<field>".
PRESET_POD_FIELDS = ("name", "labels", "restart_policy")
SIZE_POD_FIELDS = ("shm_size",)
PRESET_MAIN_FIELDS = ("image",)
SIZE_MAIN_FIELDS = ("cpu_request", "cpu_limit", "memory_request", "memory_limit", "gpus")


@dataclass(frozen=True)
class KeptEdit:
    """A field the user edited that a preset left as it was, though the preset says else."""

    field: str  # "name", "containers[0].cpu_request", ...
    container: int | None  # index in Design.containers for a container field
    value: Any  # what the user set (and the design keeps)
    preset: Any  # what the preset would have set


def _main_index(design: Design) -> int | None:
    return next((i for i, c in enumerate(design.containers) if c.role == "app"), None)


def apply_preset(
    design: Design,
    size: str | None = None,
    *,
    whole: bool = True,
    keep: Collection[str] = (),
) -> tuple[Design, tuple[KeptEdit, ...]]:
    """The design with its workload type's preset (at ``size``, else the design's size, else
    the type's default) applied: with ``whole``, every field a preset sets (pod name, labels,
    restart policy, the main container's image, the size); otherwise the size's fields only.

    Fields named in ``keep`` (the user's edits) are never overwritten: they come back as
    KeptEdits where the preset differs, so the page can offer to apply the preset anyway.
    Everything a preset does not set (other containers, the node, GPU and export choices,
    the namespace, ...) is left as it is."""
    spec = workload_type(design.workload)
    chosen = size if size in spec.presets else design.size
    fresh = preset_design(spec.id, chosen)
    out = design.model_copy(deep=True)
    out.size = fresh.size
    main = _main_index(out)
    if main is None:
        out.containers.insert(0, ContainerDesign(name="main", image=spec.image))
        main = 0
    kept: list[KeptEdit] = []

    def put(key: str, target: Any, name: str, value: Any, container: int | None) -> None:
        current = getattr(target, name)
        if key in keep:
            if current != value:
                kept.append(KeptEdit(key, container, current, value))
            return
        setattr(target, name, value)

    pod_fields = (*PRESET_POD_FIELDS, *SIZE_POD_FIELDS) if whole else SIZE_POD_FIELDS
    for name in pod_fields:
        put(name, out, name, getattr(fresh, name), None)
    main_fields = (*PRESET_MAIN_FIELDS, *SIZE_MAIN_FIELDS) if whole else SIZE_MAIN_FIELDS
    for name in main_fields:
        put(
            f"containers[{main}].{name}",
            out.containers[main],
            name,
            getattr(fresh.containers[0], name),
            main,
        )
    return out, tuple(kept)


def matching_size(design: Design) -> str:
    """The size preset the design's sized fields (the main container's cpu, memory and GPUs,
    /dev/shm) match: its own size when they still do, else the first size they match, else
    "custom"."""
    spec = workload_type(design.workload)
    main = _main_index(design)
    if main is None:
        return "custom"
    container = design.containers[main]
    values = (
        design.shm_size.strip(),
        *(str(getattr(container, name)).strip() for name in SIZE_MAIN_FIELDS),
    )

    def matches(size: str) -> bool:
        p = spec.presets[size]
        return values == (
            p.shm,
            p.cpu_request,
            p.cpu_limit,
            p.memory_request,
            p.memory_limit,
            p.gpus,
        )

    if design.size in spec.presets and matches(design.size):
        return design.size
    return next((size for size in spec.presets if matches(size)), "custom")


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
