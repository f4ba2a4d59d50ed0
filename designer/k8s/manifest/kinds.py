"""Where the pod templates of each kind live, and how many pods each one stands for.

One record per kind (``KINDS``): its API group(s), versions, where its pod templates are,
how many pods each stands for, the container name its operator requires and the source
the rule comes from. A newcomer adds a kind by adding a record and, when no existing
reader fits, a function that yields its ``Site``s.

Any other kind is searched *by shape* (``sites_by_shape``): a mapping under a key named
``template`` (or ``podTemplate`` ...) whose ``spec.containers`` is a list of mappings, or
a PodSpec under ``podSpec``; such templates say they were found by shape and stand for an
unknown number of pods.

Pod counts follow the operators' own defaulting (Go sources named per record; the research
notes with the code read are in the project's history). ``None`` means the object does not
say: an autoscaler, a node count or another object decides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import Message, gettext_noop
from designer.k8s.manifest._common import _type_name

MAX_INT32 = 2147483647

# Fields of a core PodSpec (k8s.io/api/core/v1 PodSpec, 1.34): what a KServe PodSpec-like
# component shares with a pod. Its other fields (minReplicas, storageUri, ...) are KServe's.
POD_SPEC_FIELDS = frozenset(
    {
        "activeDeadlineSeconds",
        "affinity",
        "automountServiceAccountToken",
        "containers",
        "dnsConfig",
        "dnsPolicy",
        "enableServiceLinks",
        "ephemeralContainers",
        "hostAliases",
        "hostIPC",
        "hostNetwork",
        "hostPID",
        "hostUsers",
        "hostname",
        "hostnameOverride",
        "imagePullSecrets",
        "initContainers",
        "nodeName",
        "nodeSelector",
        "os",
        "overhead",
        "preemptionPolicy",
        "priority",
        "priorityClassName",
        "readinessGates",
        "resourceClaims",
        "resources",
        "restartPolicy",
        "runtimeClassName",
        "schedulerName",
        "schedulingGates",
        "securityContext",
        "serviceAccount",
        "serviceAccountName",
        "setHostnameAsFQDN",
        "shareProcessNamespace",
        "subdomain",
        "terminationGracePeriodSeconds",
        "tolerations",
        "topologySpreadConstraints",
        "volumes",
    }
)


@dataclass(frozen=True)
class Replicas:
    """How many pods a template stands for: ``count`` when the object says (None when an
    autoscaler, the node count or another object decides), with the bounds it gives."""

    count: int | None
    min: int | None = None
    max: int | None = None
    source: str = ""  # the fields it comes from, e.g. "spec.replicas"

    def as_dict(self) -> dict[str, Any]:
        return {
            "replicas": self.count,
            "replicasMin": self.min,
            "replicasMax": self.max,
            "replicasFrom": self.source,
        }

    @property
    def least(self) -> int | None:
        """The fewest pods it runs: the count, else the lower bound."""
        return self.count if self.count is not None else self.min


@dataclass(frozen=True)
class Site:
    """One pod template inside an object.

    ``spec``/``metadata`` are what the pod is made of; for a PodSpec-like object (KServe) the
    spec is assembled from it and ``path_map`` maps the assembled container paths back to
    where they are written (``spec.predictor.containers[0]`` -> ``spec.predictor.model``).
    """

    template: str  # JSON path of the pod template in its document ("" for a Pod)
    spec_path: str  # where its PodSpec is ("spec", "spec.template.spec", "spec.predictor")
    metadata_path: str  # where errors on the pod's metadata are reported
    spec: Any
    metadata: Any
    replicas: Replicas
    role: str = ""  # "Worker", "head", "leader", "predictor", ...
    required_container: str | None = None
    path_map: tuple[tuple[str, str], ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)  # rayStartParams, autoscaling ...


@dataclass(frozen=True)
class KindRecord:
    groups: frozenset[str]
    kind: str
    versions: tuple[str, ...]
    templates: str  # where pod templates live
    pods: str  # how many pods each stands for
    container: str | None  # the container name the operator requires, if any
    source: str
    sites: Callable[[dict[str, Any]], list[Site]]
    # True when admission validates the pod templates (core workloads, Volcano): template
    # errors refuse the object itself. Otherwise the object is accepted and its pods are
    # refused when the operator creates them.
    validated_at_admission: bool = False
    operator: str = ""


class SiteError(ValueError):
    """A field on the way to a pod template has the wrong type (a list where a mapping is
    expected): the object cannot be read."""


# --- small readers ------------------------------------------------------------------------


_PART = re.compile(r"([^.\[]+)|\[(\d+)\]")


def _get(obj: Any, path: str, *, root: str = "") -> Any:
    """The value at ``path`` of ``obj`` (``spec.workerGroupSpecs[0].template``; None when
    missing); SiteError when a field on the way is not a mapping (or a list, for [i])."""
    node = obj
    walked = root
    for m in _PART.finditer(path):
        if node is None:
            return None
        name, number = m.group(1), m.group(2)
        if number is not None:
            if not isinstance(node, list):
                raise SiteError(f"{walked} is {_type_name(node)}, expected a list")
            i = int(number)
            node = node[i] if i < len(node) else None
            walked = f"{walked}[{i}]"
            continue
        if not isinstance(node, dict):
            raise SiteError(f"{walked} is {_type_name(node)}, expected a mapping")
        node = node.get(name)
        walked = f"{walked}.{name}" if walked else name
    return node


def _mapping(obj: Any, path: str, where: str) -> dict[str, Any]:
    value = _get(obj, path, root="")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SiteError(f"{where} is {_type_name(value)}, expected a mapping")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise SiteError(f"{where} is {_type_name(value)}, expected a list")
    return value


def _int(value: Any, default: int | None) -> int | None:
    """An integer field; the default when absent, None when it is not an integer (the CRD
    schema refuses it: the count is unknown)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value)


