"""What a node's GPU device plugin advertises, for how its GPUs are shared.

A node with N GPUs does not always offer N ``nvidia.com/gpu``: the NVIDIA device plugin (and the
GPU operator's MIG manager) turn them into other counts and names (k8s-device-plugin README,
"Shared Access to GPUs"; GPU operator "MIG support"):

* whole GPUs: ``nvidia.com/gpu`` = N;
* MIG, single strategy: every GPU is split into the same profile, and each slice is an
  ``nvidia.com/gpu``: N x instances per GPU (an H100 80GB in 1g.10gb: 7 x 8 = 56);
* MIG, mixed strategy: each profile is its own resource, ``nvidia.com/mig-<profile>``, counted
  from the node's MIG layout (mig-parted's per-GPU ``mig-devices``); GPUs left out of the layout
  are whole ``nvidia.com/gpu``;
* time-slicing and MPS: each GPU is ``replicas`` resources, renamed ``nvidia.com/gpu.shared``
  when the plugin sets ``renameByDefault``.

:func:`advertised_gpus` computes that from the GPU model and count and a :class:`GpuSharing`,
with notes that say what was assumed. A choice that cannot exist raises :class:`SharingError`,
which names the part of the choice it is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import Message, MessageError, gettext_noop
from designer.k8s.gpu.mig_table import MIG_BALANCED
from designer.k8s.gpu.sharing import (
    MIG_RESOURCE_PREFIX,
    SHARED_SUFFIX,
    GpuModel,
    MigProfile,
    mig_model,
)
from designer.k8s.gpu.sharing_table import SHARING_MODES

GPU = "nvidia.com/gpu"
MAX_REPLICAS = 1024  # far above any real sharing config; keeps counts sane


class SharingError(MessageError):
    """An impossible sharing choice; ``part`` says which input it is about: "mode", "model",
    "profile", "layout" or "replicas"."""

    def __init__(self, part: str, template: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(template, params)
        self.part = part


def mig_profiles(model: str) -> tuple[MigProfile, ...]:
    """The MIG profiles of one GPU model (key or common spelling), smallest first: the only
    ones the designer offers for that model."""
    return mig_model(model).profiles


NOT_A_PROFILE = gettext_noop(
    "%(profile)s is not a MIG profile of the %(model)s; its profiles are %(known)s."
)


def mig_profile(model: str | GpuModel, name: str) -> MigProfile:
    """The profile ``name`` ("1g.10gb", or "nvidia.com/mig-1g.10gb") of ``model``; SharingError
    (part "profile") when the model has no such profile, naming the ones it has."""
    gpu = model if isinstance(model, GpuModel) else mig_model(model)
    wanted = name.strip().removeprefix(MIG_RESOURCE_PREFIX)
    for profile in gpu.profiles:
        if profile.name == wanted:
            return profile
    raise SharingError(
        "profile",
        NOT_A_PROFILE,
        {
            "profile": repr(wanted),
            "model": gpu.label,
            "known": ", ".join(p.name for p in gpu.profiles),
        },
    )


# --- MIG layouts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MigGroup:
    """GPUs that share one MIG layout: ``gpus`` of them (None: every GPU not in another
    group), each split into ``profiles`` (profile name -> instances per GPU)."""

    gpus: int | None
    profiles: tuple[tuple[str, int], ...]

    def as_dict(self) -> dict[str, Any]:
        return {"gpus": self.gpus, "profiles": dict(self.profiles)}


@dataclass(frozen=True)
class MigLayout:
    """A node's MIG layout, as mig-parted configures it: groups of GPUs with their slices."""

    groups: tuple[MigGroup, ...]
    named: str = ""  # "all-balanced" or "all-<profile>" when given by that name

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.named or None, "groups": [g.as_dict() for g in self.groups]}


LAYOUT_SYNTAX = gettext_noop(
    "the MIG layout %(layout)s cannot be read: write each GPU's slices as profile=count "
    "(1g.10gb=2, 2g.20gb=1, 3g.40gb=1), put a GPU count and a colon in front to give GPUs "
    "different layouts (4: 3g.40gb=2; 4: 1g.10gb=7), or name a mig-parted layout (all-balanced, "
    "all-1g.10gb)"
)
_ENTRY_RE = re.compile(r"\s*([0-9]+g\.[0-9]+gb)\s*=\s*([0-9]+)\s*")
_NAMED_RE = re.compile(r"all-(balanced|[0-9]+g\.[0-9]+gb)")


def _layout_error(shown: object) -> SharingError:
    return SharingError("layout", LAYOUT_SYNTAX, {"layout": repr(shown)})


