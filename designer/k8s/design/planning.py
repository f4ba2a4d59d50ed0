"""The GPU and node layer of a design: sharing mode, the node it should land on, what the
kubelet will apply there, and a memory limit from an observed peak.

The choices are small pydantic models that live inside ``Design`` (so share links carry
them); ``plan`` turns them and a Pod into the answers the designer shows. Each problem is
kept with the choice field it belongs to, so the page can show it beside that input.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from designer.k8s.apiserver import pod_with_defaults
from designer.k8s.core import Message, MessageError, Pod, Quantity, QuantityError, gettext_noop
from designer.k8s.design.headroom import Headroom, HeadroomError, memory_headroom
from designer.k8s.dra import DraObject, DraObjects, collect
from designer.k8s.gpu import (
    SHARING_MODES,
    GpuSharing,
    MigProfile,
    SharingError,
    SharingModeInfo,
    gpu_resource_for,
    gpu_sharing,
    mig_model,
    mig_models,
    mig_profile,
    sharing_modes,
    smallest_mig_profile,
)
from designer.k8s.kubelet import KubeletConfig, NodeView, QosResult, kubelet_config, node_view
from designer.k8s.manifest import ManifestError, read_documents
from designer.k8s.scheduler import (
    PROVIDERS,
    FitResult,
    NodeInfo,
    claims_fit,
    dra_inputs,
    fit,
    node_from_capacity,
    node_from_catalog,
    node_from_manifest,
    with_claims,
    without_slices,
)

MAX_NODE_YAML = 200_000
# GPUs through Dynamic Resource Allocation (a ResourceClaimTemplate, resource.k8s.io/v1,
# Kubernetes 1.34+) instead of a device plugin's extended resource: design/dra.py.
DRA_MODE = "dra"
MAX_DRA_SELECTORS = 8
MAX_DRA_ALTERNATIVES = 7  # firstAvailable holds at most 8, the main choice included


class DraAlternative(BaseModel):
    """A fallback for the claim (``firstAvailable``, DRAPrioritizedList, beta in 1.34): the
    scheduler takes the first alternative it can satisfy on a node."""

    model_config = ConfigDict(extra="forbid")
    device_class: str = "gpu.nvidia.com"
    count: str = "1"
    product: str = ""
    min_memory: str = ""
    mig_profile: str = ""
    selectors: list[str] = Field(default_factory=list, max_length=MAX_DRA_SELECTORS)


class GpuChoice(BaseModel):
    """How the main container's GPUs are shared (see gpu.SHARING_MODES), or claimed through
    Dynamic Resource Allocation (``mode: "dra"``, see design/dra.py)."""

    model_config = ConfigDict(extra="forbid")
    mode: str = "whole"
    model: str = "a100-80gb"  # for MIG: which GPU the slices come from
    memory_gb: str = ""  # "I need about 20 GB of GPU memory"
    profile: str = ""  # MIG profile picked (or derived from memory_gb)
    rename_shared: bool = False  # device plugin renameByDefault: nvidia.com/gpu.shared
    # --- mode "dra" ---
    device_class: str = "gpu.nvidia.com"  # DeviceClass (gpu.nvidia.com, mig.nvidia.com, ...)
    count: str = ""  # devices per pod; "" = the GPU container's gpus
    allocation_mode: Literal["ExactCount", "All"] = "ExactCount"
    product: str = ""  # selector: productName equals
    min_memory: str = ""  # selector: memory capacity at least (40Gi; a bare number is Gi)
    mig_profile: str = ""  # selector: MIG profile equals (1g.10gb)
    selectors: list[str] = Field(default_factory=list, max_length=MAX_DRA_SELECTORS)  # typed CEL
    first_available: list[DraAlternative] = Field(
        default_factory=list, max_length=MAX_DRA_ALTERNATIVES
    )
    # Containers that use the GPU container's claim too (they then see the same devices).
    shared_by: list[str] = Field(default_factory=list)
    # "template": one claim per pod (ResourceClaimTemplate); "claim": one ResourceClaim that
    # every pod (every replica) shares.
    claim_source: Literal["template", "claim"] = "template"

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        if value not in SHARING_MODES and value != DRA_MODE:
            modes = ", ".join([*SHARING_MODES, DRA_MODE])
            raise ValueError(f"unknown GPU sharing mode; choose one of {modes}")
        return value

    @field_validator("model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        known = [m.key for m in mig_models()]
        if value not in known:
            raise ValueError(f"unknown GPU model; choose one of {', '.join(known)}")
        return value


class NodeChoice(BaseModel):
    """The node the pod should fit on: a catalog shape, a custom shape, or a pasted Node.

    For a catalog or custom node, how its device plugin shares the GPUs comes from the GPU
    choice's mode, plus ``mig_layout`` (MIG mixed strategy: the node's layout, see
    gpu.parse_mig_layout; empty = every GPU in the chosen profile) and ``gpu_replicas``
    (time-slicing/MPS: replicas per GPU). ``cpu_cfs_quota`` and ``cpu_cfs_quota_period`` are the
    node's kubelet configuration (cpuCFSQuota, cpuCFSQuotaPeriod as a Go duration).
    """

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
    mig_layout: str = ""  # e.g. "1g.10gb=2, 2g.20gb=1, 3g.40gb=1" or "4: 3g.40gb=2; 4: 1g.10gb=7"
    gpu_replicas: str = ""  # time-slicing / MPS replicas per GPU
    cpu_cfs_quota: bool = True
    cpu_cfs_quota_period: str = ""  # "" = the kubelet default, 100ms
    # kubectl get resourceslices -o yaml: the node's devices for a DRA design's claims.
    resource_slices: str = ""


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
    # choice field → a proposal that changes nothing by itself (e.g. a smaller MIG profile)
    hints: dict[str, Message] = field(default_factory=dict)
    # the MIG profiles the GPU choice's model offers (what the profile list should show)
    mig_profiles: tuple[MigProfile, ...] = ()


def _message(template: str, **params: Any) -> Message:
    return Message(template, params)


def _error_message(exc: Exception) -> Message:
    """An exception's text as a Message: translatable when the engine raised a MessageError."""
    if isinstance(exc, MessageError):
        return exc.message
    return _message(gettext_noop("%(error)s"), error=str(exc).strip("'\""))


