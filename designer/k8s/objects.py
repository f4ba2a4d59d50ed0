"""Export a design as the objects people actually apply, and validate those objects.

A pod is rarely applied bare: online inference runs as a Deployment (optionally with a
HorizontalPodAutoscaler), batch work and preprocessing as a Job, distributed training as an
Indexed Job with a headless Service. ``export_objects`` wraps the pod manifest (as
``export.pod_manifest`` makes it, quantities canonical and quoted) in those objects;
``explain_export`` says why, in (message template, params) lines the UI translates;
``validate_objects`` / ``warn_objects`` answer as the API server would for the wrappers,
with its field paths and wording, and run each pod template through ``validate_pod``.

Go sources mirrored (kubernetes/kubernetes, current master):

* pkg/apis/apps/validation/validation.go: ``ValidateDeployment`` -> ``ValidateDeploymentSpec``
  (replicas, selector, ``ValidatePodTemplateSpecForReplicaSet``, ``ValidateDeploymentStrategy``
  -> ``ValidateRollingUpdateDeployment`` / ``ValidatePositiveIntOrPercent`` /
  ``IsNotMoreThan100Percent``);
* pkg/apis/batch/validation/validation.go: ``ValidateJob`` -> ``validateJobSpec`` (counters,
  completionMode, podFailurePolicy, the template's restartPolicy) and the Indexed Job
  hostname check;
* pkg/apis/autoscaling/validation/validation.go: ``validateHorizontalPodAutoscalerSpec``,
  ``ValidateCrossVersionObjectReference``, ``validateMetricSpec``, ``validateMetricTarget``;
* pkg/apis/core/validation/validation.go: ``ValidateService`` (name is a DNS-1035 label,
  ``validateServicePort``, selector labels), ``ValidateObjectMeta``;
* apimachinery field/errors.go ``ErrorBody``: an IntOrString prints bare (it is a
  ``fmt.Stringer`` through its pointer), a label map prints as Go's ``%#v``.

Decisions:

* torchrun convention for Indexed Jobs: one pod per node. ``NNODES`` = workers,
  ``NPROC_PER_NODE`` = GPUs per worker (1 without GPUs), ``WORLD_SIZE`` = NNODES x
  NPROC_PER_NODE (the total number of processes, as torchrun sets it for its children),
  ``NODE_RANK`` = the Job completion index, ``MASTER_ADDR`` = ``<job>-0.<service>``,
  ``MASTER_PORT``. The same values are set as ``PET_*`` (torchrun reads every option from
  ``PET_<OPTION>``), so a bare ``torchrun train.py`` needs no flags. ``RANK`` is the
  per-process rank torchrun computes (node_rank x nproc + local_rank); it is set at pod
  level only when each pod runs one process (``NPROC_PER_NODE`` 1), where RANK == NODE_RANK
  and plain ``python train.py`` with ``init_method="env://"`` works too.
* podFailurePolicy: added (``Ignore`` on ``DisruptionTarget``) whenever the Job's pods use
  restartPolicy Never - always for an Indexed Job, for a Job when ``job_restart_policy`` is
  Never - so evictions and preemptions do not use up backoffLimit. The API server accepts a
  podFailurePolicy only with restartPolicy Never.
* Deployment with an HPA: ``spec.replicas`` is left out, as the HPA documentation advises,
  so ``kubectl apply`` does not reset the replica count the HPA chose.
* A Job with ``restartPolicy: Always`` is refused by current Go code with ``Required value:
  valid values: "OnFailure", "Never"`` (not ``Unsupported value``): we say the same.
* Pod template labels are reported at ``spec.template.labels``, Go's path
  (``ValidatePodTemplateSpec`` uses ``fldPath.Child("labels")``); only the selector mismatch
  is at ``spec.template.metadata.labels``.
* The headless Service has the Job's name and selects ``batch.kubernetes.io/job-name``, the
  label the Job controller puts on every pod it creates.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from designer.k8s.manifest import QuotedStr
from designer.k8s.model import Pod
from designer.k8s.quantity import Quantity, QuantityError
from designer.k8s.text import gettext_noop
from designer.k8s.validation import (
    ERROR_TYPE_TEXT,
    MSG_NAME_REQUIRED,
    MSG_NEGATIVE,
    FieldError,
    FieldWarning,
    Unquoted,
    child,
    forbidden,
    go_quote,
    index,
    invalid,
    is_dns1123_label,
    key,
    max_len_error,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_supported,
    regex_error,
    required,
    validate_labels,
    validate_pod,
)

ExportKind = Literal["Pod", "Deployment", "Job", "IndexedJob"]

EXPORT_KINDS: tuple[str, ...] = ("Pod", "Deployment", "Job", "IndexedJob")

# Which object a workload type is applied as when the user does not choose.
DEFAULT_KINDS: dict[str, str] = {
    "training": "Pod",
    "distributed": "IndexedJob",
    "inference": "Deployment",
    "batch": "Job",
    "preprocessing": "Job",
}

# Labels and annotations the API server and controllers own.
# batch/v1 types.go: JobNameLabel, JobCompletionIndexAnnotation.
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
COMPLETION_INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# GPU autoscaling: Kubernetes has no GPU metric; NVIDIA's DCGM exporter publishes
# DCGM_FI_DEV_GPU_UTIL (0-100 per GPU) and a custom metrics adapter must serve it.
GPU_METRIC_NAME = "DCGM_FI_DEV_GPU_UTIL"
GPU_METRIC_TARGET = "80"
GPU_METRIC_ANNOTATION = "pod-resource-designer/gpu-metric"
GPU_METRIC_NOTE = (
    "PLACEHOLDER: DCGM_FI_DEV_GPU_UTIL from NVIDIA's DCGM exporter, served to the HPA by a "
    "custom metrics adapter (e.g. prometheus-adapter). Rename it to what your adapter exposes."
)
RENDEZVOUS_PORT_NAME = "rendezvous"

# The torchrun environment (see the module docstring). PET_<OPTION> is how
# torch.distributed.run reads each of its options from the environment.
TORCHRUN_ALIASES = (
    ("PET_MASTER_ADDR", "MASTER_ADDR"),
    ("PET_MASTER_PORT", "MASTER_PORT"),
    ("PET_NNODES", "NNODES"),
    ("PET_NPROC_PER_NODE", "NPROC_PER_NODE"),
    ("PET_NODE_RANK", "NODE_RANK"),
)

# --- Go messages, verbatim --------------------------------------------------------------

MSG_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
MSG_SELECTOR_EMPTY = "empty selector is invalid for deployment"
# The generated String() of an empty *metav1.LabelSelector (a Stringer: printed bare).
EMPTY_SELECTOR = Unquoted(
    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
)
MSG_ZERO_SURGE = "may not be 0 when `maxSurge` is 0"
MSG_OVER_100 = "must not be greater than 100%"
MSG_RS_DEADLINE = "activeDeadlineSeconds in ReplicaSet is not Supported"
PERCENT_FMT = "[0-9]+%"
PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"
MSG_INDEXED_COMPLETIONS = "when completion mode is Indexed"
MAX_INDEXED_PARALLELISM = 100000  # batch validation: maxParallelismForIndexedJob
MSG_INDEXED_PARALLELISM = "must be less than or equal to 100000 when completion mode is Indexed"
MSG_INDEXED_HOSTNAME = "will not able to create pod with invalid DNS label: {hostname}"
MSG_JOB_RESTART = 'valid values: "OnFailure", "Never"'
MSG_PFP_RESTART = 'only "Never" is supported when podFailurePolicy is specified'
SUPPORTED_COMPLETION_MODES = ("NonIndexed", "Indexed")
SUPPORTED_PFP_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")  # sets.List: sorted
MSG_HPA_MIN = "must be greater than or equal to 1"  # HPAScaleToZero is alpha, off
MSG_HPA_MAX = "must be greater than 0"
MSG_HPA_MAX_MIN = "must be greater than or equal to `minReplicas`"
MSG_UTILIZATION = "must be greater than 0"
MSG_POSITIVE = "must be positive"
MSG_TARGET_TYPE = "must be either Utilization, Value, or AverageValue"
MSG_METRIC_TYPE_REQUIRED = "must specify a metric source type"
MSG_METRIC_SOURCE = "must populate information for the given metric source"
MSG_RESOURCE_NAME = "must specify a resource name"
MSG_METRIC_NAME = "must specify a metric name"
MSG_TARGET_TYPE_REQUIRED = "must specify a metric target type"
MSG_RESOURCE_TARGET = "must set either a target raw value or a target utilization"
MSG_PODS_TARGET = "must specify a positive target averageValue"
SUPPORTED_METRIC_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
MSG_PORT_RANGE = "must be between 1 and 65535, inclusive"
SUPPORTED_PROTOCOLS = ("SCTP", "TCP", "UDP")
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
# Not a field.Error in Go: the decoder refuses the whole object. Our wording.
MSG_INT32 = "must be a 32-bit integer"

_PERCENT_RE = re.compile("^" + PERCENT_FMT + "$")
_DNS1035_RE = re.compile("^" + DNS1035_LABEL_FMT + "$")
_INT_RE = re.compile(r"^[+-]?\d+$")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# --- settings ------------------------------------------------------------------------------


class ExportSettings(BaseModel):
    """How to export a design. A field of ``Design`` (``export``): small, JSON-able, all
    defaulted. Values are not checked here: the objects they end up in are validated by
    ``validate_objects`` with the API server's paths and messages."""

    model_config = ConfigDict(extra="forbid")

    kind: ExportKind | None = None  # None: DEFAULT_KINDS[workload]
    # Deployment
    replicas: int = 2
    max_surge: str = ""  # "" = chosen by GPUs (see rollout_values)
    max_unavailable: str = ""
    hpa: bool = False
    hpa_min: int = 2
    hpa_max: int = 10
    hpa_cpu_utilization: int = 70
    hpa_gpu_metric: bool = False
    # Job
    backoff_limit: int = 6
    job_restart_policy: Literal["OnFailure", "Never"] = "OnFailure"
    ttl_seconds_after_finished: int | None = 86400
    active_deadline_seconds: int | None = None
    # Indexed Job
    workers: int = 2
    master_port: int = 29500


