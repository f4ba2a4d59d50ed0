"""Designing GPUs the Kubernetes 1.34 way: a Dynamic Resource Allocation claim instead of a
device plugin's ``nvidia.com/gpu: N``.

``GpuChoice`` with ``mode: "dra"`` (design/planning.py) describes one claim: a DeviceClass,
a count or ``allocationMode: All``, CEL selectors built from a few common ones (GPU product,
memory at least N Gi, a MIG profile) or typed, ``firstAvailable`` alternatives, the containers
that share it, and whether it comes from a ResourceClaimTemplate (one claim per pod) or is one
ResourceClaim every pod shares. ``dra_design`` turns a design into:

* the pod's claims: the GPU container's claim ``gpu`` (count = ``gpu.count``, else the GPU
  container's ``gpus``, as the device plugin count was), used by that container and the
  ``shared_by`` ones; every other app container with GPUs gets its own claim ``gpu-<name>``
  with its own count and the same class and selectors;
* the objects to export with the pod, in the same file and before it: a
  ResourceClaimTemplate ``<pod>-gpu`` (``-gpu-<container>``) per claim, or a ResourceClaim;
  resource.k8s.io/v1 (GA in 1.34, the same shape in 1.35), as kubernetes-validate --strict
  accepts it for 1.34+;
* problems per choice field (a selector that does not compile, a count that is not a whole
  number, a container that does not exist) and the explanation the page shows.

``apply_claims`` is the hook ``convert.design_to_pod`` calls: the claim containers stop
requesting the extended resource and name their claim in ``resources.claims``; the pod gets
``spec.resourceClaims``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import (
    Message,
    Quantity,
    QuantityError,
    gettext_noop,
    name_is_dns_subdomain,
)
from designer.k8s.design.model import DEFAULT_GPU_RESOURCE, ContainerDesign, Design
from designer.k8s.design.planning import (
    DRA_MODE,
    MAX_DRA_ALTERNATIVES,
    DraAlternative,
    GpuChoice,
)
from designer.k8s.dra import (
    ALLOCATION_ALL,
    API_VERSION,
    KNOWN_DEVICE_CLASSES,
    SelectorCompileError,
    compile_selector,
)

CLAIM_NAME = "gpu"
# The GpuChoice fields the DRA mode uses (for the page: the fields to show).
DRA_CHOICES = (
    "device_class",
    "count",
    "allocation_mode",
    "product",
    "min_memory",
    "mig_profile",
    "selectors",
    "first_available",
    "shared_by",
    "claim_source",
)


# --- common selectors ------------------------------------------------------------------------


def cel_string(value: str) -> str:
    """A CEL string literal (single quotes, backslash escapes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def device_domain(device_class: str) -> str:
    """The attribute domain of a class's devices: its driver's name (NVIDIA's classes use
    ``gpu.nvidia.com``); for a class the engine does not know, the class name."""
    known = KNOWN_DEVICE_CLASSES.get(device_class)
    return known.driver if known else device_class


@dataclass(frozen=True)
class CommonSelector:
    """A selector the designer offers ready-made: the user types only its value."""

    key: str  # the GpuChoice field
    label: str
    example: str
    build: Callable[[str, str], str]  # (domain, value) -> CEL expression
    source: str


def memory_quantity(text: str) -> str:
    """A memory size as typed (``40`` is 40Gi, ``80Gi``, ``81559Mi``): canonical; raises
    QuantityError."""
    text = text.strip()
    if text.replace(".", "", 1).isdigit():
        text += "Gi"
    q = Quantity.parse(text)
    if q.sign() <= 0:
        raise QuantityError("must be more than zero")
    return q.canonical()


COMMON_SELECTORS: dict[str, CommonSelector] = {
    s.key: s
    for s in (
        CommonSelector(
            "product",
            gettext_noop("GPU product"),
            "NVIDIA H100 80GB HBM3",
            lambda d, v: f"device.attributes[{cel_string(d)}].productName == {cel_string(v)}",
            "NVIDIA DRA driver attribute productName (cmd/gpu-kubelet-plugin/deviceinfo.go)",
        ),
        CommonSelector(
            "min_memory",
            gettext_noop("GPU memory at least"),
            "40Gi",
            lambda d, v: (
                f"device.capacity[{cel_string(d)}].memory"
                f".compareTo(quantity({cel_string(memory_quantity(v))})) >= 0"
            ),
            "NVIDIA DRA driver capacity memory; Kubernetes CEL quantity library",
        ),
        CommonSelector(
            "mig_profile",
            gettext_noop("MIG profile"),
            "1g.10gb",
            lambda d, v: f"device.attributes[{cel_string(d)}].profile == {cel_string(v)}",
            "NVIDIA DRA driver MIG attribute profile",
        ),
    )
}


def selectors_of(
    choice: GpuChoice | DraAlternative, prefix: str
) -> tuple[list[str], dict[str, Message]]:
    """The CEL selectors a choice (or an alternative) makes, each compiled as the API server
    would; problems are keyed by the choice field (``gpu.min_memory``, ``gpu.selectors[1]``)."""
    domain = device_domain(choice.device_class.strip())
    out: list[str] = []
    problems: dict[str, Message] = {}
    candidates: list[tuple[str, Callable[[], str]]] = []
    for key, selector in COMMON_SELECTORS.items():
        value = str(getattr(choice, key)).strip()
        if value:
            candidates.append((f"{prefix}.{key}", lambda s=selector, v=value: s.build(domain, v)))
    for i, typed in enumerate(choice.selectors):
        if typed.strip():
            candidates.append((f"{prefix}.selectors[{i}]", lambda t=typed: t.strip()))
    for where, make in candidates:
        try:
            expression = make()
        except QuantityError as exc:
            problems[where] = Message(P_MEMORY, {"error": str(exc)})
            continue
        try:
            compile_selector(expression)
        except SelectorCompileError as exc:
            problems[where] = Message(P_SELECTOR, {"detail": exc.detail})
            continue
        out.append(expression)
    return out, problems


# --- messages --------------------------------------------------------------------------------

P_COUNT = gettext_noop("The number of devices must be a whole number of at least 1.")
P_MEMORY = gettext_noop("Memory must be a size such as 40Gi or 40 (GiB): %(error)s")
P_SELECTOR = gettext_noop("The API server refuses this selector: %(detail)s")
P_CLASS = gettext_noop("A DeviceClass name is a DNS subdomain such as gpu.nvidia.com: %(detail)s")
P_SHARED_BY = gettext_noop("The pod has no container named “%(name)s”.")
P_NO_CONTAINER = gettext_noop("The pod has no app container to give the claim to.")
H_MIG_PROFILE_CLASS = gettext_noop(
    "Only MIG devices have a profile: on devices of DeviceClass %(class)s this selector "
    "fails with a CEL runtime error and the claim cannot be allocated. Choose DeviceClass "
    "mig.nvidia.com to claim a MIG partition."
)
H_PRODUCT_CLASS = gettext_noop(
    "Devices of DeviceClass %(class)s are IMEX channels or daemons, not GPUs: they have no "
    "productName, so this selector fails with a CEL runtime error."
)
H_CLAIM_COUNT = gettext_noop(
    "With a DRA claim this container requests no %(resource)s: it gets the %(count)s "
    "device(s) of claim %(claim)s (%(object)s), and this field is that count."
)
H_CLAIM_COUNT_SET = gettext_noop(
    "With a DRA claim this container requests no %(resource)s: claim %(claim)s asks for "
    "%(count)s device(s), the count set in the GPU section, whatever this field says."
)
H_CLAIM_ALL = gettext_noop(
    "With a DRA claim this container requests no %(resource)s: claim %(claim)s asks for every "
    "matching device of the node (allocationMode All)."
)

X_CLAIM = gettext_noop(
    "GPUs come from a resource claim (Dynamic Resource Allocation, resource.k8s.io/v1, GA in "
    "Kubernetes 1.34): %(object_kind)s %(object)s asks for %(count)s device(s) of DeviceClass "
    "%(class)s, and container %(containers)s gets them through pod claim %(claim)s instead of "
    "requesting %(resource)s."
)
X_CLAIM_ALL = gettext_noop(
    "GPUs come from a resource claim (Dynamic Resource Allocation, resource.k8s.io/v1, GA in "
    "Kubernetes 1.34): %(object_kind)s %(object)s asks for every matching device of "
    "DeviceClass %(class)s on the node (allocationMode All), and container %(containers)s gets "
    "them through pod claim %(claim)s instead of requesting %(resource)s."
)
X_SELECTORS = gettext_noop(
    "Only devices for which every selector is true qualify (the DeviceClass's own selectors "
    "apply too): %(selectors)s."
)
X_FIRST_AVAILABLE = gettext_noop(
    "If a node cannot satisfy that, the scheduler tries the alternatives in order "
    "(firstAvailable, beta in 1.34): %(alternatives)s."
)
X_ALTERNATIVE = gettext_noop("%(count)s of %(class)s")
X_LIST = gettext_noop("%(first)s, %(second)s")
X_QOS = gettext_noop(
    "Claims do not count toward the QoS class or the scheduler's cpu and memory sums: the QoS "
    "class and the effective requests are what the cpu and memory settings make them, and the "
    "devices are allocated from the node's ResourceSlices, not from its allocatable."
)
X_SHARED = gettext_noop(
    "Containers %(containers)s share claim %(claim)s: they see the same devices (a device is "
    "not split between them)."
)
X_TEMPLATE_PER_POD = gettext_noop(
    "A ResourceClaimTemplate makes one claim per pod: every pod this %(kind)s starts gets its "
    "own devices, so %(pods)s pod(s) need %(total)s device(s) in all."
)
X_SHARED_CLAIM = gettext_noop(
    "A ResourceClaim is one object that every pod naming it shares: all pods of this "
    "%(kind)s use the same devices, and they only run on nodes that can reach them (for "
    "node-local GPUs, one node). Choose a template to give each pod its own GPUs."
)
X_EXPORTED = gettext_noop(
    "The %(object_kind)s is in the same file, before the %(kind)s: kubectl apply creates it "
    "first; the pod waits for its claim until it exists."
)
X_OTHER_CLAIM = gettext_noop(
    "Container %(container)s has its own claim %(claim)s (%(object)s) for its %(count)s "
    "device(s), with the same DeviceClass and selectors."
)
X_NPROC_ALL = gettext_noop(
    "With allocationMode All the number of GPUs per worker is only known on the node: "
    "NPROC_PER_NODE is set for 1; set it to the node's GPU count."
)


# --- the claims ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DraClaim:
    name: str  # in spec.resourceClaims
    object_name: str  # the ResourceClaimTemplate or ResourceClaim
    source: str  # "template" | "claim"
    containers: tuple[str, ...]
    count: int | None  # None: allocationMode All
    device_class: str

    @property
    def object_kind(self) -> str:
        return "ResourceClaim" if self.source == "claim" else "ResourceClaimTemplate"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "object": self.object_name,
            "found": True,
            "deviceClass": self.device_class,
            "count": self.count,
            "containers": list(self.containers),
        }


