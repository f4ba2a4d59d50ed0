"""Quantities as node fit reads and prints them (the scheduler's integer units)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Literal

from designer.k8s.core import (
    BINARY_SI,
    DECIMAL_SI,
    MessageError,
    Quantity,
    QuantityError,
    ResourceValue,
    gettext_noop,
    milli,
    resource_sort_key,
    whole,
)

Provider = Literal["gke", "eks", "aks"]
PROVIDERS: tuple[str, ...] = ("gke", "eks", "aks")
PROVIDER_OF_CLOUD = {"gcp": "gke", "aws": "eks", "azure": "aks"}
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
_FILTERED_EFFECTS = ("NoSchedule", "NoExecute")  # TaintToleration ignores PreferNoSchedule
_MAX_PODS_LIMIT = 100_000


# --- quantities ------------------------------------------------------------------------------


def _parse(value: ResourceValue, where: str) -> Quantity:
    try:
        return Quantity.from_json(value)
    except (QuantityError, TypeError, ValueError) as e:
        raise MessageError(
            gettext_noop("%(where)s: %(value)s is not a Kubernetes quantity (%(error)s)"),
            {"where": where, "value": repr(value), "error": str(e)},
        ) from None


_MAX_QUANTITY = Quantity.from_fraction(2**63 - 1)  # the kubelet's int64 ceiling


def _exact(q: Quantity, where: str) -> Fraction:
    # Compared first: as_fraction() would build a huge int for 1e999999 (or raise).
    if q > _MAX_QUANTITY:
        raise MessageError(
            gettext_noop("%(where)s: %(value)s is too large"),
            {"where": where, "value": q.canonical()},
        )
    return q.as_fraction()


def _parse_list(values: Mapping[str, ResourceValue] | None, where: str) -> dict[str, Quantity]:
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise MessageError(
            gettext_noop("%(where)s must be a mapping of resource names to quantities"),
            {"where": where},
        )
    return {str(k): _parse(v, f"{where}[{k}]") for k, v in values.items()}


def _canonical(values: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: values[k].canonical() for k in sorted(values, key=resource_sort_key)}


def _cpu_text(millicores: int | Fraction) -> str:
    return Quantity.from_fraction(Fraction(millicores) / 1000, DECIMAL_SI).canonical()


def _bytes_text(n: int | Fraction) -> str:
    return Quantity.from_fraction(Fraction(n), BINARY_SI).canonical()


def _count_text(n: int) -> str:
    return Quantity.from_fraction(n, DECIMAL_SI).canonical()


def _unit_text(resource: str, amount: int) -> str:
    """An amount in the scheduler's integer unit for ``resource``, as a canonical quantity."""
    if resource == "cpu":
        return _cpu_text(amount)
    if resource == "memory" or resource.startswith("hugepages-") or "storage" in resource:
        return _bytes_text(amount)
    return _count_text(amount)


def _units(resource: str, q: Quantity) -> int:
    """The scheduler's integer amount: MilliValue() for cpu, Value() for the rest (rounded up)."""
    return milli(q) if resource == "cpu" else whole(q)


def _text(value: object) -> str:
    """A label/taint value as Kubernetes would hold it (strings; YAML booleans as true/false)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
