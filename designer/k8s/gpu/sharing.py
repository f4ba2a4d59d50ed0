"""GPU sharing: which extended resource a container asks for, and MIG profile sizing.

Kubernetes schedules accelerators as extended resources advertised by a vendor's device
plugin: whole devices, counted in integers. Sharing a GPU is done below Kubernetes (MIG slices
the hardware, time-slicing and MPS hand out replicas of one GPU), and shows up only as a
different resource name or a larger count on the node. The data lives in
``designer.k8s.gpu.sharing_table`` and ``designer.k8s.gpu.mig_table``.

Messages are ``Message(template, params)``: English templates marked with gettext_noop, so the
web layer can translate the template and fill in the params itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from designer.k8s.core import (
    Message,
    MessageError,
    Quantity,
    QuantityError,
    ResourceValue,
    gettext_noop,
)
from designer.k8s.gpu.mig_table import MIG_MODEL_ALIASES, MIG_MODELS, MIG_PLACEMENTS
from designer.k8s.gpu.sharing_table import SHARING_MODES, VENDORS

__all__ = [
    "GpuModel",
    "Message",
    "MigProfile",
    "SharingMode",
    "SharingModeInfo",
    "VendorInfo",
    "gpu_count_problem",
    "gpu_resource_for",
    "is_gpu_resource",
    "requested_gpus",
    "mig_model",
    "mig_models",
    "sharing_modes",
    "smallest_mig_profile",
    "vendors",
]

SharingMode = Literal["whole", "mig-single", "mig-mixed", "time-slicing", "mps"]
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
SHARED_SUFFIX = ".shared"  # what renameByDefault appends (k8s-device-plugin)
_PROFILE_RE = re.compile(r"[1-9][0-9]*g\.[1-9][0-9]*gb")


# --- data as typed objects ---------------------------------------------------------------


@dataclass(frozen=True)
class SharingModeInfo:
    key: str
    label: str
    resources: tuple[str, ...]
    isolates: tuple[str, ...]
    does_not_isolate: tuple[str, ...]
    notes: tuple[str, ...]
    sources: tuple[str, ...]
    choices: tuple[str, ...] = ()  # the GpuChoice fields this mode uses
    # the NodeChoice fields a catalog or custom node needs under this mode (its MIG layout,
    # its replicas per GPU)
    node_choices: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "resources": list(self.resources),
            "isolates": list(self.isolates),
            "doesNotIsolate": list(self.does_not_isolate),
            "notes": list(self.notes),
            "sources": list(self.sources),
        }


@dataclass(frozen=True)
class VendorInfo:
    key: str
    label: str
    resources: tuple[str, ...]
    plugin: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "resources": list(self.resources),
            "plugin": self.plugin,
            "source": self.source,
        }


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile of one GPU model."""

    gpu_model: str  # key in MIG_MODELS, e.g. "a100-40gb"
    name: str  # e.g. "3g.20gb"
    memory_gb: int  # the nominal size in the name (see gpu/mig_table.py on GB vs GiB)
    compute_slices: int  # out of 7 on every model listed
    max_instances: int  # instances of this profile that fill one GPU
    source: str
    placements: tuple[int, ...] = ()  # memory slices (of 8) an instance may start at
    memory_slices: int = 0  # memory slices an instance takes

    @property
    def resource_name(self) -> str:
        """The extended resource under the mixed strategy, e.g. nvidia.com/mig-3g.20gb."""
        return MIG_RESOURCE_PREFIX + self.name

    def as_dict(self) -> dict[str, Any]:
        return {
            "gpuModel": self.gpu_model,
            "name": self.name,
            "memoryGB": self.memory_gb,
            "computeSlices": self.compute_slices,
            "maxInstances": self.max_instances,
            "resourceName": self.resource_name,
            "source": self.source,
        }


@dataclass(frozen=True)
class GpuModel:
    key: str
    label: str
    memory_gb: int
    profiles: tuple[MigProfile, ...]
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "memoryGB": self.memory_gb,
            "profiles": [p.as_dict() for p in self.profiles],
            "source": self.source,
        }


def _build_models() -> dict[str, GpuModel]:
    models = {}
    for key, (label, memory_gb, source, rows) in MIG_MODELS.items():
        profiles = tuple(
            MigProfile(
                key, name, int(name.split(".")[1][:-2]), slices, count, source, *MIG_PLACEMENTS[i]
            )
            for i, (name, slices, count) in enumerate(rows)
        )
        models[key] = GpuModel(key, label, memory_gb, profiles, source)
    return models