def _mul(*values: int | None) -> int | None:
    out = 1
    for v in values:
        if v is None:
            return None
        out *= v
    return out


def _template_site(
    obj: dict[str, Any],
    template: str,
    replicas: Replicas,
    role: str = "",
    container: str | None = None,
    **facts: Any,
) -> Site:
    """A PodTemplateSpec at ``template`` (metadata + spec)."""
    node = _get(obj, template) if template else obj
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise SiteError(f"{template} is {_type_name(node)}, expected a mapping")
    spec, metadata = node.get("spec"), node.get("metadata")
    prefix = f"{template}." if template else ""
    for name, value in (("spec", spec), ("metadata", metadata)):
        if value is not None and not isinstance(value, dict):
            raise SiteError(f"{prefix}{name} is {_type_name(value)}, expected a mapping")
    # ValidatePodTemplateSpec reports template labels at <template>.labels; a Pod's at
    # metadata.labels.
    metadata_path = template or "metadata"
    return Site(
        template=template,
        spec_path=f"{prefix}spec",
        metadata_path=metadata_path,
        spec=spec if spec is not None else {},
        metadata=metadata if metadata is not None else {},
        replicas=replicas,
        role=role,
        required_container=container,
        facts=facts,
    )


def _job_pods(job_spec: dict[str, Any], where: str) -> tuple[int | None, str]:
    """Pods a batch/v1 Job runs at once: parallelism (default 1), at most the completions
    (the Job controller never runs more pods than completions remain)."""
    parallelism = _int(job_spec.get("parallelism"), 1)
    completions = _int(job_spec.get("completions"), None)
    if parallelism is not None and completions is not None:
        return min(parallelism, completions), f"{where}.parallelism, {where}.completions"
    return parallelism, f"{where}.parallelism"


# --- core kinds ---------------------------------------------------------------------------


ONE_POD = Replicas(1)


def _pod(obj: dict[str, Any]) -> list[Site]:
    spec, metadata = obj.get("spec"), obj.get("metadata")
    if spec is not None and not isinstance(spec, dict):
        raise SiteError(f"spec is {_type_name(spec)}, expected a mapping")
    # The Site's fields set at once (a dump is mostly Pods; a frozen dataclass's __init__
    # sets each field through object.__setattr__).
    site = _new(Site)
    _setattr(
        site,
        "__dict__",
        {
            "template": "",
            "spec_path": "spec",
            "metadata_path": "metadata",
            "spec": spec if spec is not None else {},
            "metadata": metadata if type(metadata) is dict or isinstance(metadata, dict) else {},  # noqa: E721
            "replicas": ONE_POD,
            "role": "",
            "required_container": None,
            "path_map": (),
            "facts": {},
        },
    )
    return [site]


_new = object.__new__
_setattr = object.__setattr__


def _replicated(obj: dict[str, Any]) -> list[Site]:
    n = _int(_get(obj, "spec.replicas"), 1)
    return [_template_site(obj, "spec.template", Replicas(n, source="spec.replicas"))]


def _daemonset(obj: dict[str, Any]) -> list[Site]:
    return [_template_site(obj, "spec.template", Replicas(None, source="one per matching node"))]


def _job(obj: dict[str, Any]) -> list[Site]:
    n, source = _job_pods(_mapping(obj, "spec", "spec"), "spec")
    return [_template_site(obj, "spec.template", Replicas(n, source=source))]


def _cronjob(obj: dict[str, Any]) -> list[Site]:
    job = _mapping(obj, "spec.jobTemplate.spec", "spec.jobTemplate.spec")
    n, source = _job_pods(job, "spec.jobTemplate.spec")
    return [_template_site(obj, "spec.jobTemplate.spec.template", Replicas(n, source=source))]


def _pod_template(obj: dict[str, Any]) -> list[Site]:
    return [_template_site(obj, "template", Replicas(None, source="runs no pod by itself"))]


