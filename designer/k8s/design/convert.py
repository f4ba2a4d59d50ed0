"""A design as the Pod it stands for, and a Pod as a design."""

from __future__ import annotations

import shlex
from typing import Any

from designer.k8s.core import Container, MessageError, Pod, Quantity, gettext_noop
from designer.k8s.design.dra import apply_claims
from designer.k8s.design.export import ExportSettings
from designer.k8s.design.model import (
    DEFAULT_GPU_RESOURCE,
    SHM_VOLUME,
    ContainerDesign,
    Design,
    ExtraResource,
)
from designer.k8s.design.workload_types import workload_type
from designer.k8s.gpu import is_gpu_resource
from designer.k8s.manifest import copy_tree


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
    obj = copy_tree(c.base) if c.base else {}
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
        if not (value.isascii() and value.isdigit()) or len(value) > 18:
            return None  # "²" passes isdigit() but not int(); 19+ digits are no GPU count
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
    obj: dict[str, Any] = copy_tree(design.base) if design.base else {}
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
    # GPUs through a DRA claim: claims replace the extended resource (design/dra.py).
    apply_claims(design, spec)
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
    gpu_names = [n for n in limits if is_gpu_resource(n)]
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
        workload=workload_type(workload).id,
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