_MODELS = _build_models()


def sharing_modes() -> list[SharingModeInfo]:
    """Every NVIDIA sharing mode with what it isolates and its sources."""
    return [
        SharingModeInfo(
            key=key,
            label=str(row["label"]),
            resources=tuple(row["resources"]),  # type: ignore[arg-type]
            isolates=tuple(row["isolates"]),  # type: ignore[arg-type]
            does_not_isolate=tuple(row["does_not_isolate"]),  # type: ignore[arg-type]
            notes=tuple(row["notes"]),  # type: ignore[arg-type]
            sources=tuple(row["sources"]),  # type: ignore[arg-type]
            choices=tuple(row.get("choices", ())),  # type: ignore[arg-type]
            node_choices=tuple(row.get("node_choices", ())),  # type: ignore[arg-type]
        )
        for key, row in SHARING_MODES.items()
    ]


def vendors() -> list[VendorInfo]:
    """Every accelerator vendor's device-plugin resource names."""
    return [
        VendorInfo(
            key=key,
            label=str(row["label"]),
            resources=tuple(row["resources"]),  # type: ignore[arg-type]
            plugin=str(row["plugin"]),
            source=str(row["source"]),
        )
        for key, row in VENDORS.items()
    ]


def mig_models() -> list[GpuModel]:
    """The GPU models with MIG profile tables, in table order."""
    return list(_MODELS.values())


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def mig_model(model: str) -> GpuModel:
    """A GPU model by key or common spelling ("A100 40GB", "h100", "H200-141GB").

    Raises ValueError naming the model and the known ones.
    """
    if model in _MODELS:
        return _MODELS[model]
    wanted = _normalise(model)
    for key in _MODELS:
        if _normalise(key) == wanted:
            return _MODELS[key]
    if wanted in MIG_MODEL_ALIASES:
        return _MODELS[MIG_MODEL_ALIASES[wanted]]
    raise MessageError(
        gettext_noop("unknown GPU model %(model)s; known: %(known)s"),
        {"model": repr(model), "known": ", ".join(_MODELS)},
    )


def smallest_mig_profile(
    model: str, gpu_memory_gib: float, *, min_compute_slices: int = 1
) -> MigProfile | None:
    """The smallest MIG profile of ``model`` with at least ``gpu_memory_gib`` of memory.

    The request is compared with the nominal size in the profile name ("20gb"), taken as
    binary gigabytes, because that is what a GPU's "GB" is (see gpu/mig_table.py): so
    "about 20 GB" picks 3g.20gb on an A100 40GB. The usable memory of a slice is a few percent
    below its name (3g.20gb shows 19.5-19.6 GiB in nvidia-smi), so a need that must fit to the
    byte should ask for a little more. Smallest = least memory, then fewest compute slices
    (1g.20gb before 2g.20gb on an H100 80GB). None when even the whole GPU is too small.
    """
    try:
        wanted = float(gpu_memory_gib)
    except (TypeError, ValueError):
        raise MessageError(
            gettext_noop("GPU memory must be a number of GiB, not %(value)s"),
            {"value": repr(gpu_memory_gib)},
        ) from None
    if not wanted > 0 or wanted == float("inf"):  # also refuses NaN
        raise MessageError(
            gettext_noop("GPU memory must be a positive number of GiB, not %(value)s"),
            {"value": repr(gpu_memory_gib)},
        )
    if isinstance(min_compute_slices, bool) or not isinstance(min_compute_slices, int):
        raise ValueError(f"min_compute_slices must be an integer, not {min_compute_slices!r}")
    candidates = [
        p
        for p in mig_model(model).profiles
        if p.memory_gb >= wanted and p.compute_slices >= min_compute_slices
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda p: (p.memory_gb, p.compute_slices))


