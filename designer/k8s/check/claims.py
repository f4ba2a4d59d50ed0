"""``podspec check`` and Dynamic Resource Allocation: the ResourceClaims, ResourceClaimTemplates,
DeviceClasses (and ResourceSlices) of the input are read, validated as the API server would
(apiserver.validate_dra_object) and linked to the pods that use them.

Every checked object gains ``claims``, one entry per ``spec.resourceClaims[i]``::

    {"name": "gpu", "source": "template" | "claim", "object": "<its name>", "found": true,
     "deviceClass": "gpu.nvidia.com", "count": 2, "containers": ["main"],
     "requests": [...], "notes": [...]}

* ``count`` is the number of devices the claim asks for: the sum over its requests of each
  request's ``count`` (1 when unset, as defaulting makes it); a ``firstAvailable`` request
  counts its first (preferred) alternative, and ``requests[].alternatives`` lists them all;
  ``null`` when a request takes every matching device (``allocationMode: All``: how many is
  decided on the node) or the claim's object is not in the input;
* ``deviceClass`` is the class of all the claim's requests when they share one, else null;
* ``containers`` are the containers (init and app) whose ``resources.claims`` name the claim.

A pod naming a ResourceClaimTemplate or ResourceClaim the input lacks gets a warning at that
field (it is no error: the object may already be in the cluster). A DeviceClass of the input
with ``extendedResourceName`` makes the containers requesting that extended resource gain an
entry with ``"source": "extendedResource"``: DRA may serve them (DRAExtendedResource).

Claims change neither the QoS class nor the effective requests: devices are not a resource
the kubelet or NodeResourcesFit counts (kubelet.qos gives the reason).

The report's top level gains ``draObjects``: each resource.k8s.io object with its place in
the input, ``errors``, ``warnings`` and ``usedBy`` (the workloads, or for a DeviceClass the
claims and templates, that use it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from designer.k8s.apiserver import dra_warnings, validate_dra_object
from designer.k8s.core import (
    FieldError,
    FieldWarning,
    Message,
    Pod,
    gettext_noop,
    is_extended_resource_name,
    parse_resources,
)
from designer.k8s.dra import (
    ALLOCATION_ALL,
    RESOURCE_DEVICE_CLASS_PREFIX,
    DraObject,
    DraObjects,
    PodClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    collect,
    pod_claims,
)
from designer.k8s.manifest import Document

NOTE_TEMPLATE = gettext_noop(
    "Each pod gets its own ResourceClaim from ResourceClaimTemplate %(object)s (named "
    "<pod>-%(claim)s-<random>): its devices belong to that pod alone and are freed with it."
)
NOTE_TEMPLATE_REPLICAS = gettext_noop(
    "Every pod this %(kind)s creates gets its own claim from the template, so each pod asks "
    "for its own devices."
)
NOTE_SHARED = gettext_noop(
    "ResourceClaim %(object)s is one object: every pod that names it shares the same "
    "allocated devices, and those pods can only run where the devices are reachable."
)
NOTE_SHARED_REPLICAS = gettext_noop(
    "Every pod this %(kind)s creates names the same ResourceClaim %(object)s: they all share "
    "its devices instead of getting their own (use a ResourceClaimTemplate for devices per pod)."
)
NOTE_CONTAINERS_SHARE = gettext_noop(
    "Containers %(containers)s use the same claim: they see the same devices."
)
NOTE_UNUSED = gettext_noop(
    "No container names claim %(claim)s in resources.claims: its devices are allocated and "
    "reserved for the pod, but no container gets them."
)
NOTE_ALL = gettext_noop(
    "Request %(request)s takes every matching device of the node (allocationMode All): how "
    "many is only known where the pod is scheduled."
)
NOTE_FIRST_AVAILABLE = gettext_noop(
    "Request %(request)s lists %(count)s alternatives (firstAvailable): the scheduler takes "
    "the first it can satisfy on a node; count is the first one's."
)
NOTE_EXTENDED = gettext_noop(
    "%(resource)s: %(count)s can be served by Dynamic Resource Allocation: DeviceClass "
    "%(class)s maps the extended resource %(resource)s to its devices (extendedResourceName; "
    "feature gate DRAExtendedResource, alpha in Kubernetes 1.34). On a node where no device "
    "plugin advertises %(resource)s, the scheduler allocates %(count)s device(s) of the class "
    "and creates a ResourceClaim for the pod (status.extendedResourceClaimStatus); where a "
    "device plugin does, it is used as before. Validation, QoS and requests do not change."
)
WARN_MISSING = (
    "{kind} {name} is not in the input: the pod cannot start until it exists in namespace "
    "{namespace} (apply it with the pod, or check it is already in the cluster)"
)
WARN_OLD_VERSION = (
    "{version} is read as resource.k8s.io/v1 (GA since Kubernetes 1.34), into which the API "
    "server converts it; write resource.k8s.io/v1"
)


@dataclass(frozen=True)
class ClaimEntry:
    """One entry of an object's ``claims``."""

    name: str | None
    source: str
    object: str | None
    found: bool
    device_class: str | None
    count: int | None
    containers: tuple[str, ...]
    requests: tuple[dict[str, Any], ...] = ()
    notes: tuple[Message, ...] = ()
    resource: str | None = None  # for "extendedResource"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "source": self.source,
            "object": self.object,
            "found": self.found,
            "deviceClass": self.device_class,
            "count": self.count,
            "containers": list(self.containers),
            "requests": list(self.requests),
            "notes": [n.text for n in self.notes],
        }
        if self.resource is not None:
            out["resource"] = self.resource
        return out


