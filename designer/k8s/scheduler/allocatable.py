"""Allocatable estimated from capacity: the kube-reserved and hard-eviction formulas of GKE,
EKS and AKS (scheduler/reservations.py), each shown as the lines of its arithmetic."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from designer.k8s.core import (
    Message,
    MessageError,
    ResourceValue,
    gettext_noop,
    resource_sort_key,
    whole,
)
from designer.k8s.scheduler import reservations as R
from designer.k8s.scheduler._units import (
    _MAX_PODS_LIMIT,
    PROVIDERS,
    _bytes_text,
    _canonical,
    _count_text,
    _cpu_text,
    _exact,
    _parse_list,
)

# --- allocatable estimate --------------------------------------------------------------------

L_GKE_CPU = gettext_noop(
    "GKE reserves CPU for the kubelet and system daemons: 6%% of the first core, 1%% of the next "
    "core, 0.5%% of the next 2 cores and 0.25%% of every core above 4, so %(reserved)s "
    "out of %(capacity)s CPU."
)
L_GKE_MEMORY = gettext_noop(
    "GKE reserves memory: 25%% of the first 4 GiB, 20%% of the next 4 GiB, 10%% of the next "
    "8 GiB, 6%% of the next 112 GiB and 2%% of any memory above 128 GiB (255 MiB on machines "
    "with less than 1 GiB), so %(reserved)s of %(capacity)s (rounded up to whole MiB)."
)
L_EKS_CPU = gettext_noop(
    "EKS (bootstrap.sh on Amazon Linux 2, nodeadm on Amazon Linux 2023) reserves CPU with GKE's "
    "tiers: 6%% of the first core, 1%% of the next core, 0.5%% of the next 2 cores and 0.25%% of "
    "every core above 4, so %(reserved)s out of %(capacity)s CPU."
)
L_EKS_MEMORY = gettext_noop(
    "EKS reserves 11 MiB of memory per pod the node may run plus 255 MiB: "
    "11 x %(max_pods)s + 255 = %(reserved)s."
)
L_AKS_CPU = gettext_noop(
    "AKS reserves CPU by core count (published: 1 core 60m, 2 cores 100m, 4 cores 140m, 8 cores "
    "180m, 16 cores 260m, 32 cores 420m, 64 cores 740m; that is 60m for the first core, 40m for "
    "the second, 20m for each of cores 3 and 4 and 10m for each core above 4), so %(reserved)s "
    "out of %(capacity)s CPU."
)
L_AKS_MEMORY = gettext_noop(
    "AKS (Kubernetes 1.29 and later) reserves the smaller of 20 MiB per pod plus 50 MiB "
    "(20 x %(max_pods)s + 50 = %(per_pods)s) and 25%% of the memory (%(quarter)s): %(reserved)s."
)
L_EVICTION = gettext_noop(
    "The kubelet evicts pods when less than %(eviction)s of memory is available "
    "(evictionHard memory.available), so that much is not allocatable either."
)
L_ALLOC_CPU = gettext_noop("Allocatable CPU = %(capacity)s - %(reserved)s = %(allocatable)s.")
L_ALLOC_MEMORY = gettext_noop(
    "Allocatable memory = %(capacity)s - %(reserved)s - %(eviction)s = %(allocatable)s."
)
L_PODS_GIVEN = gettext_noop("At most %(max_pods)s pods per node, as given.")
L_PODS_CAPACITY = gettext_noop("At most %(max_pods)s pods per node, from the capacity.")
L_PODS_GKE = gettext_noop("At most %(max_pods)s pods per node (GKE Standard default).")
L_PODS_ENI = gettext_noop(
    "At most %(max_pods)s pods per node: the instance type's ENI limit from the EKS AMI's "
    "eni-max-pods.txt (ENIs x (IPv4 addresses per ENI - 1) + 2)."
)
L_PODS_EKS_DEFAULT = gettext_noop(
    "At most %(max_pods)s pods per node: the kubelet default EKS falls back to when the "
    "instance type's ENI limit is unknown. Give the real max pods for a closer estimate."
)
L_PODS_AKS = gettext_noop(
    "At most %(max_pods)s pods per node (AKS default with Azure CNI; kubenet defaults to 110 and "
    "Azure CNI Overlay to 250: give the real value if yours differs)."
)
L_PASSTHROUGH = gettext_noop(
    "%(resources)s: allocatable as in the capacity (the device plugin advertises the same count; "
    "no provider reserves any)."
)

_SOURCES = {"gke": R.GKE_SOURCE, "eks": R.EKS_SOURCE, "aks": R.AKS_SOURCE}


@dataclass(frozen=True)
class Allocatable:
    """An estimate of a node's allocatable from its capacity and the provider's formulas."""

    provider: str
    capacity: dict[str, str]
    allocatable: dict[str, str]
    reserved: dict[str, str]  # kube-reserved (cpu, memory)
    eviction: dict[str, str]  # hard eviction threshold (memory)
    max_pods: int
    formula_lines: list[Message]
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "capacity": dict(self.capacity),
            "allocatable": dict(self.allocatable),
            "reserved": dict(self.reserved),
            "evictionHard": dict(self.eviction),
            "maxPods": self.max_pods,
            "formula": [line.text for line in self.formula_lines],
            "formulaDetails": [line.as_dict() for line in self.formula_lines],
            "source": self.source,
        }


def _tiered(total: Fraction, tiers: Iterable[tuple[int | None, Fraction]]) -> Fraction:
    """Sum of share x (part of ``total`` inside each range); ranges start where the last ended."""
    start, reserved = 0, Fraction(0)
    for end, share in tiers:
        if total <= start:
            break
        top = total if end is None else min(total, end)
        reserved += (top - start) * share
        if end is None:
            break
        start = end
    return reserved


def _eks_cpu_milli(total_milli: Fraction) -> int:
    """nodeadm getCPUMillicoresToReserve: each range's share truncated, as Go's int division."""
    start, reserved = 0, 0
    for end, share in R.CPU_PERCENT_TIERS:
        if total_milli <= start:
            break
        top = total_milli if end is None else min(total_milli, end)
        reserved += math.floor((top - start) * share)
        if end is None:
            break
        start = end
    return reserved


def _round_up(n: Fraction, step: int) -> int:
    return math.ceil(n / step) * step


def _check_max_pods(max_pods: object) -> int:
    if isinstance(max_pods, bool) or not isinstance(max_pods, int):
        raise MessageError(
            gettext_noop("max pods must be a whole number, not %(value)s"),
            {"value": repr(max_pods)},
        )
    if not 1 <= max_pods <= _MAX_PODS_LIMIT:
        raise MessageError(
            gettext_noop("max pods must be between 1 and %(limit)s, not %(value)s"),
            {"limit": _MAX_PODS_LIMIT, "value": max_pods},
        )
    return max_pods


def estimate_allocatable(
    capacity: Mapping[str, ResourceValue], provider: str, max_pods: int | None = None
) -> Allocatable:
    """Allocatable for a node of ``capacity`` on ``provider`` ("gke", "eks" or "aks").

    ``max_pods`` matters to EKS and AKS (their memory reservation grows with it) and becomes the
    ``pods`` allocatable; without it, a ``pods`` entry of the capacity is used, else the
    provider's default (GKE 110, EKS 110 for an unknown instance type, AKS 30). GPUs and other
    resources are passed through unchanged. Raises ValueError for an unknown provider or a
    value that is not a quantity, naming it.
    """
    return _estimate(capacity, provider, max_pods, None)


def _estimate(
    capacity: Mapping[str, ResourceValue],
    provider: str,
    max_pods: int | None,
    pods_origin: str | None,
) -> Allocatable:
    if provider not in PROVIDERS:
        raise MessageError(
            gettext_noop("unknown provider %(provider)s; choose one of %(known)s"),
            {"provider": repr(provider), "known": ", ".join(PROVIDERS)},
        )
    cap = _parse_list(capacity, "capacity")
    lines: list[Message] = []

    if max_pods is not None:
        pods = _check_max_pods(max_pods)
        pods_line = L_PODS_ENI if pods_origin == "eni" else L_PODS_GIVEN
    elif "pods" in cap:
        if not cap["pods"].is_integer():
            raise MessageError(
                gettext_noop("capacity[pods]: %(value)s is not a whole number"),
                {"value": cap["pods"].canonical()},
            )
        pods = _check_max_pods(whole(cap["pods"]))
        pods_line = L_PODS_CAPACITY
    else:
        pods = {"gke": R.GKE_DEFAULT_MAX_PODS, "eks": R.EKS_DEFAULT_MAX_PODS}.get(
            provider, R.AKS_DEFAULT_MAX_PODS
        )
        pods_line = {"gke": L_PODS_GKE, "eks": L_PODS_EKS_DEFAULT}.get(provider, L_PODS_AKS)

    allocatable: dict[str, str] = {}
    reserved: dict[str, str] = {}
    eviction: dict[str, str] = {}

    if "cpu" in cap:
        total = _exact(cap["cpu"], "capacity[cpu]") * 1000  # millicores
        if total < 0:
            raise MessageError(
                gettext_noop("%(where)s: %(value)s is negative"),
                {"where": "capacity[cpu]", "value": cap["cpu"].canonical()},
            )
        if provider == "eks":
            cpu_reserved = _eks_cpu_milli(total)
        elif provider == "gke":
            cpu_reserved = math.ceil(_tiered(total, R.CPU_PERCENT_TIERS))
        else:
            cpu_reserved = math.ceil(_tiered(total, R.AKS_CPU_TIERS_MILLI))
        cpu_reserved = min(cpu_reserved, math.floor(total))
        params = {"capacity": cap["cpu"].canonical(), "reserved": _cpu_text(cpu_reserved)}
        lines.append(
            Message({"gke": L_GKE_CPU, "eks": L_EKS_CPU, "aks": L_AKS_CPU}[provider], params)
        )
        cpu_alloc = _cpu_text(max(Fraction(0), total - cpu_reserved))
        reserved["cpu"] = params["reserved"]
        allocatable["cpu"] = cpu_alloc
        lines.append(Message(L_ALLOC_CPU, {**params, "allocatable": cpu_alloc}))

    if "memory" in cap:
        total = _exact(cap["memory"], "capacity[memory]")  # bytes
        if total < 0:
            raise MessageError(
                gettext_noop("%(where)s: %(value)s is negative"),
                {"where": "capacity[memory]", "value": cap["memory"].canonical()},
            )
        capacity_text = cap["memory"].canonical()
        if provider == "gke":
            evict = R.GKE_EVICTION_MEMORY
            if total < R.GKE_SMALL_MACHINE_BYTES:
                mem_reserved = R.GKE_SMALL_MACHINE_RESERVED
            else:
                mem_reserved = _round_up(_tiered(total, R.GKE_MEMORY_TIERS), R.MIB)
            lines.append(
                Message(
                    L_GKE_MEMORY,
                    {"capacity": capacity_text, "reserved": _bytes_text(mem_reserved)},
                )
            )
        elif provider == "eks":
            evict = R.EKS_EVICTION_MEMORY
            mem_reserved = (R.EKS_MEMORY_PER_POD_MIB * pods + R.EKS_MEMORY_BASE_MIB) * R.MIB
            lines.append(
                Message(L_EKS_MEMORY, {"max_pods": pods, "reserved": _bytes_text(mem_reserved)})
            )
        else:
            evict = R.AKS_EVICTION_MEMORY
            per_pods = (R.AKS_MEMORY_PER_POD_MIB * pods + R.AKS_MEMORY_BASE_MIB) * R.MIB
            quarter = _round_up(total * R.AKS_MEMORY_CAP, R.MIB)
            mem_reserved = min(per_pods, quarter)
            lines.append(
                Message(
                    L_AKS_MEMORY,
                    {
                        "max_pods": pods,
                        "per_pods": _bytes_text(per_pods),
                        "quarter": _bytes_text(quarter),
                        "reserved": _bytes_text(mem_reserved),
                    },
                )
            )
        lines.append(Message(L_EVICTION, {"eviction": _bytes_text(evict)}))
        mem_alloc = _bytes_text(max(Fraction(0), total - mem_reserved - evict))
        reserved["memory"] = _bytes_text(mem_reserved)
        eviction["memory"] = _bytes_text(evict)
        allocatable["memory"] = mem_alloc
        lines.append(
            Message(
                L_ALLOC_MEMORY,
                {
                    "capacity": capacity_text,
                    "reserved": reserved["memory"],
                    "eviction": eviction["memory"],
                    "allocatable": mem_alloc,
                },
            )
        )

    allocatable["pods"] = _count_text(pods)
    lines.append(Message(pods_line, {"max_pods": pods}))
    passed = [n for n in sorted(cap, key=resource_sort_key) if n not in ("cpu", "memory", "pods")]
    for name in passed:
        allocatable[name] = cap[name].canonical()
    if passed:
        lines.append(Message(L_PASSTHROUGH, {"resources": ", ".join(passed)}))

    capacity_out = _canonical(cap)
    capacity_out.setdefault("pods", _count_text(pods))
    return Allocatable(
        provider=provider,
        capacity=capacity_out,
        allocatable={k: allocatable[k] for k in sorted(allocatable, key=resource_sort_key)},
        reserved=reserved,
        eviction=eviction,
        max_pods=pods,
        formula_lines=lines,
        source=_SOURCES[provider],
    )
