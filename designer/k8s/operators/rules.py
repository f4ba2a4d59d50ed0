"""The operators' own rules about pod templates, replica counts, container names and
resources, with their messages verbatim (Go sources named per rule).

Rules are data: ``RULES`` maps a kind to the functions that check one pod template of it
(``template_rules``) and the whole object once (``object_rules``). Each returns Findings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from designer.k8s.core import (
    Message,
    Quantity,
    QuantityError,
    forbidden,
    gettext_noop,
    invalid,
    not_supported,
    required,
)
from designer.k8s.gpu import is_gpu_resource
from designer.k8s.manifest import Workload
from designer.k8s.operators.findings import Finding

TRAINING_WEBHOOK = "Kubeflow Training Operator webhook"
MPI_CONTROLLER = "Kubeflow Training Operator (MPIJob validation)"
TRAINER_WEBHOOK = "Kubeflow Trainer webhook"
JOBSET_WEBHOOK = "JobSet webhook"
LWS_WEBHOOK = "LeaderWorkerSet webhook"
KUBERAY = "KubeRay"
KSERVE_WEBHOOK = "KServe webhook"
VOLCANO_WEBHOOK = "Volcano webhook"
CRD_SCHEMA = "kube-apiserver (CRD schema)"
FIELD_VALIDATION = "kube-apiserver (strict field validation, kubectl's default)"
DESIGNER = "Pod Resource Designer"
MAX_INT32_PRODUCT = 2147483647
CORE_GROUPS = frozenset({"", "apps", "batch", "extensions"})


# --- reading a template -------------------------------------------------------------------


def containers(spec: Any, key: str = "containers") -> list[tuple[int, dict[str, Any]]]:
    items = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(items, list):
        return []
    return [(i, c) for i, c in enumerate(items) if isinstance(c, dict)]


def _resources(container: dict[str, Any], part: str) -> dict[str, Any]:
    res = container.get("resources")
    values = res.get(part) if isinstance(res, dict) else None
    return values if isinstance(values, dict) else {}


def quantity(value: Any) -> Fraction | None:
    try:
        return Quantity.from_json(value).as_fraction()
    except (QuantityError, ValueError, TypeError, OverflowError):
        return None


def gpus_per_pod(spec: Any) -> dict[str, Fraction]:
    """GPUs the app containers ask for (limits, which extended resources require)."""
    out: dict[str, Fraction] = {}
    for _i, c in containers(spec):
        for name, value in _resources(c, "limits").items():
            q = quantity(value)
            if is_gpu_resource(name) and q:
                out[name] = out.get(name, Fraction(0)) + q
    return out


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


# --- Kubeflow Training Operator v1 ---------------------------------------------------------

# kind -> (replica specs key, default container, supported replica types or () when any)
TRAINING_KINDS = {
    "PyTorchJob": ("pytorchReplicaSpecs", "pytorch", ("Master", "Worker")),
    "TFJob": ("tfReplicaSpecs", "tensorflow", ()),
    "XGBoostJob": ("xgbReplicaSpecs", "xgboost", ("Master", "Worker")),
    "PaddleJob": ("paddleReplicaSpecs", "paddle", ("Master", "Worker")),
    "JAXJob": ("jaxReplicaSpecs", "jax", ("Worker",)),
}


def training_template(w: Workload) -> list[Finding]:
    """pkg/webhooks/<framework>/*_webhook.go validateReplicaSpecs (release-1.9): every
    replica type needs containers with images and one container named after the framework;
    the field path is Go's (``spec.pytorchReplicaSpecs[Worker].template.spec.containers``)."""
    key, name, types = TRAINING_KINDS[w.kind]
    out = []
    base = f"spec.{key}[{w.role}]"
    if types and w.role not in types:
        out.append(Finding.of(not_supported(base, w.role, types), TRAINING_WEBHOOK))
    path = f"{base}.template.spec.containers"
    items = containers(w.pod_spec)
    if not items:
        out.append(Finding.of(required(path, "must be specified"), TRAINING_WEBHOOK))
        return out
    for i, c in items:
        if not c.get("image"):
            out.append(
                Finding.of(required(f"{path}[{i}].image", "must be required"), TRAINING_WEBHOOK)
            )
    if not any(c.get("name") == name for _i, c in items):
        # Paddle prints the name with %q, the others with %s.
        shown = f'"{name}"' if w.kind == "PaddleJob" else name
        detail = f"must have at least one container with name {shown}"
        out.append(Finding.of(required(path, detail), TRAINING_WEBHOOK))
    replicas = (w.obj.get("spec") or {}).get(key, {}).get(w.role) or {}
    value = replicas.get("replicas") if isinstance(replicas, dict) else None
    if w.kind in ("PyTorchJob", "XGBoostJob") and w.role == "Master" and value not in (None, 1):
        out.append(Finding.of(forbidden(f"{base}.replicas", "must be 1"), TRAINING_WEBHOOK))
    if w.kind == "PyTorchJob" and w.role == "Worker" and isinstance(value, int) and value < 1:
        out.append(
            Finding.of(forbidden(f"{base}.replicas", "must be at least 1"), TRAINING_WEBHOOK)
        )
    return out


def training_object(ws: Sequence[Workload]) -> list[Finding]:
    w = ws[0]
    out = []
    if w.kind == "TFJob":
        chief = sum(1 for x in ws if x.role in ("Chief", "Master"))
        if chief > 1:
            detail = "must not have more than 1 Chief or Master role"
            out.append(Finding.of(forbidden("spec.tfReplicaSpecs", detail), TRAINING_WEBHOOK))
    if w.kind == "XGBoostJob" and not any(x.role == "Master" for x in ws):
        out.append(
            Finding.of(
                required("spec.xgbReplicaSpecs[Master]", "must be present"), TRAINING_WEBHOOK
            )
        )
    elastic = (w.obj.get("spec") or {}).get("elasticPolicy") is not None
    if w.kind == "PyTorchJob" and elastic and not any(x.role == "Worker" for x in ws):
        detail = "must be configured if elastic policy is used"
        out.append(
            Finding.of(required("spec.pytorchReplicaSpecs[Worker]", detail), TRAINING_WEBHOOK)
        )
    return out


def mpijob_object(ws: Sequence[Workload]) -> list[Finding]:
    """ValidateV1MpiJobSpec (pkg/apis/kubeflow.org/v1/mpi_validation.go): the controller
    refuses the job (an event), there is no webhook."""
    out = []
    launcher = [x for x in ws if x.role == "Launcher"]
    if not launcher:
        out.append(
            Finding(
                "spec.mpiReplicaSpecs",
                "MPIReplicaSpec is not valid: Master ReplicaSpec must be present",
                MPI_CONTROLLER,
            )
        )
    elif launcher[0].replicas.count != 1:
        out.append(
            Finding(
                "spec.mpiReplicaSpecs[Launcher].replicas",
                "MPIReplicaSpec is not valid: There must be only 1 launcher replica",
                MPI_CONTROLLER,
            )
        )
    return out


# --- Kubeflow Trainer runtimes ----------------------------------------------------------------


def runtime_template(w: Workload) -> list[Finding]:
    """pkg/webhooks/trainingruntime_webhook.go validateReplicatedJobs: an ancestor job runs
    once and contains its container (the value Go prints with Invalid is not shown here)."""
    out = []
    ancestor = w.facts.get("ancestor")
    if not ancestor or w.kind not in ("TrainingRuntime", "ClusterTrainingRuntime"):
        return out
    job = w.template.removesuffix(".template.spec.template")
    raw = _get_path(w.obj, job)
    replicas = raw.get("replicas") if isinstance(raw, dict) else None
    if replicas not in (None, 1):
        out.append(
            Finding.of(invalid(f"{job}.replicas", replicas, "always must be 1"), TRAINER_WEBHOOK)
        )
    if w.required_container and not any(
        c.get("name") == w.required_container for _i, c in containers(w.pod_spec)
    ):
        detail = f"must contain the required container for the ancestor: {ancestor}"
        path = f"{w.pod_spec_path}.containers"
        out.append(Finding(path, detail, TRAINER_WEBHOOK, "FieldValueInvalid", None))
    return out


def _get_path(obj: Any, path: str) -> Any:
    """The value at a path with ``[i]`` list indexes (``spec.a[1].b``)."""
    node = obj
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            i = int(part[1:-1])
            node = node[i] if isinstance(node, list) and i < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node


MSG_TRAINJOB_RUNTIME = gettext_noop(
    "This TrainJob has no pod template of its own: its pods are the %(replicated_job)s job of "
    "%(runtime)s (%(where)s), with spec.trainer applied to its node container "
    "(resourcesPerNode replaces that container's resources as a whole)."
)


def trainjob_template(w: Workload) -> list[Finding]:
    runtime = w.facts.get("runtime") or {}
    where = (
        runtime.get("builtin")
        or f"{runtime.get('file') or 'input'} document {runtime.get('document')}"
    )
    params = {
        "replicated_job": str(w.facts.get("replicatedJob") or w.role),
        "runtime": f"{runtime.get('kind')} {runtime.get('name')}",
        "where": where,
    }
    return [Finding(w.template, Message(MSG_TRAINJOB_RUNTIME, params), TRAINER_WEBHOOK)]


# --- JobSet --------------------------------------------------------------------------------


def jobset_template(w: Workload) -> list[Finding]:
    """pkg/webhooks/jobset_webhook.go: replicas x parallelism fits an int32."""
    count = w.replicas.count
    if count is not None and count > MAX_INT32_PRODUCT:
        detail = (
            f"the product of replicas and parallelism must not exceed {MAX_INT32_PRODUCT} "
            f"for replicatedJob '{w.role}'"
        )
        return [Finding(w.template.removesuffix(".template.spec.template"), detail, JOBSET_WEBHOOK)]
    return []


# --- LeaderWorkerSet ---------------------------------------------------------------------------

MSG_LEADER_NO_GPU = gettext_noop(
    "The leader requests no GPU while each worker requests %(gpus)s %(resource)s: in "
    "multi-node inference (vLLM, SGLang, TensorRT-LLM over Ray or MPI) the leader holds a "
    "share of the model too, so it usually needs the same GPUs as a worker."
)


def lws_template(w: Workload) -> list[Finding]:
    size = w.facts.get("size")
    if w.role in ("leader", "leader and worker") and isinstance(size, int) and size < 1:
        # The webhook formats a pointer with %d; the number meant is the size.
        detail = f"the Size {size} is invalid"
        return [Finding("spec.leaderWorkerTemplate.size", detail, LWS_WEBHOOK)]
    return []


def lws_object(ws: Sequence[Workload]) -> list[Finding]:
    leader = next((x for x in ws if x.role == "leader"), None)
    worker = next((x for x in ws if x.role == "worker"), None)
    if leader is None or worker is None:
        return []
    worker_gpus = gpus_per_pod(worker.pod_spec)
    if worker_gpus and not gpus_per_pod(leader.pod_spec):
        name, count = next(iter(worker_gpus.items()))
        message = Message(MSG_LEADER_NO_GPU, {"gpus": _fmt(count), "resource": name})
        path = f"{leader.pod_spec_path}.containers"
        return [Finding(path, message, DESIGNER, severity="warning")]
    return []


# --- KubeRay -----------------------------------------------------------------------------------

MSG_RAY_NO_LIMIT = gettext_noop(
    "Ray sizes itself from the Ray container's limits (KubeRay passes them to ray start): "
    "without a %(resource)s limit and without rayStartParams %(param)s, Ray %(effect)s. "
    "The Ray documentation asks for requests equal to limits."
)
RAY_EFFECT = {
    "cpu": gettext_noop("falls back to the CPU request, or detects the node's CPUs"),
    "memory": gettext_noop("detects the node's memory, not the pod's"),
}
MSG_RAY_NUM_GPUS = gettext_noop(
    "rayStartParams num-gpus is %(param)s but the Ray container's %(resource)s limit is "
    "%(limit)s: Ray schedules tasks on %(param)s GPU(s) while Kubernetes gives the pod %(limit)s."
)
MSG_RAY_AUTOSCALER = gettext_noop(
    "KubeRay adds an autoscaler container to the head pod (enableInTreeAutoscaling) with "
    "%(resources)s; it is counted in this pod's figures."
)
MSG_RAY_SUBMITTER = gettext_noop(
    "KubeRay also runs a submitter pod (a Job) for this RayJob: container ray-job-submitter "
    "with requests cpu 500m, memory 200Mi and limits cpu 1, memory 1Gi (Burstable). Set "
    "spec.submitterPodTemplate to size it."
)
RAY_PARAMS = {"cpu": "num-cpus", "memory": "memory"}


def ray_template(w: Workload) -> list[Finding]:
    out: list[Finding] = []
    if w.role == "submitter":
        return out
    group = "headGroupSpec" if w.role == "head" else "workerGroupSpec"
    items = containers(w.pod_spec)
    injected = set(w.facts.get("injected") or ())
    app = [(i, c) for i, c in items if i not in injected]
    if not app:
        # ValidateRayClusterSpec (utils/validation.go): the controller refuses the cluster.
        out.append(
            Finding(
                f"{w.pod_spec_path}.containers",
                f"{group} should have at least one container",
                KUBERAY,
            )
        )
        return out
    params = w.facts.get("rayStartParams") or {}
    params_path = w.facts.get("rayStartParamsPath", "")
    group_resources = _get_path(w.obj, params_path.removesuffix(".rayStartParams") + ".resources")
    if group_resources and any(
        k in params for k in ("num-cpus", "num-gpus", "memory", "resources")
    ):
        label = "Head" if w.role == "head" else w.role
        detail = (
            "resource fields should not be set in both rayStartParams and Resources for "
            f"{label} group; please use only one"
        )
        out.append(Finding(params_path, detail, KUBERAY))
    # The Ray container is the first (utils.RayContainerIndex = 0).
    index, ray = app[0]
    path = f"{w.pod_spec_path}.containers[{index}].resources.limits"
    limits = _resources(ray, "limits")
    for resource, param in RAY_PARAMS.items():
        if resource not in limits and param not in params and not group_resources:
            message = Message(
                MSG_RAY_NO_LIMIT,
                {"resource": resource, "param": param, "effect": Message(RAY_EFFECT[resource], {})},
            )
            out.append(Finding(path, message, KUBERAY, severity="warning"))
    gpu = next((k for k in sorted(limits) if is_gpu_resource(k) or k.endswith("gpu")), None)
    if "num-gpus" in params and gpu is not None:
        a, b = quantity(str(params["num-gpus"])), quantity(limits[gpu])
        if a is not None and b is not None and a != b:
            message = Message(
                MSG_RAY_NUM_GPUS,
                {"param": str(params["num-gpus"]), "resource": gpu, "limit": _fmt(b)},
            )
            out.append(Finding(f"{params_path}.num-gpus", message, KUBERAY, severity="warning"))
    lo, hi = w.facts.get("minReplicas"), w.facts.get("maxReplicas")
    if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
        detail = (
            f"minReplicas ({lo}) is greater than maxReplicas ({hi}), using maxReplicas as "
            "desired replicas. Please fix this to avoid any unexpected behaviors."
        )
        out.append(
            Finding(
                params_path.removesuffix(".rayStartParams") + ".minReplicas",
                detail,
                KUBERAY,
                severity="warning",
            )
        )
    return out


def ray_notes(w: Workload) -> list[Finding]:
    out = []
    if w.facts.get("injected"):
        resources = w.facts.get("autoscalerResources") or {}
        text = "; ".join(
            f"{part} " + ", ".join(f"{k} {v}" for k, v in (resources.get(part) or {}).items())
            for part in ("requests", "limits")
            if resources.get(part)
        )
        where = w.facts.get("autoscalerOptionsPath", "")
        out.append(
            Finding(
                f"{where}.resources",
                Message(MSG_RAY_AUTOSCALER, {"resources": text or "no resources"}),
                KUBERAY,
            )
        )
    if (
        w.kind == "RayJob"
        and w.role == "head"
        and (w.obj.get("spec") or {}).get("submitterPodTemplate") is None
        and (w.obj.get("spec") or {}).get("submissionMode", "K8sJobMode") == "K8sJobMode"
    ):
        out.append(Finding("spec.submitterPodTemplate", Message(MSG_RAY_SUBMITTER, {}), KUBERAY))
    return out


# --- KServe --------------------------------------------------------------------------------

MSG_KSERVE_GPU_INJECTED = gettext_noop(
    "Multi-node serving: KServe writes nvidia.com/gpu requests and limits on kserve-container "
    "and worker-container itself (tensorParallelSize x pipelineParallelSize GPUs spread over "
    "the head and rayNodeCount - 1 workers), so the real pods request GPUs this template does "
    "not show."
)
MSG_KSERVE_STORAGE = gettext_noop(
    "KServe adds a storage-initializer init container that downloads %(uri)s; its resources "
    "come from the inferenceservice-config ConfigMap and are not counted here."
)


def kserve_template(w: Workload) -> list[Finding]:
    out: list[Finding] = []
    component = w.facts.get("component") or {}
    for key in ("alibi", "aix"):
        if key in (w.facts.get("inline") or ()):
            detail = f'strict decoding error: unknown field "{w.template}.{key}"'
            out.append(Finding(f"{w.template}.{key}", detail, FIELD_VALIDATION))
    lo, hi = component.get("minReplicas"), component.get("maxReplicas")
    if isinstance(lo, int) and lo < 0:
        out.append(
            Finding(
                f"{w.template}.minReplicas", "'MinReplicas' cannot be less than 0", KSERVE_WEBHOOK
            )
        )
    if isinstance(hi, int) and hi < 0:
        out.append(
            Finding(
                f"{w.template}.maxReplicas", "'MaxReplicas' cannot be less than 0", KSERVE_WEBHOOK
            )
        )
    if isinstance(hi, int) and hi > 0 and (lo if isinstance(lo, int) else 1) > hi:
        out.append(
            Finding(
                f"{w.template}.minReplicas",
                "'MinReplicas' cannot be greater than MaxReplicas",
                KSERVE_WEBHOOK,
            )
        )
    if w.role == "worker" and len(containers(w.pod_spec)) > 1:
        detail = "setting multiple containers in workerSpec is not allowed"
        if w.kind == "InferenceService":
            detail = f'the InferenceService "{w.name}" is invalid: {detail}'
        out.append(Finding(f"{w.template}.containers", detail, KSERVE_WEBHOOK))
    return out


def kserve_notes(w: Workload) -> list[Finding]:
    out = []
    component = w.facts.get("component") or {}
    for key in w.facts.get("inline") or ():
        uri = (
            (component.get(key) or {}).get("storageUri")
            if isinstance(component.get(key), dict)
            else None
        )
        if isinstance(uri, str) and uri:
            out.append(
                Finding(
                    f"{w.template}.{key}.storageUri",
                    Message(MSG_KSERVE_STORAGE, {"uri": uri}),
                    "KServe",
                )
            )
    if w.role == "worker" and not gpus_per_pod(w.pod_spec):
        out.append(
            Finding(f"{w.template}.containers", Message(MSG_KSERVE_GPU_INJECTED, {}), "KServe")
        )
    return out


# --- Volcano -------------------------------------------------------------------------------


def volcano_object(ws: Sequence[Workload]) -> list[Finding]:
    """pkg/webhooks/admission/jobs/validate/admit_job.go (messages keep their spaces and ;)."""
    obj = ws[0].obj
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    job = (obj.get("metadata") or {}).get("name")
    out = []
    total = 0
    for i, task in enumerate(spec.get("tasks") or []):
        if not isinstance(task, dict):
            continue
        replicas = task.get("replicas") if isinstance(task.get("replicas"), int) else 0
        total += replicas
        floor = task.get("minAvailable")
        if isinstance(floor, int) and floor > replicas:
            name = task.get("name")
            detail = f" 'minAvailable' is greater than 'replicas' in task: {name}, job: {job};"
            out.append(Finding(f"spec.tasks[{i}].minAvailable", detail, VOLCANO_WEBHOOK))
    floor = spec.get("minAvailable")
    if isinstance(floor, int) and floor > total:
        detail = " job 'minAvailable' should not be greater than total replicas in tasks;"
        out.append(Finding("spec.minAvailable", detail, VOLCANO_WEBHOOK))
    return out


# --- every custom resource: quantities the CRD schema refuses --------------------------------


def crd_quantities(w: Workload) -> list[Finding]:
    """A quantity in a CRD is ``x-kubernetes-int-or-string``: kube-openapi's type validator
    refuses a JSON number that is not an integer (``cpu: 0.1``), which the core API accepts:
    ``field.TypeInvalid(path, "number", "<path> in body must be of type integer,string:
    \\"number\\"")`` (apiextensions-apiserver validation.go kubeOpenAPIResultToFieldErrors).
    The schema's anyOf adds a composite error the engine does not repeat."""
    if w.api_group in CORE_GROUPS:
        return []
    out = []
    for key in ("initContainers", "containers"):
        for i, c in containers(w.pod_spec, key):
            for part in ("requests", "limits"):
                for name, value in _resources(c, part).items():
                    if isinstance(value, float) and not value.is_integer():
                        path = f"{w.pod_spec_path}.{key}[{i}].resources.{part}.{name}"
                        detail = f'{path} in body must be of type integer,string: "number"'
                        finding = Finding(
                            path, detail, CRD_SCHEMA, "FieldValueTypeInvalid", "number"
                        )
                        out.append(finding)
    return out


# --- the table -----------------------------------------------------------------------------


@dataclass(frozen=True)
class KindRules:
    template_rules: tuple[Callable[[Workload], list[Finding]], ...] = ()
    object_rules: tuple[Callable[[Sequence[Workload]], list[Finding]], ...] = ()
    notes: tuple[Callable[[Workload], list[Finding]], ...] = ()


RULES: dict[str, KindRules] = {
    **{k: KindRules((training_template,), (training_object,)) for k in TRAINING_KINDS},
    "MPIJob": KindRules((), (mpijob_object,)),
    "TrainingRuntime": KindRules((runtime_template,)),
    "ClusterTrainingRuntime": KindRules((runtime_template,)),
    "TrainJob": KindRules((), (), (trainjob_template,)),
    "JobSet": KindRules((jobset_template,)),
    "LeaderWorkerSet": KindRules((lws_template,), (lws_object,)),
    "RayCluster": KindRules((ray_template,), (), (ray_notes,)),
    "RayJob": KindRules((ray_template,), (), (ray_notes,)),
    "RayService": KindRules((ray_template,), (), (ray_notes,)),
    "InferenceService": KindRules((kserve_template,), (), (kserve_notes,)),
    "ServingRuntime": KindRules((kserve_template,), (), (kserve_notes,)),
    "ClusterServingRuntime": KindRules((kserve_template,), (), (kserve_notes,)),
    "Job": KindRules((), (volcano_object,)),
}


def rules_for(w: Workload) -> KindRules | None:
    if w.record is None or not w.record.operator:
        return None
    return RULES.get(w.kind)
