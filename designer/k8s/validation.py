"""The API server's validation of a Pod's resource-related fields, with its paths and wording.

Mirrors, for what this product edits, kubernetes/kubernetes (1.34+, current master):

* pkg/apis/core/validation/validation.go: ``ValidatePodCreate`` / ``ValidatePodTemplateSpec``
  -> ``ValidateObjectMeta`` (name, generateName, namespace, labels) -> ``ValidatePodSpec``:
  ``validateContainers``, ``validateInitContainers``, ``validateEphemeralContainers``
  (names, image, restartPolicy, sidecar-only fields), ``validateContainerCommon`` ->
  ``ValidateContainerResourceRequirements`` -> ``validateResourceRequirements``
  (``validateContainerResourceName``, ``ValidateResourceQuantityValue``, request/limit
  relations, hugepages), ``validatePodResources`` (pod-level ``spec.resources``, KEP-2837,
  beta and on by default since 1.34) with ``validatePodResourceConsistency``,
  ``validateRestartPolicy``, ``validateDNSPolicy``, ``validateOverhead``;
* pkg/apis/core/helper/helpers.go: the resource-name predicates;
* staging/src/k8s.io/apimachinery: ``IsDNS1123Label`` / ``IsDNS1123Subdomain`` /
  ``IsQualifiedName`` (label keys) / ``IsValidLabelValue`` and ``field.Error.Error()``;
* pkg/api/pod/warnings.go: the resource warnings (fractional bytes) and a cheap other one.

As the API server does, the *defaulted* pod is validated (a limit without a request has
already become the request). Errors come in the order the Go code appends them; where Go
ranges over a map (a ResourceList, labels) the order is random, and we use manifest order.

One deliberate difference: the API server refuses a value that is not a quantity while
decoding the whole object ("quantities must match the regular expression ..."). We report
it as a ``FieldValueInvalid`` at the value's own path (as written by the user) and go on,
so every other problem is reported too. Quantities quoted in messages are printed as Go's
``Quantity.String()`` prints them (canonical: ``0.5`` -> ``500m``), as kubectl shows them.

Choices where the Go source leaves room:

* ``validatePodResourceConsistency`` (as read) compares *every* aggregated container request
  with the pod-level request, which would refuse any GPU or ephemeral-storage request in a
  pod with ``spec.resources``; we compare only the resources that exist at pod level (cpu,
  memory, hugepages-*). A supported resource missing at pod level counts as 0, as in Go.
* Pod-level hugepages are supported (current master, KEP-2837); see POD_LEVEL_RESOURCES.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from designer.k8s.model import Container, Pod, PodSpec, ResourceList, ResourceRequirements
from designer.k8s.quantity import Quantity, QuantityError

# --- tables a newcomer extends -------------------------------------------------------------

# helper.standardContainerResources (plus every ``hugepages-<size>``).
STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")

# helper.standardResources: what an unqualified name may be anywhere (plus hugepages).
STANDARD_RESOURCES = (
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
)

# helper.integerResources; extended resources (vendor.com/thing) are integers too.
INTEGER_RESOURCES = (
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
)

# component-helpers/resource: supportedPodLevelResources; hugepages-* via the prefix.
# SupportedPodLevelResources() lists the prefix itself, so the Unsupported message says
# "hugepages-" (sets.List sorts the names).
POD_LEVEL_RESOURCES = ("cpu", "memory")
HUGEPAGES_PREFIX = "hugepages-"
QUOTA_HUGEPAGES_PREFIX = "requests.hugepages-"
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_REQUESTS_PREFIX = "requests."
QOS_COMPUTE_RESOURCES = ("cpu", "memory")

# validateRestartPolicy / validateInitContainerRestartPolicy: the order Go lists them in.
SUPPORTED_POD_RESTART_POLICIES = ("Always", "OnFailure", "Never")
SUPPORTED_INIT_CONTAINER_RESTART_POLICIES = ("Always",)
# validatePullPolicy (sets.List: sorted), validateContainerCommon, validateDNSPolicy.
SUPPORTED_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
SUPPORTED_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
SUPPORTED_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")

# Fields a plain init container may not set (only a restartPolicy: Always sidecar may).
SIDECAR_ONLY_FIELDS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
# validateFieldAllowList over EphemeralContainerCommon, in struct order: the disallowed ones.
EPHEMERAL_FORBIDDEN_FIELDS = (
    "ports",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
)

# warnings.go: the resources whose value is a byte count.
BYTE_RESOURCES = ("memory", "ephemeral-storage")

# The messages, verbatim from the Go source.
MSG_NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
MSG_NOT_INTEGER = "must be an integer"
MSG_NOT_STANDARD = "must be a standard resource type or fully qualified"
MSG_NOT_STANDARD_CONTAINER = "must be a standard resource for containers"
MSG_NOT_EXTENDED = "doesn't follow extended resource name standard"
MSG_LIMIT_REQUIRED = "Limit must be set for non overcommitable resources"
MSG_HUGEPAGES_NEED_CPU_OR_MEMORY = "HugePages require cpu or memory"
MSG_NAME_REQUIRED = "name or generateName is required"
MSG_EQUAL_LIMIT = "must be equal to {name} limit of {limit}"
MSG_LE_LIMIT = "must be less than or equal to {name} limit of {limit}"
MSG_HUGEPAGE_MULTIPLE = "{value} is not positive integer multiple of {name}"
MSG_GE_AGGREGATE = "must be greater than or equal to aggregate container requests of {value}"
MSG_LE_POD_LIMIT = "must be less than or equal to pod limits of {value}"
MSG_NOT_FOR_NON_INIT = "may not be set for non-init containers"
MSG_NOT_FOR_PLAIN_INIT = "may not be set for init containers without restartPolicy=Always"
MSG_EPHEMERAL_FIELD = "cannot be set for an Ephemeral Container"
MSG_EPHEMERAL_ON_CREATE = "cannot be set on create"
MSG_EPHEMERAL_IN_TEMPLATE = "ephemeral containers not allowed in pod template"
MSG_POD_LEVEL_CLAIMS = "claims cannot be set for Resources at pod-level"
MSG_IMAGE_WHITESPACE = "must not have leading or trailing whitespace"
MSG_FRACTIONAL_BYTE = "fractional byte value {value} is invalid, must be an integer"
MSG_NEGATIVE_GRACE = "must be >= 0; negative values are invalid and will be treated as 1"

# apimachinery pkg/util/validation (and api/validate/content) formats and messages.
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX = 253
LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_KEY_MAX = 63
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX = 63

_DNS1123_LABEL_RE = re.compile("^" + DNS1123_LABEL_FMT + "$")
_DNS1123_SUBDOMAIN_RE = re.compile("^" + DNS1123_SUBDOMAIN_FMT + "$")
_LABEL_KEY_RE = re.compile("^" + LABEL_KEY_FMT + "$")
_LABEL_VALUE_RE = re.compile("^" + LABEL_VALUE_FMT + "$")

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
        return {"field": self.field, "type": self.type, "message": self.message}


@dataclass(frozen=True)
class FieldWarning:
    """One API server warning (``Warning: <field>: <message>`` in kubectl's output)."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


@dataclass(frozen=True)
class ValidationResult:
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[FieldWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


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


# --- apimachinery string formats -----------------------------------------------------------


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError (note the double space Go leaves before each " or ")."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def is_dns1123_label(value: str) -> list[str]:
    """validation.IsDNS1123Label."""
    errs = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL_RE.match(value):
        if _DNS1123_SUBDOMAIN_RE.match(value):
            # A valid subdomain but not a label: with the length checked, it must be dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """validation.IsDNS1123Subdomain."""
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """validation.IsQualifiedName (= content.IsLabelKey): ``[prefix/]name``."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        example = regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        return [
            "a valid label key "
            + example
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > LABEL_KEY_MAX:
        errs.append("name part " + max_len_error(LABEL_KEY_MAX))
    if not _LABEL_KEY_RE.match(name):
        errs.append(
            "name part " + regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """validation.IsValidLabelValue."""
    errs = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    """maskTrailingDash (generic.go): a generateName may end in '-'. Go drops two chars."""
    if name.endswith("-"):
        return name[: max(len(name) - 2, 0)] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNSSubdomain = ValidatePodName (and priority class names)."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNSLabel = ValidateNamespaceName."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


# --- resource names (pkg/apis/core/helper/helpers.go) ---------------------------------------


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_quota_hugepage_resource_name(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX) or name.startswith(QUOTA_HUGEPAGES_PREFIX)


def is_standard_resource_name(name: str) -> bool:
    return name in STANDARD_RESOURCES or is_quota_hugepage_resource_name(name)


def is_standard_container_resource_name(name: str) -> bool:
    return name in STANDARD_CONTAINER_RESOURCES or is_hugepage_resource_name(name)


def is_native_resource(name: str) -> bool:
    """Unprefixed, or in the ``*kubernetes.io/`` namespace."""
    return "/" not in name or DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """Not native, not ``requests.``-prefixed, and a qualified name once so prefixed."""
    if is_native_resource(name) or name.startswith(DEFAULT_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_REQUESTS_PREFIX + name)


def is_overcommit_allowed(name: str) -> bool:
    """Native and not hugepages: extended resources and hugepages need requests == limits."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


def is_integer_resource_name(name: str) -> bool:
    return name in INTEGER_RESOURCES or is_extended_resource_name(name)


def is_supported_pod_level_resource(name: str) -> bool:
    return name in POD_LEVEL_RESOURCES or name.startswith(HUGEPAGES_PREFIX)


def supported_pod_level_resources() -> list[str]:
    """sets.List(SupportedPodLevelResources()): sorted, the hugepages prefix included."""
    return sorted([*POD_LEVEL_RESOURCES, HUGEPAGES_PREFIX])


# --- resource name and quantity validation (validation.go) ---------------------------------


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


def _wrap_int64(n: int) -> int:
    """big.Int.Int64() of a value that does not fit: the low 64 bits, sign applied."""
    low = abs(n) & ((1 << 64) - 1)
    v = low - (1 << 64) if low >= (1 << 63) else low
    v = -v if n < 0 else v
    return v - (1 << 64) if v >= (1 << 63) else v


def go_scaled_value(q: Quantity, milli: bool = False) -> int:
    """Value() / MilliValue(), including Go's silent int64 overflow for absurd sizes.

    Where Go overflows (``memory: 1e22``), the quantity module raises; the API server
    just computes with the wrapped number, so we do the same and never fail.
    """
    try:
        return q.milli_value() if milli else q.value()
    except OverflowError:
        exact = q.as_fraction() * (1000 if milli else 1)
        n = math.trunc(exact)
        return _wrap_int64(n + (1 if exact != n else 0))


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
    if not is_hugepage_resource_name(name):
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
        errs += name_fn(name, fld)
        errs += limits.parse_error(name, fld)
        q = limits.parsed.get(name)
        if q is not None:
            errs += validate_resource_quantity_value(name, q, fld)
        if is_hugepage_resource_name(name):
            lim_hugepages = True
            msg = hugepage_value_error(name, q) if q is not None else None
            if q is not None and msg and not allow_indivisible_hugepages:
                errs.append(invalid(fld, q.canonical(), msg))
        if name in QOS_COMPUTE_RESOURCES:
            lim_compute = True

    for name in requests.values:
        fld = key(req_path, name)
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
        if is_hugepage_resource_name(name):
            req_hugepages = True
            msg = hugepage_value_error(name, q) if q is not None else None
            if q is not None and msg and not allow_indivisible_hugepages:
                errs.append(invalid(fld, q.canonical(), msg))
        if name in QOS_COMPUTE_RESOURCES:
            req_compute = True

    if not lim_compute and not req_compute and (req_hugepages or lim_hugepages):
        errs.append(forbidden(path, MSG_HUGEPAGES_NEED_CPU_OR_MEMORY))
    return errs


# --- metadata ------------------------------------------------------------------------------


def validate_labels(labels: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """unversionedvalidation.ValidateLabels: every key a qualified name, values label values."""
    errs: list[FieldError] = []
    for k, v in (labels or {}).items():
        errs += [invalid(path, k, msg) for msg in is_qualified_name(k)]
        text = v if isinstance(v, str) else str(v)
        errs += [invalid(path, text, msg) for msg in is_valid_label_value(text)]
    return errs


def validate_object_meta(pod: Pod, path: str) -> list[FieldError]:
    """ValidateObjectMeta(meta, requiresNamespace=true, ValidatePodName): the parts we model.

    A missing namespace is not an error here: ``kubectl apply`` sends the context's one.
    """
    meta = pod.metadata
    errs: list[FieldError] = []
    extra = meta.model_extra or {}
    generate_name = extra.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        for msg in name_is_dns_subdomain(generate_name, prefix=True):
            errs.append(invalid(child(path, "generateName"), generate_name, msg))
    if not meta.name:
        # With a generateName the server generates the name before validating it.
        if not (isinstance(generate_name, str) and generate_name):
            errs.append(required(child(path, "name"), MSG_NAME_REQUIRED))
    else:
        errs += [
            invalid(child(path, "name"), meta.name, m) for m in name_is_dns_subdomain(meta.name)
        ]
    if meta.namespace:
        ns_path = child(path, "namespace")
        errs += [invalid(ns_path, meta.namespace, m) for m in name_is_dns_label(meta.namespace)]
    errs += validate_labels(meta.labels, child(path, "labels"))
    return errs


# --- containers ----------------------------------------------------------------------------


def _extra(model: Any) -> dict[str, Any]:
    return getattr(model, "model_extra", None) or {}


def _set(model: Any, name: str) -> bool:
    """The manifest sets the (untyped) field to something other than null/empty."""
    value = _extra(model).get(name)
    return value is not None and value != {} and value != []


def validate_container_common(
    c: Container, path: str, original: Container | None
) -> list[FieldError]:
    """validateContainerCommon: name, image, policies, resources (the parts we model)."""
    errs: list[FieldError] = []
    name = c.name or ""
    name_path = child(path, "name")
    if not name:
        errs.append(required(name_path))
    else:
        errs += [invalid(name_path, name, msg) for msg in is_dns1123_label(name)]
    if not c.image:
        errs.append(required(child(path, "image")))
    # Defaulting fills an empty terminationMessagePolicy / imagePullPolicy.
    tmp = _extra(c).get("terminationMessagePolicy")
    if tmp and tmp not in SUPPORTED_TERMINATION_MESSAGE_POLICIES:
        tmp_path = child(path, "terminationMessagePolicy")
        errs.append(not_supported(tmp_path, tmp, SUPPORTED_TERMINATION_MESSAGE_POLICIES))
    pull = _extra(c).get("imagePullPolicy")
    if pull and pull not in SUPPORTED_PULL_POLICIES:
        errs.append(not_supported(child(path, "imagePullPolicy"), pull, SUPPORTED_PULL_POLICIES))
    errs += validate_resource_requirements(
        c.resources,
        child(path, "resources"),
        original=original.resources if original is not None else None,
    )
    return errs


def validate_containers(
    spec: PodSpec, original: PodSpec, path: str
) -> tuple[list[FieldError], list[str]]:
    """validateContainers; also returns every name seen (for the init/ephemeral checks)."""
    if not spec.containers:
        return [required(path)], []
    errs: list[FieldError] = []
    names: list[str] = []
    for i, c in enumerate(spec.containers):
        p = index(path, i)
        errs += validate_container_common(c, p, _nth(original.containers, i))
        name = c.name or ""
        # Unique among app containers; collisions with init/ephemeral names are reported
        # on those (so no error is reported twice).
        if name in names:
            errs.append(duplicate(child(p, "name"), name))
        else:
            names.append(name)
        if c.restart_policy is not None:
            errs.append(forbidden(child(p, "restartPolicy"), MSG_NOT_FOR_NON_INIT))
    return errs, names


def validate_init_containers(
    spec: PodSpec, original: PodSpec, path: str, app_names: list[str]
) -> list[FieldError]:
    """validateInitContainers: sidecars (restartPolicy: Always) and plain init containers."""
    errs: list[FieldError] = []
    names = list(app_names)
    for i, c in enumerate(spec.init_list):
        p = index(path, i)
        errs += validate_container_common(c, p, _nth(original.init_list, i))
        sidecar = False
        if c.restart_policy is not None:
            if c.restart_policy not in SUPPORTED_INIT_CONTAINER_RESTART_POLICIES:
                errs.append(
                    not_supported(
                        child(p, "restartPolicy"),
                        c.restart_policy,
                        SUPPORTED_INIT_CONTAINER_RESTART_POLICIES,
                    )
                )
            sidecar = c.restart_policy == "Always"
        name = c.name or ""
        if name in names:
            errs.append(duplicate(child(p, "name"), name))
        elif name:
            names.append(name)
        if not sidecar:
            # Probes and lifecycle hooks only make sense for a container that keeps running.
            for fld in SIDECAR_ONLY_FIELDS:
                if _extra(c).get(fld) is not None:
                    errs.append(forbidden(child(p, fld), MSG_NOT_FOR_PLAIN_INIT))
    return errs


def validate_ephemeral_containers(spec: PodSpec, path: str) -> list[FieldError]:
    """validateEphemeralContainers: names unique across *all* containers, few fields allowed."""
    raw = _extra(spec).get("ephemeralContainers")
    if not isinstance(raw, list) or not raw:
        return []
    errs: list[FieldError] = []
    others = {c.name or "" for c in [*spec.containers, *spec.init_list]}
    all_names = set(others)
    for i, item in enumerate(raw):
        p = index(path, i)
        if not isinstance(item, dict):
            errs.append(FieldError(p, "FieldValueTypeInvalid", "expected an object", item))
            continue
        try:
            c = Container.model_validate(item)
        except ValidationError:  # a badly typed field: report the container only
            errs.append(FieldError(p, "FieldValueTypeInvalid", "expected a container", ""))
            continue
        errs += validate_container_common(c, p, c)
        errs += _container_only_for_pod(c, p)
        name = c.name or ""
        if name in all_names:
            errs.append(duplicate(child(p, "name"), name))
        else:
            all_names.add(name)
        target = item.get("targetContainerName")
        if isinstance(target, str) and target and target not in others:
            errs.append(not_found(child(p, "targetContainerName"), target))
        for fld in EPHEMERAL_FORBIDDEN_FIELDS:
            value = item.get(fld)
            if value is not None and value != {} and value != []:
                errs.append(forbidden(child(p, fld), MSG_EPHEMERAL_FIELD))
    return errs


def _container_only_for_pod(c: Container, path: str) -> list[FieldError]:
    """validateContainerOnlyForPod: only for pods, not templates (backwards compatibility)."""
    image = c.image or ""
    if len(image) != len(image.strip()):
        return [invalid(child(path, "image"), image, MSG_IMAGE_WHITESPACE)]
    return []


def _nth(items: list[Container], i: int) -> Container | None:
    return items[i] if i < len(items) else None


# --- pod-level resources -------------------------------------------------------------------


def validate_pod_resources(pod: Pod, original: Pod, path: str) -> list[FieldError]:
    """validatePodResources: names/values (pod-level rules) then consistency with containers."""
    res = pod.spec.resources
    if res is None:
        return []
    errs: list[FieldError] = []
    if _extra(res).get("claims") is not None:
        errs.append(forbidden(child(path, "claims"), MSG_POD_LEVEL_CLAIMS))
    errs += validate_resource_requirements(
        res, path, name_fn=validate_pod_resource_name, original=original.spec.resources
    )
    errs += validate_pod_resource_consistency(pod, path)
    return errs


def validate_pod_resource_consistency(pod: Pod, path: str) -> list[FieldError]:
    """validatePodResourceConsistency.

    Pod-level requests >= the containers' aggregated (sidecar-aware) requests; each app
    container's limit <= the pod-level limit. The container path is Go's, oddly shaped:
    ``spec.resources.containers[0][cpu].limits``.
    """
    from designer.k8s.scheduling import aggregate_container_resources

    res = pod.spec.resources or ResourceRequirements()
    errs: list[FieldError] = []
    pod_requests = _ParsedList(res.requests, {}).parsed
    req_path = child(path, "requests")
    zero = Quantity.parse("0")
    for name, aggregated in aggregate_container_resources(pod, "requests").items():
        # Only resources that exist at pod level are compared (see the module docstring).
        if not is_supported_pod_level_resource(name):
            continue
        if name in (res.requests or {}) and name not in pod_requests:
            continue  # unreadable: already reported
        pod_value = pod_requests.get(name, zero)
        if aggregated > pod_value:
            detail = MSG_GE_AGGREGATE.format(value=aggregated.canonical())
            errs.append(invalid(key(req_path, name), pod_value.canonical(), detail))
    pod_limits = _ParsedList(res.limits, {}).parsed
    for i, c in enumerate(pod.spec.containers):
        for name, q in _ParsedList(c.limits, {}).parsed.items():
            if name not in pod_limits:
                continue
            if q > pod_limits[name]:
                fld = child(key(index(child(path, "containers"), i), name), "limits")
                detail = MSG_LE_POD_LIMIT.format(value=pod_limits[name].canonical())
                errs.append(invalid(fld, q.canonical(), detail))
    return errs


# --- the pod spec --------------------------------------------------------------------------


def validate_pod_spec(pod: Pod, original: Pod, path: str) -> list[FieldError]:
    """ValidatePodSpec, in its order, for the fields we model."""
    spec, orig = pod.spec, original.spec
    errs, app_names = validate_containers(spec, orig, child(path, "containers"))
    errs += validate_init_containers(spec, orig, child(path, "initContainers"), app_names)
    errs += validate_ephemeral_containers(spec, child(path, "ephemeralContainers"))
    errs += validate_pod_resources(pod, original, child(path, "resources"))

    # Defaulting turns an empty restartPolicy / dnsPolicy into Always / ClusterFirst.
    restart = spec.restart_policy or "Always"
    if restart not in SUPPORTED_POD_RESTART_POLICIES:
        errs.append(
            not_supported(child(path, "restartPolicy"), restart, SUPPORTED_POD_RESTART_POLICIES)
        )
    dns = _extra(spec).get("dnsPolicy")
    if dns and dns not in SUPPORTED_DNS_POLICIES:
        errs.append(not_supported(child(path, "dnsPolicy"), dns, SUPPORTED_DNS_POLICIES))
    errs += validate_labels(spec.node_selector, child(path, "nodeSelector"))
    if spec.priority_class_name:
        pc_path = child(path, "priorityClassName")
        errs += [
            invalid(pc_path, spec.priority_class_name, m)
            for m in name_is_dns_subdomain(spec.priority_class_name)
        ]
    if spec.overhead is not None:
        # validateOverhead reuses the container rules on {limits: overhead}: hence the
        # ``spec.overhead.limits[cpu]`` paths.
        errs += validate_resource_requirements(
            ResourceRequirements(limits=spec.overhead),
            child(path, "overhead"),
            original=ResourceRequirements(limits=orig.overhead),
        )
    return errs


# --- warnings (pkg/api/pod/warnings.go) ----------------------------------------------------


def _fractional_byte_warnings(resources: Mapping[str, Any] | None, path: str) -> list[FieldWarning]:
    out = []
    parsed = _ParsedList(dict(resources or {}), {}).parsed
    for name in BYTE_RESOURCES:
        q = parsed.get(name)
        if q is not None and go_scaled_value(q, milli=True) % 1000 != 0:
            message = MSG_FRACTIONAL_BYTE.format(value=go_quote(q.canonical()))
            out.append(FieldWarning(key(path, name), message))
    return out


def pod_warnings(pod: Pod, spec_path: str) -> list[FieldWarning]:
    """warningsForPodSpecAndMeta: the resource warnings, plus negative grace periods."""
    spec = pod.spec
    out = _fractional_byte_warnings(spec.overhead, child(spec_path, "overhead"))
    # VisitContainersWithPath: init containers, app containers, then ephemeral containers.
    visited = [(child(spec_path, "initContainers"), c) for c in spec.init_list]
    visited = [(index(p, i), c) for i, (p, c) in enumerate(visited)]
    visited += [
        (index(child(spec_path, "containers"), i), c) for i, c in enumerate(spec.containers)
    ]
    for p, c in visited:
        res_path = child(p, "resources")
        for name in BYTE_RESOURCES:
            for kind, values in (("limits", c.limits), ("requests", c.requests)):
                out += _fractional_byte_warnings(
                    {name: values[name]} if name in values else {}, child(res_path, kind)
                )
    grace = _extra(spec).get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        out.append(
            FieldWarning(child(spec_path, "terminationGracePeriodSeconds"), MSG_NEGATIVE_GRACE)
        )
    return out


# --- entry point ---------------------------------------------------------------------------


def validate_pod(
    pod: Pod,
    *,
    spec_path: str = "spec",
    metadata_path: str = "metadata",
    template: bool = False,
) -> ValidationResult:
    """Validate ``pod`` as ``kubectl apply`` would have the API server do it.

    ``template=True`` validates a pod template inside a workload (ValidatePodTemplateSpec):
    no name is required, labels are at ``<template>.labels`` (Go's path: when
    ``metadata_path`` is left at its default it is derived from ``spec_path``, e.g.
    ``spec.template.spec`` -> ``spec.template.labels``), and ephemeral containers are
    forbidden. Workload-specific rules (e.g. a Deployment's restartPolicy) are not checked.
    """
    from designer.k8s.defaults import pod_with_defaults  # defaults -> scheduling -> quantity

    defaulted = pod_with_defaults(pod)
    errors: list[FieldError] = []
    if template:
        base = metadata_path
        if metadata_path == "metadata" and spec_path.endswith(".spec"):
            base = spec_path[: -len(".spec")]
        errors += validate_labels(pod.metadata.labels, child(base, "labels"))
        errors += validate_pod_spec(defaulted, pod, spec_path)
        if _set(defaulted.spec, "ephemeralContainers"):
            ephemeral = child(spec_path, "ephemeralContainers")
            errors.append(forbidden(ephemeral, MSG_EPHEMERAL_IN_TEMPLATE))
    else:
        # ValidatePodCreate -> validatePodMetadataAndSpec, then the create-only checks.
        errors += validate_object_meta(defaulted, metadata_path)
        errors += validate_pod_spec(defaulted, pod, spec_path)
        for list_path, containers in (
            (child(spec_path, "containers"), defaulted.spec.containers),
            (child(spec_path, "initContainers"), defaulted.spec.init_list),
        ):
            for i, c in enumerate(containers):
                errors += _container_only_for_pod(c, index(list_path, i))
        if _set(defaulted.spec, "ephemeralContainers"):
            ephemeral = child(spec_path, "ephemeralContainers")
            errors.append(forbidden(ephemeral, MSG_EPHEMERAL_ON_CREATE))
    return ValidationResult(errors=errors, warnings=pod_warnings(defaulted, spec_path))


__all__ = [
    "FieldError",
    "FieldWarning",
    "Unquoted",
    "ValidationResult",
    "validate_pod",
    "validate_resource_requirements",
]
