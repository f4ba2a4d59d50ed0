"""Export a design as the objects people actually apply.

A pod is rarely applied bare: online inference runs as a Deployment (optionally with a
HorizontalPodAutoscaler), batch work and preprocessing as a Job, distributed training as an
Indexed Job with a headless Service. ``export_objects`` wraps the pod manifest (as
``canonical.pod_manifest`` makes it, quantities canonical and quoted) in those objects;
``explain.explain_export`` says why; the API server's rules for the wrappers are in
``apiserver.workloads``, and ``warn_objects`` adds the problems it accepts but that break the
export.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from designer.k8s.apiserver import (
    INT_RE,
    is_int,
    pod_from_parts,
    pod_with_defaults,
    template_parts,
    template_warnings,
    validate_pod,
)
from designer.k8s.core import (
    FieldWarning,
    MessageError,
    Pod,
    Quantity,
    QuantityError,
    cached_property,
    format_resources,
    gettext_noop,
    go_quote,
    key,
)
from designer.k8s.design.workload_types import workload_type
from designer.k8s.gpu import requested_gpus
from designer.k8s.manifest import QuotedStr, copy_tree
from designer.k8s.scheduler import effective_requests

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


# --- settings ------------------------------------------------------------------------------


class ExportSettings(BaseModel):
    """How to export a design. A field of ``Design`` (``export``): small, JSON-able, all
    defaulted. Values are not checked here: the objects they end up in are validated by
    ``validate_objects`` with the API server's paths and messages."""

    model_config = ConfigDict(extra="forbid")

    # An id of EXPORT_KINDS; None: the workload type's default. The JSON schema lists the ids.
    kind: str | None = Field(
        default=None,
        json_schema_extra=lambda schema: schema.update(enum=[*EXPORT_KINDS, None]),
    )

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str | None) -> str | None:
        if value is not None:
            export_kind(value)  # raises UnknownExportKind (a ValueError)
        return value

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
    # TrainJob: the ClusterTrainingRuntime it runs on
    runtime: str = "torch-distributed"
    # InferenceService: the predictor's model
    model_format: str = "huggingface"
    storage_uri: str = ""


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


# The same, for a design with a HorizontalPodAutoscaler (its bounds are other fields).
HPA_SETTINGS_FIELDS: dict[tuple[str, str], str] = {}


def settings_field(
    obj: dict[str, Any], path: str, settings: ExportSettings | None = None
) -> str | None:
    """The ExportSettings field an error at ``path`` of ``obj`` comes from, if any."""
    key = (str(obj.get("kind")), path)
    if settings is not None and settings.hpa and key in HPA_SETTINGS_FIELDS:
        return HPA_SETTINGS_FIELDS[key]
    return SETTINGS_FIELDS.get(key)


def effective_kind(settings: ExportSettings, workload: str) -> str:
    """The kind exported: the chosen one, else the default for the workload type."""
    return settings.kind or workload_type(workload).default_export_kind


# --- reading the pod -----------------------------------------------------------------------


def _pod_model(pod_manifest: dict[str, Any]) -> Pod | None:
    try:
        return Pod.model_validate(
            {"metadata": pod_manifest.get("metadata") or {}, "spec": pod_manifest.get("spec") or {}}
        )
    except ValidationError:
        return None