# Where a validation error on an exported object comes from in the settings: (object
# kind, field path) -> ExportSettings field, for the UI to put the error next to it.
SETTINGS_FIELDS: dict[tuple[str, str], str] = {
    ("Deployment", "spec.replicas"): "replicas",
    ("Deployment", "spec.strategy.rollingUpdate.maxSurge"): "max_surge",
    ("Deployment", "spec.strategy.rollingUpdate.maxUnavailable"): "max_unavailable",
    ("HorizontalPodAutoscaler", "spec.minReplicas"): "hpa_min",
    ("HorizontalPodAutoscaler", "spec.maxReplicas"): "hpa_max",
    (
        "HorizontalPodAutoscaler",
        "spec.metrics[0].resource.target.averageUtilization",
    ): "hpa_cpu_utilization",
    ("Job", "spec.backoffLimit"): "backoff_limit",
    ("Job", "spec.ttlSecondsAfterFinished"): "ttl_seconds_after_finished",
    ("Job", "spec.activeDeadlineSeconds"): "active_deadline_seconds",
    ("Job", "spec.completions"): "workers",
    ("Job", "spec.parallelism"): "workers",
    ("Job", "spec.template.spec.restartPolicy"): "job_restart_policy",
    ("Service", "spec.ports[0].port"): "master_port",
    ("Service", "spec.ports[0].targetPort"): "master_port",
}


def settings_field(obj: dict[str, Any], path: str) -> str | None:
    """The ExportSettings field an error at ``path`` of ``obj`` comes from, if any."""
    return SETTINGS_FIELDS.get((str(obj.get("kind")), path))


def effective_kind(settings: ExportSettings, workload: str) -> str:
    """The kind exported: the chosen one, else the default for the workload type."""
    return settings.kind or DEFAULT_KINDS.get(workload, "Pod")


# --- reading the pod -----------------------------------------------------------------------


def _pod_model(pod_manifest: dict[str, Any]) -> Pod | None:
    try:
        return Pod.model_validate(
            {"metadata": pod_manifest.get("metadata") or {}, "spec": pod_manifest.get("spec") or {}}
        )
    except ValidationError:
        return None


def _is_gpu(name: str) -> bool:
    """Whole GPUs, MIG slices and shared GPUs of every vendor (gpu.is_gpu_resource)."""
    from designer.k8s.gpu import is_gpu_resource

    return is_gpu_resource(name)


def _pod_requests(pod_manifest: dict[str, Any]) -> dict[str, Quantity]:
    """Effective requests of the pod (defaulted as the API server stores it)."""
    from designer.k8s.scheduling import effective_requests

    pod = _pod_model(pod_manifest)
    if pod is None:
        return {}
    try:
        return effective_requests(pod)
    except (QuantityError, ValueError, TypeError, OverflowError):
        return {}


def gpus_per_pod(pod_manifest: dict[str, Any]) -> int:
    """Whole GPUs the pod requests (any GPU resource); 0 when none or unreadable."""
    total = Fraction(0)
    for name, q in _pod_requests(pod_manifest).items():
        if _is_gpu(name):
            try:
                total += q.as_fraction()
            except OverflowError:
                return 0
    return int(total) if total.denominator == 1 and total > 0 else 0


def _copies(settings: ExportSettings, kind: str) -> int:
    if kind == "Deployment":
        n = settings.hpa_max if settings.hpa else settings.replicas
    elif kind == "IndexedJob":
        n = settings.workers
    else:
        n = 1
    return max(n, 0)


def job_totals(
    pod_manifest: dict[str, Any], settings: ExportSettings, workload: str | None = None
) -> dict[str, str]:
    """Effective requests of the pod x the pods the export runs at once, canonical.

    Replicas for a Deployment (``hpa_max`` with an HPA: the most it may take), workers for
    an Indexed Job, one pod otherwise. With ``workload`` None, ``settings.kind`` decides (a
    default kind counts one pod).
    """
    from designer.k8s.scheduling import format_resources

    kind = effective_kind(settings, workload) if workload else (settings.kind or "Pod")
    n = _copies(settings, kind)
    totals: dict[str, Quantity] = {}
    for name, q in _pod_requests(pod_manifest).items():
        try:
            totals[name] = Quantity.from_fraction(q.as_fraction() * n, q.format)
        except (ValueError, OverflowError):
            continue
    return format_resources(totals)


# --- building the objects ------------------------------------------------------------------


def _int_or_percent(text: str) -> int | str:
    """An IntOrString as the form sends it: "3" -> 3, "25%" (or anything else) as typed."""
    text = text.strip()
    return int(text) if _INT_RE.match(text) else text


