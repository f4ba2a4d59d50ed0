"""Decoding a manifest's metadata and spec into the Pod model, as the API server decodes JSON.

The API server refuses a wrongly typed field at decoding time; we report it as a
``FieldValueTypeInvalid`` at its path, in the words Go's decoder uses for the JSON type.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from designer.k8s.core import FieldError, Pod, Unquoted

_MAP_FIELDS = ("requests", "limits", "overhead", "labels", "annotations", "nodeSelector")
# Maps keyed by name in the resource.k8s.io objects (a device's attributes and capacity, ...).
_DRA_MAP_FIELDS = (*_MAP_FIELDS, "attributes", "capacity", "counters")


def _path(loc: tuple[Any, ...], prefix: str, maps: tuple[str, ...] = _MAP_FIELDS) -> str:
    """A pydantic error location as a Kubernetes field path (``containers[0].resources``)."""
    text = prefix
    keyed = False
    for part in loc:
        if isinstance(part, int) or keyed:
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
        keyed = part in maps
    return text


UNION_TAGS = frozenset({"str", "int", "float", "bool", "none"})
# pydantic error types -> the JSON type the API expects there.
EXPECTED_TYPES = {
    "string_type": "string",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
}


def _json_type(err: Any) -> Unquoted:
    """The JSON type of the value found, as Go's decoder names it in its message."""
    value = err.get("input")
    if isinstance(value, bool):
        name = "bool"
    elif isinstance(value, int | float):
        name = "number"
    elif isinstance(value, str):
        name = "string"
    elif isinstance(value, dict):
        name = "object"
    elif isinstance(value, list):
        name = "array"
    else:
        name = "null"
    return Unquoted(name)


def decoding_errors(exc: ValidationError, prefix: str = "") -> list[FieldError]:
    """A pydantic ValidationError of a resource.k8s.io model as the decoder's errors, at
    their JSON paths (one per path)."""
    seen: set[str] = set()
    errors: list[FieldError] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        while loc and isinstance(loc[-1], str) and loc[-1] in UNION_TAGS:
            loc = loc[:-1]
        path = _path(loc, prefix, _DRA_MAP_FIELDS)
        if path in seen:
            continue
        seen.add(path)
        expected = EXPECTED_TYPES.get(err["type"])
        message = f"must be of type {expected}" if expected else err["msg"]
        errors.append(FieldError(path, "FieldValueTypeInvalid", message, _json_type(err)))
    return errors


def pod_from_parts(
    metadata: Any, spec: Any, *, metadata_path: str = "metadata", spec_path: str = "spec"
) -> tuple[Pod | None, list[FieldError]]:
    """A Pod model from a manifest's metadata and spec, or the decoding errors at their paths.

    The API server refuses a wrongly typed field at decoding time; we report it at its path.
    """
    errors: list[FieldError] = []
    meta_obj = metadata if isinstance(metadata, dict) else {}
    spec_obj = spec if isinstance(spec, dict) else {}
    if metadata is not None and not isinstance(metadata, dict):
        errors.append(FieldError(metadata_path, "FieldValueTypeInvalid", "expected an object"))
    if not isinstance(spec, dict):
        errors.append(FieldError(spec_path, "FieldValueTypeInvalid", "expected an object"))
    try:
        pod = Pod.model_validate({"metadata": meta_obj, "spec": spec_obj})
    except ValidationError as exc:
        seen: set[str] = set()
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            # A union (a resource value: string or number) reports each member: drop the tag.
            while loc and isinstance(loc[-1], str) and loc[-1] in UNION_TAGS:
                loc = loc[:-1]
            head, rest = (loc[0], loc[1:]) if loc else ("spec", ())
            prefix = metadata_path if head == "metadata" else spec_path
            path = _path(rest, prefix)
            if path in seen:
                continue
            seen.add(path)
            expected = EXPECTED_TYPES.get(err["type"])
            message = f"must be of type {expected}" if expected else err["msg"]
            errors.append(FieldError(path, "FieldValueTypeInvalid", message, _json_type(err)))
        return None, errors
    return (None, errors) if errors else (pod, [])