PROFILE_TOO_SMALL = gettext_noop(
    "%(profile)s has %(has)s GB of GPU memory, less than the %(need)s GB needed; %(fit)s is the "
    "smallest profile of the %(model)s with enough. The picked profile is kept."
)
PROFILE_NONE_BIG_ENOUGH = gettext_noop(
    "No MIG profile of the %(model)s has %(need)s GB; the whole GPU has %(total)s GB."
)
PROFILE_SMALLER_FITS = gettext_noop(
    "%(fit)s (%(fit_gb)s GB) is the smallest profile of the %(model)s with %(need)s GB; the "
    "picked %(profile)s has %(has)s GB."
)
PROFILE_FROM_MEMORY = gettext_noop(
    "%(profile)s is the smallest profile of the %(model)s with %(need)s GB of GPU memory."
)
PROFILE_DEFAULT = gettext_noop(
    "No MIG profile picked: %(profile)s, the smallest of the %(model)s, is used."
)
NOT_A_NUMBER_GB = gettext_noop("“%(value)s” is not a number of GB.")


@dataclass(frozen=True)
class MigChoice:
    """The MIG profile a GPU choice ends up with, and what to say beside its fields."""

    profile: MigProfile | None
    problems: dict[str, Message] = field(default_factory=dict)
    hints: dict[str, Message] = field(default_factory=dict)


def mig_choice(choice: GpuChoice) -> MigChoice:
    """The MIG profile of a GPU choice, by this rule: a profile picked by hand wins, and the
    "GPU memory needed" only proposes.

    * A picked profile must be one of the model's (else a problem at ``gpu.profile``).
    * With a picked profile and a memory need, a profile with less memory than the need is a
      problem at ``gpu.memory_gb`` naming the smallest that fits; a larger profile than needed
      gives a hint naming the smaller one. The picked profile is used either way.
    * Without a picked profile the memory need picks the smallest profile that holds it (a
      hint says so); without either, the model's smallest profile is used (a hint says so).
    """
    if choice.mode not in ("mig-single", "mig-mixed"):
        return MigChoice(None)
    try:
        model = mig_model(choice.model)
    except ValueError as exc:
        return MigChoice(None, {"gpu.model": _error_message(exc)})
    need: float | None = None
    problems: dict[str, Message] = {}
    hints: dict[str, Message] = {}
    fit: MigProfile | None = None
    if choice.memory_gb.strip():
        try:
            need = float(choice.memory_gb)
            fit = smallest_mig_profile(model.key, need)
        except ValueError:
            problems["gpu.memory_gb"] = _message(NOT_A_NUMBER_GB, value=choice.memory_gb)
            need = None
        if need is not None and fit is None:
            problems["gpu.memory_gb"] = _message(
                PROFILE_NONE_BIG_ENOUGH,
                model=model.label,
                need=choice.memory_gb.strip(),
                total=model.memory_gb,
            )
    need_text = choice.memory_gb.strip()
    if choice.profile.strip():
        try:
            picked = mig_profile(model, choice.profile)
        except ValueError as exc:
            problems["gpu.profile"] = _error_message(exc)
            return MigChoice(None, problems, hints)
        if need is not None and fit is not None and picked.memory_gb < need:
            problems["gpu.memory_gb"] = _message(
                PROFILE_TOO_SMALL,
                profile=picked.name,
                has=picked.memory_gb,
                need=need_text,
                fit=fit.name,
                model=model.label,
            )
        elif need is not None and fit is not None and fit != picked:
            hints["gpu.memory_gb"] = _message(
                PROFILE_SMALLER_FITS,
                fit=fit.name,
                fit_gb=fit.memory_gb,
                model=model.label,
                need=need_text,
                profile=picked.name,
                has=picked.memory_gb,
            )
        return MigChoice(picked, problems, hints)
    if fit is not None:
        hints["gpu.profile"] = _message(
            PROFILE_FROM_MEMORY, profile=fit.name, model=model.label, need=need_text
        )
        return MigChoice(fit, problems, hints)
    if "gpu.memory_gb" in problems:
        return MigChoice(None, problems, hints)
    smallest = model.profiles[0]
    hints["gpu.profile"] = _message(PROFILE_DEFAULT, profile=smallest.name, model=model.label)
    return MigChoice(smallest, problems, hints)


