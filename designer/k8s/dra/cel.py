"""The DRA CEL environment: compile a device selector as the API server does and evaluate it
against a ResourceSlice device as the scheduler's allocator does.

Mirrors staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (1.34/1.35) on top of
cel-expr-python (Google's cel-cpp with its type checker, so a selector that does not compile
is refused with a cel-go-shaped message, as the API server refuses it):

* the ``device`` variable: ``device.driver`` (string), ``device.attributes`` (domain -> id ->
  int | bool | string | semver), ``device.capacity`` (domain -> id -> Quantity) and
  ``device.allowMultipleAllocations`` (bool; DRAConsumableCapacity). cel-cpp resolves
  ``device.attributes`` to the longest declared qualified name, so declaring the four dotted
  names types each field as Kubernetes' DRADevice object does;
* unqualified attribute and capacity names go to the driver's domain (``parseQualifiedName``):
  NVIDIA's ``productName`` is ``device.attributes["gpu.nvidia.com"].productName``;
* an unknown domain is an empty map, not an error (``newStringInterfaceMapWithDefault``): every
  domain the expression names as a literal is present, empty when the device has none;
* the Kubernetes CEL libraries DRA selectors use: ``quantity()``, ``isQuantity()`` and
  Quantity's ``compareTo / isGreaterThan / isLessThan / add / sub / sign / isInteger /
  asInteger / asApproximateFloat``; the regex ``find`` / ``findAll`` (Python's re, which agrees
  with RE2 on the usual patterns); ``semver()``, ``isSemver()`` and Semver's ``compareTo /
  isGreaterThan / isLessThan / major / minor / patch``; cel-go's string extensions and
  ``cel.bind``;
* compile errors read ``compilation failed: ERROR: <input>:L:C: ...`` with the caret lines, and
  a selector that is not a bool is refused with ``must evaluate to bool or the unknown type,
  not <type>``; longer than 10 KiB is ``Too long`` before compiling.

cel-cpp has no opaque value types for Python, so a Quantity is the map
``{"kubernetes.Quantity": "<exact value as a fraction>"}`` and a Semver ``{0: "<x.y.z[-pre]>"}``
(``==`` between two is then semantic: the strings are normalised); the messages print
Kubernetes' type names for them.

Not emulated (a selector that needs them is still compiled and evaluated, these differ):
cel-go's cost estimate (``too complex, exceeds cost limit``: there is no cost estimator in
cel-cpp), the ip/cidr/url/format libraries, list-valued attributes and
``includes()`` (DRAListTypeAttributes, 1.36+). A domain computed at run time (not a
literal) that the device lacks is a "no such key" error here where Kubernetes gives an empty
map.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_strings

from designer.k8s.core import ERR_FORMAT_WRONG, Quantity, QuantityError
from designer.k8s.dra.model import CEL_MAX_LENGTH, Device

T = cel.Type
QUANTITY_T = T.Map(T.STRING, T.STRING)
SEMVER_T = T.Map(T.INT, T.STRING)
_ANY_MAP = T.Map(T.DYN, T.DYN)  # the receiver/argument type that accepts both encodings
QKEY = "kubernetes.Quantity"

MSG_TOO_LONG = f"may not be more than {CEL_MAX_LENGTH} bytes"  # field.TooLong (1.32 on)
MSG_NOT_BOOL = "must evaluate to bool or the unknown type, not {type}"


class SelectorCompileError(ValueError):
    """What ``field.Invalid(path, expression, detail)`` carries for a selector."""

    def __init__(self, detail: str, error_type: str = "FieldValueInvalid") -> None:
        super().__init__(detail)
        self.detail = detail
        self.error_type = error_type


class SelectorRuntimeError(ValueError):
    """A CEL runtime error while matching a device (the allocator then fails the claim)."""


# --- Kubernetes quantity and semver ----------------------------------------------------------


def _quantity(text: str) -> dict[str, str]:
    try:
        return {QKEY: str(Quantity.parse(text).as_fraction())}
    except QuantityError as exc:
        raise ValueError(str(exc) or ERR_FORMAT_WRONG) from None


def _qv(q: Any) -> Fraction:
    if not isinstance(q, dict) or QKEY not in q:
        raise TypeError("no such overload")
    return Fraction(q[QKEY])


def _qmap(value: Fraction) -> dict[str, str]:
    return {QKEY: str(value)}


# blang/semver's strict Parse (the K8s semver library without normalisation).
_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$",
    re.ASCII,  # Go's \d is ASCII only
)


def _normalize_semver(text: str) -> str:
    """semver(text, true): a leading v dropped, missing minor/patch added, leading zeros gone."""
    text = text[1:] if text[:1] in "vV" else text
    match = re.search(r"[-+]", text)
    core, rest = (text[: match.start()], text[match.start() :]) if match else (text, "")
    parts = core.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(str(int(p)) if p.isdigit() else p for p in parts) + rest


def parse_semver(text: str, normalize: bool = False) -> dict[int, str]:
    if normalize:
        text = _normalize_semver(text)
    m = _SEMVER_RE.fullmatch(text)
    if not m:
        raise ValueError(f"could not parse {text!r} as semver")
    core = f"{int(m.group(1))}.{int(m.group(2))}.{int(m.group(3))}"
    return {0: core + (f"-{m.group(4)}" if m.group(4) else "")}  # build metadata never compares


def _sv(v: Any) -> tuple[Any, ...]:
    if not isinstance(v, dict) or 0 not in v:
        raise TypeError("no such overload")
    core, _, pre = str(v[0]).partition("-")
    major, minor, patch = (int(x) for x in core.split("."))
    # A pre-release sorts before its release; numeric identifiers compare as numbers.
    pre_key = (
        (1,)
        if not pre
        else (0, *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))
    )
    return (major, minor, patch, pre_key)


def _compare(a: Any, b: Any) -> int:
    if isinstance(a, dict) and QKEY in a:
        x: Any = _qv(a)
        y: Any = _qv(b)
    else:
        x, y = _sv(a), _sv(b)
    return (x > y) - (x < y)


def _as_integer(q: Any) -> int:
    v = _qv(q)
    if v.denominator != 1 or not -(2**63) <= v < 2**63:
        raise ValueError("cannot convert value to integer")
    return int(v)


def _ok(fn: Any, *args: Any) -> bool:
    try:
        fn(*args)
    except (ValueError, TypeError):
        return False
    return True


def _find(text: str, pattern: str) -> str:
    """The Kubernetes regex library's ``<string>.find(<regex>)``: the first match, or ""."""
    found = re.search(pattern, text)
    return found.group(0) if found else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    matches = [m.group(0) for m in re.finditer(pattern, text)]
    return matches if limit < 0 else matches[:limit]