@dataclass(frozen=True)
class PodFacts:
    """The pod an export wraps, read once: its manifest (quantities canonical, as
    ``canonical.pod_manifest`` makes it), the pod as the API server stores it and the
    effective requests the scheduler sees. ``render_design`` builds it from the pod's report;
    ``PodFacts.of`` reads a manifest on its own."""

    manifest: dict[str, Any]
    defaulted: Pod | None
    requests: dict[str, Quantity]
    # Devices the pod gets through DRA claims (design/dra.py): GPUs too, though not requests.
    claim_devices: int = 0

    @classmethod
    def of(cls, pod_manifest: dict[str, Any]) -> PodFacts:
        pod = _pod_model(pod_manifest)
        if pod is None:
            return cls(pod_manifest, None, {})
        defaulted = pod_with_defaults(pod)
        try:
            requests = effective_requests(defaulted, apply_defaults=False)
        except (QuantityError, ValueError, TypeError, OverflowError):
            requests = {}
        return cls(pod_manifest, defaulted, requests)

    @cached_property
    def gpus(self) -> int:
        """Whole GPUs the pod requests (any GPU resource); 0 when none or unreadable."""
        total = requested_gpus(self.requests)
        whole = int(total) if total.denominator == 1 and total > 0 else 0
        return whole + self.claim_devices

    @cached_property
    def cpu_request_missing(self) -> list[int]:
        """Indexes of app containers with no CPU request once defaulted (a limit defaults
        it); none when a pod-level CPU request covers the pod."""
        if self.defaulted is None:
            return []
        pod_level = (
            self.defaulted.spec.resources.requests if self.defaulted.spec.resources else None
        )
        if pod_level and pod_level.get("cpu") is not None:
            return []
        return [i for i, c in enumerate(self.defaulted.spec.containers) if "cpu" not in c.requests]


def job_totals(
    pod: PodFacts, settings: ExportSettings, workload: str | None = None
) -> dict[str, str]:
    """Effective requests of the pod x the pods the export runs at once, canonical.

    Replicas for a Deployment (``hpa_max`` with an HPA: the most it may take), workers for
    an Indexed Job, one pod otherwise. With ``workload`` None, ``settings.kind`` decides (a
    default kind counts one pod).
    """

    kind = effective_kind(settings, workload) if workload else (settings.kind or "Pod")
    n = export_kind(kind).copies(settings)
    totals: dict[str, Quantity] = {}
    for name, q in pod.requests.items():
        try:
            totals[name] = Quantity.from_fraction(q.as_fraction() * n, q.format)
        except (ValueError, OverflowError):
            continue
    return format_resources(totals)


# --- building the objects ------------------------------------------------------------------


def _int_or_percent(text: str) -> int | str:
    """An IntOrString as the form sends it: "3" -> 3, "25%" (or anything else) as typed.
    A number of more than 18 digits (past int32 whatever it is; Python will not convert
    one past 4,300 digits) stays as typed: the API server's check of the field refuses it
    as a string that is not a percentage, beside the field."""
    text = text.strip()
    if INT_RE.fullmatch(text) and len(text.lstrip("+-")) <= 18:
        return int(text)
    return text


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
    container["env"] = copy_tree(env) + existing


def export_objects(
    facts: PodFacts, settings: ExportSettings, workload: str
) -> list[dict[str, Any]]:
    """The manifests to apply, in order. Quantities are kept as given (canonical/QuotedStr)."""
    pod = copy_tree(facts.manifest)
    pod.pop("status", None)
    return export_kind(effective_kind(settings, workload)).build(_Parts(pod, facts), settings)


@dataclass(frozen=True)
class _Parts:
    """The pod manifest (a private copy the builder may change) and what it is made of."""

    pod: dict[str, Any]
    facts: PodFacts

    @property
    def metadata(self) -> dict[str, Any]:
        value = self.pod.get("metadata")
        return value if isinstance(value, dict) else {}

    @property
    def name(self) -> str:
        return str(self.metadata.get("name") or "")

    @property
    def namespace(self) -> str | None:
        value = self.metadata.get("namespace")
        return value if isinstance(value, str) else None

    @property
    def labels(self) -> dict[str, Any] | None:
        value = self.metadata.get("labels")
        return value if isinstance(value, dict) else None

    @property
    def annotations(self) -> dict[str, Any] | None:
        value = self.metadata.get("annotations")
        return value if isinstance(value, dict) else None

    @cached_property
    def spec(self) -> dict[str, Any]:
        value = self.pod.get("spec")
        return value if isinstance(value, dict) else {}


def _build_pod(parts: _Parts, settings: ExportSettings) -> list[dict[str, Any]]:
    return [parts.pod]