def rollout_values(settings: ExportSettings, gpus: int) -> tuple[int | str, int | str]:
    """(maxSurge, maxUnavailable): as set, else 0/1 for GPU replicas, else 25%/25%.

    A surge pod needs free GPUs on some node before it can start; a full GPU pool rarely
    has them, so for GPU pods we stop one old replica before starting its replacement.
    """
    surge_default: int | str = 0 if gpus > 0 else "25%"
    unavailable_default: int | str = 1 if gpus > 0 else "25%"
    surge = _int_or_percent(settings.max_surge) if settings.max_surge.strip() else surge_default
    unavailable = (
        _int_or_percent(settings.max_unavailable)
        if settings.max_unavailable.strip()
        else unavailable_default
    )
    return surge, unavailable


def _meta(name: str, namespace: str | None, labels: dict[str, Any] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    return meta


def _template(
    labels: dict[str, Any] | None, annotations: dict[str, Any] | None, spec: dict[str, Any]
) -> dict[str, Any]:
    """A pod template: labels (and the pod's own annotations), no name or namespace."""
    meta: dict[str, Any] = {}
    if labels:
        meta["labels"] = dict(labels)
    kept = {k: v for k, v in (annotations or {}).items() if k != LAST_APPLIED}
    if kept:
        meta["annotations"] = kept
    return {"metadata": meta, "spec": spec}


def _disruption_policy() -> dict[str, Any]:
    """Evictions, preemptions and node drains (pod condition DisruptionTarget) are not
    counted against backoffLimit: the pod is recreated instead."""
    return {
        "rules": [
            {
                "action": "Ignore",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            }
        ]
    }


def _job_spec_counters(settings: ExportSettings) -> dict[str, Any]:
    spec: dict[str, Any] = {"backoffLimit": settings.backoff_limit}
    if settings.ttl_seconds_after_finished is not None:
        spec["ttlSecondsAfterFinished"] = settings.ttl_seconds_after_finished
    if settings.active_deadline_seconds is not None:
        spec["activeDeadlineSeconds"] = settings.active_deadline_seconds
    return spec


def torchrun_env(
    job: str, service: str, settings: ExportSettings, gpus: int
) -> list[dict[str, Any]]:
    """The env every worker container gets (see the module docstring for the convention)."""
    nproc = gpus if gpus > 0 else 1
    rank_from_index = {"fieldRef": {"fieldPath": COMPLETION_INDEX_FIELD}}
    env: list[dict[str, Any]] = [
        {"name": "MASTER_ADDR", "value": f"{job}-0.{service}"},
        {"name": "MASTER_PORT", "value": str(settings.master_port)},
        {"name": "NNODES", "value": str(settings.workers)},
        {"name": "NPROC_PER_NODE", "value": str(nproc)},
        {"name": "WORLD_SIZE", "value": str(settings.workers * nproc)},
        {"name": "NODE_RANK", "valueFrom": copy.deepcopy(rank_from_index)},
    ]
    if nproc == 1:
        env.append({"name": "RANK", "valueFrom": copy.deepcopy(rank_from_index)})
    # $(VAR) refers to a variable defined earlier in the list (dependent env vars).
    env += [{"name": alias, "value": f"$({name})"} for alias, name in TORCHRUN_ALIASES]
    return env


def _with_env(container: dict[str, Any], env: list[dict[str, Any]]) -> None:
    """Ours first (so the container's own entries may refer to them), same names replaced."""
    ours = {e["name"] for e in env}
    existing = [
        e for e in container.get("env") or [] if not (isinstance(e, dict) and e.get("name") in ours)
    ]
    container["env"] = copy.deepcopy(env) + existing


def export_objects(
    pod_manifest: dict[str, Any], settings: ExportSettings, workload: str
) -> list[dict[str, Any]]:
    """The manifests to apply, in order. Quantities are kept as given (canonical/QuotedStr)."""
    kind = effective_kind(settings, workload)
    pod = copy.deepcopy(pod_manifest)
    pod.pop("status", None)
    if kind == "Pod":
        return [pod]
    metadata = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    name = str(metadata.get("name") or "")
    namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
    labels = metadata.get("labels") if isinstance(metadata.get("labels"), dict) else None
    annotations = (
        metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else None
    )
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    gpus = gpus_per_pod(pod_manifest)

    if kind == "Deployment":
        selector = dict(labels) if labels else {"app": name}
        spec["restartPolicy"] = "Always"  # ValidatePodTemplateSpecForReplicaSet
        surge, unavailable = rollout_values(settings, gpus)
        deploy_spec: dict[str, Any] = {}
        if not settings.hpa:
            # With an HPA the replica count is the HPA's: kubectl apply must not reset it.
            deploy_spec["replicas"] = settings.replicas
        deploy_spec["selector"] = {"matchLabels": selector}
        deploy_spec["strategy"] = {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
        }
        deploy_spec["template"] = _template(selector, annotations, spec)
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _meta(name, namespace, selector),
            "spec": deploy_spec,
        }
        if not settings.hpa:
            return [deployment]
        return [deployment, _hpa(name, namespace, selector, settings)]

    job_spec = _job_spec_counters(settings)
    if kind == "Job":
        spec["restartPolicy"] = settings.job_restart_policy
        if settings.job_restart_policy == "Never":
            job_spec["podFailurePolicy"] = _disruption_policy()
        job_spec["template"] = _template(labels, annotations, spec)
        return [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": _meta(name, namespace, labels),
                "spec": job_spec,
            }
        ]

    # IndexedJob: a headless Service first (the workers' DNS names exist once it does).
    service = name
    spec["restartPolicy"] = "Never"
    spec["subdomain"] = service
    # The Job controller sets each worker's hostname to <job>-<index> whatever the template
    # says (job_controller.go manageJob); a stray hostname would only mislead the reader.
    spec.pop("hostname", None)
    env = torchrun_env(name, service, settings, gpus)
    for container in spec.get("containers") or []:
        if isinstance(container, dict):
            _with_env(container, env)
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(service, namespace, labels),
        "spec": {
            "clusterIP": "None",
            # Workers resolve each other before they are Ready (the rendezvous runs first).
            "publishNotReadyAddresses": True,
            "selector": {JOB_NAME_LABEL: name},
            "ports": [
                {
                    "name": RENDEZVOUS_PORT_NAME,
                    "port": settings.master_port,
                    "targetPort": settings.master_port,
                    "protocol": "TCP",
                }
            ],
        },
    }
    indexed_spec: dict[str, Any] = {
        "completionMode": "Indexed",
        "completions": settings.workers,
        "parallelism": settings.workers,
        **job_spec,
        "podFailurePolicy": _disruption_policy(),
        "template": _template(labels, annotations, spec),
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _meta(name, namespace, labels),
        "spec": indexed_spec,
    }
    return [svc, job]


def _hpa(
    name: str, namespace: str | None, labels: dict[str, Any], settings: ExportSettings
) -> dict[str, Any]:
    metrics: list[dict[str, Any]] = [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                # Utilization = usage / request: without a CPU request the HPA cannot scale.
                "target": {
                    "type": "Utilization",
                    "averageUtilization": settings.hpa_cpu_utilization,
                },
            },
        }
    ]
    meta = _meta(name, namespace, labels)
    if settings.hpa_gpu_metric:
        metrics.append(
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": GPU_METRIC_NAME},
                    "target": {
                        "type": "AverageValue",
                        "averageValue": QuotedStr(GPU_METRIC_TARGET),
                    },
                },
            }
        )
        meta["annotations"] = {GPU_METRIC_ANNOTATION: GPU_METRIC_NOTE}
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": meta,
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": settings.hpa_min,
            "maxReplicas": settings.hpa_max,
            "metrics": metrics,
        },
    }


# --- explaining ----------------------------------------------------------------------------

Line = tuple[str, dict[str, Any]]