def _decl(name: str, overloads: list[tuple[str, Any, list[Any], bool, Any]]) -> Any:
    return cel.FunctionDecl(
        name,
        [
            cel.Overload(oid, return_type=ret, parameters=params, is_member=member, impl=impl)
            for oid, ret, params, member, impl in overloads
        ],
    )


def _functions() -> list[Any]:
    return [
        _decl("quantity", [("quantity_string", QUANTITY_T, [T.STRING], False, _quantity)]),
        _decl(
            "isQuantity",
            [("isQuantity_string", T.BOOL, [T.STRING], False, lambda s: _ok(_quantity, s))],
        ),
        _decl(
            "semver",
            [
                ("semver_string", SEMVER_T, [T.STRING], False, parse_semver),
                ("semver_string_bool", SEMVER_T, [T.STRING, T.BOOL], False, parse_semver),
            ],
        ),
        _decl(
            "isSemver",
            [
                ("isSemver_string", T.BOOL, [T.STRING], False, lambda s: _ok(parse_semver, s)),
                (
                    "isSemver_string_bool",
                    T.BOOL,
                    [T.STRING, T.BOOL],
                    False,
                    lambda s, n: _ok(parse_semver, s, n),
                ),
            ],
        ),
        _decl("compareTo", [("compareTo_any", T.INT, [_ANY_MAP, _ANY_MAP], True, _compare)]),
        _decl(
            "isGreaterThan",
            [
                (
                    "isGreaterThan_any",
                    T.BOOL,
                    [_ANY_MAP, _ANY_MAP],
                    True,
                    lambda a, b: _compare(a, b) > 0,
                )
            ],
        ),
        _decl(
            "isLessThan",
            [
                (
                    "isLessThan_any",
                    T.BOOL,
                    [_ANY_MAP, _ANY_MAP],
                    True,
                    lambda a, b: _compare(a, b) < 0,
                )
            ],
        ),
        _decl(
            "sign",
            [("quantity_sign", T.INT, [_ANY_MAP], True, lambda q: (_qv(q) > 0) - (_qv(q) < 0))],
        ),
        _decl(
            "isInteger",
            [("quantity_isInteger", T.BOOL, [_ANY_MAP], True, lambda q: _ok(_as_integer, q))],
        ),
        _decl("asInteger", [("quantity_asInteger", T.INT, [_ANY_MAP], True, _as_integer)]),
        _decl(
            "asApproximateFloat",
            [("quantity_asFloat", T.DOUBLE, [_ANY_MAP], True, lambda q: float(_qv(q)))],
        ),
        _decl(
            "add",
            [
                (
                    "quantity_add",
                    QUANTITY_T,
                    [_ANY_MAP, _ANY_MAP],
                    True,
                    lambda a, b: _qmap(_qv(a) + _qv(b)),
                ),
                (
                    "quantity_add_int",
                    QUANTITY_T,
                    [_ANY_MAP, T.INT],
                    True,
                    lambda a, b: _qmap(_qv(a) + b),
                ),
            ],
        ),
        _decl(
            "sub",
            [
                (
                    "quantity_sub",
                    QUANTITY_T,
                    [_ANY_MAP, _ANY_MAP],
                    True,
                    lambda a, b: _qmap(_qv(a) - _qv(b)),
                ),
                (
                    "quantity_sub_int",
                    QUANTITY_T,
                    [_ANY_MAP, T.INT],
                    True,
                    lambda a, b: _qmap(_qv(a) - b),
                ),
            ],
        ),
        _decl("find", [("string_find", T.STRING, [T.STRING, T.STRING], True, _find)]),
        _decl(
            "findAll",
            [
                ("string_findAll", T.List(T.STRING), [T.STRING, T.STRING], True, _find_all),
                (
                    "string_findAll_int",
                    T.List(T.STRING),
                    [T.STRING, T.STRING, T.INT],
                    True,
                    _find_all,
                ),
            ],
        ),
        _decl("major", [("semver_major", T.INT, [_ANY_MAP], True, lambda v: _sv(v)[0])]),
        _decl("minor", [("semver_minor", T.INT, [_ANY_MAP], True, lambda v: _sv(v)[1])]),
        _decl("patch", [("semver_patch", T.INT, [_ANY_MAP], True, lambda v: _sv(v)[2])]),
    ]


