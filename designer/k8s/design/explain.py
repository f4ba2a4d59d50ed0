"""Why the export looks as it does: the sentences the designer shows under the YAML.

Every line is a ``core.Message`` (a gettext_noop template and its params): the CLI and JSON API
print its English ``text``, the pages translate it. The first lines come from the export kind's
record (``export.EXPORT_KINDS``: why this kind, what happens to restartPolicy); the rest from
the kind's explainer in ``EXPLAINERS``, when it has one."""

from __future__ import annotations

from collections.abc import Callable

from designer.k8s.apiserver import int_or_percent_value
from designer.k8s.core import Message, gettext_noop
from designer.k8s.design.export import (
    GPU_METRIC_NAME,
    ExportSettings,
    PodFacts,
    effective_kind,
    export_kind,
    job_totals,
    rollout_values,
)
from designer.k8s.design.workload_types import workload_type

MSG_NOT_DEFAULT = gettext_noop(
    "Exported as %(kind)s; the usual choice for %(workload)s is %(default)s."
)
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


MSG_GPUS = gettext_noop("%(count)s GPUs")
MSG_WORKERS = gettext_noop("%(count)s workers")

Explainer = Callable[[ExportSettings, PodFacts], list[Message]]


def _totals_text(totals: dict[str, str]) -> str:
    return ", ".join(f"{name} {value}" for name, value in totals.items())


def explain_export(settings: ExportSettings, workload: str, pod: PodFacts) -> list[Message]:
    """The sentences explaining the export, in display order."""
    kind = effective_kind(settings, workload)
    record = export_kind(kind)
    workload_record = workload_type(workload)
    default = workload_record.default_export_kind
    replicas_text = (
        f"{settings.hpa_min}–{settings.hpa_max}" if settings.hpa else str(settings.replicas)
    )
    lines = [
        Message(
            record.reason,
            {"replicas": replicas_text, "workers": settings.workers, "last": settings.workers - 1},
        )
    ]
    if kind != default:
        params = {"kind": kind, "workload": Message(workload_record.label, {}), "default": default}
        lines.append(Message(MSG_NOT_DEFAULT, params))
    spec = pod.manifest.get("spec") if isinstance(pod.manifest.get("spec"), dict) else {}
    old_restart = spec.get("restartPolicy")
    new_restart = record.restart_policy(settings)
    if record.restart_note and new_restart and old_restart and old_restart != new_restart:
        lines.append(Message(record.restart_note, {"old": old_restart, "new": new_restart}))
    explainer = EXPLAINERS.get(kind)
    if explainer is not None:
        lines += explainer(settings, pod)
    return lines


def _totals(
    settings: ExportSettings, pod: PodFacts, kind: str, template: str = MSG_TOTALS
) -> list[Message]:
    """What all the pods running at once request together, when there are several."""
    copies = export_kind(kind).copies(settings)
    totals = job_totals(pod, settings.model_copy(update={"kind": kind}))
    if copies <= 1 or not totals:
        return []
    return [Message(template, {"copies": copies, "totals": _totals_text(totals)})]