def _profiles_from_mapping(value: Mapping[str, Any], shown: object) -> tuple[tuple[str, int], ...]:
    out = []
    for name, count in value.items():
        if (
            not isinstance(name, str)
            or isinstance(count, bool)
            or not isinstance(count, int)
            or count < 0
        ):
            raise _layout_error(shown)
        if count:
            out.append((name.strip().removeprefix(MIG_RESOURCE_PREFIX), count))
    return tuple(out)


def parse_mig_layout(value: object) -> MigLayout:
    """A MIG layout from text or JSON.

    Text: ``1g.10gb=2, 2g.20gb=1, 3g.40gb=1`` (every GPU), ``4: 3g.40gb=2; 4: 1g.10gb=7``
    (groups of GPUs, one may leave out its count to take the rest), or a mig-parted name,
    ``all-balanced`` or ``all-<profile>``. JSON: ``{"1g.10gb": 2, ...}`` for every GPU, or a
    list of ``{"gpus": 4, "profiles": {...}}``. Profiles are checked against a GPU model by
    :func:`advertised_gpus`; here only the form is. Raises SharingError (part "layout").
    """
    if isinstance(value, str):
        text = value.strip()
        named = _NAMED_RE.fullmatch(text)
        if named:
            return MigLayout((), named=text)
        groups = []
        for part in text.split(";"):
            if not part.strip():
                continue
            count: int | None = None
            if ":" in part:
                head, part = part.split(":", 1)
                if not head.strip().isdigit():
                    raise _layout_error(value)
                count = int(head)
            entries = [e for e in part.split(",") if e.strip()]
            matches = [_ENTRY_RE.fullmatch(e) for e in entries]
            if not entries or not all(matches):
                raise _layout_error(value)
            profiles = tuple((m.group(1), int(m.group(2))) for m in matches if m)
            groups.append(MigGroup(count, tuple(p for p in profiles if p[1])))
        if not groups:
            raise _layout_error(value)
        return MigLayout(tuple(groups))
    if isinstance(value, Mapping):
        return MigLayout((MigGroup(None, _profiles_from_mapping(value, value)),))
    if isinstance(value, list) and value:
        groups = []
        for item in value:
            if not isinstance(item, Mapping) or not isinstance(item.get("profiles"), Mapping):
                raise _layout_error(value)
            gpus = item.get("gpus")
            if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int)):
                raise _layout_error(value)
            groups.append(MigGroup(gpus, _profiles_from_mapping(item["profiles"], value)))
        return MigLayout(tuple(groups))
    raise _layout_error(value)


def _fits_one_gpu(profiles: list[MigProfile]) -> bool:
    """Whether these instances can all be placed on one GPU: each at one of its profile's
    start slices, no two sharing a memory slice (nvidia-smi's placement rules)."""
    order = sorted(profiles, key=lambda p: -p.memory_slices)
    used = [False] * 8

    def place(i: int) -> bool:
        if i == len(order):
            return True
        p = order[i]
        for start in p.placements:
            span = range(start, start + p.memory_slices)
            if span.stop <= 8 and not any(used[s] for s in span):
                for s in span:
                    used[s] = True
                if place(i + 1):
                    return True
                for s in span:
                    used[s] = False
        return False

    return place(0)


LAYOUT_TOO_FULL = gettext_noop(
    "%(slices)s do not fit on one %(model)s: its 8 memory slices allow, for example, %(example)s"
)
LAYOUT_TOO_MANY_GPUS = gettext_noop(
    "the MIG layout names %(named)s GPUs, but the node has %(gpus)s"
)
LAYOUT_TWO_RESTS = gettext_noop(
    "only one group of the MIG layout can leave out its GPU count (it takes the other GPUs)"
)