DEVICE_VARIABLES = {
    "device.driver": T.STRING,
    "device.allowMultipleAllocations": T.BOOL,
    "device.attributes": T.Map(T.STRING, T.Map(T.STRING, T.DYN)),
    "device.capacity": T.Map(T.STRING, T.Map(T.STRING, QUANTITY_T)),
}


@functools.cache
def _env() -> Any:
    return cel.NewEnv(
        variables=DEVICE_VARIABLES,
        functions=_functions(),
        extensions=[ext_strings.ExtStrings(), ext_bindings.ExtBindings()],
    )


# --- compiling -------------------------------------------------------------------------------


def _issues_text(message: str) -> str:
    """cel-cpp's status text as cel-go's ``issues.String()``."""
    message = re.sub(r"^[A-Z_]+: ", "", message)
    message = re.sub(r" \[[A-Z_]+\]$", "", message)
    blocks = re.split(r"\n(?=ERROR: )", message)
    # cel-go reports nothing more about a sub-expression that already failed.
    blocks = [b for b in blocks if "expression of type '*error*'" not in b]
    text = "\n".join(blocks)
    # Kubernetes declares ``device`` as an object type: cel-go says "undefined field".
    text = re.sub(
        r"undeclared reference to 'device\.(\w+)' \(in container ''\)",
        r"undefined field '\1'",
        text,
    )
    # Kubernetes' names for the types (compile.go declares them so).
    text = text.replace("map(string, map(string, dyn))", "map(string, map(string, any))")
    text = text.replace("map(int, string)", "kubernetes.Semver")
    return text.replace("map(string, string)", "kubernetes.Quantity")