def _build_deployment(parts: _Parts, settings: ExportSettings) -> list[dict[str, Any]]:
    name, namespace, spec = parts.name, parts.namespace, parts.spec
    selector = dict(parts.labels) if parts.labels else {"app": name}
    spec["restartPolicy"] = "Always"  # ValidatePodTemplateSpecForReplicaSet
    surge, unavailable = rollout_values(settings, parts.facts.gpus)
    deploy_spec: dict[str, Any] = {}
    if not settings.hpa:
        # With an HPA the replica count is the HPA's: kubectl apply must not reset it.
        deploy_spec["replicas"] = settings.replicas
    deploy_spec["selector"] = {"matchLabels": selector}
    deploy_spec["strategy"] = {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
    }
    deploy_spec["template"] = _template(selector, parts.annotations, spec)
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(name, namespace, selector),
        "spec": deploy_spec,
    }
    if not settings.hpa:
        return [deployment]
    return [deployment, _hpa(name, namespace, selector, settings)]


def _build_job(parts: _Parts, settings: ExportSettings) -> list[dict[str, Any]]:
    job_spec = _job_spec_counters(settings)
    parts.spec["restartPolicy"] = settings.job_restart_policy
    if settings.job_restart_policy == "Never":
        job_spec["podFailurePolicy"] = _disruption_policy()
    job_spec["template"] = _template(parts.labels, parts.annotations, parts.spec)
    return [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": _meta(parts.name, parts.namespace, parts.labels),
            "spec": job_spec,
        }
    ]


def _build_indexed_job(parts: _Parts, settings: ExportSettings) -> list[dict[str, Any]]:
    """A headless Service first (the workers' DNS names exist once it does), then the Job."""
    name, namespace, labels, spec = parts.name, parts.namespace, parts.labels, parts.spec
    service = name
    spec["restartPolicy"] = "Never"
    spec["subdomain"] = service
    # The Job controller sets each worker's hostname to <job>-<index> whatever the template
    # says (job_controller.go manageJob); a stray hostname would only mislead the reader.
    spec.pop("hostname", None)
    env = torchrun_env(name, service, settings, parts.facts.gpus)
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
        **_job_spec_counters(settings),
        "podFailurePolicy": _disruption_policy(),
        "template": _template(labels, parts.annotations, spec),
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
            out += [(i, w) for w in template_warnings(obj)]
        if kind == "Pod":
            pod, _ = pod_from_parts(obj.get("metadata"), obj.get("spec"))
            if pod is not None:
                out += [(i, w) for w in validate_pod(pod).warnings]
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        if kind == "Job" and spec.get("completionMode") == "Indexed":
            completions = spec.get("completions")
            if is_int(completions) and completions == 0:
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
    _, meta, pod_spec = template_parts(objects[target])
    missing = PodFacts.of({"metadata": meta, "spec": pod_spec}).cpu_request_missing
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


# --- the export kinds ----------------------------------------------------------------------


@dataclass(frozen=True)
class ExportKind:
    """One object a design can be exported as: one record in ``EXPORT_KINDS``.

    ``build`` makes the manifests from the pod; ``copies`` is how many pods run at once;
    ``restart_policy`` what the pod template's restartPolicy becomes (None: kept);
    ``settings`` the ExportSettings fields it reads (the form shows those); ``reason`` and
    ``restart_note`` are the sentences explain_export starts with (gettext_noop templates)."""

    id: str
    label: str
    build: Callable[[_Parts, ExportSettings], list[dict[str, Any]]]
    copies: Callable[[ExportSettings], int]
    restart_policy: Callable[[ExportSettings], str | None]
    settings: tuple[str, ...]
    reason: str
    restart_note: str | None
    source: str


class UnknownExportKind(MessageError):
    """An export kind id that is not in the table."""


JOB_SETTINGS = ("backoff_limit", "ttl_seconds_after_finished", "active_deadline_seconds")