# --- Kubeflow Training Operator v1 ----------------------------------------------------------

# kind -> (replica specs key, default container, replica types, Worker default)
TRAINING_V1: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "PyTorchJob": ("pytorchReplicaSpecs", "pytorch", ("Master", "Worker")),
    "TFJob": ("tfReplicaSpecs", "tensorflow", ("Chief", "PS", "Worker", "Evaluator", "Master")),
    "MPIJob": ("mpiReplicaSpecs", "mpi", ("Launcher", "Worker")),
    "XGBoostJob": ("xgbReplicaSpecs", "xgboost", ("Master", "Worker")),
    "PaddleJob": ("paddleReplicaSpecs", "paddle", ("Master", "Worker")),
    "JAXJob": ("jaxReplicaSpecs", "jax", ("Worker",)),
}


def _training_v1(obj: dict[str, Any]) -> list[Site]:
    kind = str(obj.get("kind"))
    key, container, _types = TRAINING_V1[kind]
    specs = _mapping(obj, f"spec.{key}", f"spec.{key}")
    elastic = (
        _mapping(obj, "spec.elasticPolicy", "spec.elasticPolicy") if kind == "PyTorchJob" else {}
    )
    sites = []
    for rtype, rspec in specs.items():
        where = f"spec.{key}.{rtype}"
        if rspec is not None and not isinstance(rspec, dict):
            raise SiteError(f"{where} is {_type_name(rspec)}, expected a mapping")
        rspec = rspec or {}
        # setDefaultReplicas(spec, 1); MPIJob's Worker defaults to 0 (mpi_defaults.go).
        default = 0 if kind == "MPIJob" and rtype == "Worker" else 1
        n = _int(rspec.get("replicas"), default)
        lo = hi = None
        source = f"{where}.replicas"
        if elastic and rtype == "Worker":
            # elasticPolicy.min/maxReplicas bound the Worker count (default: its replicas).
            lo = _int(elastic.get("minReplicas"), n)
            hi = _int(elastic.get("maxReplicas"), n)
            source += ", spec.elasticPolicy"
            if lo != hi:
                n = None
        # The operator's main container must carry the framework's name; MPIJob v1 only
        # checks that names are set (spec.mainContainer names the main one).
        required = None if kind == "MPIJob" else container
        sites.append(
            _template_site(obj, f"{where}.template", Replicas(n, lo, hi, source), rtype, required)
        )
    return sites


# --- JobSet and Trainer runtimes -----------------------------------------------------------

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
ANCESTOR_CONTAINERS = {
    "trainer": "node",
    "dataset-initializer": "dataset-initializer",
    "model-initializer": "model-initializer",
}


def jobset_sites(
    obj: dict[str, Any], prefix: str, ml_policy: dict[str, Any] | None = None
) -> list[Site]:
    """Pod templates of a JobSetSpec at ``prefix`` (a JobSet's ``spec``, a runtime's
    ``spec.template.spec``). With ``ml_policy`` (a Trainer runtime), the ancestor jobs follow
    the Trainer's sizing: the trainer job runs mlPolicy.numNodes pods (default 1), each
    initializer one."""
    jobs = _list(_get(obj, f"{prefix}.replicatedJobs"), f"{prefix}.replicatedJobs")
    sites = []
    for i, rj in enumerate(jobs):
        where = f"{prefix}.replicatedJobs[{i}]"
        if not isinstance(rj, dict):
            raise SiteError(f"{where} is {_type_name(rj)}, expected a mapping")
        job_spec = _mapping(rj, "template.spec", f"{where}.template.spec")
        labels = _mapping(rj, "template.metadata.labels", f"{where}.template.metadata.labels")
        ancestor = labels.get(ANCESTOR_LABEL) if ml_policy is not None else None
        name = rj.get("name") if isinstance(rj.get("name"), str) else f"[{i}]"
        if ancestor == "trainer":
            # pkg/runtime/core/trainingruntime.go: count := ptr.Deref(mlPolicy.NumNodes, 1);
            # the jobset plugin sets replicas=1 and parallelism=completions=count.
            n = _int(ml_policy.get("numNodes") if ml_policy else None, 1)
            replicas = Replicas(n, source="spec.mlPolicy.numNodes")
        elif ancestor in ("dataset-initializer", "model-initializer"):
            replicas = Replicas(1, source=f"{ancestor}: one pod")
        else:
            per_job, source = _job_pods(job_spec, f"{where}.template.spec")
            count = _mul(_int(rj.get("replicas"), 1), per_job)
            replicas = Replicas(count, source=f"{where}.replicas x {source}")
        sites.append(
            _template_site(
                rj,
                "template.spec.template",
                replicas,
                str(name),
                ANCESTOR_CONTAINERS.get(str(ancestor)) if ancestor else None,
                ancestor=ancestor,
                replicatedJob=name,
            )
        )
    # The sites were read relative to the replicatedJob: give them their full paths.
    return [_rebase(s, f"{prefix}.replicatedJobs[{i}]") for i, s in enumerate(sites)]