_DOMAIN_LITERAL = re.compile(r"device\.(attributes|capacity)\s*\[\s*(['\"])(.*?)\2\s*\]")


@dataclass(frozen=True)
class CompiledSelector:
    expression: str
    program: Any
    attribute_domains: frozenset[str]
    capacity_domains: frozenset[str]

    def matches(self, driver: str, device: Device) -> bool:
        """Whether the selector is true for ``device`` of a slice of ``driver``; raises
        SelectorRuntimeError as the allocator fails on a CEL runtime error."""
        result = self.program.eval(data=device_variables(driver, device, self))
        if result.type() == T.ERROR:
            raise SelectorRuntimeError(_runtime_text(str(result.value())))
        return bool(result.value())


def _runtime_text(text: str) -> str:
    text = re.sub(r"^[A-Z_]+: ", "", text)
    found = re.fullmatch(r'Key not found in map : "(.*)"', text)
    return f"no such key: {found.group(1)}" if found else text  # cel-go's wording


@functools.lru_cache(maxsize=4096)
def compile_selector(expression: str) -> CompiledSelector:
    """A selector compiled as the API server compiles it; raises SelectorCompileError with
    the detail (and error type) the API server reports at ``...cel.expression``."""
    if len(expression.encode()) > CEL_MAX_LENGTH:
        # "Don't bother compiling too long expressions."
        raise SelectorCompileError(MSG_TOO_LONG, "FieldValueTooLong")
    try:
        program = _env().compile(expression)
    except RuntimeError as exc:
        raise SelectorCompileError("compilation failed: " + _issues_text(str(exc))) from None
    result = program.return_type()
    if result not in (T.BOOL, T.DYN):
        name = _issues_text(result.name().lower())
        raise SelectorCompileError(MSG_NOT_BOOL.format(type=name))
    domains: dict[str, set[str]] = {"attributes": set(), "capacity": set()}
    for field_name, _, domain in _DOMAIN_LITERAL.findall(expression):
        domains[field_name].add(domain)
    return CompiledSelector(
        expression, program, frozenset(domains["attributes"]), frozenset(domains["capacity"])
    )


# --- a device as the CEL variable ------------------------------------------------------------


def qualified(name: str, driver: str) -> tuple[str, str]:
    """parseQualifiedName: ``domain/id``, or the driver's domain for an unqualified name."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def attribute_value(attribute: Any) -> Any:
    """A DeviceAttribute's value as CEL sees it (None when it holds none)."""
    if attribute.int_ is not None:
        return attribute.int_
    if attribute.bool_ is not None:
        return attribute.bool_
    if attribute.string is not None:
        return attribute.string
    if attribute.version is not None:
        return parse_semver(attribute.version)
    return None


def device_variables(
    driver: str, device: Device, selector: CompiledSelector | None = None
) -> dict[str, Any]:
    attributes: dict[str, dict[str, Any]] = {
        d: {} for d in (selector.attribute_domains if selector else ())
    }
    for name, attribute in (device.attributes or {}).items():
        try:
            value = attribute_value(attribute)
        except ValueError:
            continue  # a version that is not semver: validation reports it on the slice
        if value is not None:
            domain, ident = qualified(name, driver)
            attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict[str, Any]] = {
        d: {} for d in (selector.capacity_domains if selector else ())
    }
    for name, cap in (device.capacity or {}).items():
        try:
            value = {QKEY: str(Quantity.from_json(cap.value).as_fraction())}
        except (QuantityError, ValueError, TypeError):
            continue
        domain, ident = qualified(name, driver)
        capacity.setdefault(domain, {})[ident] = value
    return {
        "device.driver": driver,
        "device.allowMultipleAllocations": bool(device.allow_multiple_allocations),
        "device.attributes": attributes,
        "device.capacity": capacity,
    }