def _explain_deployment(settings: ExportSettings, pod: PodFacts) -> list[Message]:
    gpus = pod.gpus
    lines: list[Message] = []
    surge, unavailable = rollout_values(settings, gpus)
    defaulted = not settings.max_surge.strip() and not settings.max_unavailable.strip()
    replicas = settings.hpa_min if settings.hpa else settings.replicas
    if defaulted and gpus > 0:
        params = {"gpus": gpus, "replicas": replicas, "serving": max(replicas - 1, 0)}
        lines.append(Message(MSG_ROLLOUT_GPU, params))
    elif defaulted:
        lines.append(Message(MSG_ROLLOUT_DEFAULT, {}))
    else:
        lines.append(
            Message(MSG_ROLLOUT_SET, {"surge": str(surge), "unavailable": str(unavailable)})
        )
        if gpus > 0 and int_or_percent_value(surge) > 0:
            lines.append(Message(MSG_ROLLOUT_GPU_SURGE, {"surge": str(surge), "gpus": gpus}))
    if replicas == 1 and int_or_percent_value(unavailable) > 0:
        lines.append(Message(MSG_ROLLOUT_SINGLE, {"unavailable": str(unavailable)}))

    if settings.hpa:
        cpu = pod.requests.get("cpu")
        if pod.cpu_request_missing or cpu is None:
            lines.append(Message(MSG_HPA_NO_CPU, {}))
        else:
            params = {
                "min": settings.hpa_min,
                "max": settings.hpa_max,
                "target": settings.hpa_cpu_utilization,
                "cpu": cpu.canonical(),
            }
            lines.append(Message(MSG_HPA, params))
        lines.append(Message(MSG_HPA_REPLICAS, {}))
        if settings.hpa_gpu_metric:
            lines.append(Message(MSG_HPA_GPU_METRIC, {"metric": GPU_METRIC_NAME, "target": "80"}))
        elif gpus > 0:
            lines.append(Message(MSG_HPA_GPU_HINT, {}))
    lines += _totals(settings, pod, "Deployment", MSG_TOTALS_HPA if settings.hpa else MSG_TOTALS)
    return lines


def _explain_job(settings: ExportSettings, pod: PodFacts) -> list[Message]:
    lines = [Message(MSG_BACKOFF, {"limit": settings.backoff_limit})]
    if settings.job_restart_policy == "Never":
        lines.append(Message(MSG_PFP, {}))
    else:
        lines.append(Message(MSG_ONFAILURE, {}))
    return lines + _job_lifetime(settings)


def _explain_indexed_job(settings: ExportSettings, pod: PodFacts) -> list[Message]:
    gpus = pod.gpus
    workers = settings.workers
    nproc = gpus if gpus > 0 else 1
    name = str((pod.manifest.get("metadata") or {}).get("name") or "")
    lines: list[Message] = []
    if gpus > 0:
        params = {"workers": workers, "gpus": gpus, "total": workers * gpus}
        lines.append(Message(MSG_INDEXED_TOTAL_GPU, params))
    env = {
        "addr": f"{name}-0.{name}",
        "port": settings.master_port,
        "nnodes": workers,
        "nproc": nproc,
        "world": workers * nproc,
    }
    lines.append(Message(MSG_INDEXED_ENV, env))
    if nproc == 1:
        lines.append(Message(MSG_INDEXED_RANK, {}))
    lines.append(Message(MSG_INDEXED_SERVICE, {"service": name, "job": name}))
    total = (
        Message(MSG_GPUS, {"count": workers * gpus})
        if gpus > 0
        else Message(MSG_WORKERS, {"count": workers})
    )
    lines.append(Message(MSG_INDEXED_GANG, {"workers": workers, "total": total}))
    lines.append(
        Message(MSG_BACKOFF_INDEXED, {"limit": settings.backoff_limit, "workers": workers})
    )
    lines.append(Message(MSG_PFP, {}))
    return lines + _job_lifetime(settings) + _totals(settings, pod, "IndexedJob")


def _job_lifetime(settings: ExportSettings) -> list[Message]:
    lines: list[Message] = []
    if settings.ttl_seconds_after_finished is not None:
        seconds = settings.ttl_seconds_after_finished
        lines.append(Message(MSG_TTL, {"seconds": seconds, "duration": duration_text(seconds)}))
    else:
        lines.append(Message(MSG_NO_TTL, {}))
    if settings.active_deadline_seconds is not None:
        lines.append(Message(MSG_DEADLINE, {"seconds": settings.active_deadline_seconds}))
    return lines


# Kind-specific explanations; a kind without one gets only its record's sentences.
EXPLAINERS: dict[str, Explainer] = {
    "Deployment": _explain_deployment,
    "Job": _explain_job,
    "IndexedJob": _explain_indexed_job,
}


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