KIND_REASONS: dict[str, str] = {
    "Pod": gettext_noop(
        "A bare Pod runs once: nothing recreates it if it fails, is evicted or loses its "
        "node. That suits a single training run you watch (save checkpoints to resume "
        "from); choose Job to have failed runs retried."
    ),
    "Deployment": gettext_noop(
        "A Deployment keeps %(replicas)s identical replicas of the pod running and replaces "
        "them gradually on every change: the shape of a long-running online inference "
        "service."
    ),
    "Job": gettext_noop(
        "A Job runs the pod to completion and retries it when it fails or is evicted. Batch "
        "work and preprocessing may be evicted first under node pressure and must tolerate "
        "it: make the work idempotent or resume from checkpoints."
    ),
    "IndexedJob": gettext_noop(
        "An Indexed Job starts %(workers)s workers with fixed ranks (0 to %(last)s) and "
        "stable hostnames, which is what torchrun needs to rendezvous at worker 0."
    ),
}
MSG_NOT_DEFAULT = gettext_noop(
    "Exported as %(kind)s; the usual choice for %(workload)s is %(default)s."
)
RESTART_CHANGED: dict[str, str] = {
    "Deployment": gettext_noop(
        "The pod's restartPolicy %(old)s becomes Always: a Deployment's pods are always restarted."
    ),
    "Job": gettext_noop(
        "The pod's restartPolicy %(old)s becomes %(new)s: a Job's pods may only use "
        "OnFailure or Never."
    ),
    "IndexedJob": gettext_noop(
        "The pod's restartPolicy %(old)s becomes Never: a failed worker is replaced by a new "
        "pod with the same index, and the group restarts together."
    ),
}
MSG_ROLLOUT_GPU = gettext_noop(
    "Rollout: maxSurge 0, maxUnavailable 1. A surge pod would need %(gpus)s free GPU(s) on "
    "some node before it could start, and a busy GPU pool rarely has them, so the rollout "
    "could hang. Instead one old replica stops before its replacement starts: during a "
    "rollout %(serving)s of %(replicas)s replicas serve. Add a replica if that capacity "
    "matters."
)
MSG_ROLLOUT_DEFAULT = gettext_noop(
    "Rollout: maxSurge 25%%, maxUnavailable 25%% (the Kubernetes defaults): extra pods "
    "start before old ones stop, so capacity stays up during a rollout."
)
MSG_ROLLOUT_SET = gettext_noop("Rollout: maxSurge %(surge)s, maxUnavailable %(unavailable)s.")
MSG_ROLLOUT_GPU_SURGE = gettext_noop(
    "maxSurge %(surge)s with GPU replicas: each surge pod needs %(gpus)s free GPU(s) before "
    "it can start; on a full GPU pool the rollout waits."
)
MSG_ROLLOUT_SINGLE = gettext_noop(
    "With a single replica and maxUnavailable %(unavailable)s, the service is down while "
    "the new pod starts."
)
MSG_HPA = gettext_noop(
    "The HorizontalPodAutoscaler runs %(min)s to %(max)s replicas to keep average CPU "
    "utilization near %(target)s%%. Utilization is CPU usage divided by the CPU request "
    "(%(cpu)s per pod here), not by the limit or the node."
)
MSG_HPA_NO_CPU = gettext_noop(
    "No CPU request is set: the HorizontalPodAutoscaler measures utilization against "
    "requests and cannot scale this Deployment. Set a CPU request on every container."
)
MSG_HPA_REPLICAS = gettext_noop(
    "spec.replicas is left out of the Deployment: the HPA owns the replica count, and "
    "kubectl apply would otherwise reset it."
)
MSG_HPA_GPU_METRIC = gettext_noop(
    "GPU scaling uses a placeholder Pods metric %(metric)s with an average target of "
    "%(target)s: Kubernetes has no built-in GPU metric. It needs NVIDIA's DCGM exporter, "
    "Prometheus and a custom metrics adapter (such as prometheus-adapter) serving the "
    "metric under that name; rename it to what your adapter exposes."
)
MSG_HPA_GPU_HINT = gettext_noop(
    "CPU utilization says little about a GPU-bound server: scaling on GPU utilization needs "
    "a custom metric served through a metrics adapter (turn on the GPU metric)."
)
MSG_BACKOFF = gettext_noop(
    "backoffLimit %(limit)s: the Job is marked failed after %(limit)s failed pods (or "
    "container restarts); each retry starts over unless the work resumes from a checkpoint."
)
MSG_BACKOFF_INDEXED = gettext_noop(
    "backoffLimit %(limit)s counts failed pods across all workers: one crash usually "
    "brings the whole group down, using up to %(workers)s retries at once."
)
MSG_ONFAILURE = gettext_noop(
    "With restartPolicy OnFailure the container restarts in place, and an evicted pod "
    "counts as a failure against backoffLimit. Choose Never to add a podFailurePolicy that "
    "ignores evictions (a podFailurePolicy requires restartPolicy Never)."
)
MSG_PFP = gettext_noop(
    "podFailurePolicy: pods that fail because of a disruption (eviction, preemption, node "
    "drain: the DisruptionTarget condition) are recreated without counting against "
    "backoffLimit. It requires restartPolicy Never."
)
MSG_TTL = gettext_noop(
    "The finished Job and its pods are deleted %(duration)s after it finishes "
    "(ttlSecondsAfterFinished: %(seconds)s): copy logs and results out before then."
)
MSG_NO_TTL = gettext_noop("The finished Job and its pods stay until you delete them.")
MSG_DEADLINE = gettext_noop(
    "activeDeadlineSeconds %(seconds)s: the Job is stopped after that long, whatever "
    "retries are left."
)
MSG_INDEXED_TOTAL_GPU = gettext_noop("%(workers)s workers × %(gpus)s GPUs = %(total)s GPUs")
MSG_INDEXED_ENV = gettext_noop(
    "Every worker container gets MASTER_ADDR=%(addr)s, MASTER_PORT=%(port)s, "
    "NNODES=%(nnodes)s, NPROC_PER_NODE=%(nproc)s, WORLD_SIZE=%(world)s (processes in "
    "total) and NODE_RANK from its completion index, also as PET_* variables so that a "
    "bare `torchrun train.py` picks them up."
)
MSG_INDEXED_RANK = gettext_noop(
    "One process per worker: RANK equals NODE_RANK, so `python train.py` with "
    'init_method="env://" works without torchrun too.'
)
MSG_INDEXED_SERVICE = gettext_noop(
    "The headless Service %(service)s gives each worker a stable DNS name "
    "(%(job)s-0.%(service)s, %(job)s-1.%(service)s, ...), published before the pods are "
    "ready so the rendezvous can start."
)
MSG_INDEXED_GANG = gettext_noop(
    "The Job creates all %(workers)s workers at once, but they are scheduled one by one: if "
    "only some fit, those hold their resources while waiting for the rest. Make sure "
    "%(total)s fit at once, or use a gang scheduler (e.g. Kueue or Volcano)."
)
MSG_TOTALS = gettext_noop("%(copies)s pods request in total: %(totals)s.")
MSG_TOTALS_HPA = gettext_noop(
    "At the HPA's maximum of %(copies)s replicas the pods request in total: %(totals)s."
)


def _cpu_request_missing(pod_manifest: dict[str, Any]) -> list[int]:
    """Indexes of app containers with no CPU request once defaulted (a limit defaults it)."""
    from designer.k8s.defaults import pod_with_defaults

    pod = _pod_model(pod_manifest)
    if pod is None:
        return []
    pod_level = pod.spec.resources.requests if pod.spec.resources else None
    if pod_level and pod_level.get("cpu") is not None:
        return []  # a pod-level CPU request covers the pod
    defaulted = pod_with_defaults(pod)
    return [i for i, c in enumerate(defaulted.spec.containers) if "cpu" not in c.requests]