def _rebase(site: Site, prefix: str) -> Site:
    def full(path: str) -> str:
        return f"{prefix}.{path}" if path else prefix

    return Site(
        full(site.template),
        full(site.spec_path),
        full(site.metadata_path),
        site.spec,
        site.metadata,
        site.replicas,
        site.role,
        site.required_container,
        tuple((full(a), full(b)) for a, b in site.path_map),
        site.facts,
    )


def _jobset(obj: dict[str, Any]) -> list[Site]:
    return jobset_sites(obj, "spec")


def _training_runtime(obj: dict[str, Any]) -> list[Site]:
    return jobset_sites(obj, "spec.template.spec", _mapping(obj, "spec.mlPolicy", "spec.mlPolicy"))


# --- LeaderWorkerSet ------------------------------------------------------------------------


def _lws(obj: dict[str, Any]) -> list[Site]:
    # pkg/webhooks/leaderworkerset_webhook.go Default: replicas 1, size 1.
    groups = _int(_get(obj, "spec.replicas"), 1)
    size = _int(_get(obj, "spec.leaderWorkerTemplate.size"), 1)
    lwt = _mapping(obj, "spec.leaderWorkerTemplate", "spec.leaderWorkerTemplate")
    base = "spec.leaderWorkerTemplate"
    facts = {"groups": groups, "size": size}
    if lwt.get("leaderTemplate") is not None:
        workers = None if size is None else max(size - 1, 0)
        return [
            _template_site(
                obj,
                f"{base}.leaderTemplate",
                Replicas(groups, source="spec.replicas"),
                "leader",
                **facts,
            ),
            _template_site(
                obj,
                f"{base}.workerTemplate",
                Replicas(_mul(groups, workers), source=f"spec.replicas x ({base}.size - 1)"),
                "worker",
                **facts,
            ),
        ]
    # Without a leaderTemplate the leader is made from the workerTemplate too.
    return [
        _template_site(
            obj,
            f"{base}.workerTemplate",
            Replicas(_mul(groups, size), source=f"spec.replicas x {base}.size"),
            "leader and worker",
            **facts,
        )
    ]


# --- KubeRay --------------------------------------------------------------------------------

# ray-operator/controllers/ray/common/pod.go BuildAutoscalerContainer: requests = limits.
RAY_AUTOSCALER_RESOURCES = {
    "requests": {"cpu": "500m", "memory": "512Mi"},
    "limits": {"cpu": "500m", "memory": "512Mi"},
}
RAY_AUTOSCALER_CONTAINER = "autoscaler"


def ray_cluster_sites(obj: dict[str, Any], prefix: str) -> list[Site]:
    """Head and worker groups of a RayClusterSpec at ``prefix``."""
    base = f"{prefix}." if prefix else ""
    cluster = _mapping(obj, prefix, prefix) if prefix else obj
    autoscaling = cluster.get("enableInTreeAutoscaling") is True
    head_params = _get(cluster, "headGroupSpec.rayStartParams")
    sites = [
        _template_site(
            obj,
            f"{base}headGroupSpec.template",
            Replicas(1, source="the head is one pod"),
            "head",
            rayStartParams=head_params if isinstance(head_params, dict) else {},
            rayStartParamsPath=f"{base}headGroupSpec.rayStartParams",
            autoscaling=autoscaling,
            autoscalerOptions=cluster.get("autoscalerOptions"),
            autoscalerOptionsPath=f"{base}autoscalerOptions",
        )
    ]
    if autoscaling:
        sites[0] = _with_autoscaler(sites[0], cluster.get("autoscalerOptions"), base)
    groups = _list(cluster.get("workerGroupSpecs"), f"{base}workerGroupSpecs")
    for i, group in enumerate(groups):
        where = f"{base}workerGroupSpecs[{i}]"
        if not isinstance(group, dict):
            raise SiteError(f"{where} is {_type_name(group)}, expected a mapping")
        # CRD defaults: replicas 0, minReplicas 0, maxReplicas MaxInt32, numOfHosts 1.
        # GetWorkerGroupDesiredReplicas: clamp(replicas, min, max) x numOfHosts; a
        # suspended group runs none; min > max uses max.
        hosts = _int(group.get("numOfHosts"), 1)
        lo = _int(group.get("minReplicas"), 0)
        hi = _int(group.get("maxReplicas"), MAX_INT32)
        wanted = _int(group.get("replicas"), 0)
        if group.get("suspend") is True:
            desired: int | None = 0
        elif None in (lo, hi, wanted):
            desired = None
        elif lo > hi:  # type: ignore[operator]
            desired = hi
        else:
            desired = min(max(wanted, lo), hi)  # type: ignore[type-var]
        low = _mul(lo, hosts)
        high = None if hi == MAX_INT32 else _mul(hi, hosts)
        count = None if autoscaling else _mul(desired, hosts)
        source = f"{where}.replicas (min/max) x numOfHosts"
        if autoscaling:
            source = f"Ray autoscaler, within {where}.minReplicas..maxReplicas x numOfHosts"
        name = group.get("groupName")
        params = group.get("rayStartParams")
        sites.append(
            _template_site(
                obj,
                f"{where}.template",
                Replicas(count, low, high, source),
                str(name) if isinstance(name, str) else f"workerGroupSpecs[{i}]",
                rayStartParams=params if isinstance(params, dict) else {},
                rayStartParamsPath=f"{where}.rayStartParams",
                minReplicas=lo,
                maxReplicas=hi,
                autoscaling=autoscaling,
            )
        )
    return sites