def _resolve_layout(
    layout: MigLayout, gpu: GpuModel, gpu_count: int
) -> list[tuple[int, dict[str, int]]]:
    """(GPUs, profile -> instances per GPU) for each group, checked against the model."""
    if layout.named:
        rest = layout.named.removeprefix("all-")
        if rest == "balanced":
            per_gpu = {gpu.profiles[i].name: n for i, n in MIG_BALANCED}
        else:
            per_gpu = {mig_profile(gpu, rest).name: mig_profile(gpu, rest).max_instances}
        return [(gpu_count, per_gpu)]
    if sum(1 for g in layout.groups if g.gpus is None) > 1:
        raise SharingError("layout", LAYOUT_TWO_RESTS)
    named = sum(g.gpus or 0 for g in layout.groups)
    if named > gpu_count:
        raise SharingError("layout", LAYOUT_TOO_MANY_GPUS, {"named": named, "gpus": gpu_count})
    out = []
    for group in layout.groups:
        gpus = group.gpus if group.gpus is not None else gpu_count - named
        per_gpu: dict[str, int] = {}
        instances: list[MigProfile] = []
        for name, count in group.profiles:
            profile = mig_profile(gpu, name)
            per_gpu[profile.name] = per_gpu.get(profile.name, 0) + count
            instances.extend([profile] * count)
        if not _fits_one_gpu(instances):
            example = ", ".join(f"{p.name}={p.max_instances}" for p in gpu.profiles[:1]) + (
                " or " + ", ".join(f"{gpu.profiles[i].name}={n}" for i, n in MIG_BALANCED)
            )
            slices = ", ".join(f"{n}={c}" for n, c in per_gpu.items())
            raise SharingError(
                "layout",
                LAYOUT_TOO_FULL,
                {"slices": slices, "model": gpu.label, "example": example},
            )
        out.append((gpus, per_gpu))
    return out


# --- what the node advertises ---------------------------------------------------------------


@dataclass(frozen=True)
class GpuSharing:
    """How a node's GPUs are shared, as the device plugin is configured (see module doc)."""

    mode: str = "whole"  # a key of SHARING_MODES
    profile: str = ""  # mig-single: the profile every GPU is split into; mig-mixed: default layout
    layout: MigLayout | None = None  # mig-mixed
    replicas: int | None = None  # time-slicing / MPS: resources per GPU
    rename_by_default: bool = False  # time-slicing / MPS: nvidia.com/gpu.shared

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "profile": self.profile or None,
            "migLayout": self.layout.as_dict() if self.layout else None,
            "replicas": self.replicas,
            "renameByDefault": self.rename_by_default,
        }


@dataclass(frozen=True)
class AdvertisedGpus:
    """The GPU resources a node advertises (capacity = allocatable for device plugins)."""

    resources: dict[str, int]
    notes: tuple[Message, ...] = field(default_factory=tuple)


N_MIG_SINGLE = gettext_noop(
    "MIG, single strategy: each of the %(gpus)s %(model)s GPUs is split into %(per_gpu)s x "
    "%(profile)s, and the device plugin advertises every slice as %(resource)s: %(count)s in "
    "all, not %(gpus)s."
)
N_MIG_MIXED = gettext_noop(
    "MIG, mixed strategy: the node's %(model)s GPUs are split as %(layout)s, so the device "
    "plugin advertises %(advertised)s."
)
N_MIG_DEFAULT_LAYOUT = gettext_noop(
    "No MIG layout was given: every GPU is taken to be split into %(per_gpu)s x %(profile)s "
    "(mig-parted's all-%(profile)s). Give the node's layout if it differs."
)
N_MIG_WHOLE_REST = gettext_noop(
    "%(gpus)s GPU(s) are not in the MIG layout: with MIG disabled they stay whole %(resource)s."
)
N_REPLICAS = gettext_noop(
    "%(mode)s: each of the %(gpus)s GPUs is advertised as %(replicas)s replicas of "
    "%(resource)s, %(count)s in all; a replica is a share of a GPU, not a GPU."
)
N_REPLICAS_MISSING = gettext_noop(
    "%(mode)s: the replicas per GPU were not given, so each GPU counts as 1 %(resource)s; give "
    "the replicas of the device plugin's sharing configuration."
)
N_RENAMED = gettext_noop(
    "The device plugin sets renameByDefault, so the replicas are called %(resource)s instead of "
    "nvidia.com/gpu."
)
NO_MIG = gettext_noop(
    "%(model)s GPUs do not support MIG (the MIG tables cover A100, H100, H200 and B200 GPUs)."
)
NEEDS_PROFILE = gettext_noop("the MIG single strategy needs the profile every GPU is split into")
NEEDS_LAYOUT = gettext_noop(
    "the MIG mixed strategy needs the node's MIG layout (or a profile to split every GPU into)"
)
BAD_REPLICAS = gettext_noop(
    "replicas per GPU must be a whole number from 1 to %(max)s, not %(value)s"
)
UNKNOWN_MODE = gettext_noop("unknown GPU sharing mode %(mode)s; known: %(known)s")


