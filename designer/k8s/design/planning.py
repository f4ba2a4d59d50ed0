"""The GPU and node layer of a design: sharing mode, the node it should land on, what the
kubelet will apply there, and a memory limit from an observed peak.

The choices are small pydantic models that live inside ``Design`` (so share links carry
them); ``plan`` turns them and a Pod into the answers the designer shows. Each problem is
kept with the choice field it belongs to, so the page can show it beside that input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import Message, MessageError, Pod, Quantity, QuantityError, gettext_noop
from designer.k8s.design.headroom import Headroom, HeadroomError, memory_headroom
from designer.k8s.gpu import (
    SHARING_MODES,
    MigProfile,
    SharingModeInfo,
    gpu_resource_for,
    mig_model,
    mig_models,
    sharing_modes,
    smallest_mig_profile,
)
from designer.k8s.kubelet import NodeView, QosResult, node_view
from designer.k8s.manifest import ManifestError, read_documents
from designer.k8s.scheduler import (
    PROVIDERS,
    FitResult,
    NodeInfo,
    fit,
    node_from_capacity,
    node_from_catalog,
    node_from_manifest,
)

MAX_NODE_YAML = 200_000


class GpuChoice(BaseModel):
    """How the main container's GPUs are shared (see gpu.SHARING_MODES)."""

    model_config = ConfigDict(extra="forbid")
    mode: str = "whole"
    model: str = "a100-80gb"  # for MIG: which GPU the slices come from
    memory_gb: str = ""  # "I need about 20 GB of GPU memory"
    profile: str = ""  # MIG profile picked (or derived from memory_gb)
    rename_shared: bool = False  # device plugin renameByDefault: nvidia.com/gpu.shared

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        if value not in SHARING_MODES:
            raise ValueError(f"unknown GPU sharing mode; choose one of {', '.join(SHARING_MODES)}")
        return value

    @field_validator("model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        known = [m.key for m in mig_models()]
        if value not in known:
            raise ValueError(f"unknown GPU model; choose one of {', '.join(known)}")
        return value


class NodeChoice(BaseModel):
    """The node the pod should fit on: a catalog shape, a custom shape, or a pasted Node."""

    model_config = ConfigDict(extra="forbid")
    source: str = ""
    catalog_id: str = ""
    provider: str = ""  # gke | eks | aks; "" = the catalog shape's own cloud
    cpu: str = ""
    memory: str = ""
    gpus: str = ""
    gpu_resource: str = "nvidia.com/gpu"
    manifest: str = ""
    max_pods: str = ""
    ds_cpu: str = ""  # DaemonSet overhead per node
    ds_memory: str = ""


class HeadroomChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    peak: str = ""
    percent: str = "25"


@dataclass(frozen=True)
class Plan:
    sharing: SharingModeInfo | None
    profile: MigProfile | None
    gpu_resource: str | None
    node: NodeInfo | None
    fit: FitResult | None
    node_view: NodeView
    headroom: Headroom | None
    # choice field ("gpu.memory_gb", "node.manifest", "headroom.peak", ...) → problem
    problems: dict[str, Message] = field(default_factory=dict)


def _message(template: str, **params: Any) -> Message:
    return Message(template, params)


def _error_message(exc: Exception) -> Message:
    """An exception's text as a Message: translatable when the engine raised a MessageError."""
    if isinstance(exc, MessageError):
        return exc.message
    return _message(gettext_noop("%(error)s"), error=str(exc).strip("'\""))


def mig_profile_for(choice: GpuChoice) -> tuple[MigProfile | None, tuple[str, Message] | None]:
    """The MIG profile a choice names or implies, or the problem with the choice."""
    if choice.mode not in ("mig-single", "mig-mixed"):
        return None, None
    try:
        model = mig_model(choice.model)
    except ValueError as exc:
        return None, ("gpu.model", _error_message(exc))
    if choice.memory_gb.strip():
        try:
            profile = smallest_mig_profile(choice.model, float(choice.memory_gb))
        except ValueError:
            return None, (
                "gpu.memory_gb",
                _message(
                    gettext_noop("“%(value)s” is not a number of GB."), value=choice.memory_gb
                ),
            )
        if profile is None:
            return None, (
                "gpu.memory_gb",
                _message(
                    gettext_noop(
                        "No MIG profile of %(model)s has %(value)s GB; "
                        "the whole GPU has %(total)s GB."
                    ),
                    model=model.label,
                    value=choice.memory_gb,
                    total=model.memory_gb,
                ),
            )
        return profile, None
    for profile in model.profiles:
        if profile.name == choice.profile:
            return profile, None
    return model.profiles[0] if model.profiles else None, None


def gpu_resource_name(
    choice: GpuChoice,
) -> tuple[str | None, MigProfile | None, tuple[str, Message] | None]:
    """The extended resource the main container requests under this sharing choice."""
    if choice.mode not in SHARING_MODES:
        return None, None, ("gpu.mode", _message(gettext_noop("Unknown GPU sharing mode.")))
    profile, problem = mig_profile_for(choice)
    if problem:
        return None, None, problem
    try:
        name = gpu_resource_for(choice.mode, profile, rename_by_default=choice.rename_shared)
    except ValueError as exc:
        return None, profile, ("gpu.mode", _error_message(exc))
    return name, profile, None


def _node_from_yaml(text: str) -> NodeInfo:
    if len(text) > MAX_NODE_YAML:
        raise MessageError(gettext_noop("the Node manifest is longer than 200,000 characters"))
    documents = read_documents(text)
    for document in documents:
        if document.error:
            raise ValueError(document.error)
        if document.data is not None:
            return node_from_manifest(document.data)
    raise MessageError(gettext_noop("no Node found in the pasted text"))


def choose_node(choice: NodeChoice) -> tuple[NodeInfo | None, tuple[str, Message] | None]:
    """The node a choice describes, or the problem that keeps it from being read."""
    provider = choice.provider if choice.provider in PROVIDERS else None
    max_pods: int | None = None
    if choice.max_pods.strip():
        text = choice.max_pods.strip()
        # ASCII digits of a bounded length: isdigit() accepts "²", which int() refuses, and
        # int() refuses more than 4,300 digits.
        digits = text.lstrip("0") or "0"
        if not (text.isascii() and text.isdigit()) or len(digits) > 5 or int(digits) > 10_000:
            return None, (
                "node.max_pods",
                _message(gettext_noop("Max pods must be a whole number up to 10000.")),
            )
        max_pods = int(digits)
    try:
        if choice.source == "catalog" and choice.catalog_id:
            return node_from_catalog(choice.catalog_id, provider, max_pods), None
        if choice.source == "custom" and (choice.cpu or choice.memory):
            capacity = {"cpu": choice.cpu.strip(), "memory": choice.memory.strip()}
            if choice.gpus.strip():
                capacity[choice.gpu_resource.strip() or "nvidia.com/gpu"] = choice.gpus.strip()
            capacity = {k: v for k, v in capacity.items() if v}
            return node_from_capacity(capacity, provider or "gke", max_pods), None
        if choice.source == "manifest" and choice.manifest.strip():
            return _node_from_yaml(choice.manifest), None
    except (ValueError, ManifestError, QuantityError, KeyError, TypeError) as exc:
        where = {"catalog": "node.catalog_id", "custom": "node.cpu", "manifest": "node.manifest"}
        return None, (where.get(choice.source, "node.source"), _error_message(exc))
    return None, None


def headroom_proposal(
    choice: HeadroomChoice, shm: str = ""
) -> tuple[Headroom | None, tuple[str, Message] | None]:
    """The memory limit proposed from an observed peak, or the problem with the input."""
    if not choice.peak.strip():
        return None, None
    try:
        percent = float(choice.percent or "25")
        return memory_headroom(choice.peak.strip(), percent / 100, shm.strip() or None), None
    except HeadroomError as exc:
        message = getattr(exc, "message", None) or _message(
            gettext_noop("%(error)s"), error=str(exc)
        )
        return None, ("headroom.peak", message)
    except ValueError:
        return None, (
            "headroom.percent",
            _message(gettext_noop("Headroom must be a percentage such as 25.")),
        )


def _memory_capacity(node: NodeInfo | None) -> Quantity | None:
    if node is None:
        return None
    value = node.capacity.get("memory") or node.allocatable.get("memory")
    try:
        return Quantity.from_json(value) if value else None
    except QuantityError:
        return None


def plan(
    pod: Pod,
    gpu: GpuChoice,
    node: NodeChoice,
    headroom: HeadroomChoice,
    shm: str = "",
    *,
    defaulted: Pod | None = None,
    qos: QosResult | None = None,
) -> Plan:
    """Everything the GPU, node and headroom panels show for a pod and the user's choices.

    ``defaulted`` and ``qos`` (from the pod's report) spare computing them again."""
    defaulted = defaulted or pod_with_defaults(pod)
    problems: dict[str, Message] = {}
    resource, profile, problem = gpu_resource_name(gpu)
    if problem:
        problems[problem[0]] = problem[1]
    sharing = next((m for m in sharing_modes() if m.key == gpu.mode), None)

    node_info, problem = choose_node(node)
    if problem:
        problems[problem[0]] = problem[1]
    fit_result = None
    if node_info is not None:
        overhead = {"cpu": node.ds_cpu.strip(), "memory": node.ds_memory.strip()}
        overhead = {k: v for k, v in overhead.items() if v}
        try:
            fit_result = fit(defaulted, node_info, overhead or None, apply_defaults=False)
        except (ValueError, QuantityError) as exc:
            field_name = "node.ds_cpu" if "cpu" in str(exc) else "node.ds_memory"
            problems[field_name] = _error_message(exc)
            fit_result = fit(defaulted, node_info, None, apply_defaults=False)

    proposal, problem = headroom_proposal(headroom, shm)
    if problem:
        problems[problem[0]] = problem[1]
    view = node_view(pod, _memory_capacity(node_info), defaulted=defaulted, qos=qos)
    return Plan(sharing, profile, resource, node_info, fit_result, view, proposal, problems)
