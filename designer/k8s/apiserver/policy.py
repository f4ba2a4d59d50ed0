"""LimitRange and ResourceQuota objects as the API server stores and validates them.

A namespace's policy only applies once the API server has accepted it, so each object is
decoded, defaulted and validated here first, with Go's field paths and messages:

* decoding: a wrongly typed field or a value that is not a quantity is reported at its path
  (the API server refuses the whole object while decoding; we report every problem);
* ``SetDefaults_LimitRangeItem`` (pkg/apis/core/v1/defaults.go), Container items only:
  ``default`` <- ``max``, then ``defaultRequest`` <- ``default``, then ``defaultRequest`` <-
  ``min``; then ``SetDefaults_ResourceList`` rounds every value up to milli precision;
* ``ValidateLimitRange`` and ``ValidateResourceQuota`` (pkg/apis/core/validation/
  validation.go), messages verbatim.

Where Go ranges over a map (the resources of a list) the order of errors is random; we use
sorted resource names. A bad value that is a ``resource.Quantity`` is printed as its
canonical string, bare, as the rest of the engine prints a Quantity (see core.field.Unquoted;
Go would fall back to ``%#v`` for a Quantity passed by value). A ``[]ResourceQuotaScope`` or
a ``*ScopeSelector`` is printed as Go's ``%#v`` prints it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.k8s.apiserver.defaults import round_up_to_milli
from designer.k8s.apiserver.pod import validate_labels
from designer.k8s.apiserver.resources import (
    validate_container_resource_name,
    validate_resource_name,
    validate_resource_quantity_value,
)
from designer.k8s.apiserver.status import invalid_message
from designer.k8s.core import (
    FieldError,
    Quantity,
    QuantityError,
    Unquoted,
    child,
    duplicate,
    forbidden,
    go_quote,
    index,
    invalid,
    is_overcommit_allowed,
    is_qualified_name,
    key,
    milli,
    name_is_dns_label,
    name_is_dns_subdomain,
    required,
    whole,
)

LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"
STANDARD_LIMIT_TYPES = (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_PVC)
LIMIT_LISTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")

# helper.standardQuotaResources (+ IsQuotaHugePageResourceName).
STANDARD_QUOTA_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
# helper.standardResourceQuotaScopes + CrossNamespacePodAffinity.
STANDARD_QUOTA_SCOPES = (
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
)
# IsResourceQuotaScopeValidForResource.
POD_COUNT_RESOURCES = frozenset({"pods"})
POD_COMPUTE_RESOURCES = frozenset(
    {"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
EXISTS_ONLY_SCOPES = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

MSG_LIMIT_TYPE = "must be a standard limit type or fully qualified"
MSG_POD_DEFAULT = "may not be specified when `type` is 'Pod'"
MSG_PVC_STORAGE = "either minimum or maximum storage value is required, but neither was provided"
MSG_MIN_GT_MAX = "min value {min} is greater than max value {max}"
MSG_MIN_GT_DEFAULT_REQUEST = "min value {min} is greater than default request value {dr}"
MSG_DEFAULT_REQUEST_GT_MAX = "default request value {dr} is greater than max value {max}"
MSG_DEFAULT_REQUEST_GT_DEFAULT = (
    "default request value {dr} is greater than default limit value {d}"
)
MSG_MIN_GT_DEFAULT = "min value {min} is greater than default value {d}"
MSG_DEFAULT_GT_MAX = "default value {d} is greater than max value {max}"
MSG_RATIO_LT_1 = "ratio {ratio} is less than 1"
MSG_RATIO_GT_MAX_MIN = "ratio {ratio} is greater than max/min = {limit}"
MSG_NOT_OVERCOMMIT = "default value {d} must equal to defaultRequest value {dr} in {name}"
MSG_NOT_QUOTA_RESOURCE = "must be a standard resource for quota"
MSG_UNSUPPORTED_SCOPE = "unsupported scope"
MSG_SCOPE_RESOURCE = "unsupported scope applied to resource"
MSG_CONFLICTING_SCOPES = "conflicting scopes"
MSG_EXISTS_ONLY = (
    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)
MSG_VALUES_REQUIRED = (
    "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
)
MSG_VALUES_FORBIDDEN = (
    "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
)
MSG_BAD_OPERATOR = "not a valid selector operator"
MSG_NAME_REQUIRED = "name or generateName is required"
MAX_MILLI_VALUE = (2**63 - 1) // 1000  # resource.MaxMilliValue

ResourceMap = dict[str, Quantity]


@dataclass(frozen=True)
class LimitRangeItem:
    type: str
    max: ResourceMap = field(default_factory=dict)
    min: ResourceMap = field(default_factory=dict)
    default: ResourceMap = field(default_factory=dict)
    default_request: ResourceMap = field(default_factory=dict)
    max_limit_request_ratio: ResourceMap = field(default_factory=dict)


@dataclass(frozen=True)
class LimitRange:
    """A LimitRange as stored: defaulted (see the module docstring)."""

    name: str
    namespace: str
    items: tuple[LimitRangeItem, ...]

    @property
    def ref(self) -> str:
        return f"LimitRange/{self.name}"


@dataclass(frozen=True)
class ScopeRequirement:
    """A ScopedResourceSelectorRequirement (``spec.scopes`` entries become ``Exists``)."""

    scope_name: str
    operator: str
    values: tuple[str, ...] = ()

    def go(self) -> str:
        """``%v`` of the Go struct, as quota messages print it: ``{PriorityClass In [a b]}``."""
        return "{" + f"{self.scope_name} {self.operator} [{' '.join(self.values)}]" + "}"


@dataclass(frozen=True)
class ResourceQuota:
    name: str
    namespace: str
    hard: ResourceMap
    scopes: tuple[str, ...] = ()
    scope_selector: tuple[ScopeRequirement, ...] | None = None
    # status.hard / status.used; None when the object has no status (written by hand, not
    # yet synced by the quota controller).
    status_hard: ResourceMap | None = None
    status_used: ResourceMap | None = None

    @property
    def ref(self) -> str:
        return f"ResourceQuota/{self.name}"

    def selectors(self) -> list[ScopeRequirement]:
        """GetScopeSelectorsFromQuota: scopes as Exists, AND-ed with the selector's."""
        out = [ScopeRequirement(s, "Exists") for s in self.scopes]
        return out + list(self.scope_selector or ())


