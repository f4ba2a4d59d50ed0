"""The API server's field errors and warnings, and the field paths they name.

Mirrors k8s.io/apimachinery/pkg/util/validation/field (``field.Error``, ``ErrorBody``, the
``field.Invalid`` / ``Required`` / ... constructors and ``field.Path``'s Child / Index / Key),
so every message prints exactly as kubectl shows it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

# field.ErrorType -> ErrorType.String()
ERROR_TYPE_TEXT = {
    "FieldValueNotFound": "Not found",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "InternalError": "Internal error",
    "FieldValueTypeInvalid": "Invalid value",
}
# ErrorBody prints no value for these.
_VALUELESS_TYPES = (
    "FieldValueRequired",
    "FieldValueForbidden",
    "FieldValueTooLong",
    "InternalError",
)


# --- results -------------------------------------------------------------------------------


class Unquoted(str):
    """A bad value Go prints bare: its type has a String() method (fmt.Stringer).

    ``core.ResourceName`` and ``resource.Quantity`` do, so
    ``field.Invalid(path, resourceName, ...)`` prints ``Invalid value: gpu: ...`` while
    ``field.Invalid(path, q.String(), ...)`` prints ``Invalid value: "2": ...``.
    It still compares equal to the plain string.
    """

    __slots__ = ()


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (strconv.Quote), for the characters that occur in manifests."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\a":
            out.append("\\a")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\v":
            out.append("\\v")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _go_value(value: Any) -> str:
    """How field.Error.ErrorBody prints a bad value."""
    if value is None:
        return go_quote("null")  # a nil BadValue becomes the string "null", then %q
    if isinstance(value, Unquoted):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def _go_float(value: float) -> str:
    """``%v`` of a float64 (strconv 'g' with the shortest representation)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        return f"{mantissa}e{sign}{digits}"
    return text


@dataclass(frozen=True)
class FieldError:
    """One ``field.Error`` as the API server reports it."""

    field: str  # "spec.containers[0].resources.limits[cpu]"
    type: str  # field.ErrorType, e.g. "FieldValueInvalid"
    message: str  # the detail, e.g. "must be less than or equal to cpu limit of 1"
    value: Any = None  # the bad value; an Unquoted value prints bare, as Go prints a Stringer
    # The resource the error is about, when its path does not end in it (a requests map
    # compared with its limits, "Limit must be set ..."): for showing it beside that resource.
    resource: str | None = field(default=None, compare=False)

    def body(self) -> str:
        """field.Error.ErrorBody(): the text after ``<field>: ``."""
        text = ERROR_TYPE_TEXT.get(self.type, self.type)
        if self.type not in _VALUELESS_TYPES:
            text = f"{text}: {_go_value(self.value)}"
        if self.message:
            text = f"{text}: {self.message}"
        return text

    def __str__(self) -> str:
        """field.Error.Error(), e.g. 'spec.containers[0].resources.requests: Invalid value:
        "2": must be less than or equal to cpu limit of 1'."""
        return f"{self.field}: {self.body()}"

    def as_dict(self) -> dict[str, str]:
        """The JSON entry: ``message`` is the detail, ``text`` the API server's whole
        sentence after the field (its Status cause's message: ``Invalid value: "2Gi":
        must be ...``), what kubectl prints after ``<field>: ``."""
        return {
            "field": self.field,
            "type": self.type,
            "message": self.message,
            "text": self.body(),
        }


@dataclass(frozen=True)
class FieldWarning:
    """One API server warning (``Warning: <field>: <message>`` in kubectl's output)."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


# field.Error constructors (field/errors.go), named as in Go.


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(path, "FieldValueInvalid", detail, value)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(path, "FieldValueRequired", detail, "")


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(path, "FieldValueForbidden", detail, "")


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(path, "FieldValueDuplicate", "", value)


def not_found(path: str, value: Any) -> FieldError:
    return FieldError(path, "FieldValueNotFound", "", value)


def not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    quoted = [go_quote(v) for v in valid]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError(path, "FieldValueNotSupported", detail, value)


# field.Path: Child / Index / Key.


def child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    return f"{path}[{k}]"


def go_map(labels: Any) -> Unquoted:
    """``%#v`` of a map[string]string (keys sorted, as fmt prints maps)."""
    if labels is None:
        return Unquoted("map[string]string(nil)")
    pairs = sorted((str(k), str(v)) for k, v in labels.items())
    items = ", ".join(f"{go_quote(k)}:{go_quote(v)}" for k, v in pairs)
    return Unquoted("map[string]string{" + items + "}")


def about(resource: str, errors: list[FieldError]) -> list[FieldError]:
    """``errors`` marked as being about ``resource`` (those not marked already)."""
    return [e if e.resource is not None else replace(e, resource=resource) for e in errors]
