"""Why the export looks as it does: lines the designer shows under the YAML."""

from __future__ import annotations

from typing import Any

from designer.k8s.apiserver import int_or_percent_value
from designer.k8s.core import gettext_noop
from designer.k8s.design.export import (
    DEFAULT_KINDS,
    GPU_METRIC_NAME,
    OPERATOR_EXPORTS,
    ExportSettings,
    PodFacts,
    _copies,
    effective_kind,
    job_totals,
    rollout_values,
)
from designer.k8s.design.workload_types import WORKLOADS

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


def _totals_text(totals: dict[str, str]) -> str:
    return ", ".join(f"{name} {value}" for name, value in totals.items())


def explain_export(settings: ExportSettings, workload: str, pod: PodFacts) -> list[Line]:
    """(message template, params) lines explaining the export, in display order."""
    kind = effective_kind(settings, workload)
    if kind in OPERATOR_EXPORTS:
        return list(OPERATOR_EXPORTS[kind](pod, settings, kind).explanation)
    default = DEFAULT_KINDS.get(workload, "Pod")
    gpus = pod.gpus
    manifest = pod.manifest
    spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
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
        lines += _explain_deployment(settings, pod, gpus)
    elif kind in ("Job", "IndexedJob"):
        lines += _explain_job(settings, kind, manifest, gpus)

    copies = _copies(settings, kind)
    if kind in ("Deployment", "IndexedJob") and copies > 1:
        totals = job_totals(pod, settings, workload)
        if totals:
            template = MSG_TOTALS_HPA if kind == "Deployment" and settings.hpa else MSG_TOTALS
            lines.append((template, {"copies": copies, "totals": _totals_text(totals)}))
    return lines


def _explain_deployment(settings: ExportSettings, pod: PodFacts, gpus: int) -> list[Line]:
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
        if gpus > 0 and int_or_percent_value(surge) > 0:
            lines.append((MSG_ROLLOUT_GPU_SURGE, {"surge": str(surge), "gpus": gpus}))
    if replicas == 1 and int_or_percent_value(unavailable) > 0:
        lines.append((MSG_ROLLOUT_SINGLE, {"unavailable": str(unavailable)}))

    if settings.hpa:
        requests = pod.requests
        cpu = requests.get("cpu")
        if pod.cpu_request_missing or cpu is None:
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


def render_line(line: Line) -> str:
    """A line in English (what the CLI and JSON API print)."""
    template, params = line
    return template % params
