"""The API server's validation of a ResourceRequirements: names, quantities, relations.

Mirrors ``validateResourceRequirements`` of pkg/apis/core/validation/validation.go and the
helpers it calls (``validateContainerResourceName``, ``validatePodResourceName``,
``ValidateResourceQuantityValue``, ``validateResourceQuantityHugePageValue``), with Go's paths
and messages.

One deliberate difference: the API server refuses a value that is not a quantity while
decoding the whole object ("quantities must match the regular expression ..."). We report it
as a ``FieldValueInvalid`` at the value's own path (as written by the user) and go on, so every
other problem is reported too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from designer.k8s.core import (
    HUGEPAGES_PREFIX,
    FieldError,
    Quantity,
    QuantityError,
    ResourceList,
    ResourceRequirements,
    Unquoted,
    about,
    child,
    forbidden,
    go_scaled_value,
    invalid,
    is_extended_resource_name,
    is_hugepages,
    is_integer_resource_name,
    is_native_resource,
    is_overcommit_allowed,
    is_qualified_name,
    is_standard_container_resource_name,
    is_standard_resource_name,
    is_supported_pod_level_resource,
    key,
    not_supported,
    required,
    supported_pod_level_resources,
)

QOS_COMPUTE_RESOURCES = ("cpu", "memory")

# The messages, verbatim from the Go source.
MSG_NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
MSG_NOT_INTEGER = "must be an integer"
MSG_NOT_STANDARD = "must be a standard resource type or fully qualified"
MSG_NOT_STANDARD_CONTAINER = "must be a standard resource for containers"
MSG_NOT_EXTENDED = "doesn't follow extended resource name standard"
MSG_LIMIT_REQUIRED = "Limit must be set for non overcommitable resources"
MSG_HUGEPAGES_NEED_CPU_OR_MEMORY = "HugePages require cpu or memory"
MSG_EQUAL_LIMIT = "must be equal to {name} limit of {limit}"
MSG_LE_LIMIT = "must be less than or equal to {name} limit of {limit}"
MSG_HUGEPAGE_MULTIPLE = "{value} is not positive integer multiple of {name}"


def validate_resource_name(name: str, path: str) -> list[FieldError]:
    """validateResourceName: a qualified name; unqualified ones must be standard."""
    value = Unquoted(name)
    errs = [invalid(path, value, msg) for msg in is_qualified_name(name)]
    if errs:
        return errs
    if "/" not in name and not is_standard_resource_name(name):
        return [invalid(path, value, MSG_NOT_STANDARD)]
    return []


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    """validateContainerResourceName: standard for containers, or an extended resource."""
    errs = validate_resource_name(name, path)
    if "/" not in name:
        if not is_standard_container_resource_name(name):
            errs.append(invalid(path, Unquoted(name), MSG_NOT_STANDARD_CONTAINER))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append(invalid(path, Unquoted(name), MSG_NOT_EXTENDED))
    return errs


def validate_pod_resource_name(name: str, path: str) -> list[FieldError]:
    """validatePodResourceName: only cpu, memory and hugepages-* at pod level."""
    errs = validate_resource_name(name, path)
    if errs:
        return errs
    if not is_supported_pod_level_resource(name):
        return [not_supported(path, Unquoted(name), supported_pod_level_resources())]
    return []


def validate_resource_quantity_value(name: str, q: Quantity, path: str) -> list[FieldError]:
    """ValidateResourceQuantityValue: not negative; integer resources whole."""
    errs = []
    if q.sign() < 0:  # ValidateNonnegativeQuantity passes value.String(): printed quoted
        errs.append(invalid(path, q.canonical(), MSG_NEGATIVE))
    if is_integer_resource_name(name) and go_scaled_value(q, milli=True) % 1000 != 0:
        # ... while this passes the Quantity itself, a Stringer: printed bare.
        errs.append(invalid(path, Unquoted(q.canonical()), MSG_NOT_INTEGER))
    return errs


def hugepage_value_error(name: str, q: Quantity) -> str | None:
    """validateResourceQuantityHugePageValue / IsHugePageResourceValueDivisible."""
    if not is_hugepages(name):
        return None
    try:
        page = Quantity.parse(name[len(HUGEPAGES_PREFIX) :])
    except QuantityError:
        page = None
    divisible = (
        page is not None
        and page.sign() > 0
        and go_scaled_value(page, milli=True) % 1000 == 0
        and go_scaled_value(page) != 0
        # Zero-ness of a remainder is the same with Go's truncated %.
        and go_scaled_value(q) % go_scaled_value(page) == 0
    )
    if divisible:
        return None
    return MSG_HUGEPAGE_MULTIPLE.format(value=q.canonical(), name=name)


# --- parsing with the user's raw values ----------------------------------------------------


def _parse(value: Any) -> tuple[Quantity | None, str | None]:
    try:
        return Quantity.from_json(value), None
    except QuantityError as exc:
        return None, str(exc)
    except (TypeError, ValueError) as exc:  # a value of the wrong JSON type
        return None, str(exc)


class _ParsedList:
    """A ResourceList with each value parsed; parse errors only for what the user wrote."""

    def __init__(self, values: ResourceList | None, original: ResourceList | None) -> None:
        self.values = dict(values or {})
        self.parsed: dict[str, Quantity] = {}
        self.errors: dict[str, tuple[Any, str]] = {}
        written = original or {}
        for name, raw in self.values.items():
            q, err = _parse(raw)
            if q is not None:
                self.parsed[name] = q
            elif name in written:
                # Report what the user wrote, not a copy defaulting made of it.
                self.errors[name] = (written[name], err or "invalid quantity")

    def parse_error(self, name: str, path: str) -> list[FieldError]:
        if name not in self.errors:
            return []
        raw, message = self.errors[name]
        return [invalid(path, raw, message)]


NameFn = Callable[[str, str], list[FieldError]]


def validate_resource_requirements(
    requirements: ResourceRequirements | None,
    path: str,
    *,
    name_fn: NameFn = validate_container_resource_name,
    original: ResourceRequirements | None = None,
    allow_indivisible_hugepages: bool = False,
) -> list[FieldError]:
    """validateResourceRequirements (ValidateContainerResourceRequirements by default).

    ``original`` is the same requirements before defaulting, to tell values the user wrote
    (whose parse errors we report) from copies defaulting made of them.
    """
    errs: list[FieldError] = []
    req = requirements or ResourceRequirements()
    orig = original or ResourceRequirements()
    limits = _ParsedList(req.limits, orig.limits)
    requests = _ParsedList(req.requests, orig.requests)
    lim_path, req_path = child(path, "limits"), child(path, "requests")
    lim_compute = req_compute = lim_hugepages = req_hugepages = False

    for name in limits.values:
        fld = key(lim_path, name)
        start = len(errs)
        errs += name_fn(name, fld)
        errs += limits.parse_error(name, fld)
        q = limits.parsed.get(name)
        if q is not None:
            errs += validate_resource_quantity_value(name, q, fld)
        if is_hugepages(name):
            lim_hugepages = True
            msg = hugepage_value_error(name, q) if q is not None else None
            if q is not None and msg and not allow_indivisible_hugepages:
                errs.append(invalid(fld, q.canonical(), msg))
        if name in QOS_COMPUTE_RESOURCES:
            lim_compute = True
        errs[start:] = about(name, errs[start:])

    for name in requests.values:
        fld = key(req_path, name)
        start = len(errs)
        errs += name_fn(name, fld)
        errs += requests.parse_error(name, fld)
        q = requests.parsed.get(name)
        if q is not None:
            errs += validate_resource_quantity_value(name, q, fld)
        if name in limits.values:
            limit = limits.parsed.get(name)
            if q is not None and limit is not None:
                # Extended resources and hugepages cannot overcommit: request == limit.
                # The error is on the whole requests map, quoting the request (String()).
                if q != limit and not is_overcommit_allowed(name):
                    detail = MSG_EQUAL_LIMIT.format(name=name, limit=limit.canonical())
                    errs.append(invalid(req_path, q.canonical(), detail))
                elif q > limit:
                    detail = MSG_LE_LIMIT.format(name=name, limit=limit.canonical())
                    errs.append(invalid(req_path, q.canonical(), detail))
        elif not is_overcommit_allowed(name):
            errs.append(required(lim_path, MSG_LIMIT_REQUIRED))
        if is_hugepages(name):
            req_hugepages = True
            msg = hugepage_value_error(name, q) if q is not None else None
            if q is not None and msg and not allow_indivisible_hugepages:
                errs.append(invalid(fld, q.canonical(), msg))
        if name in QOS_COMPUTE_RESOURCES:
            req_compute = True
        errs[start:] = about(name, errs[start:])

    if not lim_compute and not req_compute and (req_hugepages or lim_hugepages):
        errs.append(forbidden(path, MSG_HUGEPAGES_NEED_CPU_OR_MEMORY))
    return errs