EXPORT_KINDS: dict[str, ExportKind] = {
    k.id: k
    for k in (
        ExportKind(
            id="Pod",
            label=gettext_noop("Pod"),
            build=_build_pod,
            copies=lambda s: 1,
            restart_policy=lambda s: None,
            settings=(),
            reason=gettext_noop(
                "A bare Pod runs once: nothing recreates it if it fails, is evicted or loses "
                "its node. That suits a single training run you watch (save checkpoints to "
                "resume from); choose Job to have failed runs retried."
            ),
            restart_note=None,
            source="core/v1 Pod",
        ),
        ExportKind(
            id="Deployment",
            label=gettext_noop("Deployment (+ optional HorizontalPodAutoscaler)"),
            build=_build_deployment,
            copies=lambda s: max(s.hpa_max if s.hpa else s.replicas, 0),
            restart_policy=lambda s: "Always",
            settings=(
                "replicas",
                "max_surge",
                "max_unavailable",
                "hpa",
                "hpa_min",
                "hpa_max",
                "hpa_cpu_utilization",
                "hpa_gpu_metric",
            ),
            reason=gettext_noop(
                "A Deployment keeps %(replicas)s identical replicas of the pod running and "
                "replaces them gradually on every change: the shape of a long-running online "
                "inference service."
            ),
            restart_note=gettext_noop(
                "The pod's restartPolicy %(old)s becomes Always: a Deployment's pods are always "
                "restarted."
            ),
            source="apps/v1 Deployment, autoscaling/v2 HorizontalPodAutoscaler",
        ),
        ExportKind(
            id="Job",
            label=gettext_noop("Job"),
            build=_build_job,
            copies=lambda s: 1,
            restart_policy=lambda s: s.job_restart_policy,
            settings=("job_restart_policy", *JOB_SETTINGS),
            reason=gettext_noop(
                "A Job runs the pod to completion and retries it when it fails or is evicted. "
                "Batch work and preprocessing may be evicted first under node pressure and must "
                "tolerate it: make the work idempotent or resume from checkpoints."
            ),
            restart_note=gettext_noop(
                "The pod's restartPolicy %(old)s becomes %(new)s: a Job's pods may only use "
                "OnFailure or Never."
            ),
            source="batch/v1 Job",
        ),
        ExportKind(
            id="IndexedJob",
            label=gettext_noop("Indexed Job + headless Service (distributed training)"),
            build=_build_indexed_job,
            copies=lambda s: max(s.workers, 0),
            restart_policy=lambda s: "Never",
            settings=("workers", "master_port", *JOB_SETTINGS),
            reason=gettext_noop(
                "An Indexed Job starts %(workers)s workers with fixed ranks (0 to %(last)s) and "
                "stable hostnames, which is what torchrun needs to rendezvous at worker 0."
            ),
            restart_note=gettext_noop(
                "The pod's restartPolicy %(old)s becomes Never: a failed worker is replaced by a "
                "new pod with the same index, and the group restarts together."
            ),
            source="batch/v1 Job (completionMode: Indexed), core/v1 Service (clusterIP: None)",
        ),
    )
}


def export_kind(kind_id: str) -> ExportKind:
    """The record of an export kind; an unknown id is an error."""
    try:
        return EXPORT_KINDS[kind_id]
    except (KeyError, TypeError):
        raise UnknownExportKind(
            gettext_noop("unknown export kind %(kind)s; choose one of %(known)s"),
            {"kind": repr(kind_id), "known": ", ".join(EXPORT_KINDS)},
        ) from None


def offered_export_kinds(workload: str) -> tuple[list[ExportKind], list[ExportKind]]:
    """The export kinds a workload type offers first (its record's ``export_kinds`` that
    the table has, in that order), and the others, in the table's order."""
    first = [EXPORT_KINDS[k] for k in workload_type(workload).export_kinds if k in EXPORT_KINDS]
    ids = {k.id for k in first}
    return first, [k for k in EXPORT_KINDS.values() if k.id not in ids]


def register_export_kind(record: ExportKind) -> None:
    """Add an export kind to the table (replacing one with the same id)."""
    EXPORT_KINDS[record.id] = record


def unregister_export_kind(kind_id: str) -> None:
    EXPORT_KINDS.pop(kind_id, None)