def gpu_resource_for(
    mode: SharingMode | str,
    profile: MigProfile | str | None = None,
    vendor: str | None = None,
    *,
    rename_by_default: bool = False,
) -> str:
    """The extended resource name a container requests for ``mode``.

    ``profile`` (a MigProfile or a name such as "1g.10gb") is required by ``mig-mixed``.
    ``vendor`` defaults to NVIDIA; other vendors only hand out whole devices. With
    ``rename_by_default`` (the device plugin's renameByDefault), time-slicing and MPS replicas
    are advertised as ``nvidia.com/gpu.shared``. Raises ValueError for an impossible choice.
    """
    vendor_key = vendor or "nvidia"
    if vendor_key not in VENDORS:
        raise MessageError(
            gettext_noop("unknown vendor %(vendor)s; known: %(known)s"),
            {"vendor": repr(vendor), "known": ", ".join(VENDORS)},
        )
    if mode not in SHARING_MODES:
        raise MessageError(
            gettext_noop("unknown sharing mode %(mode)s; known: %(known)s"),
            {"mode": repr(mode), "known": ", ".join(SHARING_MODES)},
        )
    if vendor_key != "nvidia":
        if mode != "whole":
            raise MessageError(
                gettext_noop("%(mode)s is an NVIDIA sharing mode; %(vendor)s shares whole devices"),
                {"mode": mode, "vendor": vendor_key},
            )
        return str(VENDORS[vendor_key]["resources"][0])  # type: ignore[index]
    if mode == "mig-mixed":
        if profile is None:
            raise MessageError(
                gettext_noop("the mixed MIG strategy needs a profile, such as 1g.10gb")
            )
        name = profile.name if isinstance(profile, MigProfile) else str(profile)
        name = name.removeprefix(MIG_RESOURCE_PREFIX)
        if not _PROFILE_RE.fullmatch(name):
            raise MessageError(
                gettext_noop("%(name)s is not a MIG profile name such as 1g.10gb"),
                {"name": repr(name)},
            )
        return MIG_RESOURCE_PREFIX + name
    if mode in ("time-slicing", "mps") and rename_by_default:
        return "nvidia.com/gpu" + SHARED_SUFFIX
    return "nvidia.com/gpu"


def is_gpu_resource(name: str) -> bool:
    """An accelerator resource of any listed vendor, a MIG slice, a shared replica, or any
    ``<vendor>/gpu`` (the name device plugins use by convention)."""
    if name.startswith(MIG_RESOURCE_PREFIX):
        return True
    base = name.removesuffix(SHARED_SUFFIX)
    if base.endswith("/gpu"):
        return True
    return any(base in row["resources"] for row in VENDORS.values())  # type: ignore[operator]


def requested_gpus(requests: Mapping[str, Quantity]) -> Fraction:
    """How many GPUs (whole devices, MIG slices, shared replicas) a pod's effective requests
    add up to. The one place the product counts GPUs; a value too large to hold counts 0
    (validation reports it)."""
    total = Fraction(0)
    for name, q in requests.items():
        if is_gpu_resource(name):
            try:
                total += q.as_fraction()
            except OverflowError:
                return Fraction(0)
    return total


# --- GPU counts ----------------------------------------------------------------------------

FRACTIONAL_GPU = gettext_noop(
    "GPUs cannot be split by a fraction in Kubernetes: %(resource)s is %(value)s, not a whole "
    "number. To share a GPU, request a whole count of a shared resource instead: a MIG slice "
    "(nvidia.com/mig-1g.10gb and the like, or nvidia.com/gpu under the single strategy), or a "
    "time-slicing or MPS replica (nvidia.com/gpu, or nvidia.com/gpu.shared when the device "
    "plugin renames it)."
)
NEGATIVE_GPU = gettext_noop("%(resource)s must be zero or more, not %(value)s.")
UNREADABLE_GPU = gettext_noop(
    "%(resource)s is %(value)s, which is not a quantity; GPUs are counted in whole numbers "
    "such as 1 or 8."
)


def gpu_count_problem(value: ResourceValue, resource: str = "nvidia.com/gpu") -> Message | None:
    """What is wrong with ``value`` as a GPU count, or None when it is a whole number >= 0.

    The API server itself refuses a fractional extended resource ("must be an integer"); this
    says why and offers the sharing modes that do exist.
    """
    shown = value if isinstance(value, str) else str(value)  # as the user typed it
    try:
        q = Quantity.from_json(value)
    except (QuantityError, TypeError, ValueError):
        return Message(UNREADABLE_GPU, {"resource": resource, "value": shown})
    params = {"resource": resource, "value": shown, "canonical": q.canonical()}
    if q.sign() < 0:
        return Message(NEGATIVE_GPU, params)
    if not q.is_integer():
        return Message(FRACTIONAL_GPU, params)
    return None