@dataclass(frozen=True)
class DraDesign:
    claims: tuple[DraClaim, ...]
    objects: tuple[dict[str, Any], ...]  # exported before the pod (or its workload)
    problems: dict[str, Message] = field(default_factory=dict)
    selectors: tuple[str, ...] = ()
    # choice field -> advice that changes nothing by itself (a MIG profile asked of whole GPUs)
    hints: dict[str, Message] = field(default_factory=dict)

    @property
    def devices_per_pod(self) -> int:
        """Devices one pod gets (allocationMode All counts as at least 1): what rollouts and
        torchrun's processes per node are sized by."""
        return sum(c.count if c.count is not None else 1 for c in self.claims)

    @property
    def object_kind(self) -> str:
        return (
            "ResourceClaim"
            if self.claims and self.claims[0].source == "claim"
            else ("ResourceClaimTemplate")
        )


def _gpu_container(design: Design) -> ContainerDesign | None:
    """The container the GPU choice applies to (as actions.gpu_container)."""
    apps = [c for c in design.containers if c.role == "app"]
    return next((c for c in apps if c.gpus.strip()), apps[0] if apps else None)


def _count(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and int(text) >= 1 else None


def _request(
    choice: GpuChoice, count: int, selectors: list[str], alternatives: list[dict[str, Any]]
) -> dict[str, Any]:
    first: dict[str, Any] = {"deviceClassName": choice.device_class.strip()}
    if selectors:
        first["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    if choice.allocation_mode == ALLOCATION_ALL:
        first["allocationMode"] = ALLOCATION_ALL
    else:
        first["allocationMode"] = "ExactCount"
        first["count"] = count
    if not alternatives:
        return {"name": CLAIM_NAME, "exactly": first}
    return {"name": CLAIM_NAME, "firstAvailable": [{"name": "option-1", **first}, *alternatives]}


def _alternatives(
    choice: GpuChoice, problems: dict[str, Message]
) -> tuple[list[dict[str, Any]], list[Message]]:
    out, described = [], []
    for i, alt in enumerate(choice.first_available):
        prefix = f"gpu.first_available[{i}]"
        alt_class = alt.device_class.strip()
        for detail in name_is_dns_subdomain(alt_class) if alt_class else ["must not be empty"]:
            problems[f"{prefix}.device_class"] = Message(P_CLASS, {"detail": detail})
        count = _count(alt.count)
        if count is None:
            problems[f"{prefix}.count"] = Message(P_COUNT, {})
            count = 1
        selectors, found = selectors_of(alt, prefix)
        problems.update(found)
        entry: dict[str, Any] = {
            "name": f"option-{i + 2}",
            "deviceClassName": alt.device_class.strip(),
            "allocationMode": "ExactCount",
            "count": count,
        }
        if selectors:
            entry["selectors"] = [{"cel": {"expression": e}} for e in selectors]
        out.append(entry)
        described.append(
            Message(X_ALTERNATIVE, {"count": count, "class": entry["deviceClassName"]})
        )
    return out, described


def _object(design: Design, name: str, source: str, request: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if design.namespace:
        meta["namespace"] = design.namespace
    if design.labels:
        meta["labels"] = dict(design.labels)
    claim_spec = {"devices": {"requests": [request]}}
    if source == "claim":
        return {
            "apiVersion": API_VERSION,
            "kind": "ResourceClaim",
            "metadata": meta,
            "spec": claim_spec,
        }
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceClaimTemplate",
        "metadata": meta,
        "spec": {"spec": claim_spec},
    }


def dra_design(design: Design) -> DraDesign | None:
    """The claims, exported objects and problems of a design whose GPUs come from DRA;
    None for the device-plugin modes."""
    choice = design.gpu
    if choice.mode != DRA_MODE:
        return None
    problems: dict[str, Message] = {}
    target = _gpu_container(design)
    if target is None:
        return DraDesign((), (), {"gpu.mode": Message(P_NO_CONTAINER, {})})
    class_name = choice.device_class.strip()
    for detail in name_is_dns_subdomain(class_name) if class_name else ["must not be empty"]:
        problems["gpu.device_class"] = Message(P_CLASS, {"detail": detail})
    if choice.count.strip():
        count = _count(choice.count)
        if count is None:
            problems["gpu.count"] = Message(P_COUNT, {})
    else:
        count = _count(target.gpus)
        if count is None and target.gpus.strip() not in ("", "0"):
            problems["gpu.count"] = Message(P_COUNT, {})
    count = count or 1
    selectors, found = selectors_of(choice, "gpu")
    problems.update(found)
    alternatives, _ = _alternatives(choice, problems)
    names = {c.name for c in design.containers}
    shared = [n for n in choice.shared_by if n and n != target.name]
    for n in shared:
        if n not in names:
            problems["gpu.shared_by"] = Message(P_SHARED_BY, {"name": n})
    shared = [n for n in shared if n in names]
    all_mode = choice.allocation_mode == ALLOCATION_ALL
    base = design.name or "pod"
    claims = [
        DraClaim(
            CLAIM_NAME,
            f"{base}-{CLAIM_NAME}",
            choice.claim_source,
            (target.name, *shared),
            None if all_mode else count,
            class_name,
        )
    ]
    objects = [
        _object(
            design,
            claims[0].object_name,
            choice.claim_source,
            _request(choice, count, selectors, alternatives),
        )
    ]
    for c in design.containers:
        own = _count(c.gpus)
        if c.role != "app" or c.name in claims[0].containers or own is None:
            continue
        name = f"{CLAIM_NAME}-{c.name}"
        claims.append(
            DraClaim(
                name,
                f"{base}-{name}",
                choice.claim_source,
                (c.name,),
                None if all_mode else own,
                class_name,
            )
        )
        objects.append(
            _object(
                design,
                f"{base}-{name}",
                choice.claim_source,
                _request(choice, own, selectors, alternatives),
            )
        )
    return DraDesign(
        tuple(claims), tuple(objects), problems, tuple(selectors), _choice_hints(choice)
    )


def _choice_hints(choice: GpuChoice) -> dict[str, Message]:
    """Choices that are valid but cannot match what the class's devices publish."""
    hints: dict[str, Message] = {}
    known = KNOWN_DEVICE_CLASSES.get(choice.device_class.strip())
    if known is None:
        return hints
    # NVIDIA's driver publishes ``profile`` on MIG devices only (research/dra/nvidia.md):
    # on a whole GPU the selector fails to evaluate and the device does not qualify.
    if choice.mig_profile.strip() and known.kind != "mig":
        hints["gpu.mig_profile"] = Message(H_MIG_PROFILE_CLASS, {"class": known.name})
    if choice.product.strip() and known.kind == "compute-domain":
        hints["gpu.product"] = Message(H_PRODUCT_CLASS, {"class": known.name})
    return hints


def explain_dra(dra: DraDesign, design: Design, kind: str, pods: int) -> list[Message]:
    """What the page says about the claim (``kind`` is the export kind, ``pods`` how many
    pods it runs at once)."""
    if not dra.claims:
        return []
    main = dra.claims[0]
    target = _gpu_container(design)
    resource = (target.gpu_resource.strip() if target else "") or DEFAULT_GPU_RESOURCE
    params = {
        "object_kind": dra.object_kind,
        "object": main.object_name,
        "count": main.count,
        "class": main.device_class,
        "containers": main.containers[0],
        "claim": main.name,
        "resource": resource,
    }
    lines = [Message(X_CLAIM_ALL if main.count is None else X_CLAIM, params)]
    if dra.selectors:
        lines.append(Message(X_SELECTORS, {"selectors": "; ".join(dra.selectors)}))
    if design.gpu.first_available:
        _, described = _alternatives(design.gpu, {})
        # One Message of Messages, so a page translates each alternative too.
        joined = described[0]
        for alternative in described[1:]:
            joined = Message(X_LIST, {"first": joined, "second": alternative})
        lines.append(Message(X_FIRST_AVAILABLE, {"alternatives": joined}))
    if len(main.containers) > 1:
        lines.append(
            Message(X_SHARED, {"containers": ", ".join(main.containers), "claim": main.name})
        )
    for other in dra.claims[1:]:
        lines.append(
            Message(
                X_OTHER_CLAIM,
                {
                    "container": other.containers[0],
                    "claim": other.name,
                    "object": other.object_name,
                    "count": other.count if other.count is not None else "all",
                },
            )
        )
    lines.append(Message(X_QOS, {}))
    shown_kind = "Indexed Job" if kind == "IndexedJob" else kind
    if main.source == "claim":
        lines.append(Message(X_SHARED_CLAIM, {"kind": shown_kind}))
    elif kind != "Pod":
        total = dra.devices_per_pod * pods
        lines.append(
            Message(X_TEMPLATE_PER_POD, {"kind": shown_kind, "pods": pods, "total": total})
        )
    lines.append(Message(X_EXPORTED, {"object_kind": dra.object_kind, "kind": shown_kind}))
    if kind == "IndexedJob" and main.count is None:
        lines.append(Message(X_NPROC_ALL, {}))
    return lines


# --- the pod ---------------------------------------------------------------------------------


def apply_claims(design: Design, spec: dict[str, Any]) -> None:
    """Give the pod spec (a manifest dict ``convert`` builds) its DRA claims: the claim
    containers stop requesting their GPU resource and name their claim instead."""
    dra = dra_design(design)
    if dra is None or not dra.claims:
        return
    ours = {c.name for c in dra.claims}
    kept = [
        c
        for c in spec.get("resourceClaims") or []
        if not (isinstance(c, dict) and c.get("name") in ours)
    ]
    key = "resourceClaimName" if dra.claims[0].source == "claim" else "resourceClaimTemplateName"
    spec["resourceClaims"] = kept + [{"name": c.name, key: c.object_name} for c in dra.claims]
    by_name = {c.name: c for c in design.containers}
    users: dict[str, list[str]] = {}
    for claim in dra.claims:
        for name in claim.containers:
            users.setdefault(name, []).append(claim.name)
    for list_key in ("containers", "initContainers"):
        for container in spec.get(list_key) or []:
            if not isinstance(container, dict):
                continue
            name = container.get("name")
            designed = by_name.get(name) if isinstance(name, str) else None
            resources = dict(container.get("resources") or {})
            if designed is not None and designed.gpus.strip() and name in users:
                resource = designed.gpu_resource.strip() or DEFAULT_GPU_RESOURCE
                for part in ("limits", "requests"):
                    values = {k: v for k, v in (resources.get(part) or {}).items() if k != resource}
                    if values:
                        resources[part] = values
                    else:
                        resources.pop(part, None)
            refs = [
                r
                for r in resources.get("claims") or []
                if not (isinstance(r, dict) and r.get("name") in ours)
            ]
            refs += [{"name": n} for n in users.get(name, [])] if isinstance(name, str) else []
            if refs:
                resources["claims"] = refs
            else:
                resources.pop("claims", None)
            if resources:
                container["resources"] = resources
            else:
                container.pop("resources", None)


def container_hints(design: Design, dra: DraDesign) -> list[tuple[int, str, Message]]:
    """(container index, ContainerDesign field, message): what the claim does to the GPU
    container's own GPU fields, said beside them."""
    if not dra.claims:
        return []
    main = dra.claims[0]
    target = _gpu_container(design)
    if target is None:
        return []
    index = design.containers.index(target)
    resource = target.gpu_resource.strip() or DEFAULT_GPU_RESOURCE
    params = {
        "resource": resource,
        "count": main.count,
        "claim": main.name,
        "object": main.object_name,
    }
    if main.count is None:
        template = H_CLAIM_ALL
    elif design.gpu.count.strip():
        template = H_CLAIM_COUNT_SET
    else:
        template = H_CLAIM_COUNT
    return [(index, "gpus", Message(template, params))]


# --- where an exported claim object's problem belongs ----------------------------------------

_REQUEST_PATH = re.compile(
    r"^(?:spec\.)?spec\.devices\.requests\[\d+\]\."
    r"(?:exactly|firstAvailable\[(?P<option>\d+)\])(?:\.(?P<field>\w+))?"
)
_REQUEST_FIELDS = {
    "deviceClassName": "device_class",
    "count": "count",
    "allocationMode": "allocation_mode",
    "selectors": "selectors",
}


def claim_choice_field(path: str) -> str:
    """The choice field (``gpu.device_class``, ``gpu.first_available[0].count``) an API
    server error on an exported ResourceClaimTemplate/ResourceClaim is about (its path as
    pkg/apis/resource/validation reports it); ``gpu.mode`` when no single field is."""
    match = _REQUEST_PATH.match(path)
    if not match:
        return "gpu.mode"
    name = _REQUEST_FIELDS.get(match.group("field") or "")
    option = int(match.group("option") or 0)
    if name is None:
        return "gpu.mode"
    if option == 0:
        return f"gpu.{name}"
    if name == "allocation_mode":
        return f"gpu.first_available[{option - 1}].count"
    return f"gpu.first_available[{option - 1}].{name}"


# --- the alternatives' buttons ---------------------------------------------------------------

ADD_ALTERNATIVE = "dra-alternative-add"
REMOVE_ALTERNATIVE = "dra-alternative-remove-"


def alternative_action(choice: GpuChoice, action: str) -> GpuChoice | None:
    """The GPU choice after a designer button on its firstAvailable alternatives (add one,
    remove the n-th); None when ``action`` is not such a button."""
    if action == ADD_ALTERNATIVE:
        if len(choice.first_available) >= MAX_DRA_ALTERNATIVES:
            return choice
        # A fallback usually asks for less of the same class (one GPU of any product):
        # the new alternative starts there.
        alternative = DraAlternative(
            device_class=choice.device_class.strip() or "gpu.nvidia.com", count="1"
        )
        return choice.model_copy(update={"first_available": [*choice.first_available, alternative]})
    if action.startswith(REMOVE_ALTERNATIVE):
        index = action.removeprefix(REMOVE_ALTERNATIVE)
        if not index.isdigit() or int(index) >= len(choice.first_available):
            return choice
        kept = [a for i, a in enumerate(choice.first_available) if i != int(index)]
        return choice.model_copy(update={"first_available": kept})
    return None
