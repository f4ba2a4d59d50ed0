"""The cluster's Kubernetes version: what a pod's resources get on 1.31 ... 1.35.

One record per difference (``VERSION_DIFFERENCES``), each with the release that changed
the behaviour and its source (KEP, feature-gate table, changelog, code). The engine asks a
:class:`ClusterVersion` (``version.has("pod_level_resources")``) wherever an answer depends
on the release, and the version is passed down explicitly from the entry point (the CLI's
``--kubernetes-version``, the API's ``kubernetesVersion``). ``ClusterVersion(None)`` (what
every function gets when no version is passed) is the newest behaviour the engine models,
i.e. today's answers, fixes after 1.35 included.

DRA itself is built elsewhere; :func:`dra_api_version` and :func:`dra_api_versions` are the
version facts it can ask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer.k8s.core import gettext_noop

SUPPORTED_VERSIONS: tuple[str, ...] = ("1.31", "1.32", "1.33", "1.34", "1.35")
DEFAULT_VERSION = "1.35"  # the newest supported release: what no choice means
_VERSION_RE = re.compile(r"^v?1\.([0-9]+)(?:\.[0-9]+)?(?:[-+].*)?$", re.DOTALL)


@dataclass(frozen=True)
class VersionDifference:
    """One behaviour that changed inside (or right after) the supported range."""

    key: str
    topic: str  # gettext_noop
    since: str  # first release with the new behaviour ("1.36": none of the supported ones)
    before: str  # gettext_noop: the behaviour before ``since``
    after: str  # gettext_noop: the behaviour from ``since`` on
    source: str  # KEP / changelog / code the row is taken from (not translated)
    # Whether the engine's answers (defaulting, validation, QoS, admission) follow it, or
    # it is a fact the engine states (and other parts, e.g. DRA, can ask).
    engine: bool = True


VERSION_DIFFERENCES: tuple[VersionDifference, ...] = (
    VersionDifference(
        "pod_level_resources_field",
        gettext_noop("The spec.resources field"),
        "1.32",
        gettext_noop(
            "PodSpec has no resources field: kubectl apply (--validate=strict, its default) is "
            'refused with strict decoding error: unknown field "spec.resources"; with '
            "--validate=false the field is dropped."
        ),
        gettext_noop("The field exists, behind the PodLevelResources feature gate."),
        "KEP-2837 (alpha in 1.32, kubernetes#128407); kube_features.go PodLevelResources "
        "{1.32 Alpha false}",
    ),
    VersionDifference(
        "pod_level_resources",
        gettext_noop("Pod-level resources (spec.resources)"),
        "1.34",
        gettext_noop(
            "PodLevelResources is alpha and off by default: the API server drops spec.resources "
            "without a warning (dropDisabledPodLevelResources), so only container resources "
            "count for validation, QoS, scheduling, LimitRanger and quota."
        ),
        gettext_noop(
            "Beta and on by default: spec.resources is validated, decides the QoS class, "
            "replaces the containers' cpu/memory sums for the scheduler, LimitRanger's Pod "
            "limits and quota usage, and lets quota skip its per-container requirement."
        ),
        "KEP-2837; kube_features.go PodLevelResources {1.32 Alpha false}, {1.34 Beta true}; "
        "pkg/api/pod/util.go dropDisabledPodLevelResources; "
        "pkg/quota/v1/evaluator/core/pods.go; plugin/pkg/admission/limitranger/admission.go",
    ),
    VersionDifference(
        "pod_level_hugepages",
        gettext_noop("Pod-level hugepages"),
        "1.34",
        gettext_noop("Not available: spec.resources is dropped (see pod-level resources)."),
        gettext_noop(
            "hugepages-<size> is accepted in spec.resources; the containers' aggregated "
            "hugepage limits must not exceed it, and a missing pod-level hugepage limit "
            "defaults to them. LimitRanger's Pod limits still sum the containers' hugepages."
        ),
        "KEP-2837 §Hugepages; CHANGELOG-1.34 (API change: pod-level hugepage cgroups and "
        "validation); component-helpers IsSupportedPodLevelResource",
    ),
    VersionDifference(
        "pod_level_limit_defaulting",
        gettext_noop("Pod-level limits defaulted from containers"),
        "1.36",
        gettext_noop(
            "When spec.resources sets requests but no limits, the pod-level limits stay unset "
            "even if every container sets its limits (so the pod is not Guaranteed)."
        ),
        gettext_noop(
            "A missing pod-level cpu/memory limit defaults to the sum of the container limits "
            "when every container sets it (feature gate PodLevelResourcesFixUpdateDefaulting)."
        ),
        "kubernetes#136120; KEP-2837 §Fix for pod-level limits default logic (beta in 1.36)",
    ),
    VersionDifference(
        "qos_ignores_empty_pod_level",
        gettext_noop("QoS of an empty spec.resources"),
        "1.36",
        gettext_noop(
            "spec.resources: {} (or with empty requests/limits) takes the pod-level branch of "
            "the QoS computation, so container resources are ignored and the pod is BestEffort."
        ),
        gettext_noop(
            "Pod-level resources decide the QoS class only when they name a request or limit "
            "(feature gate PodLevelResourcesFixKubeletQOSClass)."
        ),
        "kubernetes#135082; kubernetes#137150 (merged 2026-02); KEP-2837 §Fix for Kubelet QoS "
        "Class Determination",
    ),
    VersionDifference(
        "in_place_resize",
        gettext_noop("In-place resize (resizePolicy)"),
        "1.33",
        gettext_noop(
            "InPlacePodVerticalScaling is alpha and off: the API server drops every "
            "container's resizePolicy; resources cannot change without recreating the pod."
        ),
        gettext_noop(
            "Beta and on by default (GA in 1.35): resizePolicy is kept and validated, and "
            "requests/limits can be resized through the pods/resize subresource."
        ),
        "KEP-1287 (alpha 1.27, beta 1.33, GA 1.35); kube_features.go InPlacePodVerticalScaling; "
        "pkg/api/pod/util.go dropDisabledPodFields",
    ),
    VersionDifference(
        "dra_v1",
        gettext_noop("Dynamic Resource Allocation API"),
        "1.34",
        gettext_noop(
            "No DRA API is served by default: resource.k8s.io/v1alpha3 (1.31), v1beta1 (1.32) "
            "and v1beta2 (1.33) must be enabled on the API server, with the "
            "DynamicResourceAllocation feature gate."
        ),
        gettext_noop("DRA is GA: resource.k8s.io/v1 is served and enabled by default."),
        "Kubernetes v1.34 release blog (DRA graduated to GA); KEP-4381",
        engine=False,
    ),
    VersionDifference(
        "sidecars",
        gettext_noop("Native sidecars (init containers with restartPolicy: Always)"),
        "1.29",
        gettext_noop("Not available."),
        gettext_noop(
            "Beta and on since 1.29, GA in 1.33: sidecars run beside the app containers and "
            "count in the pod's requests; no difference between 1.31 and 1.35."
        ),
        "KEP-753; kube_features.go SidecarContainers {1.29 Beta true}, {1.33 GA}",
    ),
    VersionDifference(
        "statefulset_max_unavailable",
        gettext_noop("A StatefulSet's spec.updateStrategy.rollingUpdate.maxUnavailable"),
        "1.35",
        gettext_noop(
            "MaxUnavailableStatefulSet is alpha and off: the API server drops the field before "
            "validation (dropStatefulSetDisabledFields) and updates one pod at a time."
        ),
        gettext_noop(
            "Beta and on by default: the field defaults to 1 and must be a positive number or "
            "percentage of at most 100%, not 0."
        ),
        "KEP-961; kube_features.go MaxUnavailableStatefulSet {1.24 Alpha false}, "
        "{1.35 Beta true}; pkg/registry/apps/statefulset/strategy.go",
    ),
    VersionDifference(
        "job_managed_by",
        gettext_noop("A Job's spec.managedBy"),
        "1.32",
        gettext_noop(
            "JobManagedBy is alpha and off: the API server drops the field when the Job is "
            "created, and the built-in Job controller runs the Job."
        ),
        gettext_noop(
            "Beta and on by default (GA in 1.35): the field is kept and must be a "
            "domain-prefixed path of at most 63 characters; another controller runs the Job."
        ),
        "KEP-4368; kube_features.go JobManagedBy {1.30 Alpha false}, {1.32 Beta true}, "
        "{1.35 GA}; pkg/registry/batch/job/strategy.go",
    ),
    VersionDifference(
        "too_long_wording",
        gettext_noop("The wording of a value that is too long"),
        "1.32",
        gettext_noop(
            'The API server says "Too long: must have at most 262144 bytes" (field.TooLong), '
            'or "may not be longer than 63" (field.TooLongMaxLength).'
        ),
        gettext_noop(
            'Both say "Too long: may not be more than 262144 bytes": TooLongMaxLength became '
            "TooLong, and neither prints the value."
        ),
        "kubernetes#128553 (Validation: merge TooLong and TooLongMaxLen, first in "
        "v1.32.0-alpha.3); apimachinery pkg/util/validation/field/errors.go",
    ),
    VersionDifference(
        "toleration_exists_value",
        gettext_noop("A toleration with operator Exists and a value"),
        "1.32",
        gettext_noop(
            "The error at spec.tolerations[i].operator prints the whole toleration "
            '(core.Toleration{Key:"pool", Operator:"Exists", Value:"build", ...}).'
        ),
        gettext_noop('The error prints the value only ("build").'),
        "kubernetes#128119 (Clarify API validation error for toleration if operator is Exists "
        "and value is not empty, merged 2024-10-21); pkg/apis/core/validation ValidateTolerations",
    ),
    VersionDifference(
        "relaxed_env_var_names",
        gettext_noop("Environment variable names"),
        "1.32",
        gettext_noop(
            "A name must consist of letters, digits, '_', '-' or '.' and not start with a "
            "digit (e.g. my.env-name, MY_ENV.NAME)."
        ),
        gettext_noop("Any printable ASCII character but '=' is allowed (e.g. 1_NAME, my:name)."),
        "KEP-4369 RelaxedEnvironmentVariableValidation (alpha 1.30, beta and on by default "
        "in 1.32, GA 1.34); apimachinery validation.IsEnvVarName / IsRelaxedEnvVarName",
    ),
    VersionDifference(
        "cgroup_cpu_weight",
        gettext_noop("cgroup v2 cpu.weight from cpu.shares"),
        "-",
        gettext_noop(
            "The container runtime converts the kubelet's cpu.shares to cpu.weight; runc "
            "before 1.3.2 and crun before 1.23 use the linear KEP-2254 formula (1 CPU: 39)."
        ),
        gettext_noop(
            "runc 1.3.2+ and crun 1.23+ use the quadratic formula (1 CPU: 100). This depends on "
            "the runtime version, not on the Kubernetes version: the same for 1.31 ... 1.35."
        ),
        "Kubernetes blog 'New Conversion from cgroup v1 CPU Shares to v2 CPU Weight' "
        "(2026-01-30); KEP-2254",
        engine=False,
    ),
)
DIFFERENCES_BY_KEY = {d.key: d for d in VERSION_DIFFERENCES}


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def parse_kubernetes_version(text: str | None) -> str:
    """``"1.33"``, ``"v1.33"`` or ``"v1.33.2-gke.100"`` as a supported ``"1.33"``; empty or
    None is the default (the newest). Raises ValueError naming the supported versions."""
    if text is None or not str(text).strip():
        return DEFAULT_VERSION
    match = _VERSION_RE.fullmatch(str(text).strip())
    version = f"1.{int(match.group(1))}" if match else None
    if version not in SUPPORTED_VERSIONS:
        choices = ", ".join(SUPPORTED_VERSIONS)
        raise ValueError(f"unsupported Kubernetes version {str(text)!r}: choose one of {choices}")
    return version


@dataclass(frozen=True)
class ClusterVersion:
    """What one Kubernetes release does; ``version=None`` is the newest the engine models."""

    version: str | None = None

    def has(self, key: str) -> bool:
        """Whether this release has the behaviour ``key`` of VERSION_DIFFERENCES (the
        'after' column)."""
        if self.version is None:
            return True
        since = DIFFERENCES_BY_KEY[key].since
        return since == "-" or _minor(self.version) >= _minor(since)

    @property
    def pod_level_resources(self) -> bool:
        return self.has("pod_level_resources")

    @property
    def default_pod_limits(self) -> bool:
        return self.has("pod_level_limit_defaulting")

    @property
    def qos_requires_pod_level_values(self) -> bool:
        return self.has("qos_ignores_empty_pod_level")

    @property
    def statefulset_max_unavailable(self) -> bool:
        return self.has("statefulset_max_unavailable")

    @property
    def in_place_resize(self) -> bool:
        return self.has("in_place_resize")

    @property
    def label(self) -> str:
        return self.version or "newest"


def cluster_version(version: str | None) -> ClusterVersion:
    """The ClusterVersion of a supported release (parsed leniently, see
    parse_kubernetes_version); None gives the default release."""
    return ClusterVersion(parse_kubernetes_version(version))


LATEST = ClusterVersion(None)


def dra_api_version(version: str | ClusterVersion | None) -> str | None:
    """The DRA API group/version a cluster of this release serves by default, or None when
    it serves none unless an administrator enables a beta/alpha one."""
    v = version if isinstance(version, ClusterVersion) else ClusterVersion(version)
    return "resource.k8s.io/v1" if v.has("dra_v1") else None


# resource.k8s.io versions that exist (opt-in unless listed by dra_api_version) per release.
DRA_OPT_IN_VERSIONS: dict[str, tuple[str, ...]] = {
    "1.31": ("resource.k8s.io/v1alpha3",),
    "1.32": ("resource.k8s.io/v1beta1",),
    "1.33": ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"),
    "1.34": ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"),
    "1.35": ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"),
}


def dra_api_versions(version: str | None) -> dict[str, object]:
    """``{"default": <served by default or None>, "optIn": [...]}`` for a release. Which
    beta versions 1.34/1.35 still serve is as the research notes have it (not re-verified)."""
    v = parse_kubernetes_version(version)
    return {"default": dra_api_version(v), "optIn": list(DRA_OPT_IN_VERSIONS[v])}
