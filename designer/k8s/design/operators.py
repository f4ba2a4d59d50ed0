"""Export a design as an ML operator's object: PyTorchJob, TrainJob, JobSet, LeaderWorkerSet,
RayCluster, KServe InferenceService.

Each builder wraps the designed pod (``PodFacts.manifest``, quantities canonical) the way its
operator expects it, and says why in ``explanation`` lines. Every object is checked against its
CRD's schema (``crd_schema``) and read back through the operators' rules; the tests read each
one back through ``podspec check`` and expect the design's QoS and no errors.

* PyTorchJob (kubeflow.org/v1): Master 1 + Worker ``workers - 1``; the main container is
  named ``pytorch`` (the webhook requires one). The Training Operator sets MASTER_ADDR,
  MASTER_PORT, WORLD_SIZE, RANK and the PET_* torchrun variables itself, so the export carries
  none of them (nor the Indexed Job's aliases).
* TrainJob (trainer.kubeflow.org/v1alpha1): ``numNodes``, ``image``, ``command``, ``args``,
  ``env`` and ``resourcesPerNode`` (the main container's resources, which replace the
  runtime's) against the runtime named in the settings; node selector, tolerations and volumes
  travel in a ``runtimePatches`` entry (a runtime patch cannot set resources).
* JobSet (jobset.x-k8s.io/v1alpha2): one replicatedJob of ``workers`` Indexed pods, restarted
  together (failurePolicy.maxRestarts), with the Indexed Job's torchrun environment.
* LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): ``replicas`` groups of ``workers`` pods
  (leader included), leader and workers from the same pod (with its /dev/shm), the group
  recreated when one pod restarts.
* RayCluster (ray.io/v1): a head without GPUs and one worker group of ``workers`` pods with
  rayStartParams num-gpus equal to the Ray container's GPU limit.
* InferenceService (serving.kserve.io/v1beta1): a predictor whose ``model`` has the model
  format and storageUri of the settings and the main container's resources; KServe picks the
  serving runtime, and so the image.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from designer.k8s.core import Message, Quantity, gettext_noop
from designer.k8s.design.crd_schema import validate_custom_resource
from designer.k8s.design.explain import EXPLAINERS
from designer.k8s.design.export import (
    ExportKind,
    ExportSettings,
    PodFacts,
    _disruption_policy,
    _meta,
    _template,
    _with_env,
    job_totals,
    register_export_kind,
    torchrun_env,
)
from designer.k8s.design.workload_types import WORKLOAD_OF_KIND
from designer.k8s.gpu import is_gpu_resource
from designer.k8s.manifest import Document, builtin_runtimes, find_workloads
from designer.k8s.operators import Finding, operator_reports

OPERATOR_KINDS: tuple[str, ...] = (
    "PyTorchJob",
    "TrainJob",
    "JobSet",
    "LeaderWorkerSet",
    "RayCluster",
    "InferenceService",
)
API_VERSIONS = {
    "PyTorchJob": "kubeflow.org/v1",
    "TrainJob": "trainer.kubeflow.org/v1alpha1",
    "JobSet": "jobset.x-k8s.io/v1alpha2",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io/v1",
    "RayCluster": "ray.io/v1",
    "InferenceService": "serving.kserve.io/v1beta1",
}
PYTORCH_CONTAINER = "pytorch"
TRAINER_CONTAINER = "node"
PATCH_MANAGER = "pod-resource-designer"
# What the Training Operator sets on every pytorch container (pkg/controller.v1/pytorch/
# envvar.go: MASTER_PORT, MASTER_ADDR, WORLD_SIZE, RANK, PYTHONUNBUFFERED and, for torchrun,
# PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT), and the
# Indexed Job aliases the designer would otherwise add: none is exported.
OPERATOR_ENV = frozenset(
    {
        "MASTER_ADDR",
        "MASTER_PORT",
        "WORLD_SIZE",
        "RANK",
        "PYTHONUNBUFFERED",
        "NNODES",
        "NPROC_PER_NODE",
        "NODE_RANK",
        "PET_NNODES",
        "PET_NPROC_PER_NODE",
        "PET_NODE_RANK",
        "PET_MASTER_ADDR",
        "PET_MASTER_PORT",
    }
)
# The Trainer's torch plugin rejects PET_* in spec.trainer.env ("must not have reserved envs").
TRAINER_RESERVED_ENV = frozenset(n for n in OPERATOR_ENV if n.startswith("PET_"))

# The first sentence of each kind's explanation (export.ExportKind.reason: params replicas,
# workers, last = workers - 1).
KIND_REASONS: dict[str, str] = {
    "PyTorchJob": gettext_noop(
        "A PyTorchJob runs a Master and %(last)s Worker(s), %(workers)s pods in all; the "
        "Kubeflow Training Operator creates them, a Service per pod, and sets MASTER_ADDR, "
        "MASTER_PORT, WORLD_SIZE, RANK and the PET_* variables torchrun reads on every "
        "container named pytorch, so the export sets none of them."
    ),
    "TrainJob": gettext_noop(
        "A TrainJob runs %(workers)s node(s) of its training runtime: Kubeflow Trainer builds "
        "the pods from the runtime and puts image, command, env and resourcesPerNode on its "
        "node container (resourcesPerNode replaces the runtime's resources)."
    ),
    "JobSet": gettext_noop(
        "A JobSet runs %(workers)s Indexed workers in one replicated Job with stable DNS "
        "names; if one fails, the JobSet restarts them all together."
    ),
    "LeaderWorkerSet": gettext_noop(
        "A LeaderWorkerSet runs %(replicas)s group(s) of %(workers)s pods (one leader, "
        "%(last)s worker(s)) for a model too large for one node; when a pod of a group "
        "restarts, the whole group is recreated."
    ),
    "RayCluster": gettext_noop(
        "A RayCluster runs a head and %(workers)s worker pod(s). The head gets the design's "
        "CPU and memory without GPUs: lower them if the head only coordinates."
    ),
    "InferenceService": gettext_noop(
        "A KServe InferenceService serves the model with %(replicas)s replica(s); KServe "
        "picks the serving runtime for the model format, and its image: the design's image "
        "and command are not used."
    ),
}
MSG_TRAINJOB_RUNTIME = gettext_noop("It runs on the ClusterTrainingRuntime %(runtime)s.")
MSG_JOBSET_RESTARTS = gettext_noop(
    "The group is restarted at most %(restarts)s times (failurePolicy.maxRestarts); a failed "
    "pod fails its Job at once (backoffLimit 0)."
)
MSG_RAY_GPUS = gettext_noop(
    "Each worker tells Ray it has %(gpus)s GPU(s) (rayStartParams num-gpus), the "
    "nvidia.com/gpu limit of its Ray container."
)
MSG_ISVC_FORMAT = gettext_noop("Model format %(format)s.")
RESTART_NOTES = {
    "JobSet": gettext_noop(
        "The pod's restartPolicy %(old)s becomes Never: the JobSet restarts the whole group "
        "when a pod fails."
    ),
    "LeaderWorkerSet": gettext_noop(
        "The pod's restartPolicy %(old)s becomes Always: a LeaderWorkerSet's pods belong to "
        "StatefulSets."
    ),
}
MSG_RENAMED = gettext_noop(
    "The container %(old)s is renamed pytorch: the Training Operator's webhook requires a "
    "container with that name, and only that container gets the distributed environment."
)
MSG_DROPPED_ENV = gettext_noop(
    "Left out %(names)s: the operator sets them itself, and a second copy would disagree."
)
MSG_DROPPED_CONTAINERS = gettext_noop(
    "Only the main container is exported (%(kind)s takes one): %(names)s left out."
)
MSG_NO_STORAGE = gettext_noop(
    "No storageUri: set spec.predictor.model.storageUri to where the model is (s3://, gs://, "
    "pvc://, hf://), or the runtime has nothing to load."
)
MSG_TRAINJOB_PATCH = gettext_noop(
    "Node selector, tolerations and volumes go in spec.runtimePatches (manager "
    "%(manager)s), for the runtime's %(job)s job: a TrainJob cannot set them otherwise."
)
MSG_TRAINJOB_UNKNOWN_RUNTIME = gettext_noop(
    "The runtime %(runtime)s is not one Kubeflow Trainer installs: make sure it exists "
    "(a ClusterTrainingRuntime with a node container) before applying."
)
MSG_OPERATOR_TOTALS = gettext_noop("%(copies)s pods request in total: %(totals)s.")


@dataclass(frozen=True)
class OperatorExport:
    objects: list[dict[str, Any]]
    errors: list[tuple[int, Finding]]
    warnings: list[tuple[int, Finding]]
    explanation: list[Message]
    totals: dict[str, str]
    pods: int = 0


# --- helpers -------------------------------------------------------------------------------


def _parts(facts: PodFacts) -> tuple[str, str | None, dict, dict, dict[str, Any]]:
    pod = copy.deepcopy(facts.manifest)
    metadata = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    name = str(metadata.get("name") or "")
    namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
    labels = metadata.get("labels") if isinstance(metadata.get("labels"), dict) else {}
    annotations = (
        metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else {}
    )
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    return name, namespace, labels, annotations, spec


def _app(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in spec.get("containers") or [] if isinstance(c, dict)]


def _strip_env(container: dict[str, Any], names: frozenset[str]) -> list[str]:
    env = container.get("env")
    if not isinstance(env, list):
        return []
    dropped = [e.get("name") for e in env if isinstance(e, dict) and e.get("name") in names]
    kept = [e for e in env if not (isinstance(e, dict) and e.get("name") in names)]
    if kept:
        container["env"] = kept
    else:
        container.pop("env", None)
    return [str(n) for n in dropped]


def _gpu_limit(container: dict[str, Any]) -> Fraction:
    limits = ((container.get("resources") or {}).get("limits")) or {}
    total = Fraction(0)
    for name, value in limits.items():
        if is_gpu_resource(name):
            try:
                total += Quantity.from_json(value).as_fraction()
            except (ValueError, TypeError):
                continue
    return total


def _count(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _without_gpus(spec: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            res = c.get("resources") if isinstance(c, dict) else None
            if not isinstance(res, dict):
                continue
            for part in ("requests", "limits"):
                values = res.get(part)
                if isinstance(values, dict):
                    res[part] = {k: v for k, v in values.items() if not is_gpu_resource(k)}
                    if not res[part]:
                        res.pop(part)
            if not res:
                c.pop("resources")
    tolerations = [
        t
        for t in spec.get("tolerations") or []
        if not (isinstance(t, dict) and t.get("key") == "nvidia.com/gpu")
    ]
    if tolerations:
        spec["tolerations"] = tolerations
    else:
        spec.pop("tolerations", None)
    return spec


def _object(kind: str, name: str, namespace: str | None, labels: dict) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSIONS[kind],
        "kind": kind,
        "metadata": _meta(name, namespace, labels),
    }


# --- builders ------------------------------------------------------------------------------


def _pytorchjob(facts: PodFacts, settings: ExportSettings, lines: list[Message]) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    # The operator sets the pod's restartPolicy from the replica spec's.
    for key in ("restartPolicy", "subdomain", "hostname"):
        spec.pop(key, None)
    containers = _app(spec)
    if containers and not any(c.get("name") == PYTORCH_CONTAINER for c in containers):
        lines.append(Message(MSG_RENAMED, {"old": str(containers[0].get("name") or "")}))
        containers[0]["name"] = PYTORCH_CONTAINER
    dropped = sorted({n for c in containers for n in _strip_env(c, OPERATOR_ENV)})
    if dropped:
        lines.append(Message(MSG_DROPPED_ENV, {"names": ", ".join(dropped)}))
    workers = max(settings.workers, 1)
    template = _template(labels, annotations, spec)
    replica_specs: dict[str, Any] = {
        "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": template}
    }
    if workers > 1:
        replica_specs["Worker"] = {
            "replicas": workers - 1,
            "restartPolicy": "OnFailure",
            "template": copy.deepcopy(template),
        }
    gpus = facts.gpus
    run_policy: dict[str, Any] = {"backoffLimit": settings.backoff_limit}
    if settings.ttl_seconds_after_finished is not None:
        run_policy["ttlSecondsAfterFinished"] = settings.ttl_seconds_after_finished
    if settings.active_deadline_seconds is not None:
        run_policy["activeDeadlineSeconds"] = settings.active_deadline_seconds
    obj = _object("PyTorchJob", name, namespace, labels)
    obj["spec"] = {
        # Processes per pod: one per GPU (torchrun --nproc-per-node).
        "nprocPerNode": str(gpus) if gpus > 0 else "auto",
        "pytorchReplicaSpecs": replica_specs,
        "runPolicy": run_policy,
    }
    return [obj]


def _runtime_trainer_job(runtime: str) -> str | None:
    """The name of the runtime's trainer job (``node`` in the torch runtimes), when the
    engine knows the runtime."""
    known = builtin_runtimes().get(runtime)
    if known is None:
        return None
    for job in known.obj["spec"]["template"]["spec"]["replicatedJobs"]:
        labels = ((job.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if labels.get("trainer.kubeflow.org/trainjob-ancestor-step") == "trainer":
            return str(job["name"])
    return None


def _trainjob(facts: PodFacts, settings: ExportSettings, lines: list[Message]) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    containers = _app(spec)
    main = containers[0] if containers else {}
    if len(containers) > 1:
        names = ", ".join(str(c.get("name")) for c in containers[1:])
        lines.append(Message(MSG_DROPPED_CONTAINERS, {"kind": "TrainJob", "names": names}))
    runtime = settings.runtime.strip() or "torch-distributed"
    trainer: dict[str, Any] = {"numNodes": max(settings.workers, 1)}
    for key in ("image", "command", "args"):
        if main.get(key):
            trainer[key] = copy.deepcopy(main[key])
    env = [e for e in main.get("env") or [] if isinstance(e, dict)]
    env = [e for e in env if e.get("name") not in TRAINER_RESERVED_ENV]
    if env:
        trainer["env"] = env
    resources = main.get("resources") if isinstance(main.get("resources"), dict) else {}
    per_node = {k: resources[k] for k in ("requests", "limits") if resources.get(k)}
    if per_node:
        trainer["resourcesPerNode"] = per_node
    obj = _object("TrainJob", name, namespace, labels)
    obj["spec"] = {
        "runtimeRef": {
            "apiGroup": "trainer.kubeflow.org",
            "kind": "ClusterTrainingRuntime",
            "name": runtime,
        },
        "trainer": trainer,
    }
    job = _runtime_trainer_job(runtime)
    if job is None:
        lines.append(Message(MSG_TRAINJOB_UNKNOWN_RUNTIME, {"runtime": runtime}))
        job = TRAINER_CONTAINER
    pod_patch: dict[str, Any] = {
        k: copy.deepcopy(spec[k]) for k in ("nodeSelector", "tolerations", "volumes") if spec.get(k)
    }
    if main.get("volumeMounts"):
        pod_patch["containers"] = [
            {"name": TRAINER_CONTAINER, "volumeMounts": copy.deepcopy(main["volumeMounts"])}
        ]
    pod_meta = {k: v for k, v in (("labels", labels), ("annotations", annotations)) if v}
    if pod_patch or pod_meta:
        template: dict[str, Any] = {}
        if pod_meta:
            template["metadata"] = copy.deepcopy(pod_meta)
        if pod_patch:
            template["spec"] = pod_patch
        obj["spec"]["runtimePatches"] = [
            {
                "manager": PATCH_MANAGER,
                "trainingRuntimeSpec": {
                    "template": {
                        "spec": {
                            "replicatedJobs": [
                                {"name": job, "template": {"spec": {"template": template}}}
                            ]
                        }
                    }
                },
            }
        ]
        lines.append(Message(MSG_TRAINJOB_PATCH, {"manager": PATCH_MANAGER, "job": job}))
    return [obj]


def _jobset(facts: PodFacts, settings: ExportSettings, lines: list[Message]) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    spec["restartPolicy"] = "Never"
    for key in ("subdomain", "hostname"):
        spec.pop(key, None)
    workers = max(settings.workers, 1)
    job = "workers"
    # JobSet pods are <jobset>-<job>-<job index>-<pod index>.<subdomain = jobset name>.
    env = torchrun_env(f"{name}-{job}-0", name, settings, facts.gpus)
    for container in _app(spec):
        _strip_env(container, OPERATOR_ENV)
        _with_env(container, env)
    obj = _object("JobSet", name, namespace, labels)
    obj["spec"] = {
        "failurePolicy": {"maxRestarts": settings.backoff_limit},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "replicatedJobs": [
            {
                "name": job,
                "replicas": 1,
                "template": {
                    "spec": {
                        "completionMode": "Indexed",
                        "completions": workers,
                        "parallelism": workers,
                        # A failed pod fails its Job; the JobSet restarts the group.
                        "backoffLimit": 0,
                        "podFailurePolicy": _disruption_policy(),
                        "template": _template(labels, annotations, spec),
                    }
                },
            }
        ],
    }
    if settings.ttl_seconds_after_finished is not None:
        obj["spec"]["ttlSecondsAfterFinished"] = settings.ttl_seconds_after_finished
    return [obj]


def _lws(facts: PodFacts, settings: ExportSettings, lines: list[Message]) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    # LWS pods belong to StatefulSets: their restartPolicy is Always.
    spec["restartPolicy"] = "Always"
    template = _template(labels, annotations, spec)
    obj = _object("LeaderWorkerSet", name, namespace, labels)
    obj["spec"] = {
        "replicas": max(settings.replicas, 0),
        "startupPolicy": "LeaderCreated",
        "leaderWorkerTemplate": {
            "size": max(settings.workers, 1),
            "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": template,
            "workerTemplate": copy.deepcopy(template),
        },
    }
    return [obj]


def _raycluster(facts: PodFacts, settings: ExportSettings, lines: list[Message]) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    spec.pop("restartPolicy", None)  # KubeRay sets it
    workers = max(settings.workers, 0)
    containers = _app(spec)
    gpus = _gpu_limit(containers[0]) if containers else Fraction(0)
    worker_params: dict[str, str] = {}
    if gpus:
        # KubeRay derives num-gpus from this limit anyway; saying it keeps both in sight.
        worker_params["num-gpus"] = _count(gpus)
    obj = _object("RayCluster", name, namespace, labels)
    obj["spec"] = {
        "headGroupSpec": {
            "rayStartParams": {},
            "template": _template(labels, annotations, _without_gpus(spec)),
        },
        "workerGroupSpecs": [
            {
                "groupName": "gpu-workers" if gpus else "workers",
                "replicas": workers,
                "minReplicas": workers,
                "maxReplicas": workers,
                "rayStartParams": worker_params,
                "template": _template(labels, annotations, spec),
            }
        ],
    }
    return [obj]


def _inference_service(
    facts: PodFacts, settings: ExportSettings, lines: list[Message]
) -> list[dict]:
    name, namespace, labels, annotations, spec = _parts(facts)
    spec.pop("restartPolicy", None)
    containers = _app(spec)
    main = containers[0] if containers else {}
    if len(containers) > 1:
        names = ", ".join(str(c.get("name")) for c in containers[1:])
        lines.append(Message(MSG_DROPPED_CONTAINERS, {"kind": "InferenceService", "names": names}))
    model: dict[str, Any] = {
        "modelFormat": {"name": settings.model_format.strip() or "huggingface"}
    }
    if settings.storage_uri.strip():
        model["storageUri"] = settings.storage_uri.strip()
    else:
        lines.append(Message(MSG_NO_STORAGE, {}))
    # The runtime gives the image and command; the rest of the container is the design's.
    for key, value in main.items():
        if key not in ("name", "image", "command", "restartPolicy"):
            model[key] = copy.deepcopy(value)
    low, high = (settings.hpa_min, settings.hpa_max) if settings.hpa else (settings.replicas,) * 2
    predictor: dict[str, Any] = {"minReplicas": low, "maxReplicas": high, "model": model}
    for key, value in spec.items():
        if key not in ("containers", "initContainers"):
            predictor[key] = value
    if spec.get("initContainers"):
        predictor["initContainers"] = spec["initContainers"]
    obj = _object("InferenceService", name, namespace, labels)
    if annotations:
        obj["metadata"]["annotations"] = dict(annotations)
    obj["spec"] = {"predictor": predictor}
    return [obj]


BUILDERS = {
    "PyTorchJob": _pytorchjob,
    "TrainJob": _trainjob,
    "JobSet": _jobset,
    "LeaderWorkerSet": _lws,
    "RayCluster": _raycluster,
    "InferenceService": _inference_service,
}


def _copies(kind: str, settings: ExportSettings) -> int:
    """Pods running at once (the most, for an autoscaled InferenceService; a RayCluster's
    workers, its head apart)."""
    workers = max(settings.workers, 1)
    if kind == "LeaderWorkerSet":
        return max(settings.replicas, 0) * workers
    if kind == "RayCluster":
        return max(settings.workers, 0)
    if kind == "InferenceService":
        return max(settings.hpa_max if settings.hpa else settings.replicas, 0)
    return workers


def _explain(kind: str) -> Any:
    """The explainer of ``kind`` (explain.EXPLAINERS): the builder's own remarks, then what
    the settings make of it, then the totals."""

    def explainer(settings: ExportSettings, pod: PodFacts) -> list[Message]:
        lines: list[Message] = []
        BUILDERS[kind](pod, settings, lines)
        if kind == "TrainJob":
            runtime = settings.runtime.strip() or "torch-distributed"
            lines.insert(0, Message(MSG_TRAINJOB_RUNTIME, {"runtime": runtime}))
        elif kind == "JobSet":
            lines.append(Message(MSG_JOBSET_RESTARTS, {"restarts": settings.backoff_limit}))
        elif kind == "RayCluster":
            main = (_app(_parts(pod)[4]) or [{}])[0]
            if _gpu_limit(main):
                lines.append(Message(MSG_RAY_GPUS, {"gpus": _count(_gpu_limit(main))}))
        elif kind == "InferenceService":
            fmt = settings.model_format.strip() or "huggingface"
            lines.insert(0, Message(MSG_ISVC_FORMAT, {"format": fmt}))
        copies = _copies(kind, settings)
        totals = job_totals(pod, settings.model_copy(update={"kind": kind}))
        if copies > 1 and totals:
            text = ", ".join(f"{k} {v}" for k, v in totals.items())
            lines.append(Message(MSG_OPERATOR_TOTALS, {"copies": copies, "totals": text}))
        return lines

    return explainer


SETTINGS = {
    "PyTorchJob": (
        "workers",
        "backoff_limit",
        "ttl_seconds_after_finished",
        "active_deadline_seconds",
    ),
    "TrainJob": ("workers", "runtime"),
    "JobSet": ("workers", "master_port", "backoff_limit", "ttl_seconds_after_finished"),
    "LeaderWorkerSet": ("replicas", "workers"),
    "RayCluster": ("workers",),
    "InferenceService": ("replicas", "hpa", "hpa_min", "hpa_max", "model_format", "storage_uri"),
}
LABELS = {
    "PyTorchJob": gettext_noop("PyTorchJob (Kubeflow Training Operator)"),
    "TrainJob": gettext_noop("TrainJob (Kubeflow Trainer)"),
    "JobSet": gettext_noop("JobSet"),
    "LeaderWorkerSet": gettext_noop("LeaderWorkerSet (multi-node inference)"),
    "RayCluster": gettext_noop("RayCluster (KubeRay)"),
    "InferenceService": gettext_noop("InferenceService (KServe)"),
}
RESTART = {"JobSet": "Never", "LeaderWorkerSet": "Always"}


def _record(kind: str) -> ExportKind:
    return ExportKind(
        id=kind,
        label=LABELS[kind],
        build=lambda parts, settings: BUILDERS[kind](parts.facts, settings, []),
        copies=lambda settings: _copies(kind, settings),
        restart_policy=lambda settings: RESTART.get(kind),
        settings=SETTINGS[kind],
        reason=KIND_REASONS[kind],
        restart_note=RESTART_NOTES.get(kind),
        source=f"{API_VERSIONS[kind]} {kind} (CRD schema: design/crds/SOURCES.md)",
    )


def operator_problems(
    objects: list[dict[str, Any]],
) -> tuple[list[tuple[int, Finding]], list[tuple[int, Finding]]]:
    """(errors, warnings) of exported operator objects, by index: their CRD schema's and
    their operators' own (the pod templates' core errors are the design's pod report)."""
    errors: list[tuple[int, Finding]] = []
    warnings: list[tuple[int, Finding]] = []
    for i, obj in enumerate(objects):
        problems = validate_custom_resource(obj)
        if problems is None:
            continue
        errors += [(i, Finding(p.field, p.message, "CRD schema")) for p in problems]
        for report in operator_reports(_workloads(obj)):
            errors += [(i, f) for f in report.errors]
            warnings += [(i, f) for f in report.warnings]
    return errors, warnings


