"""Custom resources checked against their CRD's OpenAPI v3 schema, as the API server does.

The API server decodes a custom resource, applies the structural schema's defaults
(apiextensions-apiserver structuraldefaulting), prunes or (with strict field validation,
kubectl's default) refuses fields the schema does not declare, then validates the object
against the schema. We do the same with the schemas vendored in ``crds/`` (SOURCES.md says
where each comes from) and the ``jsonschema`` library; CEL rules are not evaluated.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import orjson

CRDS = Path(__file__).with_name("crds")
# (apiVersion, kind) -> schema file.
SCHEMAS = {
    ("kubeflow.org/v1", "PyTorchJob"): "kubeflow.org/PyTorchJob.json",
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): "trainer.kubeflow.org/TrainJob.json",
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): "jobset.x-k8s.io/JobSet.json",
    (
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
    ): "leaderworkerset.x-k8s.io/LeaderWorkerSet.json",
    ("ray.io/v1", "RayCluster"): "ray.io/RayCluster.json",
    ("serving.kserve.io/v1beta1", "InferenceService"): "serving.kserve.io/InferenceService.json",
}


@dataclass(frozen=True)
class SchemaProblem:
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


@functools.cache
def _schema(file: str) -> dict[str, Any]:
    return orjson.loads((CRDS / file).read_bytes())


@functools.cache
def _validator(file: str) -> jsonschema.protocols.Validator:
    # OpenAPI v3 schemas are a dialect of JSON Schema draft 4 (nullable aside: exports
    # hold no nulls).
    return jsonschema.Draft4Validator(_schema(file))


def schema_for(obj: dict[str, Any]) -> dict[str, Any] | None:
    file = SCHEMAS.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
    return _schema(file) if file else None


def with_defaults(obj: Any, schema: dict[str, Any]) -> Any:
    """``obj`` with the schema's defaults filled in where a field is absent, recursively
    (structural defaulting: a default applies inside an object that exists)."""
    if isinstance(obj, dict):
        out = dict(obj)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                if name not in out and "default" in sub:
                    out[name] = copy.deepcopy(sub["default"])
                if name in out:
                    out[name] = with_defaults(out[name], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name, value in out.items():
                if not isinstance(properties, dict) or name not in properties:
                    out[name] = with_defaults(value, extra)
        return out
    if isinstance(obj, list) and isinstance(schema.get("items"), dict):
        return [with_defaults(v, schema["items"]) for v in obj]
    return obj


def _path(parts: Any) -> str:
    text = ""
    for p in parts:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else str(p))
    return text


def unknown_fields(obj: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Fields the schema does not declare: pruned by the API server, refused by strict
    field validation ("unknown field")."""
    out: list[str] = []
    if schema.get("x-kubernetes-preserve-unknown-fields") or schema.get(
        "x-kubernetes-embedded-resource"
    ):
        return out
    if isinstance(obj, dict):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        for name, value in obj.items():
            here = f"{path}.{name}" if path else str(name)
            if isinstance(properties, dict) and name in properties:
                out += unknown_fields(value, properties[name], here)
            elif isinstance(extra, dict):
                out += unknown_fields(value, extra, here)
            elif isinstance(properties, dict) and extra is not True:
                out.append(here)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for i, value in enumerate(obj):
            out += unknown_fields(value, schema["items"], f"{path}[{i}]")
    return out


def validate_custom_resource(obj: dict[str, Any]) -> list[SchemaProblem] | None:
    """Problems of a custom resource against its vendored CRD schema; None when the engine
    has no schema for its apiVersion and kind."""
    file = SCHEMAS.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
    if file is None:
        return None
    schema = _schema(file)
    # metadata is the API server's (ObjectMeta), not the schema's.
    body = {k: v for k, v in with_defaults(obj, schema).items() if k != "metadata"}
    problems = [
        SchemaProblem(p, f'strict decoding error: unknown field "{p}"')
        for p in unknown_fields(body, schema)
    ]
    for error in sorted(_validator(file).iter_errors(body), key=lambda e: _path(e.absolute_path)):
        problems.append(SchemaProblem(_path(error.absolute_path), error.message))
    return problems
