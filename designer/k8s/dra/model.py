"""Pydantic models of the resource.k8s.io/v1 objects (GA in Kubernetes 1.34; the same shapes
in 1.35): ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice.

Field names, JSON names and constants are those of staging/src/k8s.io/api/resource/v1/types.go.
Unknown fields are kept (``extra="allow"``), as in the Pod model, so an object read and
written back loses nothing. Integers and booleans are strict: the API server's JSON decoder
refuses ``count: "2"`` (a string) and ``count: 1.5``, and so do we, at the field's path.
``spec.devices.config[].opaque.parameters`` is kept as the JSON value it is (a RawExtension in
Go), so validation can measure and check it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictInt

from designer.k8s.core import K8sModel, ObjectMeta, ResourceValue

API_VERSION = "resource.k8s.io/v1"
GROUP = "resource.k8s.io"

# types.go constants (resource/v1, 1.34).
DEVICE_REQUESTS_MAX = 32  # DeviceRequestsMaxSize = AllocationResultsMaxSize
DEVICE_CONSTRAINTS_MAX = 32  # DeviceConstraintsMaxSize
DEVICE_CONFIG_MAX = 32  # DeviceConfigMaxSize
DEVICE_SELECTORS_MAX = 32  # DeviceSelectorsMaxSize
FIRST_AVAILABLE_MAX = 8  # FirstAvailableDeviceRequestMaxSize
DEVICE_TOLERATIONS_MAX = 16  # DeviceTolerationsMaxLength
CEL_MAX_LENGTH = 10 * 1024  # CELSelectorExpressionMaxLength
CEL_MAX_COST = 1_000_000  # CELSelectorExpressionMaxCost
OPAQUE_PARAMETERS_MAX = 10 * 1024  # OpaqueParametersMaxLength
DEVICE_MAX_DOMAIN_LENGTH = 63  # DeviceMaxDomainLength
DEVICE_MAX_ID_LENGTH = 32  # DeviceMaxIDLength
DRIVER_NAME_MAX_LENGTH = 63  # DriverNameMaxLength
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"  # ResourceDeviceClassPrefix

ALLOCATION_EXACT_COUNT = "ExactCount"
ALLOCATION_ALL = "All"
ALLOCATION_MODES = (ALLOCATION_ALL, ALLOCATION_EXACT_COUNT)  # the order Go lists them in


class CELDeviceSelector(K8sModel):
    expression: str | None = None


class DeviceSelector(K8sModel):
    cel: CELDeviceSelector | None = None


class DeviceToleration(K8sModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: StrictInt | None = Field(default=None, alias="tolerationSeconds")


class CapacityRequirements(K8sModel):
    """DRAConsumableCapacity (alpha in 1.34): how much of a shared device a request uses."""

    requests: dict[str, ResourceValue] | None = None


class _DeviceRequestFields(K8sModel):
    """What ExactDeviceRequest and DeviceSubRequest share."""

    device_class_name: str | None = Field(default=None, alias="deviceClassName")
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = Field(default=None, alias="allocationMode")
    count: StrictInt | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None

    @property
    def mode(self) -> str:
        """The allocation mode after defaulting (an empty mode becomes ExactCount)."""
        return self.allocation_mode or ALLOCATION_EXACT_COUNT

    @property
    def device_count(self) -> int | None:
        """Devices asked for after defaulting: ``count`` for ExactCount (1 when unset or 0:
        v1's int64 ``omitempty`` cannot tell them apart, and SetDefaults_ExactDeviceRequest
        makes it 1), None for All (every matching device)."""
        if self.mode == ALLOCATION_ALL:
            return None
        return self.count or 1

    @property
    def expressions(self) -> list[str]:
        return [s.cel.expression or "" for s in self.selectors or [] if s.cel is not None]


class ExactDeviceRequest(_DeviceRequestFields):
    admin_access: StrictBool | None = Field(default=None, alias="adminAccess")


class DeviceSubRequest(_DeviceRequestFields):
    """One alternative of ``firstAvailable`` (DRAPrioritizedList, beta in 1.34)."""

    name: str | None = None


class DeviceRequest(K8sModel):
    name: str | None = None
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = Field(default=None, alias="firstAvailable")

    def alternatives(self) -> list[_DeviceRequestFields]:
        """What the allocator may satisfy the request with, in order of preference."""
        if self.first_available:
            return list(self.first_available)
        return [self.exactly] if self.exactly is not None else []


class DeviceConstraint(K8sModel):
    requests: list[str] | None = None
    match_attribute: str | None = Field(default=None, alias="matchAttribute")
    distinct_attribute: str | None = Field(default=None, alias="distinctAttribute")


class OpaqueDeviceConfiguration(K8sModel):
    driver: str | None = None
    parameters: Any = None


class DeviceClaimConfiguration(K8sModel):
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaim(K8sModel):
    requests: list[DeviceRequest] | None = None
    constraints: list[DeviceConstraint] | None = None
    config: list[DeviceClaimConfiguration] | None = None


class ResourceClaimSpec(K8sModel):
    devices: DeviceClaim | None = None

    @property
    def requests(self) -> list[DeviceRequest]:
        return (self.devices.requests if self.devices else None) or []


class ResourceClaim(K8sModel):
    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    kind: str = "ResourceClaim"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplateSpec(K8sModel):
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(K8sModel):
    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    kind: str = "ResourceClaimTemplate"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = Field(default_factory=ResourceClaimTemplateSpec)


class DeviceClassConfiguration(K8sModel):
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(K8sModel):
    selectors: list[DeviceSelector] | None = None
    config: list[DeviceClassConfiguration] | None = None
    # DRAExtendedResource (alpha in 1.34): pods requesting this extended resource may be
    # served by devices of the class.
    extended_resource_name: str | None = Field(default=None, alias="extendedResourceName")


class DeviceClass(K8sModel):
    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    kind: str = "DeviceClass"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = Field(default_factory=DeviceClassSpec)

    @property
    def expressions(self) -> list[str]:
        return [s.cel.expression or "" for s in self.spec.selectors or [] if s.cel is not None]


# --- ResourceSlice ---------------------------------------------------------------------------


class DeviceAttribute(K8sModel):
    """Exactly one of int, bool, string, version (a semantic version)."""

    int_: StrictInt | None = Field(default=None, alias="int")
    bool_: StrictBool | None = Field(default=None, alias="bool")
    string: str | None = None
    version: str | None = None


class DeviceCapacity(K8sModel):
    value: ResourceValue = None
    # DRAConsumableCapacity (alpha in 1.34): how a shared device's capacity is handed out.
    request_policy: dict[str, Any] | None = Field(default=None, alias="requestPolicy")


class DeviceTaint(K8sModel):
    key: str | None = None
    value: str | None = None
    effect: str | None = None


class DeviceCounterConsumption(K8sModel):
    counter_set: str | None = Field(default=None, alias="counterSet")
    counters: dict[str, DeviceCapacity] | None = None


class Device(K8sModel):
    name: str | None = None
    attributes: dict[str, DeviceAttribute] | None = None
    capacity: dict[str, DeviceCapacity] | None = None
    # DRAConsumableCapacity: a device several claims may share.
    allow_multiple_allocations: StrictBool | None = Field(
        default=None, alias="allowMultipleAllocations"
    )
    taints: list[DeviceTaint] | None = None
    # DRAPartitionableDevices (alpha): counters this device uses up in the slice's sets.
    consumes_counters: list[DeviceCounterConsumption] | None = Field(
        default=None, alias="consumesCounters"
    )
    # With spec.perDeviceNodeSelection: each device says where it is reachable.
    node_name: str | None = Field(default=None, alias="nodeName")
    node_selector: dict[str, Any] | None = Field(default=None, alias="nodeSelector")
    all_nodes: StrictBool | None = Field(default=None, alias="allNodes")


class ResourcePool(K8sModel):
    name: str | None = None
    generation: StrictInt | None = None
    resource_slice_count: StrictInt | None = Field(default=None, alias="resourceSliceCount")


class CounterSet(K8sModel):
    name: str | None = None
    counters: dict[str, DeviceCapacity] | None = None


class ResourceSliceSpec(K8sModel):
    driver: str | None = None
    pool: ResourcePool | None = None
    node_name: str | None = Field(default=None, alias="nodeName")
    node_selector: dict[str, Any] | None = Field(default=None, alias="nodeSelector")
    all_nodes: StrictBool | None = Field(default=None, alias="allNodes")
    per_device_node_selection: StrictBool | None = Field(
        default=None, alias="perDeviceNodeSelection"
    )
    devices: list[Device] | None = None
    shared_counters: list[CounterSet] | None = Field(default=None, alias="sharedCounters")


class ResourceSlice(K8sModel):
    api_version: str = Field(default=API_VERSION, alias="apiVersion")
    kind: str = "ResourceSlice"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = Field(default_factory=ResourceSliceSpec)


MODELS: dict[str, type[K8sModel]] = {
    "ResourceClaim": ResourceClaim,
    "ResourceClaimTemplate": ResourceClaimTemplate,
    "DeviceClass": DeviceClass,
    "ResourceSlice": ResourceSlice,
}
DRA_KINDS = tuple(MODELS)