def gpu_sharing(
    mode: str = "whole",
    *,
    profile: str = "",
    layout: object = None,
    replicas: object = None,
    rename_by_default: bool = False,
) -> GpuSharing:
    """A GpuSharing from loose inputs (form text or JSON), checked for form: the mode is known,
    the layout readable (parse_mig_layout) and replicas a whole number. Raises SharingError."""
    if mode not in SHARING_MODES:
        raise SharingError(
            "mode", UNKNOWN_MODE, {"mode": repr(mode), "known": ", ".join(SHARING_MODES)}
        )
    parsed = None
    if mode == "mig-mixed" and layout not in (None, "", [], {}):
        parsed = parse_mig_layout(layout)
    count: int | None = None
    if mode in ("time-slicing", "mps") and replicas not in (None, ""):
        text = str(replicas).strip() if not isinstance(replicas, bool) else ""
        if not text.isdigit() or not 1 <= int(text) <= MAX_REPLICAS:
            raise SharingError(
                "replicas", BAD_REPLICAS, {"max": MAX_REPLICAS, "value": repr(replicas)}
            )
        count = int(text)
    return GpuSharing(mode, profile.strip(), parsed, count, bool(rename_by_default))


def advertised_gpus(
    gpu_count: int,
    sharing: GpuSharing,
    model: str | GpuModel | None = None,
    *,
    model_label: str = "",
    base_resource: str = GPU,
) -> AdvertisedGpus:
    """What the device plugin of a node with ``gpu_count`` GPUs of ``model`` advertises.

    ``model`` is a MIG model key (None for a GPU without MIG, named by ``model_label``); it is
    needed for the MIG modes only. Raises SharingError for a choice the node cannot have.
    """
    mode = sharing.mode
    if mode == "whole" or base_resource != GPU:
        return AdvertisedGpus({base_resource: gpu_count})
    if mode in ("time-slicing", "mps"):
        resource = GPU + SHARED_SUFFIX if sharing.rename_by_default else GPU
        label = str(SHARING_MODES[mode]["label"])
        notes: list[Message] = []
        if sharing.replicas is None:
            notes.append(
                Message(N_REPLICAS_MISSING, {"mode": Message(label, {}), "resource": resource})
            )
            count = gpu_count
        else:
            count = gpu_count * sharing.replicas
            notes.append(
                Message(
                    N_REPLICAS,
                    {
                        "mode": Message(label, {}),
                        "gpus": gpu_count,
                        "replicas": sharing.replicas,
                        "resource": resource,
                        "count": count,
                    },
                )
            )
        if sharing.rename_by_default:
            notes.append(Message(N_RENAMED, {"resource": resource}))
        return AdvertisedGpus({resource: count}, tuple(notes))
    # MIG
    if model is None:
        raise SharingError("model", NO_MIG, {"model": model_label or "These"})
    gpu = model if isinstance(model, GpuModel) else mig_model(model)
    if mode == "mig-single":
        if not sharing.profile:
            raise SharingError("profile", NEEDS_PROFILE)
        profile = mig_profile(gpu, sharing.profile)
        count = gpu_count * profile.max_instances
        note = Message(
            N_MIG_SINGLE,
            {
                "gpus": gpu_count,
                "model": gpu.label,
                "per_gpu": profile.max_instances,
                "profile": profile.name,
                "resource": GPU,
                "count": count,
            },
        )
        return AdvertisedGpus({GPU: count}, (note,))
    # mig-mixed
    notes = []
    layout = sharing.layout
    if layout is None:
        if not sharing.profile:
            raise SharingError("layout", NEEDS_LAYOUT)
        profile = mig_profile(gpu, sharing.profile)
        layout = MigLayout((), named=f"all-{profile.name}")
        notes.append(
            Message(
                N_MIG_DEFAULT_LAYOUT, {"per_gpu": profile.max_instances, "profile": profile.name}
            )
        )
    groups = _resolve_layout(layout, gpu, gpu_count)
    resources: dict[str, int] = {}
    for gpus, per_gpu in groups:
        for name, n in per_gpu.items():
            key = MIG_RESOURCE_PREFIX + name
            resources[key] = resources.get(key, 0) + gpus * n
    whole = gpu_count - sum(gpus for gpus, _ in groups)
    if whole > 0:
        resources[GPU] = whole
        notes.append(Message(N_MIG_WHOLE_REST, {"gpus": whole, "resource": GPU}))
    layout_text = "; ".join(
        f"{gpus} x (" + ", ".join(f"{n} x {name}" for name, n in per_gpu.items()) + ")"
        for gpus, per_gpu in groups
        if gpus
    )
    advertised = ", ".join(f"{n} {name}" for name, n in sorted(resources.items()))
    notes.insert(
        0,
        Message(N_MIG_MIXED, {"model": gpu.label, "layout": layout_text, "advertised": advertised}),
    )
    return AdvertisedGpus(resources, tuple(notes))
