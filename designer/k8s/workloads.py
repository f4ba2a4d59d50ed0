"""Workload types, their sizing presets, and the design model the whole product shares.

A ``Design`` is what the user edits: the form, the share link, the JSON API and the
exported YAML are all views of it. ``design_to_pod`` turns it into a Pod manifest model;
``design_from_pod`` starts a design from an existing manifest and keeps every field the
form does not edit (in ``base``), so an export loses nothing.

Presets follow the course text (shared/seed): training aims at Guaranteed with CPU and
memory sized for data loading and a memory-backed /dev/shm; online inference sets
requests = limits; batch work and preprocessing accept BestEffort or low Burstable and
retry on failure. Sizes are starting points, not measurements: each says so.
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from designer.k8s.model import Container, Pod
from designer.k8s.objects import ExportSettings
from designer.k8s.planning import (
    GpuChoice,
    HeadroomChoice,
    NodeChoice,
    gpu_resource_name,
    headroom_proposal,
)
from designer.k8s.text import MessageError, gettext_noop

WorkloadType = Literal["training", "distributed", "inference", "batch", "preprocessing"]
ContainerRole = Literal["app", "sidecar", "init"]

DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"
GPU_RESOURCE_CHOICES = ("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915", "habana.ai/gaudi")
SHM_VOLUME = "dshm"


@dataclass(frozen=True)
class Size:
    """One preset: the main container's resources. Empty string = not set."""

    cpu_request: str
    cpu_limit: str
    memory_request: str
    memory_limit: str
    gpus: str = ""
    shm: str = ""


@dataclass(frozen=True)
class WorkloadSpec:
    key: WorkloadType
    label: str
    image: str
    restart_policy: str
    rationale: tuple[str, ...]
    sizes: dict[str, Size] = field(default_factory=dict)
    default_size: str = "M"