def mig_profile_for(choice: GpuChoice) -> tuple[MigProfile | None, tuple[str, Message] | None]:
    """The MIG profile a choice names or implies (see mig_choice), and its first problem."""
    result = mig_choice(choice)
    first = next(iter(result.problems.items()), None)
    # A disagreement between the picked profile and the memory need keeps the profile.
    if result.profile is not None:
        return result.profile, None
    return None, first


def gpu_resource_name(
    choice: GpuChoice,
) -> tuple[str | None, MigProfile | None, tuple[str, Message] | None]:
    """The extended resource the main container requests under this sharing choice (none
    with DRA: the GPUs come from a claim)."""
    if choice.mode == DRA_MODE:
        return None, None, None
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


SHARING_PART_FIELD = {
    "mode": "gpu.mode",
    "model": "gpu.model",
    "profile": "gpu.profile",
    "layout": "node.mig_layout",
    "replicas": "node.gpu_replicas",
}
NODE_GPU_MODEL = gettext_noop(
    "%(node)s has %(node_model)s GPUs, not %(chosen)s: its MIG slices are computed for its own "
    "GPUs."
)
PASTED_NODE_SHARING = gettext_noop(
    "The pasted Node's allocatable is used as it is: it already shows what its device plugin "
    "advertises, whatever the GPU sharing chosen here."
)


def node_sharing(
    gpu: GpuChoice, node: NodeChoice, profile: MigProfile | None
) -> tuple[GpuSharing | None, tuple[str, Message] | None]:
    """How the chosen node's device plugin shares its GPUs: the GPU choice's mode with the
    node's MIG layout or replicas, or the problem with them."""
    if gpu.mode in ("whole", DRA_MODE):
        # Whole GPUs are advertised as they are; a DRA claim's devices come from the node's
        # ResourceSlices, not from its device plugin.
        return None, None
    try:
        return (
            gpu_sharing(
                gpu.mode,
                profile=profile.name if profile else gpu.profile,
                layout=node.mig_layout,
                replicas=node.gpu_replicas,
                rename_by_default=gpu.rename_shared,
            ),
            None,
        )
    except SharingError as exc:
        return None, (SHARING_PART_FIELD.get(exc.part, "gpu.mode"), exc.message)


def choose_node(
    choice: NodeChoice, sharing: GpuSharing | None = None, gpu_model: str = ""
) -> tuple[NodeInfo | None, tuple[str, Message] | None]:
    """The node a choice describes, or the problem that keeps it from being read.

    ``sharing`` (node_sharing) makes a catalog or custom node advertise its GPUs as the device
    plugin would; ``gpu_model`` is the GPU choice's model, used for a custom node's MIG slices.
    """
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
            return node_from_catalog(
                choice.catalog_id, provider, max_pods, gpu_sharing=sharing
            ), None
        if choice.source == "custom" and (choice.cpu or choice.memory):
            capacity = {"cpu": choice.cpu.strip(), "memory": choice.memory.strip()}
            if choice.gpus.strip():
                capacity[choice.gpu_resource.strip() or "nvidia.com/gpu"] = choice.gpus.strip()
            capacity = {k: v for k, v in capacity.items() if v}
            return node_from_capacity(
                capacity,
                provider or "gke",
                max_pods,
                gpu_sharing=sharing if sharing and "nvidia.com/gpu" in capacity else None,
                gpu_model=gpu_model or None,
            ), None
        if choice.source == "manifest" and choice.manifest.strip():
            return _node_from_yaml(choice.manifest), None
    except SharingError as exc:
        return None, (SHARING_PART_FIELD.get(exc.part, "gpu.mode"), exc.message)
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
    if node is None or node.memory_capacity is None:
        return None
    return Quantity.from_fraction(node.memory_capacity, "BinarySI")