def _with_autoscaler(head: Site, options: Any, base: str) -> Site:
    """The head pod KubeRay creates with enableInTreeAutoscaling: the autoscaler container
    appended (BuildAutoscalerContainer), its resources replaced as a whole by
    ``autoscalerOptions.resources`` when set (mergeAutoscalerOverrides)."""
    spec = head.spec if isinstance(head.spec, dict) else {}
    items = spec.get("containers")
    if not isinstance(items, list):
        return head
    resources = options.get("resources") if isinstance(options, dict) else None
    if not isinstance(resources, dict):
        resources = RAY_AUTOSCALER_RESOURCES
    # The autoscaler runs the Ray image of the head unless autoscalerOptions.image says.
    image = options.get("image") if isinstance(options, dict) else None
    if not image and items and isinstance(items[0], dict):
        image = items[0].get("image")
    container = {"name": RAY_AUTOSCALER_CONTAINER, "image": image or "", "resources": resources}
    at = f"{head.spec_path}.containers[{len(items)}]"
    return Site(
        head.template,
        head.spec_path,
        head.metadata_path,
        {**spec, "containers": [*items, container]},
        head.metadata,
        head.replicas,
        head.role,
        head.required_container,
        (*head.path_map, (at, f"{base}autoscalerOptions")),
        {**head.facts, "injected": (len(items),), "autoscalerResources": resources},
    )


def _raycluster(obj: dict[str, Any]) -> list[Site]:
    return ray_cluster_sites(obj, "spec")


def _rayjob(obj: dict[str, Any]) -> list[Site]:
    sites = []
    if _get(obj, "spec.rayClusterSpec") is not None:
        sites = ray_cluster_sites(obj, "spec.rayClusterSpec")
    if _get(obj, "spec.submitterPodTemplate") is not None:
        sites.append(
            _template_site(
                obj,
                "spec.submitterPodTemplate",
                Replicas(1, source="the submitter Job runs one pod"),
                "submitter",
            )
        )
    return sites


def _rayservice(obj: dict[str, Any]) -> list[Site]:
    return ray_cluster_sites(obj, "spec.rayClusterConfig")


# --- KServe ---------------------------------------------------------------------------------

# PredictorSpec's framework keys (each an inline core Container), and the explainer's.
KSERVE_PREDICTOR_KEYS = (
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "huggingface",
    "pmml",
    "lightgbm",
    "paddle",
    "model",
)
KSERVE_EXPLAINER_KEYS = ("art",)
# Removed from the v1beta1 CRD: pruned by the API server, unknown to strict validation.
KSERVE_REMOVED_KEYS = ("alibi", "aix")
KSERVE_CONTAINER = "kserve-container"  # constants.InferenceServiceContainerName
# Fields of an inline framework container that are KServe's, not a core Container's.
KSERVE_MODEL_FIELDS = (
    "storageUri",
    "runtimeVersion",
    "protocolVersion",
    "storage",
    "modelFormat",
    "runtime",
)


def podspec_like_site(
    obj: dict[str, Any],
    path: str,
    inline_keys: tuple[str, ...],
    replicas: Replicas,
    role: str,
) -> Site:
    """A KServe PodSpec-like component at ``path``: its inline container (a framework key)
    becomes the pod's first container, named kserve-container unless it says otherwise
    (the reconciler puts it first), followed by the listed ``containers``."""
    component = _mapping(obj, path, path)
    spec = {k: v for k, v in component.items() if k in POD_SPEC_FIELDS}
    containers = _list(component.get("containers"), f"{path}.containers")
    path_map: list[tuple[str, str]] = []
    inline = [k for k in inline_keys if component.get(k) is not None]
    assembled: list[Any] = []
    filled: list[str] = []
    for k in inline:
        container = component[k]
        if not isinstance(container, dict):
            raise SiteError(f"{path}.{k} is {_type_name(container)}, expected a mapping")
        core = {n: v for n, v in container.items() if n not in KSERVE_MODEL_FIELDS}
        core.setdefault("name", KSERVE_CONTAINER)
        if not core.get("image"):
            # KServe takes the image from the ServingRuntime that serves the model format.
            filled.append(f"{path}.containers[{len(assembled)}].image")
        path_map.append((f"{path}.containers[{len(assembled)}]", f"{path}.{k}"))
        assembled.append(core)
    for i, container in enumerate(containers):
        path_map.append((f"{path}.containers[{len(assembled)}]", f"{path}.containers[{i}]"))
        assembled.append(container)
    if assembled or "containers" in component:
        spec["containers"] = assembled
    metadata = {
        k: component[k] for k in ("labels", "annotations") if isinstance(component.get(k), dict)
    }
    return Site(
        path,
        path,
        path,
        spec,
        metadata,
        replicas,
        role,
        None,
        tuple(path_map),
        {"inline": inline, "component": component, "filled": tuple(filled)},
    )


