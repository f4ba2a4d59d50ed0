"""The API server's validation of ResourceClaim, ResourceClaimTemplate and DeviceClass
(resource.k8s.io/v1, Kubernetes 1.34/1.35), with Go's field paths and messages.

Mirrors pkg/apis/resource/validation/validation.go: ``ValidateResourceClaim`` /
``ValidateResourceClaimTemplate`` (ObjectMeta, ``ValidateTemplateObjectMeta`` at
``spec.metadata``, the claim spec at ``spec.spec``) -> ``validateDeviceClaim``
(``validateSet`` of requests, ``validateSlice`` of constraints and config: more than the
maximum is one ``Too many`` error and nothing else about the list) -> ``validateDeviceRequest``
(exactly one of ``exactly`` / ``firstAvailable``), ``validateExactDeviceRequest`` /
``validateDeviceSubRequest`` (class name, selectors, allocation mode and count, tolerations),
``validateSelector`` (CEL compiled by the DRA environment, dra.compile_selector),
``validateDeviceConstraint``, ``validateRequestNameRef``, ``validateFullyQualifiedName``,
``validateOpaqueConfiguration`` / ``validateRawExtension``; and ``ValidateDeviceClass``
(selectors, config, ``extendedResourceName``). The update rule (the claim spec is immutable)
is ``validate_resource_claim_update``.

As the API server does, objects are defaulted before validation (``SetDefaults_*`` of
pkg/apis/resource/v1): an empty ``allocationMode`` becomes ExactCount, a ``count`` of 0 (or
none) with ExactCount becomes 1, an empty toleration operator Equal. Kubernetes' own unit
tests validate undefaulted objects; ``defaults=False`` does that.

Where we differ: the CEL cost estimate (``too complex, exceeds cost limit``) is not computed
(see dra.cel); the bad value of ``field is immutable`` prints as JSON instead of Go's ``%#v``
of the internal struct. A missing namespace is only an error with ``require_namespace``:
``kubectl apply`` fills in its context's namespace. Fields behind feature gates that are off
by default in 1.34 get a warning (an API server without the gate drops them on create).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from designer.k8s.apiserver.decode import decoding_errors
from designer.k8s.apiserver.pod import MSG_NAME_REQUIRED, too_long, validate_labels
from designer.k8s.core import (
    FieldError,
    FieldWarning,
    Unquoted,
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    is_c_identifier,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_extended_resource_name,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_supported,
    required,
)
from designer.k8s.dra import (
    ALLOCATION_ALL,
    ALLOCATION_EXACT_COUNT,
    ALLOCATION_MODES,
    CEL_MAX_LENGTH,
    DEVICE_CONFIG_MAX,
    DEVICE_CONSTRAINTS_MAX,
    DEVICE_MAX_ID_LENGTH,
    DEVICE_REQUESTS_MAX,
    DEVICE_SELECTORS_MAX,
    DRIVER_NAME_MAX_LENGTH,
    FIRST_AVAILABLE_MAX,
    MODELS,
    OPAQUE_PARAMETERS_MAX,
    ResourceClaimSpec,
    SelectorCompileError,
    compile_selector,
)

MSG_EXACTLY_ONE = "exactly one of `exactly` or `firstAvailable` is required"
MSG_EXACTLY_ONE_MULTIPLE = MSG_EXACTLY_ONE + ", but multiple fields are set"
MSG_COUNT_POSITIVE = "must be greater than zero"
MSG_COUNT_WITH_ALL = "must not be specified when allocationMode is '{mode}'"
MSG_REQUEST_REF = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)
MSG_FULLY_QUALIFIED = "a fully qualified name must be a domain and a name separated by a slash"
MSG_DOMAIN_EMPTY = "the domain must not be empty"
MSG_NAME_EMPTY = "the name must not be empty"
MSG_ONE_SLASH = "must not contain more than one slash"
MSG_MATCH_OR_DISTINCT = (
    'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields '
    "are set"
)
MSG_NOT_JSON_OBJECT = "must be a valid JSON object"
MSG_EXISTS_VALUE = "must be empty for operator `Exists`"
MSG_EXTENDED_RESOURCE = "must be a valid extended resource name"
MSG_TEMPLATE_META = "cannot be set for a template"
MSG_NOT_NAMESPACED = "not allowed on this type"
MSG_IMMUTABLE = "field is immutable"
MSG_NOT_COST_LIMIT = "too complex, exceeds cost limit"
SUPPORTED_OPERATORS = ("Equal", "Exists")
SUPPORTED_EFFECTS = ("NoExecute", "NoSchedule")  # sets.List(validDeviceTaintEffects), 1.34
TOTAL_ANNOTATION_SIZE = 256 * 1024  # TotalAnnotationSizeLimitB

# Fields of feature gates that are off by default in Kubernetes 1.34.
GATED = {
    "tolerations": "DRADeviceTaints",
    "capacity": "DRAConsumableCapacity",
    "distinctAttribute": "DRAConsumableCapacity",
    "extendedResourceName": "DRAExtendedResource",
}
MSG_GATED = (
    "needs the {gate} feature gate (alpha in Kubernetes 1.34, off by default): an API server "
    "without it drops this field"
)


def _too_many(path: str, have: int, most: int) -> FieldError:
    return FieldError(path, "FieldValueTooMany", f"must have at most {most} items", have)


def _too_long(path: str, most: int) -> FieldError:
    # The DRA API is validated as the releases that serve it by default do (1.34 on).
    return too_long(path, most)


def _items(values: Any) -> list[Any]:
    return list(values or [])


def validate_slice(
    items: list[Any], most: int, item: Callable[[Any, str], list[FieldError]], path: str
) -> list[FieldError]:
    """validateSlice: too many items is one error, nothing else is checked then."""
    if len(items) > most:
        return [_too_many(path, len(items), most)]
    errs: list[FieldError] = []
    for i, value in enumerate(items):
        errs += item(value, index(path, i))
    return errs


def validate_set(
    items: list[Any],
    most: int,
    item: Callable[[Any, str], list[FieldError]],
    key: Callable[[Any], Any],
    path: str,
) -> list[FieldError]:
    """validateSet: too many items is one error ("maxSize check short-circuits for DOS
    protection"); else each item, then a Duplicate at each repeated key's index."""
    if len(items) > most:
        return [_too_many(path, len(items), most)]
    errs = validate_slice(items, most, item, path)
    seen: set[Any] = set()
    for i, value in enumerate(items):
        k = key(value)
        if k in seen:
            errs.append(duplicate(index(path, i), k))
        else:
            seen.add(k)
    return errs


def _label(value: str, path: str) -> list[FieldError]:
    """ValidateDNS1123Label (validateRequestName)."""
    return [invalid(path, value, m) for m in is_dns1123_label(value)]


# --- metadata --------------------------------------------------------------------------------


def validate_annotations(annotations: Any, path: str) -> list[FieldError]:
    """apimachinery ValidateAnnotations: keys qualified names, total size <= 256 KiB."""
    if not isinstance(annotations, Mapping):
        return []
    errs: list[FieldError] = []
    total = 0
    for k, v in annotations.items():
        errs += [invalid(path, k, m) for m in is_qualified_name(str(k).lower())]
        total += len(str(k)) + len(str(v))
    if total > TOTAL_ANNOTATION_SIZE:
        errs.append(_too_long(path, TOTAL_ANNOTATION_SIZE))
    return errs


def validate_object_meta(
    meta: Any, *, namespaced: bool, require_namespace: bool, path: str = "metadata"
) -> list[FieldError]:
    """ValidateObjectMeta with NameIsDNSSubdomain (every resource.k8s.io object's name)."""
    meta = meta if isinstance(meta, Mapping) else {}
    errs: list[FieldError] = []
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        errs += [
            invalid(child(path, "generateName"), generate, m)
            for m in name_is_dns_subdomain(generate, prefix=True)
        ]
    name = meta.get("name")
    if not name:
        if not (isinstance(generate, str) and generate):
            errs.append(required(child(path, "name"), MSG_NAME_REQUIRED))
    else:
        errs += [invalid(child(path, "name"), name, m) for m in name_is_dns_subdomain(str(name))]
    namespace = meta.get("namespace")
    ns_path = child(path, "namespace")
    if namespaced:
        if not namespace:
            if require_namespace:
                errs.append(required(ns_path))
        else:
            errs += [invalid(ns_path, namespace, m) for m in name_is_dns_label(str(namespace))]
    elif namespace:
        errs.append(forbidden(ns_path, MSG_NOT_NAMESPACED))
    labels = meta.get("labels")
    errs += validate_labels(labels if isinstance(labels, Mapping) else None, child(path, "labels"))
    errs += validate_annotations(meta.get("annotations"), child(path, "annotations"))
    return errs


def validate_template_object_meta(meta: Any, path: str) -> list[FieldError]:
    """ValidateTemplateObjectMeta: annotations and labels; any other field is Forbidden."""
    meta = meta if isinstance(meta, Mapping) else {}
    errs = validate_annotations(meta.get("annotations"), child(path, "annotations"))
    labels = meta.get("labels")
    errs += validate_labels(labels if isinstance(labels, Mapping) else None, child(path, "labels"))
    for fld, value in meta.items():
        if fld not in ("labels", "annotations") and value not in (None, "", {}, [], 0):
            errs.append(forbidden(child(path, fld), MSG_TEMPLATE_META))
    return errs


# --- names -----------------------------------------------------------------------------------


def validate_driver_name(name: str, path: str) -> list[FieldError]:
    """validateDriverName = ValidateCSIDriverName (a DNS subdomain, any case, <= 63)."""
    errs: list[FieldError] = []
    if not name:
        errs.append(required(path))
    if len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.append(_too_long(path, DRIVER_NAME_MAX_LENGTH))
    errs += [invalid(path, name, m) for m in is_dns1123_subdomain(name.lower())]
    return errs


def _c_identifier(value: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(value) > DEVICE_MAX_ID_LENGTH:
        errs.append(_too_long(path, DEVICE_MAX_ID_LENGTH))
    errs += [invalid(path, value, m) for m in is_c_identifier(value)]
    return errs


def validate_qualified_name(name: str, path: str) -> list[FieldError]:
    """validateQualifiedName: ``id`` or ``domain/id`` (an attribute or capacity name)."""
    parts = name.split("/")
    if len(parts) == 1:
        return _c_identifier(parts[0], path)
    if len(parts) > 2:
        return [invalid(path, name, MSG_ONE_SLASH)]
    domain, ident = parts
    errs = (
        [invalid(path, "", MSG_DOMAIN_EMPTY)] if not domain else validate_driver_name(domain, path)
    )
    errs += [invalid(path, "", MSG_NAME_EMPTY)] if not ident else _c_identifier(ident, path)
    return errs


def validate_fully_qualified_name(name: str, path: str) -> list[FieldError]:
    errs = validate_qualified_name(name, path)
    if "/" not in name:
        errs.append(invalid(path, name, MSG_FULLY_QUALIFIED))
    return errs


def _request_name_ref(name: str, path: str, names: set[str]) -> list[FieldError]:
    """validateRequestNameRef: ``request`` or ``request/subrequest`` of this claim."""
    segments = name.split("/")
    if len(segments) > 2:
        return [invalid(path, name, MSG_REQUEST_REF)]
    errs: list[FieldError] = []
    for segment in segments:
        errs += _label(segment, path)
    if name not in names:
        errs.append(invalid(path, name, MSG_REQUEST_REF))
    return errs


# --- selectors, requests ---------------------------------------------------------------------


def validate_selector(selector: Any, path: str) -> list[FieldError]:
    """validateSelector -> validateCELSelector at ``<path>.cel.expression``."""
    if selector.cel is None:
        return [required(child(path, "cel"))]
    expression = selector.cel.expression or ""
    expr_path = child(path, "cel", "expression")
    try:
        compile_selector(expression)
    except SelectorCompileError as exc:
        if exc.error_type == "FieldValueTooLong":
            return [_too_long(expr_path, CEL_MAX_LENGTH)]
        return [invalid(expr_path, expression, exc.detail)]
    return []


def _selectors(selectors: Any, path: str) -> list[FieldError]:
    return validate_slice(_items(selectors), DEVICE_SELECTORS_MAX, validate_selector, path)


def _device_class_name(name: str | None, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return [invalid(path, name, m) for m in name_is_dns_subdomain(name)]


def _allocation_mode(req: Any, path: str, defaults: bool) -> list[FieldError]:
    mode = req.allocation_mode or ""
    count = req.count or 0
    if defaults and not mode:
        mode = ALLOCATION_EXACT_COUNT
    if defaults and mode == ALLOCATION_EXACT_COUNT and count == 0:
        count = 1
    if mode == ALLOCATION_ALL:
        if count != 0:
            detail = MSG_COUNT_WITH_ALL.format(mode=mode)
            return [invalid(child(path, "count"), count, detail)]
        return []
    if mode == ALLOCATION_EXACT_COUNT:
        return [invalid(child(path, "count"), count, MSG_COUNT_POSITIVE)] if count <= 0 else []
    return [not_supported(child(path, "allocationMode"), mode, ALLOCATION_MODES)]


def _toleration(t: Any, path: str, defaults: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    if t.key:
        errs += [invalid(child(path, "key"), t.key, m) for m in is_qualified_name(t.key)]
    operator = t.operator or ("Equal" if defaults else "")
    if operator == "Exists":
        if t.value:
            errs.append(invalid(child(path, "value"), t.value, MSG_EXISTS_VALUE))
    elif operator == "Equal":
        value = t.value or ""
        errs += [invalid(child(path, "value"), value, m) for m in is_valid_label_value(value)]
    elif not operator:
        errs.append(required(child(path, "operator")))
    else:
        errs.append(not_supported(child(path, "operator"), operator, SUPPORTED_OPERATORS))
    if t.effect and t.effect not in SUPPORTED_EFFECTS:
        errs.append(not_supported(child(path, "effect"), t.effect, SUPPORTED_EFFECTS))
    return errs


def _request_fields(req: Any, path: str, defaults: bool) -> list[FieldError]:
    """What validateExactDeviceRequest and validateDeviceSubRequest share."""
    errs = _device_class_name(req.device_class_name, child(path, "deviceClassName"))
    errs += _selectors(req.selectors, child(path, "selectors"))
    errs += _allocation_mode(req, path, defaults)
    for i, t in enumerate(_items(req.tolerations)):
        errs += _toleration(t, index(child(path, "tolerations"), i), defaults)
    return errs


def _device_request(request: Any, path: str, defaults: bool) -> list[FieldError]:
    errs = _label(request.name or "", child(path, "name"))
    has_first = bool(request.first_available)
    has_exactly = request.exactly is not None
    if not has_first and not has_exactly:
        errs.append(required(path, MSG_EXACTLY_ONE))
    elif has_first and has_exactly:
        errs.append(invalid(path, None, MSG_EXACTLY_ONE_MULTIPLE))
    elif has_first:

        def sub(s: Any, p: str) -> list[FieldError]:
            return _label(s.name or "", child(p, "name")) + _request_fields(s, p, defaults)

        errs += validate_set(
            _items(request.first_available),
            FIRST_AVAILABLE_MAX,
            sub,
            lambda s: s.name or "",
            child(path, "firstAvailable"),
        )
    else:
        errs += _request_fields(request.exactly, child(path, "exactly"), defaults)
    return errs


# --- constraints, config ---------------------------------------------------------------------


def request_names(spec: ResourceClaimSpec) -> set[str]:
    """gatherRequestNames: every request, and ``request/subrequest`` for alternatives."""
    names: set[str] = set()
    for r in spec.requests:
        names.add(r.name or "")
        for s in r.first_available or []:
            names.add(f"{r.name or ''}/{s.name or ''}")
    return names


def _request_refs(refs: Any, path: str, names: set[str]) -> list[FieldError]:
    return validate_set(
        _items(refs),
        DEVICE_REQUESTS_MAX,
        lambda n, p: _request_name_ref(str(n), p, names),
        lambda n: n,
        path,
    )


def _constraint(c: Any, path: str, names: set[str]) -> list[FieldError]:
    errs = _request_refs(c.requests, child(path, "requests"), names)
    if c.match_attribute is not None:
        errs += validate_fully_qualified_name(c.match_attribute, child(path, "matchAttribute"))
    elif c.distinct_attribute is not None:
        errs += validate_fully_qualified_name(
            c.distinct_attribute, child(path, "distinctAttribute")
        )
    else:
        # 1.34: DRAConsumableCapacity off by default, so Go takes the plain branch.
        errs.append(required(child(path, "matchAttribute")))
    return errs


def _go_json(value: Any) -> bytes:
    """What the client sends for a RawExtension (encoding/json: compact, <>& escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.encode()


class RawJSON(bytes):
    """Opaque parameters as raw bytes (Kubernetes' tests pass ones no manifest can hold)."""


def _go_json_error(raw: bytes) -> str | None:
    try:
        json.loads(raw)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(raw.rstrip()):
            return "unexpected end of JSON input"
        bad = raw.decode(errors="replace")[exc.pos]
        return f"invalid character {bad!r} looking for beginning of value"
    return None


def _raw_extension(opaque: Any, path: str) -> list[FieldError]:
    """validateRawExtension of ``opaque.parameters``."""
    if "parameters" not in opaque.model_fields_set:
        return [required(path)]
    value = opaque.parameters
    raw = value if isinstance(value, RawJSON) else _go_json(value)
    if not raw:
        return [required(path)]
    if len(raw) > OPAQUE_PARAMETERS_MAX:
        return [_too_long(path, OPAQUE_PARAMETERS_MAX)]
    error = _go_json_error(raw)
    if error is not None:
        return [invalid(path, "<value omitted>", f"error parsing data as JSON: {error}")]
    decoded = json.loads(raw)
    if decoded is None:
        return [required(path)]
    if not isinstance(decoded, dict):
        return [invalid(path, "<value omitted>", MSG_NOT_JSON_OBJECT)]
    return []


def _opaque(config: Any, path: str) -> list[FieldError]:
    if config.opaque is None:
        return [required(child(path, "opaque"))]
    opaque_path = child(path, "opaque")
    errs = validate_driver_name(config.opaque.driver or "", child(opaque_path, "driver"))
    errs += _raw_extension(config.opaque, child(opaque_path, "parameters"))
    return errs


def validate_claim_spec(
    spec: ResourceClaimSpec, path: str, *, defaults: bool = True
) -> list[FieldError]:
    """validateResourceClaimSpec -> validateDeviceClaim at ``<path>.devices``."""
    devices_path = child(path, "devices")
    devices = spec.devices
    names = request_names(spec)
    errs = validate_set(
        spec.requests,
        DEVICE_REQUESTS_MAX,
        lambda r, p: _device_request(r, p, defaults),
        lambda r: r.name or "",
        child(devices_path, "requests"),
    )
    errs += validate_slice(
        _items(devices.constraints if devices else None),
        DEVICE_CONSTRAINTS_MAX,
        lambda c, p: _constraint(c, p, names),
        child(devices_path, "constraints"),
    )
    errs += validate_slice(
        _items(devices.config if devices else None),
        DEVICE_CONFIG_MAX,
        lambda c, p: _request_refs(c.requests, child(p, "requests"), names) + _opaque(c, p),
        child(devices_path, "config"),
    )
    return errs


# --- the objects -----------------------------------------------------------------------------


def _decode(kind: str, obj: Mapping[str, Any]) -> tuple[Any | None, list[FieldError]]:
    from_model = MODELS[kind]
    try:
        return from_model.model_validate(obj), []
    except ValidationError as exc:
        return None, decoding_errors(exc)


def validate_resource_claim(
    obj: Mapping[str, Any], *, require_namespace: bool = False, defaults: bool = True
) -> list[FieldError]:
    """ValidateResourceClaim (on create)."""
    claim, errs = _decode("ResourceClaim", obj)
    if claim is None:
        return errs
    errs = validate_object_meta(
        obj.get("metadata"), namespaced=True, require_namespace=require_namespace
    )
    return errs + validate_claim_spec(claim.spec, "spec", defaults=defaults)


def validate_resource_claim_template(
    obj: Mapping[str, Any], *, require_namespace: bool = False, defaults: bool = True
) -> list[FieldError]:
    """ValidateResourceClaimTemplate: metadata, ``spec.metadata``, the claim at ``spec.spec``."""
    template, errs = _decode("ResourceClaimTemplate", obj)
    if template is None:
        return errs
    errs = validate_object_meta(
        obj.get("metadata"), namespaced=True, require_namespace=require_namespace
    )
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    errs += validate_template_object_meta(spec.get("metadata"), "spec.metadata")
    return errs + validate_claim_spec(template.spec.spec, "spec.spec", defaults=defaults)


def validate_device_class(obj: Mapping[str, Any], **_: Any) -> list[FieldError]:
    """ValidateDeviceClass: a cluster-scoped name, selectors, config, extendedResourceName."""
    device_class, errs = _decode("DeviceClass", obj)
    if device_class is None:
        return errs
    errs = validate_object_meta(obj.get("metadata"), namespaced=False, require_namespace=False)
    spec = device_class.spec
    errs += _selectors(spec.selectors, "spec.selectors")
    errs += validate_slice(_items(spec.config), DEVICE_CONFIG_MAX, _opaque, "spec.config")
    name = spec.extended_resource_name
    if name is not None and not is_extended_resource_name(name):
        errs.append(invalid("spec.extendedResourceName", name, MSG_EXTENDED_RESOURCE))
    return errs


def validate_resource_claim_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    """ValidateResourceClaimUpdate: the spec may not change (nothing else is reported then)."""
    new_claim, errs = _decode("ResourceClaim", new)
    old_claim, _ = _decode("ResourceClaim", old)
    if new_claim is None or old_claim is None:
        return errs
    if new_claim.spec.manifest() != old_claim.spec.manifest():
        value = Unquoted(json.dumps(new.get("spec"), sort_keys=True, separators=(",", ":")))
        return [invalid("spec", value, MSG_IMMUTABLE)]
    return []


DRA_VALIDATORS: dict[str, Callable[..., list[FieldError]]] = {
    "ResourceClaim": validate_resource_claim,
    "ResourceClaimTemplate": validate_resource_claim_template,
    "DeviceClass": validate_device_class,
}


def _gated_warnings(value: Any, path: str, out: list[FieldWarning]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            p = child(path, str(k))
            if k in GATED and v not in (None, [], {}):
                out.append(FieldWarning(p, MSG_GATED.format(gate=GATED[k])))
            _gated_warnings(v, p, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _gated_warnings(v, index(path, i), out)


def dra_warnings(obj: Mapping[str, Any]) -> list[FieldWarning]:
    """Fields of the object that need a feature gate an API server of 1.34 has off."""
    out: list[FieldWarning] = []
    _gated_warnings(obj.get("spec"), "spec", out)
    return out


def validate_dra_object(
    obj: Mapping[str, Any], *, require_namespace: bool = False
) -> list[FieldError]:
    """The errors of a ResourceClaim, ResourceClaimTemplate or DeviceClass (a ResourceSlice,
    written by drivers, is only decoded)."""
    kind = str(obj.get("kind"))
    validator = DRA_VALIDATORS.get(kind)
    if validator is None:
        return _decode(kind, obj)[1] if kind in MODELS else []
    return validator(obj, require_namespace=require_namespace)
