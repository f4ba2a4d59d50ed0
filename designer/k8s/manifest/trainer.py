"""A Kubeflow Trainer TrainJob as the pods it really gets.

A TrainJob has no pod template of its own. Trainer builds a JobSet from the runtime it names
(``spec.runtimeRef``: a ClusterTrainingRuntime by default, or a TrainingRuntime in its
namespace) and applies the TrainJob to it (kubeflow/trainer, stored versions read):

* ``spec.runtimePatches`` are strategic-merge-patched into the runtime's replicatedJob of the
  same name, in order (``mergeRuntimePatches``, pkg/runtime/core/trainingruntime.go @ 067e5c6);
  they carry metadata and a restricted PodSpec (nodeSelector, tolerations, volumes, container
  env/volumeMounts/securityContext): never resources;
* the replicatedJob labelled ``trainer.kubeflow.org/trainjob-ancestor-step: trainer`` runs
  ``spec.trainer.numNodes`` pods (else ``spec.mlPolicy.numNodes``, else 1);
* in every replicatedJob whose Job template has labels, each container named ``node`` (and
  ``launcher`` when ``mlPolicy.mpi.runLauncherAsNode``) gets ``image``, ``command`` and ``args``
  from ``spec.trainer``, its ``resources`` **replaced** by ``resourcesPerNode`` (requests and
  limits; claims dropped) and ``spec.trainer.env`` upserted (pkg/runtime/framework/plugins/
  jobset/builder.go @ 0859508 ``Trainer``);
* initializer jobs run one pod each.

The runtime is looked up in the same input first, then among the ClusterTrainingRuntimes
Kubeflow Trainer installs (``trainer_runtimes/``, each with its source in SOURCES.md).
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from designer.k8s.core import Message, gettext_noop
from designer.k8s.manifest.kinds import (
    KindRecord,
    Replicas,
    Site,
    SiteError,
    _int,
    _mapping,
    jobset_sites,
)
from designer.k8s.manifest.reader import read_documents

RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")
TRAINER_GROUP = "trainer.kubeflow.org"
BUILTIN_DIR = Path(__file__).with_name("trainer_runtimes")
BUILTIN_SOURCES = {
    "torch-distributed": ("torch_distributed.yaml", "8a9b324"),
    "deepspeed-distributed": ("deepspeed_distributed.yaml", "0ba4b64"),
    "mlx-distributed": ("mlx_distributed.yaml", "230fcbd"),
    "jax-distributed": ("jax_distributed.yaml", "8a9b324"),
    "xgboost-distributed": ("xgboost_distributed.yaml", "341e48e"),
    "flux-distributed": ("flux_distributed.yaml", "459a134"),
    "torch-rocm-distributed": ("torch_rocm_distributed.yaml", "25700a5"),
    "torchtune-llama3.2-1b": ("torchtune/llama3_2/llama3_2_1B.yaml", "8c0f505"),
    "torchtune-llama3.2-3b": ("torchtune/llama3_2/llama3_2_3B.yaml", "8a9b324"),
    "torchtune-qwen2.5-1.5b": ("torchtune/qwen2_5/qwen2_5_1.5B.yaml", "8a9b324"),
    "torchtune-qwen3-1.7b": ("torchtune/qwen3/qwen3_1.7B.yaml", "2f6b8d6"),
}

MSG_RUNTIME_MISSING = gettext_noop(
    "TrainJob: runtime %(runtime)s is not in the input (nor one Kubeflow Trainer installs)"
)
MSG_RUNTIME_UNREADABLE = gettext_noop("TrainJob: runtime %(runtime)s cannot be read: %(reason)s")


@dataclass(frozen=True)
class Runtime:
    kind: str
    name: str
    namespace: str | None
    obj: dict[str, Any]
    # Where it comes from: {"file", "document"} for the input, {"builtin": path@commit}.
    origin: dict[str, Any]


class RuntimeIndex:
    """The training runtimes of an input, by (kind, name)."""

    def __init__(self) -> None:
        self._runtimes: dict[tuple[str, str], list[Runtime]] = {}

    def add(self, obj: Any, origin: dict[str, Any]) -> None:
        if not isinstance(obj, dict) or obj.get("kind") not in RUNTIME_KINDS:
            return
        api_version = obj.get("apiVersion")
        if not isinstance(api_version, str) or api_version.rpartition("/")[0] != TRAINER_GROUP:
            return
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = meta.get("name")
        if not isinstance(name, str):
            return
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        runtime = Runtime(str(obj["kind"]), name, namespace, obj, origin)
        self._runtimes.setdefault((runtime.kind, name), []).append(runtime)

    def find(self, kind: str, name: str, namespace: str | None) -> Runtime | None:
        candidates = self._runtimes.get((kind, name), [])
        if kind == "TrainingRuntime":
            # Namespaced: the TrainJob's own namespace (unset on both counts as the same).
            candidates = [r for r in candidates if r.namespace in (None, namespace)]
        if candidates:
            return candidates[0]
        return builtin_runtimes().get(name) if kind == "ClusterTrainingRuntime" else None


@functools.cache
def builtin_runtimes() -> dict[str, Runtime]:
    """The ClusterTrainingRuntimes Kubeflow Trainer installs, read once."""
    out: dict[str, Runtime] = {}
    for file in sorted(BUILTIN_DIR.glob("*.yaml")):
        for doc in read_documents(file.read_bytes()):
            obj = doc.data
            if not isinstance(obj, dict) or obj.get("kind") != "ClusterTrainingRuntime":
                continue
            name = obj["metadata"]["name"]
            path, commit = BUILTIN_SOURCES.get(name, (file.name, "?"))
            origin = {"builtin": f"kubeflow/trainer manifests/base/runtimes/{path}@{commit}"}
            out[name] = Runtime("ClusterTrainingRuntime", name, None, obj, origin)
    return out


# --- strategic merge of runtimePatches (the few PodSpecPatch fields) -----------------------

# patchMergeKey of the lists a PodSpecPatch may carry (k8s.io/api/core/v1 types.go).
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "imagePullSecrets": "name",
    "schedulingGates": "name",
    "replicatedJobs": "name",
}


def strategic_merge(base: Any, patch: Any, key: str = "") -> Any:
    """``patch`` merged into ``base`` as a strategic merge patch would for these types:
    mappings merge, lists with a merge key merge by it, other lists and scalars replace."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            out[k] = strategic_merge(base.get(k), v, k) if k in base else copy.deepcopy(v)
        return out
    merge_key = MERGE_KEYS.get(key)
    if merge_key and isinstance(base, list) and isinstance(patch, list):
        out_list = list(base)
        for item in patch:
            ident = item.get(merge_key) if isinstance(item, dict) else None
            for i, existing in enumerate(out_list):
                if (
                    ident is not None
                    and isinstance(existing, dict)
                    and existing.get(merge_key) == ident
                ):
                    out_list[i] = strategic_merge(existing, item)
                    break
            else:
                out_list.append(copy.deepcopy(item))
        return out_list
    return copy.deepcopy(patch)