def _totals_text(totals: dict[str, str]) -> str:
    return ", ".join(f"{name} {value}" for name, value in totals.items())


def explain_export(
    settings: ExportSettings, workload: str, pod_manifest: dict[str, Any]
) -> list[Line]:
    """(message template, params) lines explaining the export, in display order."""
    kind = effective_kind(settings, workload)
    default = DEFAULT_KINDS.get(workload, "Pod")
    gpus = gpus_per_pod(pod_manifest)
    spec = pod_manifest.get("spec") if isinstance(pod_manifest.get("spec"), dict) else {}
    old_restart = spec.get("restartPolicy")
    lines: list[Line] = []

    replicas_text = (
        f"{settings.hpa_min}–{settings.hpa_max}" if settings.hpa else str(settings.replicas)
    )
    lines.append(
        (
            KIND_REASONS[kind],
            {
                "replicas": replicas_text,
                "workers": settings.workers,
                "last": settings.workers - 1,
            },
        )
    )
    if kind != default:
        from designer.k8s.workloads import WORKLOADS

        spec_w = WORKLOADS.get(workload)
        lines.append(
            (
                MSG_NOT_DEFAULT,
                {
                    "kind": kind,
                    "workload": spec_w.label if spec_w else workload,
                    "default": default,
                },
            )
        )

    new_restart = {"Deployment": "Always", "Job": settings.job_restart_policy}.get(kind)
    if kind == "IndexedJob":
        new_restart = "Never"
    if new_restart and old_restart and old_restart != new_restart:
        lines.append((RESTART_CHANGED[kind], {"old": old_restart, "new": new_restart}))

    if kind == "Deployment":
        lines += _explain_deployment(settings, pod_manifest, gpus)
    elif kind in ("Job", "IndexedJob"):
        lines += _explain_job(settings, kind, pod_manifest, gpus)

    copies = _copies(settings, kind)
    if kind in ("Deployment", "IndexedJob") and copies > 1:
        totals = job_totals(pod_manifest, settings, workload)
        if totals:
            template = MSG_TOTALS_HPA if kind == "Deployment" and settings.hpa else MSG_TOTALS
            lines.append((template, {"copies": copies, "totals": _totals_text(totals)}))
    return lines


def _explain_deployment(
    settings: ExportSettings, pod_manifest: dict[str, Any], gpus: int
) -> list[Line]:
    lines: list[Line] = []
    surge, unavailable = rollout_values(settings, gpus)
    defaulted = not settings.max_surge.strip() and not settings.max_unavailable.strip()
    replicas = settings.hpa_min if settings.hpa else settings.replicas
    if defaulted and gpus > 0:
        lines.append(
            (
                MSG_ROLLOUT_GPU,
                {"gpus": gpus, "replicas": replicas, "serving": max(replicas - 1, 0)},
            )
        )
    elif defaulted:
        lines.append((MSG_ROLLOUT_DEFAULT, {}))
    else:
        lines.append((MSG_ROLLOUT_SET, {"surge": str(surge), "unavailable": str(unavailable)}))
        if gpus > 0 and _int_or_percent_value(surge) > 0:
            lines.append((MSG_ROLLOUT_GPU_SURGE, {"surge": str(surge), "gpus": gpus}))
    if replicas == 1 and _int_or_percent_value(unavailable) > 0:
        lines.append((MSG_ROLLOUT_SINGLE, {"unavailable": str(unavailable)}))

    if settings.hpa:
        requests = _pod_requests(pod_manifest)
        cpu = requests.get("cpu")
        if _cpu_request_missing(pod_manifest) or cpu is None:
            lines.append((MSG_HPA_NO_CPU, {}))
        else:
            lines.append(
                (
                    MSG_HPA,
                    {
                        "min": settings.hpa_min,
                        "max": settings.hpa_max,
                        "target": settings.hpa_cpu_utilization,
                        "cpu": cpu.canonical(),
                    },
                )
            )
        lines.append((MSG_HPA_REPLICAS, {}))
        if settings.hpa_gpu_metric:
            lines.append((MSG_HPA_GPU_METRIC, {"metric": GPU_METRIC_NAME, "target": "80"}))
        elif gpus > 0:
            lines.append((MSG_HPA_GPU_HINT, {}))
    return lines


def _explain_job(
    settings: ExportSettings, kind: str, pod_manifest: dict[str, Any], gpus: int
) -> list[Line]:
    lines: list[Line] = []
    if kind == "IndexedJob":
        nproc = gpus if gpus > 0 else 1
        name = str((pod_manifest.get("metadata") or {}).get("name") or "")
        if gpus > 0:
            lines.append(
                (
                    MSG_INDEXED_TOTAL_GPU,
                    {"workers": settings.workers, "gpus": gpus, "total": settings.workers * gpus},
                )
            )
        lines.append(
            (
                MSG_INDEXED_ENV,
                {
                    "addr": f"{name}-0.{name}",
                    "port": settings.master_port,
                    "nnodes": settings.workers,
                    "nproc": nproc,
                    "world": settings.workers * nproc,
                },
            )
        )
        if nproc == 1:
            lines.append((MSG_INDEXED_RANK, {}))
        lines.append((MSG_INDEXED_SERVICE, {"service": name, "job": name}))
        total = f"{settings.workers * gpus} GPUs" if gpus > 0 else f"{settings.workers} workers"
        lines.append((MSG_INDEXED_GANG, {"workers": settings.workers, "total": total}))
        lines.append(
            (MSG_BACKOFF_INDEXED, {"limit": settings.backoff_limit, "workers": settings.workers})
        )
        lines.append((MSG_PFP, {}))
    else:
        lines.append((MSG_BACKOFF, {"limit": settings.backoff_limit}))
        if settings.job_restart_policy == "Never":
            lines.append((MSG_PFP, {}))
        else:
            lines.append((MSG_ONFAILURE, {}))
    if settings.ttl_seconds_after_finished is not None:
        seconds = settings.ttl_seconds_after_finished
        lines.append((MSG_TTL, {"seconds": seconds, "duration": duration_text(seconds)}))
    else:
        lines.append((MSG_NO_TTL, {}))
    if settings.active_deadline_seconds is not None:
        lines.append((MSG_DEADLINE, {"seconds": settings.active_deadline_seconds}))
    return lines


def duration_text(seconds: int) -> str:
    """A compact Go-style duration: 86400 -> "24h", 90 -> "1m30s"."""
    if seconds <= 0:
        return "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{hours}h" if hours else "",
        f"{minutes}m" if minutes else "",
        f"{secs}s" if secs else "",
    ]
    return "".join(parts)


def render(line: Line) -> str:
    """A line in English (what the CLI and JSON API print)."""
    template, params = line
    return template % params


# --- validation helpers (Go's formats) -----------------------------------------------------


def go_map(labels: Any) -> Unquoted:
    """``%#v`` of a map[string]string (keys sorted, as fmt prints maps)."""
    if labels is None:
        return Unquoted("map[string]string(nil)")
    items = ", ".join(f"{go_quote(str(k))}:{go_quote(str(v))}" for k, v in sorted(labels.items()))
    return Unquoted("map[string]string{" + items + "}")