def _workloads(obj: dict[str, Any]) -> list[Any]:
    workloads, _errors = find_workloads([Document(0, 1, obj, None)])
    return list(workloads)


def export_operator_object(facts: PodFacts, settings: ExportSettings, kind: str) -> OperatorExport:
    """The object of an operator kind for the designed pod, what its CRD schema and its
    operator say about it (indexes into ``objects``), why it looks so, and the totals."""
    objects = BUILDERS[kind](facts, settings, [])
    errors, warnings = operator_problems(objects)
    record = _record(kind)
    params = {
        "replicas": settings.replicas,
        "workers": settings.workers,
        "last": settings.workers - 1,
    }
    explanation = [Message(record.reason, params), *_explain(kind)(settings, facts)]
    totals = job_totals(facts, settings.model_copy(update={"kind": kind}))
    pods = _copies(kind, settings) + (1 if kind == "RayCluster" else 0)
    return OperatorExport(objects, errors, warnings, explanation, totals, pods)


for _kind in BUILDERS:
    register_export_kind(_record(_kind))
    EXPLAINERS[_kind] = _explain(_kind)

# The workload type an analyzed template of these kinds opens as in the designer.
OPENS_AS = {
    **dict.fromkeys(
        ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"), "distributed"
    ),
    **dict.fromkeys(("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"), "distributed"),
    **dict.fromkeys(("JobSet", "RayCluster", "RayJob"), "distributed"),
    **dict.fromkeys(
        ("LeaderWorkerSet", "RayService", "InferenceService", "ServingRuntime"), "inference"
    ),
    "ClusterServingRuntime": "inference",
}
WORKLOAD_OF_KIND.update(OPENS_AS)