# The data a newcomer extends. Each rationale line is shown under "why these defaults".
WORKLOADS: dict[str, WorkloadSpec] = {
    w.key: w
    for w in (
        WorkloadSpec(
            key="training",
            label=gettext_noop("Training (single node, multi-GPU)"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
            rationale=(
                gettext_noop(
                    "Requests equal limits for CPU and memory, so the pod is Guaranteed: evicted "
                    "last and never squeezed by neighbours during a long run (course: training "
                    "should be Guaranteed or high Burstable)."
                ),
                gettext_noop(
                    "About 8 CPUs and 32Gi of memory per GPU keep the data loader ahead of the GPU."
                ),
                gettext_noop(
                    "/dev/shm is a memory-backed emptyDir: PyTorch DataLoader workers share "
                    "batches through it, and its size counts against the container memory limit."
                ),
                gettext_noop(
                    "GPUs are set as limits only: Kubernetes copies them to requests. (The course "
                    "says extended resources take only requests; the API server does the opposite "
                    "and requires limits.)"
                ),
            ),
            sizes={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("16", "16", "64Gi", "64Gi", "2", "16Gi"),
                "L": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "XL": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
            },
        ),
        WorkloadSpec(
            key="distributed",
            label=gettext_noop("Distributed training worker"),
            image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            restart_policy="Never",
            rationale=(
                gettext_noop(
                    "Every worker is Guaranteed: losing one worker to eviction stalls the "
                    "whole job."
                ),
                gettext_noop(
                    "Workers are sized per node (often all GPUs of one node) so collective "
                    "communication stays fast."
                ),
                gettext_noop(
                    "/dev/shm is memory-backed and counts against the memory limit (NCCL and data "
                    "loaders use it)."
                ),
                gettext_noop(
                    "restartPolicy Never: the launcher (torchrun, a Job) restarts the group, not "
                    "the kubelet restarting one worker alone."
                ),
            ),
            sizes={
                "S": Size("8", "8", "32Gi", "32Gi", "1", "8Gi"),
                "M": Size("32", "32", "128Gi", "128Gi", "4", "32Gi"),
                "L": Size("64", "64", "512Gi", "512Gi", "8", "64Gi"),
                "XL": Size("96", "96", "1024Gi", "1024Gi", "8", "128Gi"),
            },
        ),
        WorkloadSpec(
            key="inference",
            label=gettext_noop("Online inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="Always",
            rationale=(
                gettext_noop(
                    "CPU and memory requests equal limits: latency stays predictable and the pod "
                    "is Guaranteed, so it is not evicted under node pressure."
                ),
                gettext_noop(
                    "One GPU per replica; scale out with more replicas rather than bigger pods."
                ),
                gettext_noop("restartPolicy Always: a serving process that exits is restarted."),
            ),
            sizes={
                "S": Size("2", "2", "8Gi", "8Gi", "1"),
                "M": Size("4", "4", "16Gi", "16Gi", "1"),
                "L": Size("8", "8", "32Gi", "32Gi", "1"),
                "XL": Size("16", "16", "64Gi", "64Gi", "2"),
            },
        ),
        WorkloadSpec(
            key="batch",
            label=gettext_noop("Batch / offline inference"),
            image="nvcr.io/nvidia/tritonserver:24.10-py3",
            restart_policy="OnFailure",
            rationale=(
                gettext_noop(
                    "Low Burstable: modest requests let it pack onto spare capacity, a memory "
                    "limit stops it from starving neighbours, no CPU limit avoids throttling."
                ),
                gettext_noop(
                    "It may be evicted first under pressure: make the work idempotent and let "
                    "restartPolicy OnFailure (or a Job) retry it."
                ),
            ),
            sizes={
                "S": Size("1", "", "4Gi", "8Gi", "1"),
                "M": Size("2", "", "8Gi", "16Gi", "1"),
                "L": Size("4", "", "16Gi", "32Gi", "1"),
                "XL": Size("8", "", "32Gi", "64Gi", "2"),
            },
        ),
        WorkloadSpec(
            key="preprocessing",
            label=gettext_noop("Data preprocessing"),
            image="python:3.12-slim",
            restart_policy="OnFailure",
            rationale=(
                gettext_noop(
                    "Short CPU work that tolerates eviction: BestEffort or low Burstable uses idle "
                    "capacity without reserving it."
                ),
                gettext_noop(
                    "A memory limit protects neighbours from a runaway job; OnFailure retries it."
                ),
                gettext_noop("No GPUs: preprocessing that holds a GPU it does not use strands it."),
            ),
            sizes={
                "S": Size("", "", "", ""),
                "M": Size("1", "", "2Gi", "4Gi"),
                "L": Size("4", "", "8Gi", "16Gi"),
                "XL": Size("8", "", "32Gi", "64Gi"),
            },
        ),
    )
}
SIZE_KEYS = ("S", "M", "L", "XL")


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


class Design(BaseModel):
    """The whole design; the single source of truth for form, link, API and YAML."""

    model_config = ConfigDict(extra="forbid")

    workload: WorkloadType = "training"
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

    @model_validator(mode="before")
    @classmethod
    def _preset_for_omitted_fields(cls, data: Any) -> Any:
        """A design given without containers (``{"workload": "inference"}`` to the API) takes
        that workload type's preset for every field it omits."""
        if not isinstance(data, dict) or "containers" in data:
            return data
        workload = data.get("workload", "training")
        if workload not in WORKLOADS:
            return data  # the Literal check reports it
        preset = preset_design(
            workload, data.get("size") if isinstance(data.get("size"), str) else None
        )
        return {**preset.model_dump(), **data}

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


DEFAULT_NAMES: dict[str, str] = {
    "training": "trainer",
    "distributed": "trainer-worker",
    "inference": "inference",
    "batch": "batch-inference",
    "preprocessing": "preprocess",
}


def preset_design(workload: str = "training", size: str | None = None) -> Design:
    """A fresh design for a workload type and size, as the form starts it."""
    spec = WORKLOADS.get(workload) or WORKLOADS["training"]
    size = size if size in spec.sizes else spec.default_size
    design = Design(
        workload=spec.key,
        size=size,
        name=DEFAULT_NAMES[spec.key],
        labels={"app": DEFAULT_NAMES[spec.key]},
        restart_policy=spec.restart_policy,
        containers=[ContainerDesign(name="main", image=spec.image)],
    )
    return apply_size(design, size)


def apply_size(design: Design, size: str) -> Design:
    """Set the main container (the first app container) and /dev/shm to a preset size."""
    spec = WORKLOADS[design.workload]
    preset = spec.sizes.get(size)
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


def _resource_maps(c: ContainerDesign) -> tuple[dict[str, str], dict[str, str]]:
    requests: dict[str, str] = {}
    limits: dict[str, str] = {}

    def put(name: str, request: str, limit: str) -> None:
        if request.strip():
            requests[name] = request
        if limit.strip():
            limits[name] = limit

    put("cpu", c.cpu_request, c.cpu_limit)
    put("memory", c.memory_request, c.memory_limit)
    put("ephemeral-storage", c.ephemeral_request, c.ephemeral_limit)
    # GPUs go in limits only: the API server defaults requests to limits for extended
    # resources and refuses requests without limits.
    if c.gpus.strip():
        limits[c.gpu_resource.strip() or DEFAULT_GPU_RESOURCE] = c.gpus
    for extra in c.extra:
        if extra.name.strip():
            put(extra.name.strip(), extra.request, extra.limit)
    return requests, limits


def _container_manifest(c: ContainerDesign) -> dict[str, Any]:
    obj = copy.deepcopy(c.base) if c.base else {}
    obj["name"] = c.name
    if c.image or "image" in obj:
        obj["image"] = c.image
    # The command is typed as a shell would split it; it runs without a shell, as
    # Kubernetes runs `command` (write `sh -c "..."` for pipes).
    command = command_argv(c.command)
    if command:
        obj["command"] = command
    else:
        obj.pop("command", None)
    requests, limits = _resource_maps(c)
    resources = dict(obj.get("resources") or {})
    resources.pop("requests", None)
    resources.pop("limits", None)
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    if resources:
        obj["resources"] = resources
    else:
        obj.pop("resources", None)
    if c.role == "sidecar":
        obj["restartPolicy"] = "Always"
    else:
        obj.pop("restartPolicy", None)
    return obj


def command_argv(text: str) -> list[str] | None:
    """The argv of a typed command, or None when it is empty or its quotes don't close."""
    try:
        return shlex.split(text) or None
    except ValueError:
        return None


def gpu_total(design: Design) -> int | None:
    """Whole GPUs requested by app containers, or None when a count is not an integer."""
    total = 0
    for c in design.containers:
        value = c.gpus.strip()
        if not value:
            continue
        if not value.isdigit():
            return None
        total += int(value)
    return total


class DesignError(MessageError):
    """The design cannot form a Pod (its kept manifest fields have the wrong shape).

    ``str(error)`` is the English text; ``message`` keeps (template, params) to translate."""


def design_to_pod(design: Design) -> Pod:
    """The Pod manifest a design stands for; base fields the form does not edit are kept.

    Raises DesignError when the kept fields of an original manifest (``base``) cannot
    form a Pod, e.g. ``spec`` is a string: the form cannot show that next to a field.
    """
    try:
        return Pod.model_validate(_pod_object(design))
    except (TypeError, AttributeError, ValueError) as exc:
        # pydantic's ValidationError is a ValueError.
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DesignError(
            gettext_noop(
                "The fields kept from the original manifest do not form a Pod: %(detail)s"
            ),
            {"detail": detail},
        ) from exc


def _pod_object(design: Design) -> dict[str, Any]:
    obj: dict[str, Any] = copy.deepcopy(design.base) if design.base else {}
    obj["apiVersion"] = "v1"
    obj["kind"] = "Pod"
    metadata = dict(obj.get("metadata") or {})
    metadata["name"] = design.name
    for key, value in (("namespace", design.namespace), ("labels", design.labels)):
        if value:
            metadata[key] = value
        else:
            metadata.pop(key, None)
    obj["metadata"] = metadata

    spec = dict(obj.get("spec") or {})
    app = [_container_manifest(c) for c in design.containers if c.role == "app"]
    init = [_container_manifest(c) for c in design.containers if c.role != "app"]
    spec["containers"] = app
    if init:
        spec["initContainers"] = init
    else:
        spec.pop("initContainers", None)
    for key, value in (
        ("priorityClassName", design.priority_class_name),
        ("restartPolicy", design.restart_policy),
        ("nodeSelector", design.node_selector),
    ):
        if value:
            spec[key] = value
        else:
            spec.pop(key, None)

    tolerations = [t for t in spec.get("tolerations") or [] if not _is_gpu_toleration(t)]
    if design.gpu_toleration and (gpu_total(design) or 0) > 0:
        tolerations.append({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})
    if tolerations:
        spec["tolerations"] = tolerations
    else:
        spec.pop("tolerations", None)

    _set_shm(spec, design.shm_size.strip())
    obj["spec"] = spec
    return obj


def _is_gpu_toleration(t: Any) -> bool:
    return (
        isinstance(t, dict) and t.get("key") == "nvidia.com/gpu" and t.get("operator") == "Exists"
    )


def _set_shm(spec: dict[str, Any], size: str) -> None:
    """Mount a memory-backed emptyDir at /dev/shm in every app container (or remove it)."""
    volumes = [v for v in spec.get("volumes") or [] if v.get("name") != SHM_VOLUME]
    containers = spec.get("containers") or []
    for container in containers:
        mounts = [m for m in container.get("volumeMounts") or [] if m.get("name") != SHM_VOLUME]
        if size:
            mounts.append({"name": SHM_VOLUME, "mountPath": "/dev/shm"})
        if mounts:
            container["volumeMounts"] = mounts
        else:
            container.pop("volumeMounts", None)
    if size:
        volumes.append({"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": size}})
    if volumes:
        spec["volumes"] = volumes
    else:
        spec.pop("volumes", None)


def _split_resources(container: Container) -> dict[str, Any]:
    """Form fields for a manifest container's resources; unknown names go to ``extra``."""
    requests = {k: _text(v) for k, v in container.requests.items()}
    limits = {k: _text(v) for k, v in container.limits.items()}
    fields: dict[str, Any] = {
        "cpu_request": requests.pop("cpu", ""),
        "cpu_limit": limits.pop("cpu", ""),
        "memory_request": requests.pop("memory", ""),
        "memory_limit": limits.pop("memory", ""),
        "ephemeral_request": requests.pop("ephemeral-storage", ""),
        "ephemeral_limit": limits.pop("ephemeral-storage", ""),
    }
    gpu_names = [n for n in limits if n in GPU_RESOURCE_CHOICES or n.endswith("/gpu")]
    if gpu_names:
        name = gpu_names[0]
        fields["gpu_resource"] = name
        fields["gpus"] = limits.pop(name)
        # A request equal to the limit is what defaulting would write anyway.
        if requests.get(name) == fields["gpus"]:
            requests.pop(name)
    names = sorted(set(requests) | set(limits))
    fields["extra"] = [
        ExtraResource(name=n, request=requests.get(n, ""), limit=limits.get(n, "")) for n in names
    ]
    return fields


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else ""
    if isinstance(value, float):
        from designer.k8s.quantity import Quantity

        try:
            return Quantity.from_json(value).canonical()
        except ValueError:
            return repr(value)
    return str(value)


def design_from_pod(pod: Pod, workload: str = "training") -> Design:
    """Start a design from an existing Pod; what the form does not edit stays in ``base``."""
    manifest = pod.manifest()
    spec = manifest.get("spec") or {}
    containers: list[ContainerDesign] = []
    for role_key, role in (("initContainers", None), ("containers", "app")):
        for raw, model in zip(
            spec.get(role_key) or [],
            pod.spec.init_list if role_key == "initContainers" else pod.spec.containers,
            strict=False,
        ):
            base = {k: v for k, v in raw.items() if k not in ("resources",)}
            resources = raw.get("resources") or {}
            extra_resource_fields = {
                k: v for k, v in resources.items() if k not in ("requests", "limits")
            }
            if extra_resource_fields:
                base["resources"] = extra_resource_fields
            container_role = role or ("sidecar" if model.is_sidecar else "init")
            base.pop("command", None)
            containers.append(
                ContainerDesign(
                    role=container_role,
                    name=model.name or "",
                    image=model.image or "",
                    command=shlex.join(model.command) if model.command else "",
                    base=base,
                    **_split_resources(model),
                )
            )
    # App containers first, as the form lists them.
    containers.sort(key=lambda c: c.role != "app")
    shm = ""
    for volume in spec.get("volumes") or []:
        if volume.get("name") == SHM_VOLUME and isinstance(volume.get("emptyDir"), dict):
            shm = str(volume["emptyDir"].get("sizeLimit") or "")
    base = {k: v for k, v in manifest.items() if k not in ("apiVersion", "kind", "status")}
    base_spec = {k: v for k, v in spec.items() if k not in ("containers", "initContainers")}
    base["spec"] = base_spec
    meta = dict(manifest.get("metadata") or {})
    tolerations = spec.get("tolerations") or []
    return Design(
        workload=workload if workload in WORKLOADS else "training",
        size="custom",
        name=str(meta.get("name") or ""),
        namespace=str(meta.get("namespace") or ""),
        labels={str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
        priority_class_name=str(spec.get("priorityClassName") or ""),
        restart_policy=str(spec.get("restartPolicy") or ""),
        gpu_toleration=any(_is_gpu_toleration(t) for t in tolerations),
        node_selector={str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()},
        shm_size=shm,
        containers=containers,
        # A manifest's pod template opens as a Pod (what Analyze promises); the user can
        # pick another kind.
        export=ExportSettings(kind="Pod"),
        base=base,
    )


def gpu_container(design: Design) -> ContainerDesign | None:
    """The container the GPU sharing choice applies to: the first app container with GPUs,
    else the first app container."""
    apps = [c for c in design.containers if c.role == "app"]
    return next((c for c in apps if c.gpus.strip()), apps[0] if apps else None)


def apply_gpu_choice(design: Design) -> Design:
    """Set the GPU container's resource name (and a whole count) for the sharing choice."""
    design = design.model_copy(deep=True)
    name, profile, problem = gpu_resource_name(design.gpu)
    target = gpu_container(design)
    if problem or name is None or target is None:
        return design
    if profile is not None:
        design.gpu.profile = profile.name
    target.gpu_resource = name
    count = target.gpus.strip()
    if not count.isdigit() or int(count) == 0:
        # Shared GPUs are still whole units of the advertised resource.
        target.gpus = "1"
    return design


def apply_headroom(design: Design, limit: str) -> Design:
    """Set the main container's memory limit to ``limit``. A request that equalled the old
    limit (a Guaranteed design) follows it, so the QoS class does not change by surprise, and
    a request above the new limit comes down to it (the API server refuses request > limit)."""
    from designer.k8s.quantity import Quantity, QuantityError

    design = design.model_copy(deep=True)
    target = next((c for c in design.containers if c.role == "app"), None)
    if target is None:
        return design
    request = target.memory_request.strip()
    follows = bool(request) and request == target.memory_limit.strip()
    try:
        above = bool(request) and Quantity.from_json(request) > Quantity.from_json(limit)
    except (QuantityError, ValueError, TypeError, OverflowError):
        above = False
    if follows or above:
        target.memory_request = limit
    target.memory_limit = limit
    return design
    if target.memory_request.strip() == target.memory_limit.strip() and target.memory_request:
        target.memory_request = limit
    target.memory_limit = limit
    return design


def removable(design: Design, index: int) -> bool:
    """Every container but the pod's only app container can be removed."""
    if index >= len(design.containers):
        return False
    apps = [c for c in design.containers if c.role == "app"]
    return design.containers[index].role != "app" or len(apps) > 1


NEW_CONTAINER_NAMES = {"app": "worker", "sidecar": "sidecar", "init": "init"}


def design_action(design: Design, action: str, changed: str = "") -> Design:
    """The design after a designer button (add/remove a container, apply a preset, a GPU
    sharing choice or a headroom proposal); unknown actions change nothing."""
    design = design.model_copy(deep=True)
    if action.startswith("add-"):
        role = action.removeprefix("add-")
        if role in NEW_CONTAINER_NAMES:
            number = sum(1 for c in design.containers if c.role == role) + 1
            design.containers.append(
                ContainerDesign(
                    role=role,  # type: ignore[arg-type]
                    name=f"{NEW_CONTAINER_NAMES[role]}-{number}",
                    image="busybox:1.36",
                )
            )
    elif action.startswith("remove-"):
        index = action.removeprefix("remove-")
        if index.isdigit() and removable(design, int(index)):
            del design.containers[int(index)]
    elif action == "gpu":
        design = apply_gpu_choice(design)
    elif action == "headroom":
        proposal, _problem = headroom_proposal(design.headroom, design.shm_size)
        if proposal is not None:
            design = apply_headroom(design, proposal.limit)
    elif action == "preset":
        if changed == "workload":
            fresh = preset_design(design.workload)
            fresh.containers += design.containers[1:]
            design = fresh
        elif design.size in SIZE_KEYS:
            design = apply_size(design, design.size)
    return design