def _kserve_replicas(component: dict[str, Any], where: str) -> Replicas:
    # ComponentExtensionSpec: minReplicas defaults to 1 (constants.DefaultMinReplicas);
    # maxReplicas 0 means unset. The autoscaler (Knative, HPA, KEDA) picks the count.
    lo = _int(component.get("minReplicas"), 1)
    hi = _int(component.get("maxReplicas"), None)
    if hi == 0:
        hi = None
    count = lo if hi is not None and lo == hi else None
    return Replicas(count, lo, hi, f"autoscaled within {where}.minReplicas..maxReplicas")


def _inference_service(obj: dict[str, Any]) -> list[Site]:
    sites = []
    for name, keys in (
        ("predictor", KSERVE_PREDICTOR_KEYS),
        ("transformer", ()),
        ("explainer", KSERVE_EXPLAINER_KEYS + KSERVE_REMOVED_KEYS),
    ):
        path = f"spec.{name}"
        component = _mapping(obj, path, path)
        if not component and name != "predictor":
            continue
        sites.append(podspec_like_site(obj, path, keys, _kserve_replicas(component, path), name))
        if name == "predictor" and component.get("workerSpec") is not None:
            sites.append(
                podspec_like_site(
                    obj, f"{path}.workerSpec", (), Replicas(None, source=MULTINODE_SOURCE), "worker"
                )
            )
    return sites


MULTINODE_SOURCE = (
    "rayNodeCount - 1 per replica, rayNodeCount = ceil(tensorParallelSize x "
    "pipelineParallelSize / GPUs per worker)"
)


def _serving_runtime(obj: dict[str, Any]) -> list[Site]:
    # A runtime is a template: the InferenceService that selects it decides its pod count.
    sites = [
        podspec_like_site(
            obj, "spec", (), Replicas(None, source="the InferenceService using it"), "runtime"
        )
    ]
    if _get(obj, "spec.workerSpec") is not None:
        sites.append(
            podspec_like_site(
                obj, "spec.workerSpec", (), Replicas(None, source=MULTINODE_SOURCE), "worker"
            )
        )
    return sites


def kserve_multinode_workers(total_gpus: int, gpus_per_worker: int) -> int:
    """computeRayNodeAndGPUs (predictor.go): worker Deployment replicas = rayNodeCount - 1."""
    if gpus_per_worker <= 0:
        return max(total_gpus - 1, 0)
    return max(math.ceil(total_gpus / gpus_per_worker) - 1, 0)


# --- Volcano --------------------------------------------------------------------------------


def _volcano_job(obj: dict[str, Any]) -> list[Site]:
    tasks = _list(_get(obj, "spec.tasks"), "spec.tasks")
    sites = []
    for i, task in enumerate(tasks):
        where = f"spec.tasks[{i}]"
        if not isinstance(task, dict):
            raise SiteError(f"{where} is {_type_name(task)}, expected a mapping")
        # No CRD default: an unset replicas is 0 (the webhook defaults minAvailable to it).
        n = _int(task.get("replicas"), 0)
        name = task.get("name")
        sites.append(
            _rebase(
                _template_site(
                    task,
                    "template",
                    Replicas(n, source=f"{where}.replicas"),
                    str(name) if isinstance(name, str) else f"default{i}",
                ),
                where,
            )
        )
    return sites


# --- the table ----------------------------------------------------------------------------

APPS = frozenset({"apps", "extensions"})
K8S = "kubernetes/kubernetes pkg/apis (types.go, defaults.go); pkg/controller"
TRAINING_SOURCE = (
    "kubeflow/trainer release-1.9 pkg/apis/kubeflow.org/v1/*_defaults.go, pkg/webhooks/*; "
    "CRD manifests/base/crds @ 3a3a1da"
)