@dataclass(frozen=True)
class ClaimLinks:
    """What DRA adds to one checked object."""

    claims: tuple[ClaimEntry, ...] = ()
    warnings: tuple[FieldWarning, ...] = ()

    def fields(self, warnings: list[dict[str, str]]) -> dict[str, Any]:
        """The keys this adds to the object's JSON (``warnings`` extended, not replaced)."""
        out: dict[str, Any] = {"claims": [c.as_dict() for c in self.claims]}
        if self.warnings:
            out["warnings"] = [*warnings, *(w.as_dict() for w in self.warnings)]
        return out


NO_LINKS = ClaimLinks()


@dataclass
class DraReport:
    """A resource.k8s.io object of the input, checked."""

    obj: DraObject
    errors: list[FieldError]
    warnings: list[FieldWarning]
    used_by: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        (file, document), path = self.obj.location
        return {
            "file": file,
            "document": document,
            "path": path,
            "kind": self.obj.kind,
            "apiVersion": self.obj.api_version,
            "name": self.obj.name,
            "namespace": self.obj.namespace,
            "errors": [e.as_dict() for e in self.errors],
            "warnings": [w.as_dict() for w in self.warnings],
            "usedBy": list(self.used_by),
        }


# --- reading ---------------------------------------------------------------------------------


def read_dra_objects(file: str, documents: list[Document]) -> DraObjects:
    """The resource.k8s.io objects of one file's documents (List items included)."""
    readable = [d for d in documents if d.error is None and d.data is not None]
    return collect([(((file, d.index), ""), d.data) for d in readable])


def check_dra_object(obj: DraObject) -> DraReport:
    warnings = dra_warnings(obj.raw)
    if obj.version not in ("v1", "v1beta2") and obj.model is not None:
        warnings.insert(
            0, FieldWarning("apiVersion", WARN_OLD_VERSION.format(version=obj.api_version))
        )
    return DraReport(obj, list(validate_dra_object(obj.raw)), warnings)


# --- linking ---------------------------------------------------------------------------------


def _request_summary(claim: PodClaim) -> tuple[tuple[dict[str, Any], ...], list[Message]]:
    out, notes = [], []
    for r in claim.requests:
        alternatives = r.alternatives()
        first = alternatives[0] if alternatives else None
        users = [c for c, req in claim.container_requests if req == r.name]
        entry: dict[str, Any] = {
            "name": r.name,
            "deviceClass": first.device_class_name if first else None,
            "allocationMode": first.mode if first else None,
            "count": first.device_count if first else None,
            "selectors": list(first.expressions) if first else [],
        }
        if r.first_available:
            entry["alternatives"] = [
                {
                    "name": s.name,
                    "deviceClass": s.device_class_name,
                    "allocationMode": s.mode,
                    "count": s.device_count,
                    "selectors": list(s.expressions),
                }
                for s in r.first_available
            ]
            notes.append(
                Message(NOTE_FIRST_AVAILABLE, {"request": r.name, "count": len(r.first_available)})
            )
        if users:
            entry["containers"] = users
        if first is not None and first.mode == ALLOCATION_ALL:
            notes.append(Message(NOTE_ALL, {"request": r.name}))
        out.append(entry)
    return tuple(out), notes


def _claim_entry(claim: PodClaim, kind: str, namespace: str | None) -> ClaimEntry:
    requests, notes = _request_summary(claim)
    params = {"object": claim.object_name, "claim": claim.name, "kind": kind}
    if claim.source == "template":
        notes.insert(0, Message(NOTE_TEMPLATE, params))
        if kind != "Pod":
            notes.insert(1, Message(NOTE_TEMPLATE_REPLICAS, params))
    elif claim.source == "claim":
        notes.insert(0, Message(NOTE_SHARED, params))
        if kind != "Pod":
            notes.insert(1, Message(NOTE_SHARED_REPLICAS, params))
    if len(claim.containers) > 1:
        containers = ", ".join(claim.containers)
        notes.append(Message(NOTE_CONTAINERS_SHARE, {"containers": containers}))
    if not claim.containers:
        notes.append(Message(NOTE_UNUSED, {"claim": claim.name}))
    return ClaimEntry(
        claim.name,
        claim.source,
        claim.object_name,
        claim.found is not None,
        claim.device_class,
        claim.count,
        claim.containers,
        requests,
        tuple(notes),
    )