def node_kubelet(choice: NodeChoice) -> tuple[KubeletConfig, tuple[str, Message] | None]:
    """The node's kubelet configuration, or the default one and the problem with the input."""
    try:
        return kubelet_config(
            choice.cpu_cfs_quota, choice.cpu_cfs_quota_period.strip() or "100ms"
        ), None
    except ValueError as exc:
        return KubeletConfig(), ("node.cpu_cfs_quota_period", _error_message(exc))


def plan(
    pod: Pod,
    gpu: GpuChoice,
    node: NodeChoice,
    headroom: HeadroomChoice,
    shm: str = "",
    *,
    defaulted: Pod | None = None,
    qos: QosResult | None = None,
    claim_objects: tuple[dict[str, Any], ...] = (),
) -> Plan:
    """Everything the GPU, node and headroom panels show for a pod and the user's choices.

    ``defaulted`` and ``qos`` (from the pod's report) spare computing them again.
    ``claim_objects`` are the ResourceClaimTemplates (or ResourceClaims) a DRA design
    exports: with ``node.resource_slices`` the fit allocates them from the node's devices."""
    defaulted = defaulted or pod_with_defaults(pod)
    problems: dict[str, Message] = {}
    mig = mig_choice(gpu)
    problems.update(mig.problems)
    hints = dict(mig.hints)
    resource, profile, problem = gpu_resource_name(gpu)
    if problem:
        problems.setdefault(problem[0], problem[1])
    sharing = next((m for m in sharing_modes() if m.key == gpu.mode), None)

    node_gpus, problem = node_sharing(gpu, node, profile)
    if problem:
        problems.setdefault(problem[0], problem[1])
    node_info, problem = choose_node(node, node_gpus, gpu.model)
    if problem:
        problems.setdefault(problem[0], problem[1])
    shape = node_info.shape if node_info else None
    if (
        node_gpus
        and gpu.mode.startswith("mig-")
        and shape
        and shape.mig_model not in (None, gpu.model)
    ):
        hints.setdefault(
            "gpu.model",
            _message(
                NODE_GPU_MODEL,
                node=shape.id,
                node_model=shape.gpu_model,
                chosen=_model_label(gpu.model),
            ),
        )
    if node_gpus and node_info is not None and node_info.origin == "manifest":
        hints.setdefault("node.manifest", _message(PASTED_NODE_SHARING))
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
        if node.resource_slices.strip():
            try:
                objects = DraObjects(list(_pasted_dra_objects(node.resource_slices)))
            except (ValueError, ManifestError) as exc:
                problems["node.resource_slices"] = _error_message(exc)
            else:
                objects.extend(collect([(("design", 0), o) for o in claim_objects]))
                fit_result = with_claims(fit_result, claims_fit(defaulted, node_info, objects))
        elif claim_objects:
            names = [c.name or "" for c in defaulted.spec.resource_claims or []]
            fit_result = without_slices(fit_result, names)

    proposal, problem = headroom_proposal(headroom, shm)
    if problem:
        problems[problem[0]] = problem[1]
    config, problem = node_kubelet(node)
    if problem:
        problems[problem[0]] = problem[1]
    view = node_view(pod, _memory_capacity(node_info), defaulted=defaulted, qos=qos, kubelet=config)
    profiles = mig_model(gpu.model).profiles if gpu.model in _MODEL_KEYS else ()
    return Plan(
        sharing,
        profile,
        resource,
        node_info,
        fit_result,
        view,
        proposal,
        problems,
        hints,
        profiles,
    )


_MODEL_KEYS = {m.key for m in mig_models()}


@functools.lru_cache(maxsize=16)
def _pasted_dra_objects(text: str) -> tuple[DraObject, ...]:
    """The pasted ResourceSlices, read once per text: the live update renders the design
    again for every keystroke elsewhere, with the same slices (errors are not cached)."""
    return tuple(dra_inputs(text, None).objects)


def _model_label(key: str) -> str:
    return mig_model(key).label if key in _MODEL_KEYS else key
