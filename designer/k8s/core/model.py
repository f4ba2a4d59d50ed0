"""Pydantic models of the parts of a Pod the engine reasons about.

Only resource-related fields are typed; every other field of a manifest is kept as an
extra (``extra="allow"``), so a manifest read and written back loses nothing.

Resource values are kept *as read* (the JSON scalar: a string, or an int/float for an
unquoted YAML number) rather than parsed, because the API server reports an unparsable
quantity as an error at its field path and we must be able to do the same. Parsing,
canonical printing and validation happen in ``quantity`` and ``validation``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# A JSON scalar as it appears in a ResourceList: "500m", 2, 0.5 (see Quantity.from_json).
ResourceValue = str | int | float | bool | None
ResourceList = dict[str, ResourceValue]

COMPUTE_RESOURCES = ("cpu", "memory")


class K8sModel(BaseModel):
    """Base: camelCase aliases as in the Kubernetes API, unknown fields kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False)

    def manifest(self) -> dict[str, Any]:
        """The object as a Kubernetes manifest dict (camelCase, unset fields omitted)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class ContainerResourceClaim(K8sModel):
    """A container's ``resources.claims[]`` entry (core/v1 ResourceClaim, Kubernetes 1.34):
    the pod claim it uses (``name``, one of ``spec.resourceClaims[].name``) and, optionally,
    one request of that claim (``request``; with firstAvailable, the parent request)."""

    name: str | None = None
    request: str | None = None


class ResourceRequirements(K8sModel):
    requests: ResourceList | None = None
    limits: ResourceList | None = None
    # Dynamic Resource Allocation (resource.k8s.io/v1, GA in 1.34). Only containers may set
    # it: at pod level the API server forbids it.
    claims: list[ContainerResourceClaim] | None = None


class Container(K8sModel):
    name: str | None = None
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    resources: ResourceRequirements | None = None
    # Only init containers may set it, and only to "Always": that makes a native sidecar.
    restart_policy: str | None = Field(default=None, alias="restartPolicy")

    @property
    def requests(self) -> ResourceList:
        return (self.resources.requests if self.resources else None) or {}

    @property
    def limits(self) -> ResourceList:
        return (self.resources.limits if self.resources else None) or {}

    @property
    def claims(self) -> list[ContainerResourceClaim]:
        """The DRA claims this container uses (``resources.claims``)."""
        return (self.resources.claims if self.resources else None) or []

    @property
    def is_sidecar(self) -> bool:
        """True for an init container that is a native sidecar (KEP-753)."""
        return self.restart_policy == "Always"


class ObjectMeta(K8sModel):
    name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None


class PodResourceClaim(K8sModel):
    """A pod's ``spec.resourceClaims[]`` entry (core/v1 PodResourceClaim, Kubernetes 1.34):
    a name the containers refer to and exactly one source, a ResourceClaim shared by every
    pod that names it or a ResourceClaimTemplate from which each pod gets its own claim."""

    name: str | None = None
    resource_claim_name: str | None = Field(default=None, alias="resourceClaimName")
    resource_claim_template_name: str | None = Field(
        default=None, alias="resourceClaimTemplateName"
    )


class PodSpec(K8sModel):
    containers: list[Container] = Field(default_factory=list)
    init_containers: list[Container] | None = Field(default=None, alias="initContainers")
    # Pod-level resources (KEP-2837, beta and on by default since 1.34).
    resources: ResourceRequirements | None = None
    overhead: ResourceList | None = None
    restart_policy: str | None = Field(default=None, alias="restartPolicy")
    priority_class_name: str | None = Field(default=None, alias="priorityClassName")
    node_selector: dict[str, str] | None = Field(default=None, alias="nodeSelector")
    tolerations: list[dict[str, Any]] | None = None
    volumes: list[dict[str, Any]] | None = None
    resource_claims: list[PodResourceClaim] | None = Field(default=None, alias="resourceClaims")

    @property
    def init_list(self) -> list[Container]:
        return self.init_containers or []

    def all_containers(self) -> list[tuple[str, Container]]:
        """Every container with its field path relative to the pod spec, init first."""
        return [(f"initContainers[{i}]", c) for i, c in enumerate(self.init_list)] + [
            (f"containers[{i}]", c) for i, c in enumerate(self.containers)
        ]


class Pod(K8sModel):
    api_version: str = Field(default="v1", alias="apiVersion")
    kind: str = "Pod"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodSpec = Field(default_factory=PodSpec)
