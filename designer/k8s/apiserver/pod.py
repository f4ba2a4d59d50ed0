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
  ``validatePodResourceClaims`` and each container's ``validateResourceClaimNames`` (Dynamic
  Resource Allocation, in pod_claims.py),
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

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from designer.k8s.apiserver.defaults import pod_with_defaults
from designer.k8s.apiserver.pod_claims import (
    gather_pod_claim_names,
    validate_container_claims,
    validate_pod_resource_claims,
)
from designer.k8s.apiserver.resources import (
    MSG_NEGATIVE,
    _ParsedList,
    validate_pod_resource_name,
    validate_resource_requirements,
)
from designer.k8s.apiserver.versions import LATEST, ClusterVersion
from designer.k8s.core import (
    Container,
    FieldError,
    FieldWarning,
    Pod,
    PodSpec,
    Quantity,
    ResourceRequirements,
    Unquoted,
    aggregate_container_resources,
    child,
    duplicate,
    forbidden,
    go_quote,
    go_scaled_value,
    index,
    invalid,
    is_config_map_key,
    is_dns1123_label,
    is_env_var_name,
    is_qualified_name,
    is_relaxed_env_var_name,
    is_supported_pod_level_resource,
    is_valid_label_value,
    is_valid_port_name,
    is_valid_port_num,
    key,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_found,
    not_supported,
    regex_error,
    required,
)

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
MSG_NAME_REQUIRED = "name or generateName is required"
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


@dataclass(frozen=True)
class ValidationResult:
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[FieldWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


# --- metadata ------------------------------------------------------------------------------


def validate_labels(labels: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """unversionedvalidation.ValidateLabels: every key a qualified name, values label values."""
    errs: list[FieldError] = []
    for k, v in (labels or {}).items():
        k = k if isinstance(k, str) else str(k)  # a caller's map (the reader's keys are str)
        errs += [invalid(path, k, msg) for msg in is_qualified_name(k)]
        text = v if isinstance(v, str) else str(v)
        errs += [invalid(path, text, msg) for msg in is_valid_label_value(text)]
    return errs


TOTAL_ANNOTATION_SIZE = 256 * (1 << 10)  # TotalAnnotationSizeLimitB


def validate_annotations(
    annotations: Any, path: str, version: ClusterVersion = LATEST
) -> list[FieldError]:
    """ValidateAnnotations: each key a qualified name (case does not matter), and the keys
    and values together at most 256 KiB."""
    if not isinstance(annotations, dict):
        return []
    errs: list[FieldError] = []
    size = 0
    for name, value in annotations.items():
        name = str(name)
        errs += [invalid(path, name, m) for m in is_qualified_name(name.lower())]
        size += len(name.encode()) + len(str(value).encode())
    if size > TOTAL_ANNOTATION_SIZE:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE, version))
    return errs


def too_long(path: str, most: int, version: ClusterVersion = LATEST) -> FieldError:
    """field.TooLong (and, from 1.32, TooLongMaxLength, which became it): ``Too long: must
    have at most N bytes`` before 1.32, ``Too long: may not be more than N bytes`` from
    1.32 on (kubernetes#128553); the value is never printed."""
    if version.has("too_long_wording"):
        message = f"may not be more than {most} bytes"
    else:
        message = f"must have at most {most} bytes"
    return FieldError(path, "FieldValueTooLong", message, "")


MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
MSG_MIRROR_NEEDS_NODE = "must set spec.nodeName if mirror pod annotation is set"
MSG_DELETION_COST = "must be a 32bit integer"
_DELETION_COST = re.compile(r"(?:-[0-9]+|0|[1-9][0-9]*)")


def validate_pod_specific_annotations(
    annotations: Mapping[str, Any] | None, pod: Pod, path: str
) -> list[FieldError]:
    """ValidatePodSpecificAnnotations, the parts that apply to current pods: a mirror pod
    must name its node, and a pod deletion cost (the ReplicaSet controller's scale-down
    order) must be what GetDeletionCostFromPodAnnotations reads: no '+', no leading zero,
    strconv.ParseInt(value, 10, 32)."""
    annotations = annotations or {}
    errs: list[FieldError] = []
    if MIRROR_POD_ANNOTATION in annotations and not _extra(pod.spec).get("nodeName"):
        where = key(path, MIRROR_POD_ANNOTATION)
        errs.append(invalid(where, annotations[MIRROR_POD_ANNOTATION], MSG_MIRROR_NEEDS_NODE))
    if POD_DELETION_COST in annotations:
        cost = annotations[POD_DELETION_COST]
        ok = isinstance(cost, str) and _DELETION_COST.fullmatch(cost) is not None
        if not ok or not -(2**31) <= int(cost) < 2**31:
            errs.append(invalid(key(path, POD_DELETION_COST), cost, MSG_DELETION_COST))
    return errs