def _extended_classes(objects: DraObjects) -> dict[str, str]:
    """extended resource name -> DeviceClass: the explicit ``extendedResourceName`` (the
    class created last wins in Kubernetes; here the last in the input) and the implicit
    ``deviceclass.resource.kubernetes.io/<class>``."""
    out: dict[str, str] = {}
    for name, cls in objects.classes.items():
        implicit = RESOURCE_DEVICE_CLASS_PREFIX + name
        if is_extended_resource_name(implicit):
            out.setdefault(implicit, name)
        if cls.spec.extended_resource_name:
            out[cls.spec.extended_resource_name] = name
    return out


def _extended_entries(pod: Pod, extended: dict[str, str]) -> list[ClaimEntry]:
    out = []
    for resource, class_name in extended.items():
        users, total = [], 0
        for _, c in pod.spec.all_containers():
            q = parse_resources(c.limits).get(resource) or parse_resources(c.requests).get(resource)
            if q is not None and q.sign() > 0:
                users.append(c.name or "")
                total += int(q.as_fraction())
        if users:
            params = {"resource": resource, "class": class_name, "count": total}
            out.append(
                ClaimEntry(
                    None,
                    "extendedResource",
                    class_name,
                    True,
                    class_name,
                    total,
                    tuple(users),
                    notes=(Message(NOTE_EXTENDED, params),),
                    resource=resource,
                )
            )
    return out


def links_for(
    pod: Pod | None,
    *,
    kind: str,
    name: str | None,
    namespace: str | None,
    spec_path: str,
    objects: DraObjects,
    reports: dict[int, DraReport],
    extended: dict[str, str] | None = None,
) -> ClaimLinks:
    """The ``claims`` of one workload's pod, warnings for missing objects, and ``usedBy``;
    ``extended`` maps extended resources to DeviceClasses (computed once per report)."""
    if pod is None:
        return NO_LINKS
    if extended is None:
        extended = _extended_classes(objects)
    if not extended and not pod.spec.resource_claims:
        return NO_LINKS
    entries: list[ClaimEntry] = []
    warnings: list[FieldWarning] = []
    for claim in pod_claims(pod, namespace, objects):
        entries.append(_claim_entry(claim, kind, namespace))
        if claim.found is not None:
            report = reports.get(id(claim.found))
            if report is not None:
                report.used_by.append(
                    {"kind": kind, "name": name, "namespace": namespace, "claim": claim.name}
                )
        elif claim.object_name:
            fld = "resourceClaimTemplateName" if claim.source == "template" else "resourceClaimName"
            object_kind = "ResourceClaimTemplate" if claim.source == "template" else "ResourceClaim"
            path = f"{spec_path}.resourceClaims[{claim.index}].{fld}"
            message = WARN_MISSING.format(
                kind=object_kind, name=claim.object_name, namespace=namespace or "default"
            )
            warnings.append(FieldWarning(path, message))
    entries += _extended_entries(pod, extended)
    return ClaimLinks(tuple(entries), tuple(warnings))


def class_users(objects: DraObjects, reports: dict[int, DraReport]) -> None:
    """A DeviceClass is used by the claims and templates whose requests name it."""
    by_class: dict[str, DraReport] = {
        o.name: reports[id(o)] for o in objects.of_kind("DeviceClass") if o.name
    }
    for o in objects.objects:
        model = o.model
        if isinstance(model, ResourceClaimTemplate):
            spec = model.spec.spec
        elif isinstance(model, ResourceClaim):
            spec = model.spec
        else:
            continue
        for request in spec.requests:
            for alt in request.alternatives():
                report = by_class.get(alt.device_class_name or "")
                user = {"kind": o.kind, "name": o.name, "namespace": o.namespace}
                if report is not None and user not in report.used_by:
                    report.used_by.append(user)


def link_claims(checked: list[Any], objects: DraObjects) -> tuple[list[Any], list[dict[str, Any]]]:
    """Each checked object (check.CheckedObject) with its ClaimLinks, and the ``draObjects``
    of the report."""
    reports = {id(o): check_dra_object(o) for o in objects.objects}
    extended = _extended_classes(objects)
    out = []
    for c in checked:
        w = c.workload
        links = links_for(
            c.report.pod,
            kind=w.kind,
            name=w.name,
            namespace=w.namespace,
            spec_path=w.pod_spec_path,
            objects=objects,
            reports=reports,
            extended=extended,
        )
        out.append(replace(c, links=links) if links is not NO_LINKS else c)
    class_users(objects, reports)
    return out, [reports[id(o)].as_dict() for o in objects.objects]