@dataclass(frozen=True)
class PolicyObject:
    """One LimitRange or ResourceQuota of the input, decoded and validated."""

    kind: str
    name: str
    namespace: str
    errors: list[FieldError]
    limit_range: LimitRange | None = None
    quota: ResourceQuota | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def message(self) -> str | None:
        """How the API server refuses it (``LimitRange "x" is invalid: ...``), or None."""
        return invalid_message(self.kind, self.name, self.errors) if self.errors else None


# --- decoding --------------------------------------------------------------------------------


_TYPE_NAMES = {dict: "object", list: "array", str: "string"}


def _json_type(value: Any) -> Unquoted:
    """The JSON type found, as the decoding errors of the Pod name it (apiserver.decode)."""
    if isinstance(value, bool):
        return Unquoted("bool")
    if isinstance(value, int | float):
        return Unquoted("number")
    for t, name in ((str, "string"), (dict, "object"), (list, "array")):
        if isinstance(value, t):
            return Unquoted(name)
    return Unquoted("null")


def _type_error(path: str, expected: type, value: Any) -> FieldError:
    message = f"must be of type {_TYPE_NAMES[expected]}"
    return FieldError(path, "FieldValueTypeInvalid", message, _json_type(value))


class _Decoder:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def typed(self, value: Any, expected: type, path: str) -> Any:
        """``value`` if it has the JSON type (None counts as absent), else None + an error."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, expected):
            self.errors.append(_type_error(path, expected, value))
            return None
        return value

    def resources(self, value: Any, path: str) -> ResourceMap:
        """A ResourceList, each value parsed and rounded up to millis (SetDefaults_ResourceList)."""
        raw = self.typed(value, dict, path)
        out: ResourceMap = {}
        for name, v in (raw or {}).items():
            try:
                q = Quantity.from_json(round_up_to_milli(v))
            except (QuantityError, TypeError, ValueError) as exc:
                self.errors.append(invalid(key(path, str(name)), v, str(exc)))
                continue
            out[str(name)] = q
        return out

    def strings(self, value: Any, path: str) -> list[str]:
        items = self.typed(value, list, path) or []
        out = []
        for i, item in enumerate(items):
            text = self.typed(item, str, index(path, i))
            if text is not None:
                out.append(text)
        return out


def _meta(obj: dict[str, Any], dec: _Decoder) -> tuple[dict[str, Any], str, str | None]:
    meta = dec.typed(obj.get("metadata"), dict, "metadata") or {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    return meta, name, namespace


def validate_object_meta(meta: dict[str, Any], name: str, namespace: str) -> list[FieldError]:
    """ValidateObjectMeta(requiresNamespace=true, NameIsDNSSubdomain), as for a Pod."""
    errs: list[FieldError] = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        for msg in name_is_dns_subdomain(generate_name, prefix=True):
            errs.append(invalid("metadata.generateName", generate_name, msg))
    if not name:
        if not (isinstance(generate_name, str) and generate_name):
            errs.append(required("metadata.name", MSG_NAME_REQUIRED))
    else:
        errs += [invalid("metadata.name", name, m) for m in name_is_dns_subdomain(name)]
    if not namespace:
        errs.append(required("metadata.namespace"))
    else:
        errs += [invalid("metadata.namespace", namespace, m) for m in name_is_dns_label(namespace)]
    labels = meta.get("labels")
    if isinstance(labels, dict):
        errs += validate_labels(labels, "metadata.labels")
    return errs


# --- LimitRange --------------------------------------------------------------------------------


def decode_limit_range(obj: dict[str, Any], *, namespace: str) -> PolicyObject:
    """A LimitRange object as the API server stores it, with everything it refuses.

    ``namespace`` is where it is created (the object's own, or the one kubectl sends).
    """
    dec = _Decoder()
    meta, name, own_ns = _meta(obj, dec)
    ns = own_ns or namespace
    spec = dec.typed(obj.get("spec"), dict, "spec") or {}
    items: list[LimitRangeItem] = []
    raw_items = dec.typed(spec.get("limits"), list, "spec.limits") or []
    for i, raw in enumerate(raw_items):
        path = index("spec.limits", i)
        item = dec.typed(raw, dict, path)
        if item is None:
            continue
        limit_type = dec.typed(item.get("type"), str, child(path, "type")) or ""
        lists = {n: dec.resources(item.get(n), child(path, n)) for n in LIMIT_LISTS}
        items.append(_defaulted_item(limit_type, lists))
    decoded = LimitRange(name, ns, tuple(items))
    errors = dec.errors or validate_object_meta(meta, name, ns) + validate_limit_range(decoded)
    return PolicyObject("LimitRange", name, ns, errors, limit_range=decoded)


def _defaulted_item(limit_type: str, lists: dict[str, ResourceMap]) -> LimitRangeItem:
    """SetDefaults_LimitRangeItem: for Container items default <- max, then
    defaultRequest <- default, then defaultRequest <- min (the order matters)."""
    default, default_request = dict(lists["default"]), dict(lists["defaultRequest"])
    if limit_type == LIMIT_TYPE_CONTAINER:
        for name, q in lists["max"].items():
            default.setdefault(name, q)
        for name, q in default.items():
            default_request.setdefault(name, q)
        for name, q in lists["min"].items():
            default_request.setdefault(name, q)
    return LimitRangeItem(
        limit_type,
        max=lists["max"],
        min=lists["min"],
        default=default,
        default_request=default_request,
        max_limit_request_ratio=lists["maxLimitRequestRatio"],
    )


def _limit_type_errors(value: str, path: str) -> list[FieldError]:
    """validateLimitRangeTypeName (a LimitType prints quoted: it has no String())."""
    errs = [invalid(path, value, msg) for msg in is_qualified_name(value)]
    if errs:
        return errs
    if "/" not in value and value not in STANDARD_LIMIT_TYPES:
        return [invalid(path, value, MSG_LIMIT_TYPE)]
    return []


def _limit_name_errors(limit_type: str, name: str, path: str) -> list[FieldError]:
    """validateLimitRangeResourceName."""
    if limit_type in (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER):
        return validate_container_resource_name(name, path)
    return validate_resource_name(name, path)


def _bare(q: Quantity) -> Unquoted:
    return Unquoted(q.canonical())


def validate_limit_range(lr: LimitRange) -> list[FieldError]:
    """ValidateLimitRange's spec part, in Go's order (resource names sorted)."""
    errs: list[FieldError] = []
    seen_types: set[str] = set()
    for i, item in enumerate(lr.items):
        path = index("spec.limits", i)
        t = item.type
        errs += _limit_type_errors(t, child(path, "type"))
        if t in seen_types:
            errs.append(duplicate(child(path, "type"), t))
        seen_types.add(t)
        keys: set[str] = set()
        for list_name, values in (("max", item.max), ("min", item.min)):
            for name in sorted(values):
                errs += _limit_name_errors(t, name, key(child(path, list_name), name))
                keys.add(name)
        defaults, default_requests = item.default, item.default_request
        if t == LIMIT_TYPE_POD:
            if item.default:
                errs.append(forbidden(child(path, "default"), MSG_POD_DEFAULT))
            if item.default_request:
                errs.append(forbidden(child(path, "defaultRequest"), MSG_POD_DEFAULT))
            defaults, default_requests = {}, {}
        else:
            for list_name, values in (("default", defaults), ("defaultRequest", default_requests)):
                for name in sorted(values):
                    errs += _limit_name_errors(t, name, key(child(path, list_name), name))
                    keys.add(name)
        if t == LIMIT_TYPE_PVC and "storage" not in item.min and "storage" not in item.max:
            errs.append(required(child(path, "limits"), MSG_PVC_STORAGE))
        for name in sorted(item.max_limit_request_ratio):
            errs += _limit_name_errors(t, name, key(child(path, "maxLimitRequestRatio"), name))
            keys.add(name)
        for name in sorted(keys):
            errs += _limit_key_errors(item, name, defaults, default_requests, path)
    return errs


def _limit_key_errors(
    item: LimitRangeItem,
    name: str,
    defaults: ResourceMap,
    default_requests: ResourceMap,
    path: str,
) -> list[FieldError]:
    errs: list[FieldError] = []
    mn, mx = item.min.get(name), item.max.get(name)
    d, dr = defaults.get(name), default_requests.get(name)
    ratio = item.max_limit_request_ratio.get(name)
    c = {k: v.canonical() for k, v in (("min", mn), ("max", mx), ("d", d), ("dr", dr)) if v}
    if mn is not None and mx is not None and mn > mx:
        detail = MSG_MIN_GT_MAX.format(**c)
        errs.append(invalid(key(child(path, "min"), name), _bare(mn), detail))
    if dr is not None and mn is not None and mn > dr:
        detail = MSG_MIN_GT_DEFAULT_REQUEST.format(**c)
        errs.append(invalid(key(child(path, "defaultRequest"), name), _bare(dr), detail))
    if dr is not None and mx is not None and dr > mx:
        detail = MSG_DEFAULT_REQUEST_GT_MAX.format(**c)
        errs.append(invalid(key(child(path, "defaultRequest"), name), _bare(dr), detail))
    if dr is not None and d is not None and dr > d:
        detail = MSG_DEFAULT_REQUEST_GT_DEFAULT.format(**c)
        errs.append(invalid(key(child(path, "defaultRequest"), name), _bare(dr), detail))
    if d is not None and mn is not None and mn > d:
        detail = MSG_MIN_GT_DEFAULT.format(**c)
        errs.append(invalid(key(child(path, "default"), name), _bare(mn), detail))
    if d is not None and mx is not None and d > mx:
        detail = MSG_DEFAULT_GT_MAX.format(**c)
        errs.append(invalid(key(child(path, "default"), name), _bare(mx), detail))
    ratio_path = key(child(path, "maxLimitRequestRatio"), name)
    if ratio is not None and ratio < Quantity.parse("1"):
        errs.append(
            invalid(ratio_path, _bare(ratio), MSG_RATIO_LT_1.format(ratio=ratio.canonical()))
        )
    if ratio is not None and mn is not None and mx is not None:
        ratio_value: float = float(whole(ratio))
        mn_value, mx_value = whole(mn), whole(mx)
        if (
            whole(ratio) < MAX_MILLI_VALUE
            and mn_value < MAX_MILLI_VALUE
            and mx_value < MAX_MILLI_VALUE
        ):
            ratio_value = milli(ratio) / 1000
            mn_value, mx_value = milli(mn), milli(mx)
        limit = _go_divide(mx_value, mn_value)
        if ratio_value > limit:
            detail = MSG_RATIO_GT_MAX_MIN.format(ratio=ratio.canonical(), limit=go_float_f(limit))
            errs.append(invalid(ratio_path, _bare(ratio), detail))
    if not is_overcommit_allowed(name) and d is not None and dr is not None and d != dr:
        detail = MSG_NOT_OVERCOMMIT.format(**c, name=name)
        errs.append(invalid(key(child(path, "defaultRequest"), name), _bare(dr), detail))
    return errs


def _go_divide(a: int, b: int) -> float:
    """float64(a) / float64(b) with Go's IEEE semantics (x/0 is ±Inf or NaN)."""
    fa, fb = float(a), float(b)
    if fb == 0:
        if fa == 0:
            return float("nan")
        return float("inf") if fa > 0 else float("-inf")
    return fa / fb


def go_float_f(x: float) -> str:
    """Go's ``%f`` of a float64 (6 decimals; +Inf, -Inf, NaN spelled Go's way)."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "+Inf" if x > 0 else "-Inf"
    return f"{x:f}"


# --- ResourceQuota -----------------------------------------------------------------------------


def decode_resource_quota(obj: dict[str, Any], *, namespace: str) -> PolicyObject:
    """A ResourceQuota object as the API server stores it, with everything it refuses."""
    dec = _Decoder()
    meta, name, own_ns = _meta(obj, dec)
    ns = own_ns or namespace
    spec = dec.typed(obj.get("spec"), dict, "spec") or {}
    hard = dec.resources(spec.get("hard"), "spec.hard")
    scopes = tuple(dec.strings(spec.get("scopes"), "spec.scopes"))
    selector: tuple[ScopeRequirement, ...] | None = None
    raw_selector = dec.typed(spec.get("scopeSelector"), dict, "spec.scopeSelector")
    if raw_selector is not None:
        reqs = []
        exprs_path = "spec.scopeSelector.matchExpressions"
        for i, raw in enumerate(
            dec.typed(raw_selector.get("matchExpressions"), list, exprs_path) or []
        ):
            path = index(exprs_path, i)
            expr = dec.typed(raw, dict, path)
            if expr is None:
                continue
            reqs.append(
                ScopeRequirement(
                    dec.typed(expr.get("scopeName"), str, child(path, "scopeName")) or "",
                    dec.typed(expr.get("operator"), str, child(path, "operator")) or "",
                    tuple(dec.strings(expr.get("values"), child(path, "values"))),
                )
            )
        selector = tuple(reqs)
    status = dec.typed(obj.get("status"), dict, "status")
    status_hard = status_used = None
    if status is not None:
        if status.get("hard") is not None:
            status_hard = dec.resources(status.get("hard"), "status.hard")
        if status.get("used") is not None:
            status_used = dec.resources(status.get("used"), "status.used")
    decoded = ResourceQuota(name, ns, hard, scopes, selector, status_hard, status_used)
    errors = dec.errors or validate_object_meta(meta, name, ns) + validate_resource_quota(decoded)
    return PolicyObject("ResourceQuota", name, ns, errors, quota=decoded)


def is_standard_quota_resource_name(name: str) -> bool:
    return name in STANDARD_QUOTA_RESOURCES or name.startswith(
        ("hugepages-", "requests.hugepages-")
    )


def validate_quota_resource_name(name: str, path: str) -> list[FieldError]:
    """ValidateResourceQuotaResourceName (both errors can be reported for one name)."""
    errs = validate_resource_name(name, path)
    if "/" not in name and not is_standard_quota_resource_name(name):
        errs.append(invalid(path, Unquoted(name), MSG_NOT_QUOTA_RESOURCE))
    return errs


def _scope_valid_for_resource(scope: str, resource: str) -> bool:
    """IsResourceQuotaScopeValidForResource."""
    if scope in (
        "Terminating",
        "NotTerminating",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
    ):
        return resource in POD_COUNT_RESOURCES or resource in POD_COMPUTE_RESOURCES
    if scope == "BestEffort":
        return resource in POD_COUNT_RESOURCES
    return True


def go_scopes(scopes: tuple[str, ...] | None) -> Unquoted:
    """``%#v`` of a []core.ResourceQuotaScope."""
    if not scopes:
        return Unquoted(
            "[]core.ResourceQuotaScope(nil)" if scopes is None else "[]core.ResourceQuotaScope{}"
        )
    return Unquoted("[]core.ResourceQuotaScope{" + ", ".join(go_quote(s) for s in scopes) + "}")


def _go_strings(values: tuple[str, ...]) -> str:
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def go_scope_selector(reqs: tuple[ScopeRequirement, ...]) -> Unquoted:
    """``%#v`` of the (dereferenced) *core.ScopeSelector."""
    if not reqs:
        return Unquoted(
            "core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement(nil)}"
        )
    items = ", ".join(
        "core.ScopedResourceSelectorRequirement{"
        f"ScopeName:{go_quote(r.scope_name)}, Operator:{go_quote(r.operator)}, "
        f"Values:{_go_strings(r.values)}" + "}"
        for r in reqs
    )
    return Unquoted(
        "core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{"
        + items
        + "}}"
    )


def validate_resource_quota(rq: ResourceQuota) -> list[FieldError]:
    """ValidateResourceQuotaSpec + ValidateResourceQuotaStatus."""
    errs: list[FieldError] = []
    for name in sorted(rq.hard):
        path = key("spec.hard", name)
        errs += validate_quota_resource_name(name, path)
        errs += validate_resource_quantity_value(name, rq.hard[name], path)
    hard_names = sorted(rq.hard)
    if rq.scopes:
        path = "spec.scopes"
        value = go_scopes(rq.scopes)
        for scope in rq.scopes:
            if scope not in STANDARD_QUOTA_SCOPES:
                errs.append(invalid(path, value, MSG_UNSUPPORTED_SCOPE))
            for name in hard_names:
                if is_standard_quota_resource_name(name) and not _scope_valid_for_resource(
                    scope, name
                ):
                    errs.append(invalid(path, value, MSG_SCOPE_RESOURCE))
        if _conflicting(set(rq.scopes)):
            errs.append(invalid(path, value, MSG_CONFLICTING_SCOPES))
    if rq.scope_selector is not None:
        errs += _validate_scope_selector(rq, hard_names)
    for list_name, values in (("status.hard", rq.status_hard), ("status.used", rq.status_used)):
        for name in sorted(values or {}):
            path = key(list_name, name)
            errs += validate_quota_resource_name(name, path)
            errs += validate_resource_quantity_value(name, (values or {})[name], path)
    return errs


def _conflicting(scopes: set[str]) -> list[bool]:
    pairs = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
    return [True for a, b in pairs if a in scopes and b in scopes]


def _validate_scope_selector(rq: ResourceQuota, hard_names: list[str]) -> list[FieldError]:
    """validateScopedResourceSelectorRequirement."""
    errs: list[FieldError] = []
    reqs = rq.scope_selector or ()
    path = "spec.scopeSelector.matchExpressions"
    seen: set[str] = set()
    for req in reqs:
        if req.scope_name not in STANDARD_QUOTA_SCOPES:
            errs.append(invalid(child(path, "scopeName"), req.scope_name, MSG_UNSUPPORTED_SCOPE))
        for name in hard_names:
            if is_standard_quota_resource_name(name) and not _scope_valid_for_resource(
                req.scope_name, name
            ):
                errs.append(invalid(path, go_scope_selector(reqs), MSG_SCOPE_RESOURCE))
        if (
            req.scope_name in (*EXISTS_ONLY_SCOPES, "CrossNamespacePodAffinity")
            and req.operator != "Exists"
        ):
            errs.append(invalid(child(path, "operator"), req.operator, MSG_EXISTS_ONLY))
        if req.operator in ("In", "NotIn"):
            if not req.values:
                errs.append(required(child(path, "values"), MSG_VALUES_REQUIRED))
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                errs.append(
                    invalid(
                        child(path, "values"),
                        Unquoted(_go_strings(req.values)),
                        MSG_VALUES_FORBIDDEN,
                    )
                )
        else:
            errs.append(invalid(child(path, "operator"), req.operator, MSG_BAD_OPERATOR))
        seen.add(req.scope_name)
    for _ in _conflicting(seen):
        errs.append(invalid(path, go_scopes(rq.scopes or None), MSG_CONFLICTING_SCOPES))
    return errs