def is_dns1035_label(value: str) -> list[str]:
    """validation.IsDNS1035Label (Service names)."""
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_RE.match(value):
        errs.append(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def name_is_dns1035_label(name: str, prefix: bool = False) -> list[str]:
    """NameIsDNS1035Label = ValidateServiceName (maskTrailingDash for a generateName)."""
    if prefix and name.endswith("-"):
        name = name[: max(len(name) - 2, 0)] + "a"
    return is_dns1035_label(name)


def is_valid_path_segment_name(name: str) -> list[str]:
    """path.IsValidPathSegmentName (names in a REST path)."""
    for illegal in (".", ".."):
        if name == illegal:
            return [f"may not be '{illegal}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int32(value: Any, path: str) -> list[FieldError]:
    """The decoder refuses a value that is not an int32 (a 400, not a field.Error)."""
    if value is None or (_is_int(value) and INT32_MIN <= value <= INT32_MAX):
        return []
    return [FieldError(path, "FieldValueTypeInvalid", MSG_INT32, value)]


def _nonnegative(value: Any, path: str) -> list[FieldError]:
    """ValidateNonnegativeField (after the int32 decoding check)."""
    errs = _int32(value, path)
    if errs or value is None:
        return errs
    return [invalid(path, value, MSG_NEGATIVE)] if value < 0 else []


def _object_meta(meta: Any, name_fn: Callable[..., list[str]]) -> list[FieldError]:
    """ValidateObjectMeta for the parts we write: generateName, name, namespace, labels."""
    meta = meta if isinstance(meta, dict) else {}
    errs: list[FieldError] = []
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        path = "metadata.generateName"
        errs += [invalid(path, generate, m) for m in name_fn(generate, prefix=True)]
    name = meta.get("name")
    if not name:
        if not (isinstance(generate, str) and generate):
            errs.append(required("metadata.name", MSG_NAME_REQUIRED))
    else:
        errs += [invalid("metadata.name", name, m) for m in name_fn(str(name))]
    namespace = meta.get("namespace")
    if namespace:
        errs += [invalid("metadata.namespace", namespace, m) for m in name_is_dns_label(namespace)]
    labels = meta.get("labels")
    errs += validate_labels(labels if isinstance(labels, dict) else None, "metadata.labels")
    return errs


def _template_parts(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    pod_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    return spec, meta, pod_spec


def _pod_template_errors(
    meta: dict[str, Any], pod_spec: dict[str, Any]
) -> tuple[list[FieldError], Pod | None]:
    """ValidatePodTemplateSpec through the engine. Template labels are reported at
    ``spec.template.labels``: Go passes ``fldPath.Child("labels")`` there."""
    from designer.k8s.report import pod_from_parts

    pod, errors = pod_from_parts(
        meta,
        pod_spec,
        metadata_path="spec.template.metadata",
        spec_path="spec.template.spec",
    )
    if pod is None:
        return errors, None
    result = validate_pod(pod, spec_path="spec.template.spec", template=True)
    errors = list(result.errors)
    subdomain = pod_spec.get("subdomain")
    if isinstance(subdomain, str) and subdomain:
        # ValidatePodSpec: ValidateDNS1123Label(spec.Subdomain, fldPath.Child("subdomain")).
        path = "spec.template.spec.subdomain"
        errors += [invalid(path, subdomain, m) for m in is_dns1123_label(subdomain)]
    return errors, pod


def _template_warnings(obj: dict[str, Any]) -> list[FieldWarning]:
    from designer.k8s.report import pod_from_parts

    _, meta, pod_spec = _template_parts(obj)
    pod, _ = pod_from_parts(meta, pod_spec)
    if pod is None:
        return []
    return validate_pod(pod, spec_path="spec.template.spec", template=True).warnings


# --- int or percent (apps validation) ------------------------------------------------------


def _percent_value(value: Any) -> int | None:
    """getPercentValue: the number of a valid percent string, else None."""
    if isinstance(value, str) and _PERCENT_RE.match(value):
        return int(value[:-1])
    return None


def _int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a percent's number, an int, or IntValue() of a string."""
    percent = _percent_value(value)
    if percent is not None:
        return percent
    if _is_int(value):
        return value
    if isinstance(value, str):
        try:
            return int(value)  # strconv.Atoi; 0 when it is not a number
        except ValueError:
            return 0
    return 0


def _positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        if _percent_value(value) is None:
            msg = regex_error(PERCENT_MSG, PERCENT_FMT, "1%", "93%")
            return [invalid(path, Unquoted(value), msg)]
        return []
    if _is_int(value):
        errs = _int32(value, path)
        return errs or ([invalid(path, value, MSG_NEGATIVE)] if value < 0 else [])
    return [FieldError(path, "FieldValueTypeInvalid", "must be an integer or percentage", value)]


def _not_more_than_100(value: Any, path: str) -> list[FieldError]:
    percent = _percent_value(value)
    if percent is None or percent <= 100:
        return []
    return [invalid(path, Unquoted(value), MSG_OVER_100)]


def _iostr(value: Any) -> Any:
    """How an IntOrString bad value prints: bare (String() of the pointer)."""
    return Unquoted(str(value)) if isinstance(value, str | int) else value


# --- per kind ------------------------------------------------------------------------------


def _selector_labels(selector: Any) -> dict[str, Any] | None:
    if not isinstance(selector, dict):
        return None
    labels = selector.get("matchLabels")
    return labels if isinstance(labels, dict) else {}


def _matches(selector: dict[str, Any], labels: dict[str, Any] | None) -> bool:
    """matchLabels only (the exporter writes no matchExpressions)."""
    labels = labels or {}
    return all(k in labels and str(labels[k]) == str(v) for k, v in selector.items())


def validate_deployment(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateDeployment (apps/validation): metadata, then ValidateDeploymentSpec."""
    errs = _object_meta(obj.get("metadata"), name_is_dns_subdomain)
    spec, meta, pod_spec = _template_parts(obj)
    if "replicas" in spec:
        errs += _nonnegative(spec.get("replicas"), "spec.replicas")
    selector = spec.get("selector")
    labels = _selector_labels(selector)
    if labels is None:
        errs.append(required("spec.selector"))
    else:
        errs += validate_labels(labels, "spec.selector.matchLabels")
        expressions = selector.get("matchExpressions") or []
        if not labels and not expressions:
            errs.append(invalid("spec.selector", EMPTY_SELECTOR, MSG_SELECTOR_EMPTY))
    # ValidatePodTemplateSpecForReplicaSet
    template_labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
    # LabelSelectorAsSelector: nil -> Nothing (matches nothing, not Empty); {} -> Everything.
    if labels is None or (labels and not _matches(labels, template_labels)):
        errs.append(
            invalid("spec.template.metadata.labels", go_map(template_labels), MSG_SELECTOR_MISMATCH)
        )
    template_errors, _ = _pod_template_errors(meta, pod_spec)
    errs += template_errors
    restart = pod_spec.get("restartPolicy") or "Always"  # defaulted before validation
    if restart != "Always":
        errs.append(not_supported("spec.template.spec.restartPolicy", restart, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden("spec.template.spec.activeDeadlineSeconds", MSG_RS_DEADLINE))
    errs += _validate_strategy(spec.get("strategy"))
    return errs


def _validate_strategy(strategy: Any) -> list[FieldError]:
    """ValidateDeploymentStrategy on the defaulted strategy (RollingUpdate, 25%/25%)."""
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    path = "spec.strategy"
    if kind == "Recreate":
        if rolling is not None:
            return [
                forbidden(
                    child(path, "rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                )
            ]
        return []
    if kind != "RollingUpdate":
        return [not_supported(path, Unquoted(str(kind)), ["Recreate", "RollingUpdate"])]
    rolling = rolling if isinstance(rolling, dict) else {}
    surge = rolling.get("maxSurge", "25%")
    unavailable = rolling.get("maxUnavailable", "25%")
    surge = "25%" if surge is None else surge
    unavailable = "25%" if unavailable is None else unavailable
    ru = child(path, "rollingUpdate")
    unavailable_path, surge_path = child(ru, "maxUnavailable"), child(ru, "maxSurge")
    errs = _positive_int_or_percent(unavailable, unavailable_path)
    errs += _positive_int_or_percent(surge, surge_path)
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        errs.append(invalid(unavailable_path, _iostr(unavailable), MSG_ZERO_SURGE))
    errs += _not_more_than_100(unavailable, unavailable_path)
    return errs


def validate_job(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateJob (batch/validation): metadata, validateJobSpec, the Indexed hostname check."""
    meta_obj = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    errs = _object_meta(meta_obj, name_is_dns_subdomain)
    spec, meta, pod_spec = _template_parts(obj)
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"):
        if spec.get(name) is not None:
            errs += _nonnegative(spec.get(name), f"spec.{name}")
    if spec.get("ttlSecondsAfterFinished") is not None:
        errs += _nonnegative(spec.get("ttlSecondsAfterFinished"), "spec.ttlSecondsAfterFinished")
    mode = spec.get("completionMode")
    indexed = mode == "Indexed"
    if mode is not None:
        if mode not in SUPPORTED_COMPLETION_MODES:
            errs.append(not_supported("spec.completionMode", mode, SUPPORTED_COMPLETION_MODES))
        if indexed:
            if spec.get("completions") is None:
                errs.append(required("spec.completions", MSG_INDEXED_COMPLETIONS))
            parallelism = spec.get("parallelism")
            if _is_int(parallelism) and parallelism > MAX_INDEXED_PARALLELISM:
                errs.append(invalid("spec.parallelism", parallelism, MSG_INDEXED_PARALLELISM))
    policy = spec.get("podFailurePolicy")
    if policy is not None:
        errs += _validate_pod_failure_policy(policy)
    # ValidatePodTemplateSpec: the strategy has already added the job-name labels, whose
    # value is the Job's name (at most 63 characters as a label value).
    name = meta_obj.get("name")
    if isinstance(name, str) and len(name) > 63:
        errs.append(invalid("spec.template.labels", name, max_len_error(63)))
    template_errors, _ = _pod_template_errors(meta, pod_spec)
    errs += template_errors
    restart = pod_spec.get("restartPolicy") or ""
    restart_path = "spec.template.spec.restartPolicy"
    if restart in ("", "Always"):
        errs.append(required(restart_path, MSG_JOB_RESTART))
    elif restart not in ("OnFailure", "Never"):
        errs.append(not_supported(restart_path, restart, ["OnFailure", "Never"]))
    elif policy is not None and restart != "Never":
        errs.append(invalid(restart_path, restart, MSG_PFP_RESTART))
    completions = spec.get("completions")
    if indexed and _is_int(completions) and completions > 0 and isinstance(name, str):
        # ValidateJob: pods are named <job>-<index>; the last must be a DNS-1123 label.
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            msg = MSG_INDEXED_HOSTNAME.format(hostname=hostname)
            errs.append(invalid("metadata.name", name, msg))
    return errs


def _validate_pod_failure_policy(policy: Any) -> list[FieldError]:
    """validatePodFailurePolicy: the rule checks our export can get wrong."""
    rules = policy.get("rules") if isinstance(policy, dict) else None
    errs: list[FieldError] = []
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        path = index("spec.podFailurePolicy.rules", i)
        rule = rule if isinstance(rule, dict) else {}
        action = rule.get("action") or ""
        if not action:
            detail = "valid values: [" + " ".join(go_quote(a) for a in SUPPORTED_PFP_ACTIONS) + "]"
            errs.append(required(child(path, "action"), detail))
        elif action not in SUPPORTED_PFP_ACTIONS:
            errs.append(not_supported(child(path, "action"), action, SUPPORTED_PFP_ACTIONS))
        has_codes = rule.get("onExitCodes") is not None
        has_conditions = bool(rule.get("onPodConditions"))
        if has_codes and has_conditions:
            msg = "specifying both OnExitCodes and OnPodConditions is not supported"
            errs.append(OmitValueError(path, "FieldValueInvalid", msg))
        if not has_codes and not has_conditions:
            msg = "specifying one of OnExitCodes and OnPodConditions is required"
            errs.append(OmitValueError(path, "FieldValueInvalid", msg))
    return errs


class OmitValueError(FieldError):
    """A field.Error whose BadValue is ``field.OmitValueType{}``: ErrorBody prints the
    type and the detail, no value (``Invalid value: specifying ...``)."""

    def body(self) -> str:
        text = ERROR_TYPE_TEXT.get(self.type, self.type)
        return f"{text}: {self.message}" if self.message else text


def validate_service(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateService (core/validation): the parts of a headless Service we write."""
    errs = _object_meta(obj.get("metadata"), name_is_dns1035_label)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    ports = spec.get("ports") if isinstance(spec.get("ports"), list) else []
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and spec.get("type") != "ExternalName":
        errs.append(required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        path = index("spec.ports", i)
        port = port if isinstance(port, dict) else {}
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(required(child(path, "name")))
        elif name:
            errs += [invalid(child(path, "name"), name, m) for m in is_dns1123_label(name)]
            if name in names:
                errs.append(FieldError(child(path, "name"), "FieldValueDuplicate", "", name))
            names.add(name)
        number = port.get("port")
        int_errs = _int32(number, child(path, "port"))
        errs += int_errs
        if not int_errs and not (_is_int(number) and 1 <= number <= 65535):
            errs.append(
                invalid(child(path, "port"), number if number is not None else 0, MSG_PORT_RANGE)
            )
        protocol = port.get("protocol") or "TCP"
        if protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child(path, "protocol"), protocol, SUPPORTED_PROTOCOLS))
        target = port.get("targetPort")
        if _is_int(target) and not 1 <= target <= 65535:
            errs.append(invalid(child(path, "targetPort"), target, MSG_PORT_RANGE))
    selector = spec.get("selector")
    errs += validate_labels(selector if isinstance(selector, dict) else None, "spec.selector")
    return errs


def validate_hpa(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateHorizontalPodAutoscaler (autoscaling/validation), autoscaling/v2."""
    errs = _object_meta(obj.get("metadata"), name_is_dns_subdomain)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    low = spec.get("minReplicas")
    high = spec.get("maxReplicas", 0)
    errs += _int32(low, "spec.minReplicas") + _int32(high, "spec.maxReplicas")
    if _is_int(low) and low < 1:
        errs.append(invalid("spec.minReplicas", low, MSG_HPA_MIN))
    if _is_int(high) and high < 1:
        errs.append(invalid("spec.maxReplicas", high, MSG_HPA_MAX))
    if _is_int(low) and _is_int(high) and high < low:
        errs.append(invalid("spec.maxReplicas", high, MSG_HPA_MAX_MIN))
    ref = spec.get("scaleTargetRef") if isinstance(spec.get("scaleTargetRef"), dict) else {}
    for name in ("kind", "name"):
        path = child("spec.scaleTargetRef", name)
        value = ref.get(name)
        if not value:
            errs.append(required(path))
        else:
            errs += [invalid(path, value, m) for m in is_valid_path_segment_name(str(value))]
    metrics = spec.get("metrics") if isinstance(spec.get("metrics"), list) else []
    for i, metric in enumerate(metrics):
        errs += _validate_metric(
            metric if isinstance(metric, dict) else {}, index("spec.metrics", i)
        )
    return errs


_SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "External": "external",
    "ContainerResource": "containerResource",
}


def _validate_metric(metric: dict[str, Any], path: str) -> list[FieldError]:
    """validateMetricSpec for Resource and Pods sources (what the exporter writes)."""
    errs: list[FieldError] = []
    kind = metric.get("type") or ""
    if not kind:
        errs.append(required(child(path, "type"), MSG_METRIC_TYPE_REQUIRED))
    if kind not in SUPPORTED_METRIC_TYPES:
        errs.append(not_supported(child(path, "type"), kind, SUPPORTED_METRIC_TYPES))
    pods = metric.get("pods")
    resource = metric.get("resource")
    if isinstance(pods, dict):
        source = child(path, "pods")
        errs += _metric_identifier(pods.get("metric"), child(source, "metric"))
        target = pods.get("target") if isinstance(pods.get("target"), dict) else {}
        errs += _metric_target(target, child(source, "target"))
        if target.get("averageValue") is None:
            errs.append(required(child(source, "target", "averageValue"), MSG_PODS_TARGET))
    if isinstance(resource, dict):
        source = child(path, "resource")
        if not resource.get("name"):
            errs.append(required(child(source, "name"), MSG_RESOURCE_NAME))
        target = resource.get("target") if isinstance(resource.get("target"), dict) else {}
        errs += _metric_target(target, child(source, "target"))
        if target.get("averageUtilization") is None and target.get("averageValue") is None:
            errs.append(
                required(child(source, "target", "averageUtilization"), MSG_RESOURCE_TARGET)
            )
    expected = _SOURCE_FIELDS.get(kind)
    if expected and metric.get(expected) is None:
        errs.append(required(child(path, expected), MSG_METRIC_SOURCE))
    return errs


def _metric_identifier(metric: Any, path: str) -> list[FieldError]:
    name = metric.get("name") if isinstance(metric, dict) else None
    if not name:
        return [required(child(path, "name"), MSG_METRIC_NAME)]
    return [invalid(child(path, "name"), name, m) for m in is_valid_path_segment_name(str(name))]


def _metric_target(target: dict[str, Any], path: str) -> list[FieldError]:
    """validateMetricTarget."""
    errs: list[FieldError] = []
    kind = target.get("type") or ""
    if not kind:
        errs.append(required(child(path, "type"), MSG_TARGET_TYPE_REQUIRED))
    if kind not in ("Utilization", "Value", "AverageValue"):
        errs.append(invalid(child(path, "type"), kind, MSG_TARGET_TYPE))
    for name in ("value", "averageValue"):
        raw = target.get(name)
        if raw is None:
            continue
        try:
            q = Quantity.from_json(raw)
        except (QuantityError, ValueError, TypeError) as exc:
            errs.append(invalid(child(path, name), raw, str(exc)))
            continue
        if q.sign() != 1:  # *resource.Quantity: a Stringer, printed bare
            errs.append(invalid(child(path, name), Unquoted(q.canonical()), MSG_POSITIVE))
    utilization = target.get("averageUtilization")
    if utilization is not None:
        int_errs = _int32(utilization, child(path, "averageUtilization"))
        errs += int_errs
        if not int_errs and utilization < 1:
            errs.append(invalid(child(path, "averageUtilization"), utilization, MSG_UTILIZATION))
    return errs


def validate_pod_object(obj: dict[str, Any]) -> list[FieldError]:
    """A bare Pod: validate_pod as for ``kubectl apply``."""
    from designer.k8s.report import pod_from_parts

    pod, errors = pod_from_parts(obj.get("metadata"), obj.get("spec"))
    if pod is None:
        return errors
    return list(validate_pod(pod).errors)


VALIDATORS: dict[str, Callable[[dict[str, Any]], list[FieldError]]] = {
    "Pod": validate_pod_object,
    "Deployment": validate_deployment,
    "Job": validate_job,
    "Service": validate_service,
    "HorizontalPodAutoscaler": validate_hpa,
}


def validate_objects(objects: list[dict[str, Any]]) -> list[tuple[int, FieldError]]:
    """Every object's errors as the API server reports them, with the object's index."""
    out: list[tuple[int, FieldError]] = []
    for i, obj in enumerate(objects):
        validator = VALIDATORS.get(str(obj.get("kind"))) if isinstance(obj, dict) else None
        if validator is not None:
            out += [(i, e) for e in validator(obj)]
    return out


MSG_HPA_CPU_WARNING = (
    "no cpu request: the HorizontalPodAutoscaler measures CPU utilization against requests "
    "and cannot scale {target} (missing request for cpu in container {container})"
)
MSG_NO_WORKERS = (
    "no worker will run: an Indexed Job for distributed training needs completions >= 1"
)


def warn_objects(objects: list[dict[str, Any]]) -> list[tuple[int, FieldWarning]]:
    """Warnings: the pod templates' (as the API server sends them) and runtime problems the
    API server accepts but that break the export (an HPA without CPU requests to measure
    against, an Indexed Job without workers)."""
    out: list[tuple[int, FieldWarning]] = []
    by_name = {
        (o.get("kind"), (o.get("metadata") or {}).get("name")): i
        for i, o in enumerate(objects)
        if isinstance(o, dict)
    }
    for i, obj in enumerate(objects):
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        if kind in ("Deployment", "Job"):
            out += [(i, w) for w in _template_warnings(obj)]
        if kind == "Pod":
            from designer.k8s.report import pod_from_parts

            pod, _ = pod_from_parts(obj.get("metadata"), obj.get("spec"))
            if pod is not None:
                out += [(i, w) for w in validate_pod(pod).warnings]
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        if kind == "Job" and spec.get("completionMode") == "Indexed":
            completions = spec.get("completions")
            if _is_int(completions) and completions == 0:
                out.append((i, FieldWarning("spec.completions", MSG_NO_WORKERS)))
        if kind == "HorizontalPodAutoscaler":
            out += _hpa_warnings(obj, objects, by_name)
    return out


def _hpa_warnings(
    hpa: dict[str, Any], objects: list[dict[str, Any]], by_name: dict[tuple[Any, Any], int]
) -> list[tuple[int, FieldWarning]]:
    spec = hpa.get("spec") if isinstance(hpa.get("spec"), dict) else {}
    uses_cpu = any(
        isinstance(m, dict)
        and m.get("type") == "Resource"
        and isinstance(m.get("resource"), dict)
        and m["resource"].get("name") == "cpu"
        and isinstance(m["resource"].get("target"), dict)
        and m["resource"]["target"].get("type") == "Utilization"
        for m in spec.get("metrics") or []
    )
    ref = spec.get("scaleTargetRef") if isinstance(spec.get("scaleTargetRef"), dict) else {}
    target = by_name.get((ref.get("kind"), ref.get("name")))
    if not uses_cpu or target is None:
        return []
    _, meta, pod_spec = _template_parts(objects[target])
    missing = _cpu_request_missing({"metadata": meta, "spec": pod_spec})
    out = []
    containers = pod_spec.get("containers") or []
    for c in missing:
        name = containers[c].get("name") if isinstance(containers[c], dict) else ""
        path = key(f"spec.template.spec.containers[{c}].resources.requests", "cpu")
        msg = MSG_HPA_CPU_WARNING.format(
            target=f"{ref.get('kind')} {go_quote(str(ref.get('name')))}",
            container=go_quote(str(name or "")),
        )
        out.append((target, FieldWarning(path, msg)))
    return out


__all__ = [
    "DEFAULT_KINDS",
    "EXPORT_KINDS",
    "ExportSettings",
    "SETTINGS_FIELDS",
    "effective_kind",
    "explain_export",
    "export_objects",
    "job_totals",
    "render",
    "settings_field",
    "validate_objects",
    "warn_objects",
]