KINDS: tuple[KindRecord, ...] = (
    KindRecord(frozenset({""}), "Pod", ("v1",), '""', "1", None, K8S, _pod, True),
    KindRecord(
        frozenset({""}),
        "PodTemplate",
        ("v1",),
        "template",
        "none by itself",
        None,
        K8S,
        _pod_template,
        True,
    ),
    KindRecord(
        frozenset({""}),
        "ReplicationController",
        ("v1",),
        "spec.template",
        "spec.replicas (default 1)",
        None,
        K8S,
        _replicated,
        True,
    ),
    KindRecord(
        APPS,
        "Deployment",
        ("v1",),
        "spec.template",
        "spec.replicas (default 1)",
        None,
        K8S,
        _replicated,
        True,
    ),
    KindRecord(
        APPS,
        "ReplicaSet",
        ("v1",),
        "spec.template",
        "spec.replicas (default 1)",
        None,
        K8S,
        _replicated,
        True,
    ),
    KindRecord(
        frozenset({"apps"}),
        "StatefulSet",
        ("v1",),
        "spec.template",
        "spec.replicas (default 1)",
        None,
        K8S,
        _replicated,
        True,
    ),
    KindRecord(
        APPS, "DaemonSet", ("v1",), "spec.template", "one per node", None, K8S, _daemonset, True
    ),
    KindRecord(
        frozenset({"batch"}),
        "Job",
        ("v1",),
        "spec.template",
        "spec.parallelism (default 1), at most spec.completions",
        None,
        K8S,
        _job,
        True,
    ),
    KindRecord(
        frozenset({"batch"}),
        "CronJob",
        ("v1",),
        "spec.jobTemplate.spec.template",
        "per run: the Job's parallelism",
        None,
        K8S,
        _cronjob,
        True,
    ),
    *(
        KindRecord(
            frozenset({"kubeflow.org"}),
            kind,
            ("v1",),
            f"spec.{key}.<Type>.template",
            "replicas (default 1" + ("; Worker 0" if kind == "MPIJob" else "") + ")",
            None if kind == "MPIJob" else container,
            TRAINING_SOURCE,
            _training_v1,
            operator="Kubeflow Training Operator",
        )
        for kind, (key, container, _types) in TRAINING_V1.items()
    ),
    KindRecord(
        frozenset({"trainer.kubeflow.org"}),
        "TrainingRuntime",
        ("v1alpha1",),
        "spec.template.spec.replicatedJobs[i].template.spec.template",
        "trainer job: spec.mlPolicy.numNodes (default 1); initializers 1; others as JobSet",
        "node (trainer job)",
        "kubeflow/trainer pkg/runtime/core/trainingruntime.go @ 067e5c6, "
        "pkg/webhooks/trainingruntime_webhook.go @ 07a65dd",
        _training_runtime,
        operator="Kubeflow Trainer",
    ),
    KindRecord(
        frozenset({"trainer.kubeflow.org"}),
        "ClusterTrainingRuntime",
        ("v1alpha1",),
        "spec.template.spec.replicatedJobs[i].template.spec.template",
        "trainer job: spec.mlPolicy.numNodes (default 1); initializers 1; others as JobSet",
        "node (trainer job)",
        "kubeflow/trainer pkg/runtime/core/clustertrainingruntime.go, trainingruntime.go",
        _training_runtime,
        operator="Kubeflow Trainer",
    ),
    KindRecord(
        frozenset({"jobset.x-k8s.io"}),
        "JobSet",
        ("v1alpha2",),
        "spec.replicatedJobs[i].template.spec.template",
        "replicas (default 1) x the Job's parallelism (default 1)",
        None,
        "kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go @ 0107852",
        _jobset,
        operator="JobSet",
    ),
    KindRecord(
        frozenset({"leaderworkerset.x-k8s.io"}),
        "LeaderWorkerSet",
        ("v1",),
        "spec.leaderWorkerTemplate.leaderTemplate, .workerTemplate",
        "leaders: replicas (default 1); workers: replicas x (size - 1) (size default 1)",
        None,
        "kubernetes-sigs/lws pkg/webhooks/leaderworkerset_webhook.go @ 01ebf9b",
        _lws,
        operator="LeaderWorkerSet",
    ),
    KindRecord(
        frozenset({"ray.io"}),
        "RayCluster",
        ("v1", "v1alpha1"),
        "spec.headGroupSpec.template, spec.workerGroupSpecs[i].template",
        "head 1; workers clamp(replicas, min, max) x numOfHosts, autoscaled when "
        "enableInTreeAutoscaling",
        None,
        "ray-project/kuberay ray-operator/controllers/ray/utils/util.go "
        "GetWorkerGroupDesiredReplicas; common/pod.go",
        _raycluster,
        operator="KubeRay",
    ),
    KindRecord(
        frozenset({"ray.io"}),
        "RayJob",
        ("v1", "v1alpha1"),
        "spec.rayClusterSpec.{headGroupSpec,workerGroupSpecs[i]}.template, "
        "spec.submitterPodTemplate",
        "as RayCluster; the submitter 1",
        None,
        "ray-project/kuberay ray-operator/controllers/ray/utils/util.go, common/job.go",
        _rayjob,
        operator="KubeRay",
    ),
    KindRecord(
        frozenset({"ray.io"}),
        "RayService",
        ("v1", "v1alpha1"),
        "spec.rayClusterConfig.{headGroupSpec,workerGroupSpecs[i]}.template",
        "as RayCluster",
        None,
        "ray-project/kuberay ray-operator/apis/ray/v1/rayservice_types.go",
        _rayservice,
        operator="KubeRay",
    ),
    KindRecord(
        frozenset({"serving.kserve.io"}),
        "InferenceService",
        ("v1beta1",),
        "spec.predictor (inline container: model, pytorch, ...), spec.predictor.workerSpec, "
        "spec.transformer, spec.explainer (PodSpec-like)",
        "autoscaled within minReplicas (default 1) .. maxReplicas",
        KSERVE_CONTAINER,
        "kserve/kserve pkg/apis/serving/v1beta1/component.go @ 017d86a, predictor.go",
        _inference_service,
        operator="KServe",
    ),
    KindRecord(
        frozenset({"serving.kserve.io"}),
        "ServingRuntime",
        ("v1alpha1",),
        "spec, spec.workerSpec (PodSpec-like)",
        "decided by the InferenceService that selects it",
        None,
        "kserve/kserve pkg/apis/serving/v1alpha1/servingruntime_types.go",
        _serving_runtime,
        operator="KServe",
    ),
    KindRecord(
        frozenset({"serving.kserve.io"}),
        "ClusterServingRuntime",
        ("v1alpha1",),
        "spec, spec.workerSpec (PodSpec-like)",
        "decided by the InferenceService that selects it",
        None,
        "kserve/kserve pkg/apis/serving/v1alpha1/servingruntime_types.go",
        _serving_runtime,
        operator="KServe",
    ),
    KindRecord(
        frozenset({"batch.volcano.sh"}),
        "Job",
        ("v1alpha1",),
        "spec.tasks[i].template",
        "tasks[i].replicas (no default: 0)",
        None,
        "volcano-sh/volcano pkg/webhooks/admission/jobs/validate/admit_job.go @ 00d0636",
        _volcano_job,
        validated_at_admission=True,
        operator="Volcano",
    ),
)

