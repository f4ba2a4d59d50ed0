"""The resource.k8s.io objects of some input, and a pod's claims resolved against them.

``collect`` takes already parsed manifest objects (``List`` items included) and keeps the
ResourceClaims, ResourceClaimTemplates, DeviceClasses and ResourceSlices, decoded into the v1
models. Objects of the older served versions are read as the API server converts them:
v1beta2 has the v1 shape; v1beta1 (and v1alpha3) put ``deviceClassName``, ``selectors``,
``allocationMode``, ``count``, ``adminAccess`` and ``tolerations`` directly on a request,
which becomes ``exactly`` in v1 (pkg/apis/resource/v1beta1 conversion).

``pod_claims`` resolves a pod's ``spec.resourceClaims`` by name in the pod's namespace. A
manifest without a namespace is applied to the namespace of kubectl's context, so an object
without one matches a pod in any namespace, and a pod without one matches any object.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from designer.k8s.core import Pod
from designer.k8s.dra.model import (
    ALLOCATION_ALL,
    GROUP,
    MODELS,
    DeviceClass,
    DeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
)

SERVED_VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha3")
FLAT_VERSIONS = ("v1beta1", "v1alpha3")
_FLAT_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)


@dataclass(frozen=True)
class DraObject:
    """One resource.k8s.io object of the input, where it was found, and its v1 model."""

    location: Any  # the caller's (file, document, path)
    kind: str
    api_version: str
    name: str | None
    namespace: str | None
    raw: dict[str, Any]  # as read (the v1 form for older versions)
    model: Any | None  # the v1 model, None when it cannot be decoded
    decode_error: ValidationError | None = None

    @property
    def version(self) -> str:
        return self.api_version.partition("/")[2]


def _v1_request(request: Any) -> Any:
    if not isinstance(request, dict) or "exactly" in request or "firstAvailable" in request:
        return request
    flat = {k: request[k] for k in _FLAT_FIELDS if k in request}
    if not flat:
        return request
    out = {k: v for k, v in request.items() if k not in _FLAT_FIELDS}
    out["exactly"] = flat
    return out


def as_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """An object of a flat-request version (v1beta1, v1alpha3) in its v1 shape."""
    version = str(obj.get("apiVersion") or "").partition("/")[2]
    if version not in FLAT_VERSIONS or obj.get("kind") not in (
        "ResourceClaim",
        "ResourceClaimTemplate",
    ):
        return obj
    out = copy.deepcopy(obj)
    spec = out.get("spec")
    if obj.get("kind") == "ResourceClaimTemplate":
        spec = spec.get("spec") if isinstance(spec, dict) else None
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    if isinstance(requests, list):
        devices["requests"] = [_v1_request(r) for r in requests]
    return out


def is_dra_object(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") not in MODELS:
        return False
    api_version = obj.get("apiVersion")
    return isinstance(api_version, str) and api_version.partition("/")[0] == GROUP


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read_object(location: Any, obj: dict[str, Any]) -> DraObject:
    """Decode one resource.k8s.io object (``is_dra_object`` must be true)."""
    kind = str(obj["kind"])
    v1 = as_v1(obj)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    try:
        model = MODELS[kind].model_validate(v1)
        error = None
    except ValidationError as exc:
        model, error = None, exc
    return DraObject(
        location,
        kind,
        str(obj.get("apiVersion")),
        _text(meta.get("name")),
        _text(meta.get("namespace")),
        v1,
        model,
        error,
    )


def _same_namespace(a: str | None, b: str | None) -> bool:
    return not a or not b or a == b


@dataclass
class DraObjects:
    """The resource.k8s.io objects of an input, by kind."""

    objects: list[DraObject] = field(default_factory=list)
    _by_name: dict[tuple[str, str | None], list[DraObject]] | None = field(
        default=None, repr=False, compare=False
    )

    def of_kind(self, kind: str) -> list[DraObject]:
        return [o for o in self.objects if o.kind == kind and o.model is not None]

    def find(self, kind: str, name: str, namespace: str | None) -> DraObject | None:
        """The object of ``kind`` named ``name`` for a pod in ``namespace`` (see the module
        docstring); an exact namespace match wins over an unset one."""
        if self._by_name is None:
            self._by_name = {}
            for o in self.objects:
                self._by_name.setdefault((o.kind, o.name), []).append(o)
        found = [
            o
            for o in self._by_name.get((kind, name), [])
            if _same_namespace(o.namespace, namespace)
        ]
        found.sort(key=lambda o: o.namespace != namespace)
        return found[0] if found else None

    @property
    def classes(self) -> dict[str, DeviceClass]:
        return {o.name: o.model for o in self.of_kind("DeviceClass") if o.name}

    @property
    def slices(self) -> list[ResourceSlice]:
        return [o.model for o in self.of_kind("ResourceSlice")]

    def extend(self, other: DraObjects) -> None:
        self.objects += other.objects
        self._by_name = None


def collect(values: Iterable[tuple[Any, Any]]) -> DraObjects:
    """The resource.k8s.io objects among ``(location, object)`` pairs; Lists are opened and
    their items located at ``(location, "items[i]")``."""
    out = DraObjects()

    def visit(location: Any, obj: Any) -> None:
        if type(obj) is not dict:
            return
        kind = obj.get("kind")
        items = obj.get("items")
        if type(kind) is str and kind.endswith("List") and type(items) is list:
            base, prefix = (location if isinstance(location, tuple) else (location, ""))[:2]
            for i, item in enumerate(items):
                # Most items of a cluster dump are pods: look before building a location.
                if type(item) is dict and (item.get("kind") in MODELS or "items" in item):
                    visit((base, f"{prefix}.items[{i}]" if prefix else f"items[{i}]"), item)
            return
        if is_dra_object(obj):
            out.objects.append(read_object(location, obj))

    for location, obj in values:
        visit(location, obj)
    return out


# --- a pod's claims --------------------------------------------------------------------------


@dataclass(frozen=True)
class PodClaim:
    """One ``spec.resourceClaims[i]`` of a pod, resolved against the input."""

    index: int
    name: str
    source: str  # "template" | "claim" | "" (neither named: validation reports it)
    object_name: str | None
    found: DraObject | None
    containers: tuple[str, ...]  # containers (init and app) that use the claim
    container_requests: tuple[tuple[str, str], ...]  # (container, request) when narrowed

    @property
    def spec(self) -> ResourceClaimSpec | None:
        model = self.found.model if self.found else None
        if isinstance(model, ResourceClaimTemplate):
            return model.spec.spec
        if isinstance(model, ResourceClaim):
            return model.spec
        return None

    @property
    def requests(self) -> list[DeviceRequest]:
        spec = self.spec
        return spec.requests if spec else []

    @property
    def device_class(self) -> str | None:
        """The DeviceClass of the claim's devices when all its requests (their preferred
        alternative) use one; None otherwise."""
        names = {
            (r.alternatives()[0].device_class_name or "") for r in self.requests if r.alternatives()
        }
        return names.pop() if len(names) == 1 else None

    @property
    def count(self) -> int | None:
        """Devices the claim asks for, each request at its preferred (first) alternative;
        None when a request takes every matching device (allocationMode All) or the claim
        is not in the input."""
        if self.spec is None:
            return None
        total = 0
        for r in self.requests:
            alternatives = r.alternatives()
            if not alternatives or alternatives[0].mode == ALLOCATION_ALL:
                return None
            total += alternatives[0].device_count or 0
        return total


def pod_claims(pod: Pod, namespace: str | None, objects: DraObjects) -> list[PodClaim]:
    out = []
    users: dict[str, list[str]] = {}
    narrowed: dict[str, list[tuple[str, str]]] = {}
    for _, c in pod.spec.all_containers():
        for ref in c.claims:
            if ref.name:
                users.setdefault(ref.name, [])
                if (c.name or "") not in users[ref.name]:
                    users[ref.name].append(c.name or "")
                if ref.request:
                    narrowed.setdefault(ref.name, []).append((c.name or "", ref.request))
    for i, claim in enumerate(pod.spec.resource_claims or []):
        name = claim.name or ""
        if claim.resource_claim_template_name is not None:
            source, object_name, kind = (
                "template",
                claim.resource_claim_template_name,
                "ResourceClaimTemplate",
            )
        elif claim.resource_claim_name is not None:
            source, object_name, kind = "claim", claim.resource_claim_name, "ResourceClaim"
        else:
            source, object_name, kind = "", None, ""
        found = objects.find(kind, object_name, namespace) if object_name else None
        out.append(
            PodClaim(
                i,
                name,
                source,
                object_name,
                found,
                tuple(users.get(name, ())),
                tuple(narrowed.get(name, ())),
            )
        )
    return out