def _patched_runtime(runtime_obj: dict[str, Any], train_job: dict[str, Any]) -> dict[str, Any]:
    patches = _mapping(train_job, "spec", "spec").get("runtimePatches")
    obj = copy.deepcopy(runtime_obj)
    if not isinstance(patches, list):
        return obj
    jobs = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    for patch in patches:
        spec = (((patch or {}).get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec")
        if not isinstance(spec, dict) or not isinstance(jobs.get("replicatedJobs"), list):
            continue
        for job_patch in spec.get("replicatedJobs") or []:
            if not isinstance(job_patch, dict):
                continue
            for i, job in enumerate(jobs["replicatedJobs"]):
                if isinstance(job, dict) and job.get("name") == job_patch.get("name"):
                    merged = strategic_merge(
                        job.get("template") or {}, job_patch.get("template") or {}
                    )
                    jobs["replicatedJobs"][i] = {**job, "template": merged}
    return obj


# --- the TrainJob --------------------------------------------------------------------------

TRAINER_FIELDS = ("image", "command", "args")


def _upsert_env(container: dict[str, Any], env: list[Any]) -> None:
    existing = [e for e in container.get("env") or [] if isinstance(e, dict)]
    names = {e.get("name") for e in env if isinstance(e, dict)}
    container["env"] = [e for e in existing if e.get("name") not in names] + copy.deepcopy(env)


def trainjob_sites(
    obj: dict[str, Any], runtimes: RuntimeIndex | None
) -> tuple[list[Site], dict[str, Any] | None, Message | None]:
    """(pod templates, the runtime used, why there are none) for a TrainJob."""
    ref = _mapping(obj, "spec.runtimeRef", "spec.runtimeRef")
    kind = ref.get("kind") if isinstance(ref.get("kind"), str) else "ClusterTrainingRuntime"
    name = ref.get("name") if isinstance(ref.get("name"), str) else ""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    label = f"{kind}/{name}"
    runtime = (runtimes or RuntimeIndex()).find(kind, name, namespace)
    if runtime is None:
        return [], None, Message(MSG_RUNTIME_MISSING, {"runtime": label})
    trainer = _mapping(obj, "spec.trainer", "spec.trainer")
    try:
        patched = _patched_runtime(runtime.obj, obj)
        ml_policy = _mapping(patched, "spec.mlPolicy", "spec.mlPolicy")
        if "numNodes" in trainer:
            ml_policy = {**ml_policy, "numNodes": trainer.get("numNodes")}
        runtime_sites = jobset_sites(patched, "spec.template.spec", ml_policy)
    except SiteError as exc:
        reason = Message(MSG_RUNTIME_UNREADABLE, {"runtime": label, "reason": str(exc)})
        return [], None, reason
    launcher_as_node = (ml_policy.get("mpi") or {}).get("runLauncherAsNode") is True
    node_names = ("node", "launcher") if launcher_as_node else ("node",)
    jobs = patched["spec"]["template"]["spec"]["replicatedJobs"]
    used = {"kind": kind, "name": name, **runtime.origin}
    sites = []
    for i, site in enumerate(runtime_sites):
        job = jobs[i]
        labelled = bool(((job.get("template") or {}).get("metadata") or {}).get("labels"))
        pod_spec = copy.deepcopy(site.spec)
        path_map: list[tuple[str, str]] = []
        node_containers: list[int] = []
        ancestor = site.facts.get("ancestor")
        for c_index, container in enumerate(pod_spec.get("containers") or []):
            if not labelled or not isinstance(container, dict):
                continue
            if container.get("name") not in node_names:
                continue
            at = f"{site.spec_path}.containers[{c_index}]"
            node_containers.append(c_index)
            for field in TRAINER_FIELDS:
                if field in trainer:
                    container[field] = copy.deepcopy(trainer[field])
                    path_map.append((f"{at}.{field}", f"spec.trainer.{field}"))
            per_node = trainer.get("resourcesPerNode")
            if isinstance(per_node, dict):
                container["resources"] = {
                    k: copy.deepcopy(per_node[k]) for k in ("requests", "limits") if k in per_node
                }
                path_map.append((f"{at}.resources", "spec.trainer.resourcesPerNode"))
            if isinstance(trainer.get("env"), list):
                _upsert_env(container, trainer["env"])
        replicas = site.replicas
        if ancestor == "trainer":
            source = (
                "spec.trainer.numNodes" if "numNodes" in trainer else "runtime mlPolicy.numNodes"
            )
            replicas = Replicas(_int(ml_policy.get("numNodes"), 1), source=source)
        template = {
            "trainer": "spec.trainer",
            "dataset-initializer": "spec.initializer.dataset",
            "model-initializer": "spec.initializer.model",
        }.get(str(ancestor), "spec.runtimeRef")
        sites.append(
            Site(
                template,
                site.spec_path,
                site.metadata_path,
                pod_spec,
                site.metadata,
                replicas,
                site.role,
                site.required_container,
                tuple(path_map),
                {
                    **site.facts,
                    "runtime": {**used, "template": site.template},
                    # Containers spec.trainer configures (resourcesPerNode goes there).
                    "node_containers": tuple(node_containers),
                },
            )
        )
    return sites, used, None


TRAINJOB_RECORD = KindRecord(
    frozenset({TRAINER_GROUP}),
    "TrainJob",
    ("v1alpha1",),
    "none of its own: the runtime's replicatedJobs[i].template.spec.template, with "
    "spec.trainer applied to its node container",
    "trainer job: spec.trainer.numNodes (else the runtime's mlPolicy.numNodes, else 1)",
    "node (in the runtime)",
    "kubeflow/trainer pkg/runtime/core/trainingruntime.go @ 067e5c6, "
    "pkg/runtime/framework/plugins/jobset/builder.go @ 0859508",
    lambda obj: trainjob_sites(obj, None)[0],
    operator="Kubeflow Trainer",
)