# (API group, kind) -> record.
KIND_INDEX: dict[tuple[str, str], KindRecord] = {
    (group, record.kind): record for record in KINDS for group in record.groups
}
# Kinds whose record is found whatever the apiVersion says (a manifest without one).
CORE_KINDS = {r.kind: r for r in KINDS[:9]}


def kind_record(api_version: Any, kind: str) -> KindRecord | None:
    """The record for an object's apiVersion and kind; a core kind without apiVersion is
    read as that kind."""
    if not isinstance(api_version, str):
        return CORE_KINDS.get(kind)
    return KIND_INDEX.get((api_version.rpartition("/")[0], kind))


# --- by shape -----------------------------------------------------------------------------

TEMPLATE_KEYS = ("template", "podTemplate", "podTemplateSpec")
POD_SPEC_KEYS = ("podSpec",)
MAX_SHAPE_DEPTH = 30


def _is_pod_spec(value: Any) -> bool:
    containers = value.get("containers") if isinstance(value, dict) else None
    return (
        isinstance(containers, list)
        and bool(containers)
        and all(isinstance(c, dict) for c in containers)
    )


def sites_by_shape(obj: dict[str, Any]) -> list[Site]:
    """Pod templates of an object of a kind without a record, found by their shape."""
    sites: list[Site] = []

    def walk(node: Any, path: str, depth: int) -> None:
        if depth > MAX_SHAPE_DEPTH:
            return
        if isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]", depth + 1)
            return
        if not isinstance(node, dict):
            return
        for k, v in node.items():
            if not path and k in ("metadata", "status", "apiVersion", "kind"):
                continue
            here = f"{path}.{k}" if path else str(k)
            if k in TEMPLATE_KEYS and isinstance(v, dict) and _is_pod_spec(v.get("spec")):
                sites.append(_template_site(obj, here, Replicas(None, source=SHAPE_SOURCE)))
            elif k in POD_SPEC_KEYS and _is_pod_spec(v):
                sites.append(Site(here, here, here, v, {}, Replicas(None, source=SHAPE_SOURCE)))
            else:
                walk(v, here, depth + 1)

    walk(obj, "", 0)
    return sites


SHAPE_SOURCE = "unknown: found by shape in a kind the engine does not know"

MSG_NO_TEMPLATE = gettext_noop("%(kind)s: no pod template")
MSG_NO_TEMPLATE_IN = gettext_noop("%(kind)s: no pod template (%(where)s is empty)")


def no_template(kind: str, record: KindRecord | None) -> Message:
    """Why an object yields no pod: its kind has none, or its template list is empty."""
    if record is None:
        return Message(MSG_NO_TEMPLATE, {"kind": kind})
    return Message(MSG_NO_TEMPLATE_IN, {"kind": kind, "where": record.templates})