def validate_object_meta(pod: Pod, path: str, version: ClusterVersion = LATEST) -> list[FieldError]:
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
    errs += validate_annotations(meta.annotations, child(path, "annotations"), version)
    return errs


# --- containers ----------------------------------------------------------------------------


def _extra(model: Any) -> dict[str, Any]:
    return getattr(model, "model_extra", None) or {}


def _objects(values: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The mappings of a list with their paths (``path[i]``); any other item, or a value
    that is not a list, is left to the decoder (the API server refuses it first)."""
    for i, value in enumerate(values if isinstance(values, list) else ()):
        if isinstance(value, dict):
            yield index(path, i), value


def _text(obj: Mapping[str, Any], name: str) -> Any:
    """A string field as Go reads it: unset or null is ""; a value of another type is
    returned as it is (for the caller to leave to the decoder)."""
    value = obj.get(name)
    return "" if value is None else value


def _set(model: Any, name: str) -> bool:
    """The manifest sets the (untyped) field to something other than null/empty."""
    value = _extra(model).get(name)
    return value is not None and value != {} and value != []


def validate_container_common(
    c: Container,
    path: str,
    original: Container | None,
    claim_names: set[str] | None = None,
    version: ClusterVersion = LATEST,
    volumes: set[str] | None = None,
) -> list[FieldError]:
    """validateContainerCommon: name, image, policies, resources (the parts we model);
    ``claim_names`` are the pod's ``spec.resourceClaims`` names (gatherPodResourceClaimNames)."""
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
    ports = _extra(c).get("ports")
    if isinstance(ports, list):
        errs += validate_container_ports(ports, child(path, "ports"))
    env = _extra(c).get("env")
    if isinstance(env, list):
        errs += validate_env(env, child(path, "env"), version)
    env_from = _extra(c).get("envFrom")
    if isinstance(env_from, list):
        errs += validate_env_from(env_from, child(path, "envFrom"), version)
    mounts = _extra(c).get("volumeMounts")
    if isinstance(mounts, list):
        errs += validate_volume_mounts(mounts, volumes, child(path, "volumeMounts"))
    pull = _extra(c).get("imagePullPolicy")
    if pull and pull not in SUPPORTED_PULL_POLICIES:
        errs.append(not_supported(child(path, "imagePullPolicy"), pull, SUPPORTED_PULL_POLICIES))
    errs += validate_resource_requirements(
        c.resources,
        child(path, "resources"),
        original=original.resources if original is not None else None,
    )
    # validateResourceRequirements ends with validateResourceClaimNames.
    errs += validate_container_claims(
        c.claims, claim_names or set(), child(path, "resources", "claims")
    )
    return errs


# validateEnvVarValueFrom's resourceFieldRef: the resources a container's env may read
# (validContainerResourceFieldPathExpressions, as sets.List prints it) and the hugepages
# prefixes; the divisors each resource allows (validateContainerResourceDivisor).
ENV_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
ENV_RESOURCE_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
MSG_HUGEPAGES_DIVISOR = (
    "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
    "supported with the hugepages resource"
)
_BYTE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
_DIVISORS = {
    "cpu": (("1m", "1"), "only divisor's values 1m and 1 are supported with the cpu resource"),
    "memory": (
        _BYTE_DIVISORS,
        "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
        "supported with the memory resource",
    ),
    "ephemeral-storage": (
        _BYTE_DIVISORS,
        "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
        "supported with the local ephemeral storage resource",
    ),
}
_ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")
MSG_ENV_NO_SOURCE = (
    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
)
MSG_ENV_VALUE_AND_SOURCE = "may not be specified when `value` is not empty"
MSG_ENV_TWO_SOURCES = "may not have more than one field specified at a time"


def validate_env(env: list[Any], path: str, version: ClusterVersion = LATEST) -> list[FieldError]:
    """ValidateEnv: each name (RelaxedEnvironmentVariableValidation from 1.32: any printable
    ASCII but '='), then validateEnvVarValueFrom: one source, not beside a value; of the
    sources, a resourceFieldRef's resource and divisor and the key selectors' names and
    keys are checked (a fieldRef's path is not). A field of the wrong type is left to the
    decoder."""
    errs: list[FieldError] = []
    relaxed = version.has("relaxed_env_var_names")
    for at, var in _objects(env, path):
        name = _text(var, "name")
        if isinstance(name, str):
            if not name:
                errs.append(required(child(at, "name")))
            else:
                check = is_relaxed_env_var_name if relaxed else is_env_var_name
                errs += [invalid(child(at, "name"), name, m) for m in check(name)]
        source = var.get("valueFrom")
        if isinstance(source, dict):
            errs += _env_value_from(var, source, child(at, "valueFrom"))
    return errs


MSG_ENV_FROM_NO_SOURCE = "must specify one of: `configMapRef` or `secretRef`"


def validate_env_from(
    env_from: list[Any], path: str, version: ClusterVersion = LATEST
) -> list[FieldError]:
    """ValidateEnvFrom: a prefix is an env var name (by the release, as ValidateEnv), one of
    configMapRef / secretRef with a name (a DNS subdomain, a trailing '-' allowed:
    ValidateConfigMapName(name, true)). Go reports a missing or second source at the list's
    path, not the item's (TestValidateEnvFrom)."""
    errs: list[FieldError] = []
    check = is_relaxed_env_var_name if version.has("relaxed_env_var_names") else is_env_var_name
    for at, source in _objects(env_from, path):
        prefix = source.get("prefix")
        if isinstance(prefix, str) and prefix:
            errs += [invalid(child(at, "prefix"), prefix, m) for m in check(prefix)]
        refs = [k for k in ("configMapRef", "secretRef") if isinstance(source.get(k), dict)]
        for k in refs:
            name = source[k].get("name") or ""
            if not isinstance(name, str):
                continue
            if not name:
                errs.append(required(child(at, k, "name")))
            else:
                problems = name_is_dns_subdomain(name, prefix=True)
                errs += [invalid(child(at, k, "name"), name, m) for m in problems]
        if not refs:
            errs.append(invalid(path, "", MSG_ENV_FROM_NO_SOURCE))
        elif len(refs) > 1:
            errs.append(invalid(path, "", MSG_ENV_TWO_SOURCES))
    return errs


def _env_value_from(var: dict[str, Any], source: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    sources = [k for k in _ENV_SOURCES if isinstance(source.get(k), dict)]
    for k in sources:
        ref, at = source[k], child(path, k)
        if k == "fieldRef" and not ref.get("fieldPath"):
            # validateObjectFieldSelector (apiVersion is defaulted to v1 first); which
            # paths the downward API offers is not checked.
            errs.append(required(child(at, "fieldPath")))
        elif k == "resourceFieldRef":
            errs += _resource_field_ref(ref, at)
        elif k in ("configMapKeyRef", "secretKeyRef"):
            errs += _key_selector(ref, at)
    value = var.get("value")
    if not sources:
        errs.append(invalid(path, "", MSG_ENV_NO_SOURCE))
    elif isinstance(value, str) and value:
        errs.append(invalid(path, "", MSG_ENV_VALUE_AND_SOURCE))
    elif len(sources) > 1:
        errs.append(invalid(path, "", MSG_ENV_TWO_SOURCES))
    return errs


def _resource_field_ref(ref: dict[str, Any], path: str) -> list[FieldError]:
    """validateContainerResourceFieldSelector(volume=false) and the divisor's check."""
    errs: list[FieldError] = []
    resource = ref.get("resource") or ""
    if not isinstance(resource, str):
        return errs
    if not resource:
        errs.append(required(child(path, "resource")))
    elif resource not in ENV_RESOURCE_FIELDS and not resource.startswith(ENV_RESOURCE_PREFIXES):
        errs.append(not_supported(child(path, "resource"), resource, ENV_RESOURCE_FIELDS))
    divisor = ref.get("divisor")
    if divisor is None:
        return errs
    try:
        parsed = Quantity.from_json(divisor)
    except (TypeError, ValueError):
        return errs  # the decoder refuses it first
    if resource.startswith(ENV_RESOURCE_PREFIXES):
        allowed = (_BYTE_DIVISORS, MSG_HUGEPAGES_DIVISOR)
    elif resource in ENV_RESOURCE_FIELDS:
        allowed = _DIVISORS[resource.partition(".")[2]]
    else:
        return errs
    if parsed.is_zero():
        return errs
    if parsed.canonical() not in allowed[0]:
        errs.append(invalid(child(path, "divisor"), resource, allowed[1]))
    return errs


def _key_selector(ref: dict[str, Any], path: str) -> list[FieldError]:
    """validateConfigMapKeySelector / validateSecretKeySelector: the name (a DNS subdomain,
    checked even when empty) and the key."""
    errs: list[FieldError] = []
    name = ref.get("name") or ""
    if isinstance(name, str):
        errs += [invalid(child(path, "name"), name, m) for m in name_is_dns_subdomain(name)]
    ref_key = ref.get("key") or ""
    if isinstance(ref_key, str):
        if not ref_key:
            errs.append(required(child(path, "key")))
        else:
            errs += [invalid(child(path, "key"), ref_key, m) for m in is_config_map_key(ref_key)]
    return errs


# validateVolumeSource's sources in its order, each with the path Go's "more than 1" error
# names (two of them are not the JSON name: fldPath.Child("cephFS"), ("downwarAPI")).
VOLUME_SOURCES = (
    ("emptyDir", "emptyDir"),
    ("hostPath", "hostPath"),
    ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"),
    ("rbd", "rbd"),
    ("cinder", "cinder"),
    ("cephfs", "cephFS"),
    ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("configMap", "configMap"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("storageos", "storageos"),
    ("projected", "projected"),
    ("scaleIO", "scaleIO"),
    ("csi", "csi"),
    ("ephemeral", "ephemeral"),
    ("image", "image"),
)
MSG_NO_VOLUME_TYPE = "must specify a volume type"
MSG_TWO_VOLUME_TYPES = "may not specify more than 1 volume type"
MSG_SIZE_LIMIT = "SizeLimit field must be a valid resource quantity"


def validate_volumes(volumes: Any, path: str) -> tuple[set[str], list[FieldError]]:
    """ValidateVolumes, the parts we model: one source per volume (an emptyDir's sizeLimit
    not negative, a hostPath's path and a claim's name required; other sources' own fields
    are not checked), a DNS-label name once. Returns the names a mount may use: a volume
    with an error is not one (as in Go)."""
    names: set[str] = set()
    errs: list[FieldError] = []
    for at, volume in _objects(volumes, path):
        found = _volume_source(volume, at)
        name = _text(volume, "name")
        if not isinstance(name, str):
            continue
        if not name:
            found.append(required(child(at, "name")))
        else:
            found += [invalid(child(at, "name"), name, m) for m in is_dns1123_label(name)]
        if name in names:
            found.append(duplicate(child(at, "name"), name))
        if found:
            errs += found
        else:
            names.add(name)
    return names, errs


def _volume_source(volume: dict[str, Any], path: str) -> list[FieldError]:
    """validateVolumeSource: the first source counts (emptyDir is never "more than 1": Go
    checks it first without asking), each later one is forbidden."""
    errs: list[FieldError] = []
    count = 0
    for source_key, forbidden_at in VOLUME_SOURCES:
        source = volume.get(source_key)
        if source is None:
            continue
        if count:
            errs.append(forbidden(child(path, forbidden_at), MSG_TWO_VOLUME_TYPES))
            continue
        count += 1
        source = source if isinstance(source, dict) else {}
        if source_key == "emptyDir":
            limit = source.get("sizeLimit")
            try:
                negative = limit is not None and Quantity.from_json(limit).sign() < 0
            except (TypeError, ValueError):
                negative = False  # the decoder refuses it first
            if negative:
                errs.append(forbidden(child(path, "emptyDir", "sizeLimit"), MSG_SIZE_LIMIT))
        elif source_key == "hostPath" and not source.get("path"):
            errs.append(required(child(path, "hostPath", "path")))
        elif source_key == "persistentVolumeClaim" and not source.get("claimName"):
            errs.append(required(child(path, "persistentVolumeClaim", "claimName")))
    if not count:
        errs.append(required(path, MSG_NO_VOLUME_TYPE))
    return errs


def validate_volume_mounts(
    mounts: list[Any], volumes: set[str] | None, path: str
) -> list[FieldError]:
    """ValidateVolumeMounts, the parts we model: a mount names a volume of the pod (None:
    the volumes are not all known, the name is not looked up) and a mount path, each path
    once per container."""
    errs: list[FieldError] = []
    paths: set[str] = set()
    for at, mount in _objects(mounts, path):
        name = _text(mount, "name")
        mount_path = _text(mount, "mountPath")
        if not isinstance(name, str) or not isinstance(mount_path, str):
            continue
        if not name:
            errs.append(required(child(at, "name")))
        if volumes is not None and name not in volumes:
            errs.append(not_found(child(at, "name"), name))
        if not mount_path:
            errs.append(required(child(at, "mountPath")))
        if mount_path in paths:
            errs.append(invalid(child(at, "mountPath"), mount_path, "must be unique"))
        paths.add(mount_path)
    return errs


# supportedPortProtocols, as sets.List prints it (sorted).
SUPPORTED_PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")


def validate_container_ports(ports: list[Any], path: str) -> list[FieldError]:
    """validateContainerPorts: a name (IANA service name, once per container), the port
    (required: 0 is unset), a host port, the protocol (defaulted to TCP); a field of the
    wrong type is left to the decoder."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for at, port in _objects(ports, path):
        name = port.get("name")
        if isinstance(name, str) and name:
            problems = is_valid_port_name(name)
            errs += [invalid(child(at, "name"), name, m) for m in problems]
            if not problems and name in names:
                errs.append(duplicate(child(at, "name"), name))
            names.add(name)
        for field_name in ("containerPort", "hostPort"):
            number = port.get(field_name)
            if isinstance(number, bool) or not isinstance(number, int | None):
                continue
            if not number:
                if field_name == "containerPort":
                    errs.append(required(child(at, field_name)))
                continue
            errs += [invalid(child(at, field_name), number, m) for m in is_valid_port_num(number)]
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol and protocol not in SUPPORTED_PORT_PROTOCOLS:
            errs.append(not_supported(child(at, "protocol"), protocol, SUPPORTED_PORT_PROTOCOLS))
    return errs


def validate_containers(
    spec: PodSpec,
    original: PodSpec,
    path: str,
    claim_names: set[str] | None = None,
    version: ClusterVersion = LATEST,
    volumes: set[str] | None = None,
) -> tuple[list[FieldError], list[str]]:
    """validateContainers; also returns every name seen (for the init/ephemeral checks)."""
    if not spec.containers:
        return [required(path)], []
    errs: list[FieldError] = []
    names: list[str] = []
    for i, c in enumerate(spec.containers):
        p = index(path, i)
        errs += validate_container_common(
            c, p, _nth(original.containers, i), claim_names, version, volumes
        )
        name = c.name or ""
        # Unique among app containers; collisions with init/ephemeral names are reported
        # on those (so no error is reported twice).
        if name in names:
            errs.append(duplicate(child(p, "name"), name))
        else:
            names.append(name)
        errs += validate_lifecycle(c, p)
        errs += validate_probes(c, p)
        if c.restart_policy is not None:
            errs.append(forbidden(child(p, "restartPolicy"), MSG_NOT_FOR_NON_INIT))
    errs += _host_port_conflicts(spec.containers, path)
    return errs, names


MSG_NO_HANDLER = "must specify a handler type"
MSG_TWO_HANDLERS = "may not specify more than 1 handler type"
# A probe's handlers in validateHandler's order; HTTP schemes as sets.List prints them.
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
HTTP_SCHEMES = ("HTTP", "HTTPS")
# SetDefaults_Probe: what 0 (or unset) becomes before validation.
PROBE_DEFAULTS = {
    "timeoutSeconds": 1,
    "periodSeconds": 10,
    "successThreshold": 1,
    "failureThreshold": 3,
}
_PROBE_COUNTS = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
)
_HTTP_HEADER_NAME = re.compile(r"[-A-Za-z0-9]+")


def validate_probes(c: Container, path: str) -> list[FieldError]:
    """validateLivenessProbe, validateReadinessProbe, validateStartupProbe (an app container's
    or a sidecar's): validateProbe's handler and counts, then what each kind adds. A field
    of the wrong type is left to the decoder."""
    errs: list[FieldError] = []
    extra = _extra(c)
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = extra.get(kind)
        if not isinstance(probe, dict):
            continue
        at = child(path, kind)
        errs += _probe_handler(probe, at)
        counts = {k: _int(probe.get(k)) for k in _PROBE_COUNTS}
        for k, value in counts.items():
            if value is not None and not value and k in PROBE_DEFAULTS:
                counts[k] = PROBE_DEFAULTS[k]
        for k, value in counts.items():
            if value is not None and value < 0:
                errs.append(invalid(child(at, k), value, MSG_NEGATIVE))
        grace = _int(probe.get("terminationGracePeriodSeconds"))
        if grace is not None and grace <= 0:
            where = child(at, "terminationGracePeriodSeconds")
            errs.append(invalid(where, grace, "must be greater than 0"))
        success = counts["successThreshold"]
        if kind != "readinessProbe" and success is not None and success != 1:
            errs.append(invalid(child(at, "successThreshold"), success, "must be 1"))
        if kind == "readinessProbe" and grace is not None:
            where = child(at, "terminationGracePeriodSeconds")
            errs.append(invalid(where, grace, "must not be set for readinessProbes"))
    return errs


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")


def validate_lifecycle(c: Container, path: str) -> list[FieldError]:
    """validateLifecycle: postStart and preStop through validateHandler (exec, httpGet,
    tcpSocket, sleep; a sleep's seconds against the grace period are not checked)."""
    lifecycle = _extra(c).get("lifecycle")
    if not isinstance(lifecycle, dict):
        return []
    errs: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if isinstance(handler, dict):
            errs += _probe_handler(handler, child(path, "lifecycle", hook), LIFECYCLE_HANDLERS)
    return errs


def _probe_handler(
    probe: dict[str, Any], path: str, handlers: tuple[str, ...] = PROBE_HANDLERS
) -> list[FieldError]:
    """validateHandler over a probe's (or a hook's) handlers: exactly one, each action
    checked."""
    errs: list[FieldError] = []
    count = 0
    for name in handlers:
        action = probe.get(name)
        if action is None:
            continue
        at = child(path, name)
        if count:
            errs.append(forbidden(at, MSG_TWO_HANDLERS))
            continue
        count += 1
        action = action if isinstance(action, dict) else {}
        if name == "exec" and not action.get("command"):
            errs.append(required(child(at, "command")))
        elif name in ("httpGet", "tcpSocket"):
            errs += _port_num_or_name(action.get("port"), child(at, "port"))
            scheme = action.get("scheme") or "HTTP"
            if name == "httpGet" and isinstance(scheme, str) and scheme not in HTTP_SCHEMES:
                errs.append(not_supported(child(at, "scheme"), scheme, HTTP_SCHEMES))
            headers = action.get("httpHeaders") if name == "httpGet" else None
            for header in headers if isinstance(headers, list) else []:
                header_name = header.get("name") if isinstance(header, dict) else None
                if isinstance(header_name, str) and not _HTTP_HEADER_NAME.fullmatch(header_name):
                    # Go: field.Invalid(fldPath.Child("httpHeaders"), header.Name, msg).
                    where = child(at, "httpHeaders")
                    errs.append(invalid(where, header_name, MSG_HTTP_HEADER_NAME))
        elif name == "grpc":
            # validateGRPCAction: ValidatePortNumOrName(intstr.FromInt32(port)); unset is 0.
            raw = action.get("port")
            port = 0 if raw is None else _int(raw)
            if port is not None:
                errs += [invalid(child(at, "port"), port, m) for m in is_valid_port_num(port)]
    if not count:
        errs.append(required(path, MSG_NO_HANDLER))
    return errs


# validation.IsHTTPHeaderName.
MSG_HTTP_HEADER_NAME = regex_error(
    "a valid HTTP header must consist of alphanumeric characters or '-'",
    _HTTP_HEADER_NAME.pattern,
    "X-Header-Name",
)


def _port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """ValidatePortNumOrName (an IntOrString)."""
    if isinstance(port, str):
        return [invalid(path, port, m) for m in is_valid_port_name(port)]
    number = _int(port)
    if number is None:
        number = 0 if port is None else None
    if number is None:
        return []
    return [invalid(path, number, m) for m in is_valid_port_num(number)]


def _host_port_conflicts(containers: list[Container], path: str) -> list[FieldError]:
    """checkHostPortConflicts: one host port per protocol and host IP among the containers
    (the protocol defaulted to TCP, as the server has it when it validates)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for ci, c in enumerate(containers):
        ports = _extra(c).get("ports")
        for pi, port in enumerate(ports if isinstance(ports, list) else []):
            host_port = port.get("hostPort") if isinstance(port, dict) else None
            if isinstance(host_port, bool) or not isinstance(host_port, int) or not host_port:
                continue
            taken = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host_port}"
            if taken in seen:
                where = child(index(child(index(path, ci), "ports"), pi), "hostPort")
                errs.append(duplicate(where, taken))
            seen.add(taken)
    return errs


def validate_init_containers(
    spec: PodSpec,
    original: PodSpec,
    path: str,
    app_names: list[str],
    claim_names: set[str] | None = None,
    version: ClusterVersion = LATEST,
    volumes: set[str] | None = None,
) -> list[FieldError]:
    """validateInitContainers: sidecars (restartPolicy: Always) and plain init containers."""
    errs: list[FieldError] = []
    names = list(app_names)
    for i, c in enumerate(spec.init_list):
        p = index(path, i)
        errs += validate_container_common(
            c, p, _nth(original.init_list, i), claim_names, version, volumes
        )
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
        # checkHostPortConflicts([]core.Container{ctr}, fldPath): one container at a time, so
        # Go names it initContainers[0] whichever it is.
        errs += _host_port_conflicts([c], path)
        if sidecar:
            errs += validate_lifecycle(c, p)
            errs += validate_probes(c, p)
        else:
            # Probes and lifecycle hooks only make sense for a container that keeps running.
            for fld in SIDECAR_ONLY_FIELDS:
                if _extra(c).get(fld) is not None:
                    errs.append(forbidden(child(p, fld), MSG_NOT_FOR_PLAIN_INIT))
    return errs


def validate_ephemeral_containers(
    spec: PodSpec,
    path: str,
    claim_names: set[str] | None = None,
    version: ClusterVersion = LATEST,
    volumes: set[str] | None = None,
) -> list[FieldError]:
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
        errs += validate_container_common(c, p, c, claim_names, version, volumes)
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
    if res.claims is not None:  # Go: Claims != nil, so an empty list too
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


def validate_pod_spec(
    pod: Pod,
    original: Pod,
    path: str,
    version: ClusterVersion = LATEST,
    volumes_known: bool = True,
) -> list[FieldError]:
    """ValidatePodSpec, in its order, for the fields we model. ``volumes_known=False``: a
    controller adds volumes to the pods it makes from this template (JobSet's
    volumeClaimPolicies...), so a mount of a volume it lacks is not reported."""
    spec, orig = pod.spec, original.spec
    known, errs = validate_volumes(spec.volumes, child(path, "volumes"))
    volumes = known if volumes_known else None
    claim_names = gather_pod_claim_names(spec.resource_claims)
    errs += validate_pod_resource_claims(spec.resource_claims, child(path, "resourceClaims"))
    container_errs, app_names = validate_containers(
        spec, orig, child(path, "containers"), claim_names, version, volumes
    )
    errs += container_errs
    errs += validate_init_containers(
        spec, orig, child(path, "initContainers"), app_names, claim_names, version, volumes
    )
    errs += validate_ephemeral_containers(
        spec, child(path, "ephemeralContainers"), claim_names, version, volumes
    )
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
    extra = _extra(spec)
    errs += _validate_scheduling_gates(extra.get("schedulingGates"), child(path, "schedulingGates"))
    errs += _validate_names_and_deadline(extra, path)
    if spec.tolerations:
        errs += validate_tolerations(spec.tolerations, child(path, "tolerations"), version)
    if spec.priority_class_name:
        pc_path = child(path, "priorityClassName")
        errs += [
            invalid(pc_path, spec.priority_class_name, m)
            for m in name_is_dns_subdomain(spec.priority_class_name)
        ]
    runtime_class = extra.get("runtimeClassName")
    if isinstance(runtime_class, str):  # ValidateRuntimeClassName: set (even to "")
        rc_path = child(path, "runtimeClassName")
        errs += [invalid(rc_path, runtime_class, m) for m in name_is_dns_subdomain(runtime_class)]
    preemption = extra.get("preemptionPolicy")
    if preemption == "":
        errs.append(required(child(path, "preemptionPolicy")))
    elif isinstance(preemption, str) and preemption not in PREEMPTION_POLICIES:
        errs.append(not_supported(child(path, "preemptionPolicy"), preemption, PREEMPTION_POLICIES))
    if spec.overhead is not None:
        # validateOverhead reuses the container rules on {limits: overhead}: hence the
        # ``spec.overhead.limits[cpu]`` paths.
        errs += validate_resource_requirements(
            ResourceRequirements(limits=spec.overhead),
            child(path, "overhead"),
            original=ResourceRequirements(limits=orig.overhead),
        )
    return errs


# ValidatePodCreate: a pod is bound to its node only once nothing holds its scheduling.
MSG_NODE_NAME_WITH_GATES = "cannot be set until all schedulingGates have been cleared"
# ValidatePreemptionPolicy, in Go's order.
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _validate_scheduling_gates(gates: Any, path: str) -> list[FieldError]:
    """validateSchedulingGates: each name a qualified name, none twice (a gate whose name
    is not a string is left to the decoder)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for at, gate in _objects(gates, path):
        name = _text(gate, "name")
        if not isinstance(name, str):
            continue
        errs += [invalid(at, name, m) for m in is_qualified_name(name)]
        if name in seen:
            errs.append(duplicate(at, name))
        seen.add(name)
    return errs


MSG_ACTIVE_DEADLINE = f"must be between 1 and {2**31 - 1}, inclusive"  # InclusiveRangeError


def _validate_names_and_deadline(extra: Mapping[str, Any], path: str) -> list[FieldError]:
    """ValidatePodSpec's serviceAccountName and nodeName (DNS subdomains),
    activeDeadlineSeconds (1 to MaxInt32), hostname and subdomain (DNS labels), in its
    order; each only when set (``len(...) > 0``, ``!= nil``)."""
    errs: list[FieldError] = []
    for name in ("serviceAccountName", "nodeName"):
        value = extra.get(name)
        if name == "serviceAccountName" and not value:
            # Convert_v1_PodSpec_To_core_PodSpec: the deprecated serviceAccount fills it.
            value = extra.get("serviceAccount")
        if isinstance(value, str) and value:
            where = child(path, name)
            errs += [invalid(where, value, m) for m in name_is_dns_subdomain(value)]
    deadline = extra.get("activeDeadlineSeconds")
    in_range = isinstance(deadline, bool) or not isinstance(deadline, int) or 0 < deadline < 2**31
    if not in_range:
        errs.append(invalid(child(path, "activeDeadlineSeconds"), deadline, MSG_ACTIVE_DEADLINE))
    for name in ("hostname", "subdomain"):
        value = extra.get(name)
        if isinstance(value, str) and value:
            errs += [invalid(child(path, name), value, m) for m in is_dns1123_label(value)]
    return errs


MSG_TOLERATION_EMPTY_KEY = (
    'operator must be Exists when `key` is empty, which means "match all values and all keys"'
)
MSG_TOLERATION_SECONDS = "effect must be 'NoExecute' when `tolerationSeconds` is set"
MSG_TOLERATION_EXISTS_VALUE = "value must be empty when `operator` is 'Exists'"
TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_TOLERATION_FIELDS = ("key", "operator", "value", "effect")


def validate_tolerations(
    tolerations: list[Any], path: str, version: ClusterVersion = LATEST
) -> list[FieldError]:
    """ValidateTolerations, in its order, Go's paths included (a bad value and an Exists
    with a value are reported at ``[i].operator``; the latter prints the value from 1.32,
    the whole toleration before). A toleration whose fields are not strings is left to the
    decoder (the API server refuses it before validating)."""
    errs: list[FieldError] = []
    for at, toleration in _objects(tolerations, path):
        fields = [_text(toleration, name) for name in _TOLERATION_FIELDS]
        if not all(isinstance(f, str) for f in fields):
            continue
        tol_key, operator, value, effect = fields
        seconds = toleration.get("tolerationSeconds")
        if tol_key:
            errs += [invalid(child(at, "key"), tol_key, m) for m in is_qualified_name(tol_key)]
        if not tol_key and operator != "Exists":
            errs.append(invalid(child(at, "operator"), operator, MSG_TOLERATION_EMPTY_KEY))
        if seconds is not None and effect != "NoExecute":
            errs.append(invalid(child(at, "effect"), effect, MSG_TOLERATION_SECONDS))
        if operator in ("Equal", ""):
            problems = is_valid_label_value(value)
            if problems:
                errs.append(invalid(child(at, "operator"), value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                shown: Any = value
                if not version.has("toleration_exists_value"):
                    shown = _go_toleration(tol_key, operator, value, effect, seconds)
                errs.append(invalid(child(at, "operator"), shown, MSG_TOLERATION_EXISTS_VALUE))
        else:
            errs.append(not_supported(child(at, "operator"), operator, TOLERATION_OPERATORS))
        if effect and effect not in TAINT_EFFECTS:
            errs.append(not_supported(child(at, "effect"), effect, TAINT_EFFECTS))
    return errs


def _go_toleration(key_: str, operator: str, value: str, effect: str, seconds: Any) -> Unquoted:
    """``%#v`` of the internal core.Toleration (a set tolerationSeconds prints as its
    address, different on every request: shown as ``0xc000…``)."""
    pointer = "nil" if seconds is None else "0xc000…"
    return Unquoted(
        f"core.Toleration{{Key:{go_quote(key_)}, Operator:{go_quote(operator)}, "
        f"Value:{go_quote(value)}, Effect:{go_quote(effect)}, "
        f"TolerationSeconds:(*int64)({pointer})}}"
    )


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
    defaulted: Pod | None = None,
    version: ClusterVersion = LATEST,
    volumes_known: bool = True,
) -> ValidationResult:
    """Validate ``pod`` as ``kubectl apply`` would have the API server do it.

    ``template=True`` validates a pod template inside a workload (ValidatePodTemplateSpec):
    no name is required, labels are at ``<template>.labels`` (Go's path: when
    ``metadata_path`` is left at its default it is derived from ``spec_path``, e.g.
    ``spec.template.spec`` -> ``spec.template.labels``), and ephemeral containers are
    forbidden. Workload-specific rules (e.g. a Deployment's restartPolicy) are not checked.
    As the API server does, the *defaulted* pod is validated: pass ``defaulted`` when it is
    at hand (apiserver.pod_with_defaults), so it is computed once. ``volumes_known=False``:
    a controller adds volumes to the pods (validate_pod_spec).
    """
    if defaulted is None:
        defaulted = pod_with_defaults(pod)
    errors: list[FieldError] = []
    if template:
        base = metadata_path
        if metadata_path == "metadata" and spec_path.endswith(".spec"):
            base = spec_path[: -len(".spec")]
        errors += validate_labels(pod.metadata.labels, child(base, "labels"))
        annotations = pod.metadata.annotations
        errors += validate_annotations(annotations, child(base, "annotations"), version)
        errors += validate_pod_specific_annotations(annotations, pod, child(base, "annotations"))
        errors += validate_pod_spec(defaulted, pod, spec_path, version, volumes_known)
        if _set(defaulted.spec, "ephemeralContainers"):
            ephemeral = child(spec_path, "ephemeralContainers")
            errors.append(forbidden(ephemeral, MSG_EPHEMERAL_IN_TEMPLATE))
    else:
        # ValidatePodCreate -> validatePodMetadataAndSpec, then the create-only checks.
        errors += validate_object_meta(defaulted, metadata_path, version)
        errors += validate_pod_specific_annotations(
            pod.metadata.annotations, pod, child(metadata_path, "annotations")
        )
        errors += validate_pod_spec(defaulted, pod, spec_path, version, volumes_known)
        # validatePodMetadataAndSpec ends with validateContainersOnlyForPod; then
        # ValidatePodCreate's own checks.
        for list_path, containers in (
            (child(spec_path, "containers"), defaulted.spec.containers),
            (child(spec_path, "initContainers"), defaulted.spec.init_list),
        ):
            for i, c in enumerate(containers):
                errors += _container_only_for_pod(c, index(list_path, i))
        if _set(defaulted.spec, "ephemeralContainers"):
            ephemeral = child(spec_path, "ephemeralContainers")
            errors.append(forbidden(ephemeral, MSG_EPHEMERAL_ON_CREATE))
        extra = _extra(defaulted.spec)
        if extra.get("nodeName") and extra.get("schedulingGates"):
            errors.append(forbidden(child(spec_path, "nodeName"), MSG_NODE_NAME_WITH_GATES))
    return ValidationResult(errors=errors, warnings=pod_warnings(defaulted, spec_path))
