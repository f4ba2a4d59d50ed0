"""The HTTP API (``/api/v1/``): the same engine calls as the CLI and the pages.

* ``POST /api/v1/analyze``: manifests in, ``podspec check --format json`` out.
* ``POST /api/v1/render``: a design in, its Pod YAML, QoS and validation out.
* ``POST /api/v1/fit``: a pod and a node in, node fit and the kubelet's values out.

The API changes nothing on the server, so it needs no session, cookie or CSRF token
(django-ninja 1.7 exempts its views from CSRF unless a cookie-based auth is set; none
is) and sends no CORS headers. The docs page is our own template (``api_docs``):
Swagger UI needs assets from a CDN, which the Content-Security-Policy forbids.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import orjson
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from ninja import NinjaAPI, Schema, Status
from ninja.errors import HttpError
from ninja.parser import Parser
from pydantic import Field, StrictBool, StrictStr, create_model

from designer.cpus import tokens
from designer.k8s.apiserver import (
    DEFAULT_VERSION,
    SUPPORTED_VERSIONS,
    cluster_version,
    parse_kubernetes_version,
    pod_from_parts,
    pod_with_defaults,
)
from designer.k8s.check import DEFAULT_NAMESPACE, CheckStream, check_texts
from designer.k8s.core import Pod, Quantity, name_is_dns_label
from designer.k8s.design import MAX_CONTAINERS, Design, DesignError, render_design
from designer.k8s.gpu import GpuSharing, SharingError, gpu_sharing
from designer.k8s.kubelet import kubelet_config, node_view
from designer.k8s.manifest import (
    MAX_INPUT_BYTES,
    Document,
    ManifestError,
    Workload,
    find_workloads,
    go_json_loads,
    iter_documents,
    read_documents,
)
from designer.k8s.scheduler import (
    PROVIDERS,
    NodeInfo,
    dra_inputs,
    fit_with_claims,
    node_from_capacity,
    node_from_catalog,
    node_from_manifest,
)
from designer.limits import workload_budget
from designer.store import dumps_json

REQUEST_FILE = "request"
MAX_RENDER_BYTES = 2 * 1024 * 1024
MAX_RENDER_CONTAINERS = MAX_CONTAINERS  # as many as the designer form accepts


ANALYZE_DESCRIPTION = f"""\
Check every pod template in one or more manifests, exactly as
`manage.py podspec check --format json` does: one entry of `objects` per pod template (Pod,
PodTemplate, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
ReplicationController; the Kubeflow PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob and
JAXJob; Trainer TrainJob, TrainingRuntime, ClusterTrainingRuntime; JobSet; LeaderWorkerSet;
RayCluster, RayJob, RayService; KServe InferenceService, ServingRuntime,
ClusterServingRuntime; Volcano Job; other kinds searched by shape; the items of `List`s)
with its path in the object (`template`), the pods it stands for (`replicas`), its QoS
class, effective requests and limits, validation errors and warnings (full field paths; an
operator's own rules say who refuses with `origin`), `notes` and the reasons for its QoS
class. Objects without a pod template are listed under `skipped` with the reason; documents
that cannot be read are listed under `errors` with their 0-based `document` index and a
message that names the line.

The body is the manifest text itself (YAML or JSON, one or many documents separated by
`---`), sent as `application/yaml`, `application/json` or `text/plain`; the
`Content-Type` does not change how the body is read. The file name in the answer is
`"{REQUEST_FILE}"`.

LimitRange and ResourceQuota objects in the body (for example the output of
`kubectl get limitrange,resourcequota,pods -n team -o yaml`) apply to the workloads of their
namespace: each object gets `admission` — `null` when no policy applies, else whether the
pod is admitted, the `denials` with the plugins' exact messages (the first is what the API
server answers), the fields LimitRanger `defaulted` and its `kubernetes.io/limit-ranger`
annotation, the QoS class, effective requests and limits after admission, and `quota`: how
many more such pods fit (`fits`) and the `bottleneck` resource, with the workload's
`replicas` (a Deployment's replicas, a Job's parallelism). Every policy object is listed
under `policies`, with the API server's message when it is invalid (and then not applied).

Query parameters:
- `kubernetesVersion` (`{"`, `".join(SUPPORTED_VERSIONS)}`; default `{DEFAULT_VERSION}`): answer as
  a cluster of that release would; `versionNotes` on each object say what the release does
  differently to it (for example `spec.resources` is dropped before 1.34).
- `namespace` (default `{DEFAULT_NAMESPACE}`): the namespace of objects that name none, as
  `kubectl apply -n` would create them.
An unsupported version or a namespace that is not a DNS label answers **400**.

**200** whenever the body holds at least one Kubernetes object (a mapping with a `kind`),
*even if every object in it is invalid*: invalid manifests are data, not failures. A
body whose objects are all of kinds without a pod template (a ConfigMap, an empty `List`)
answers 200 with an empty `objects` list.

**400** `{{"error": "..."}}` when the body cannot be read as manifests:
- it is empty, not UTF-8 text (invalid UTF-8, a UTF-16 byte-order mark, a NUL byte);
- any document is hostile: an alias expansion bomb ("billion laughs") or nesting deeper
  than 100 levels — the whole request is refused, not only that document;
- no document is a Kubernetes object: every document failed to parse as YAML/JSON or is
  not a mapping with a `kind` (for example plain text, which YAML reads as a string);
- it holds more documents or workloads than a request may: 2,000 plus one per 256 bytes of
  body (700 KB of one-line pods would otherwise cost seconds of CPU; `podspec check` has no
  such limit). Real manifests never come near it.

**413** `{{"error": "..."}}` when the body is larger than {MAX_INPUT_BYTES:,} bytes
(20 MiB); the `Content-Length` is checked before anything is read or parsed.
"""

RENDER_DESCRIPTION = f"""\
Render a design (the model the designer page, its share links and its address bar use)
as the Pod manifest the designer exports, with the QoS class and its reasons and the API
server's validation errors and warnings for that Pod. Fields of an imported manifest
that the form does not edit travel in `base` and the containers' `base`, and are kept.

GPUs the Kubernetes 1.34 way: `"gpu": {{"mode": "dra", "device_class": "gpu.nvidia.com"}}`
(optional: `count` or `"allocation_mode": "All"`, `product`, `min_memory` such as `40Gi`,
`mig_profile`, typed CEL `selectors`, `first_available` alternatives, `shared_by`
containers, `"claim_source": "claim"` for one ResourceClaim every pod shares) replaces the
GPU container's `nvidia.com/gpu` with a Dynamic Resource Allocation claim: the YAML gains a
resource.k8s.io/v1 ResourceClaimTemplate before the pod, the answer's `claims` lists the
pod's claims, and each app container's `gpus` is the count of the claim it uses.
`kubernetesVersion` (`{", ".join(SUPPORTED_VERSIONS)}`; default `{DEFAULT_VERSION}`), next
to the design's fields, answers for that release; it describes the cluster, not the pod, so
it is not part of the design (the designer's address and share links keep it beside the
design). `versionNotes` say what it changes.

`namespacePolicy`, next to them too, is the namespace's LimitRanges and ResourceQuotas (the
output of `kubectl get limitrange,resourcequota -n team -o yaml`, or the objects): the pod
goes through them as the API server's admission would take it in, and the answer gains
`namespace` (the design's, else the only one the objects name, else `default`),
`admission` (`null` when no accepted policy is in that namespace; else `allowed`, `denials`
with the plugin's exact message, the `defaulted` fields, the `kubernetes.io/limit-ranger`
annotation, the admitted `qosClass` and `qosChange`, how many more such pods the quota
`fits`), `policies` (an object the API server would refuse carries its message and is not
applied), `policyNotes` and `policyErrors`. The top-level `qosClass` stays the class as
written; the YAML is what you apply.

**Export the object a template came from.** `"origin": {{"object": <the object>,
"template": "spec.pytorchReplicaSpecs.Worker.template"}}` (the template's path as
`/api/v1/analyze` names it in `objects[].template`; `"path": "items[3]"` for an item of a
List, which is exported on its own; `"context": [...]` for the other documents a TrainJob's
runtime may be in, at most 8) exports that object instead of a new one: the container
resources the design changes are written back where the object keeps them (the template's
containers, KServe's inline container, a TrainJob's `spec.trainer.resourcesPerNode`), and
nothing else. Without `containers`, the design is the template as it is, the fields the
body sets replacing its own: `{{"origin": {{...}}}}` alone gives the object back unchanged.
The answer's `origin` has the unified `diff`, the fields `changed`, the design's changes the
object does not take (`unwritten`: a restart policy, an image, a container added...), the
server-written fields left out (`dropped`) and `unchangedErrors`, the errors the object as
given has too (they are not in `errors`). Export settings (`export`) do not apply to it.

**422** when the body is not a valid design (`detail` lists every problem with its
location), including more than {MAX_RENDER_CONTAINERS} containers, a `base` the Pod
model cannot hold, or an `origin` without a pod template at its `template`. **400** when
the body is not JSON. **413** over {MAX_RENDER_BYTES:,}
bytes.
"""

EXAMPLE_MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {memory: 256Mi}
"""


# --- response models: the shape of `podspec check --format json` -----------------------


class FieldErrorOut(Schema):
    field: str = Field(
        description="field path in the document, with the pod template's prefix, e.g. "
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits"
    )
    type: str | None = Field(
        default=None,
        description="field.ErrorType, e.g. FieldValueInvalid; absent for an operator's "
        "plain-text message",
    )
    message: str = Field(
        description="the detail, e.g. must be less than or equal to cpu limit of 1"
    )
    text: str = Field(
        description="the whole sentence after the field, as the API server (or the operator) "
        'says it and kubectl prints it, e.g. Invalid value: "2": must be less than or equal '
        "to cpu limit of 1; Required value"
    )
    origin: str | None = Field(
        default=None,
        description="who refuses it when not the API server's pod validation, e.g. "
        '"Kubeflow Training Operator webhook", "KubeRay", "kube-apiserver (CRD schema)"',
    )


class FieldWarningOut(Schema):
    field: str
    message: str
    origin: str | None = None


class NoteOut(Schema):
    field: str
    message: str = Field(description="what an operator or GPU scheduler changes about it")
    origin: str = Field(description="e.g. KubeRay, KAI-Scheduler, HAMi, Kueue, GKE")


class RuntimeOut(Schema):
    kind: str
    name: str
    template: str = Field(description="the pod template's path in the runtime")
    file: str | None = Field(default=None, description="the input file holding the runtime")
    document: int | None = None
    builtin: str | None = Field(
        default=None,
        description="a runtime Kubeflow Trainer installs: the manifest it is a copy of",
    )


class SkippedOut(Schema):
    file: str
    document: int
    path: str
    kind: str
    name: str | None
    reason: str = Field(description='e.g. "ConfigMap: no pod template"')


class VersionNoteOut(Schema):
    field: str
    message: str
    source: str = Field(description="the KEP, changelog or code the difference comes from")


class DenialOut(Schema):
    plugin: str = Field(description="LimitRanger or ResourceQuota")
    object: str | None = Field(description="LimitRange/<name> or ResourceQuota/<name>")
    message: str = Field(description="the admission plugin's error, exactly")
    apiServerMessage: str | None = Field(  # noqa: N815
        description='pods "<name>" is forbidden: ... as the API server answers; null when the '
        "pod's name is generated by a controller"
    )
    replica: int | None = Field(
        default=None, description="the pod of the workload (1-based) the quota refuses first"
    )


# "from" is a Python keyword: the model is built by name so the JSON field is "from".
DefaultedOut = create_model(
    "DefaultedOut",
    __base__=Schema,
    field=(str, Field(description="the full field path LimitRanger set")),
    value=(str, Field(description="the value, as the API server stores it")),
    **{"from": (str, Field(description="LimitRange/<name> whose default it is"))},
)


class QuotaRoomOut(Schema):
    fits: int | None = Field(description="how many more such pods the quotas admit; null: no limit")
    bottleneck: str | None
    object: str | None
    replicas: int = Field(description="pods the workload runs at once")
    usage: dict[str, str] = Field(description="what one pod counts against quota")


class AdmissionOut(Schema):
    allowed: bool
    denials: list[DenialOut]
    defaulted: list[DefaultedOut]  # type: ignore[valid-type]
    annotations: dict[str, str]
    qosClass: str | None  # noqa: N815
    qosChange: str | None  # noqa: N815
    effectiveRequests: dict[str, str]  # noqa: N815
    effectiveLimits: dict[str, str]  # noqa: N815
    quota: QuotaRoomOut | None
    policies: list[str]


class PolicyOut(Schema):
    file: str
    document: int
    path: str
    kind: str
    name: str | None
    namespace: str
    applied: bool = Field(description="false when the API server refuses the object")
    errors: list[FieldErrorOut]
    message: str | None = Field(description='e.g. LimitRange "x" is invalid: [...]')
    usedFrom: str | None = Field(  # noqa: N815
        default=None,
        description='quotas: "status", or "input" when status.used is computed from the pods',
    )


class AdviceOut(Schema):
    code: str = Field(description="the advice rule, e.g. gpu-best-effort")
    message: str
    reason: str


class CheckedObjectOut(Schema):
    """One pod template (a PyTorchJob has one per replica type)."""

    file: str = Field(description=f'Always "{REQUEST_FILE}" for the API')
    document: int = Field(description="0-based index of the document in the body")
    path: str = Field(description='"" or the item path inside a List, e.g. items[3]')
    kind: str
    name: str | None
    namespace: str | None
    template: str = Field(
        description='JSON path of the pod template in its object: "" for a Pod, '
        '"spec.template", "spec.pytorchReplicaSpecs.Worker.template", '
        '"spec.replicatedJobs[1].template.spec.template", "spec.predictor"; for a TrainJob '
        '"spec.trainer" (its pods come from the runtime, see runtime)'
    )
    replicas: int | None = Field(
        description="how many pods it stands for; null when the object does not say "
        "(autoscaled, one per node, decided by another object)"
    )
    replicasMin: int | None = Field(description="the lower bound the object gives")  # noqa: N815
    replicasMax: int | None = Field(description="the upper bound the object gives")  # noqa: N815
    replicasFrom: str = Field(description="the fields the count comes from")  # noqa: N815
    role: str = Field(description='"Worker", "head", "leader", "predictor", ... or ""')
    foundBy: str = Field(  # noqa: N815
        description='"kind": a kind the engine knows; "shape": found by its shape in an '
        "unknown kind"
    )
    operator: str = Field(description='the operator that runs it, e.g. "KubeRay", or ""')
    runtime: RuntimeOut | None = Field(default=None, description="TrainJob only")
    qosClass: str | None = Field(  # noqa: N815 - the JSON field name
        description="Guaranteed, Burstable or BestEffort; null if a value that decides it "
        "cannot be read"
    )
    effectiveRequests: dict[str, str]  # noqa: N815
    effectiveLimits: dict[str, str]  # noqa: N815
    errors: list[FieldErrorOut]
    warnings: list[FieldWarningOut]
    qosReasons: list[str]  # noqa: N815
    advice: list[AdviceOut] = Field(
        default_factory=list,
        description="not errors but choices that cost evictions, stalls or wasted capacity: "
        "the rules for every workload type, plus for a Deployment or StatefulSet those of "
        "online inference and for a Job or CronJob those of batch work (the workload type "
        "the designer opens it as)",
    )
    claims: list[dict[str, Any]] = Field(
        default_factory=list,
        description="one entry per spec.resourceClaims[i] (Dynamic Resource Allocation): name, "
        "source (template|claim), object, found (in the input), deviceClass, count (devices "
        "of the preferred alternative; null for allocationMode All or a missing object), "
        "containers, requests, notes; source extendedResource for an extended resource a "
        "DeviceClass of the input maps to DRA (extendedResourceName)",
    )
    admission: AdmissionOut | None = Field(
        description="the pod after its namespace's LimitRanges and ResourceQuotas; null when "
        "no policy applies"
    )
    versionNotes: list[VersionNoteOut] = Field(  # noqa: N815
        description="what the chosen Kubernetes version does differently to this object"
    )
    notes: list[NoteOut]


class PolicyNoteOut(Schema):
    document: int | None = Field(description="0-based document index; null for the whole text")
    message: str


class ReadErrorOut(Schema):
    file: str
    document: int | None = Field(description="0-based document index; null for the whole body")
    message: str = Field(description="what is wrong, naming the line")


class DraObjectOut(Schema):
    file: str
    document: int
    path: str
    kind: str = Field(
        description="ResourceClaim, ResourceClaimTemplate, DeviceClass, ResourceSlice"
    )
    apiVersion: str  # noqa: N815
    name: str | None
    namespace: str | None
    errors: list[FieldErrorOut]
    warnings: list[FieldWarningOut]
    usedBy: list[dict[str, Any]] = Field(  # noqa: N815
        description="the workloads (kind, name, namespace, claim) or, for a DeviceClass, the "
        "claims and templates that use the object"
    )


class CheckResultOut(Schema):
    objects: list[CheckedObjectOut] = Field(description="one entry per pod template")
    skipped: list[SkippedOut] = Field(
        description="every object that holds no pod template, with the reason"
    )
    errors: list[ReadErrorOut]
    draObjects: list[DraObjectOut] = Field(default_factory=list)  # noqa: N815
    policies: list[PolicyOut]
    kubernetesVersion: str  # noqa: N815


class ErrorOut(Schema):
    error: str


class ValidationErrorOut(Schema):
    detail: list[dict[str, Any]] = Field(description="pydantic errors: loc, msg, type")


class ObjectProblemOut(Schema):
    field: str
    message: str
    type: str | None = None
    object: int | None = Field(
        default=None, description="index of the exported object (Deployment, HPA, Job, ...)"
    )
    kind: str | None = None
    origin: str | None = Field(
        default=None,
        description='who refuses it, for an operator\'s object: "CRD schema" or its operator',
    )


class UnwrittenOut(Schema):
    field: str = Field(
        description='the field of the designed pod ("spec.restartPolicy", '
        '"spec.containers[1]"; "" for the pod as a whole)'
    )
    message: str


class OriginOut(Schema):
    kind: str
    name: str
    template: str = Field(description="the pod template edited, as `objects[].template`")
    diff: str = Field(
        description="unified diff of the object as given (without the fields the API server "
        "writes) and as exported; empty when nothing changed"
    )
    changed: list[str] = Field(description="the object's fields written")
    unwritten: list[UnwrittenOut] = Field(
        description="changes of the design the object does not take (only container "
        "resources are written back), each with the object's field to edit instead"
    )
    dropped: list[str] = Field(
        description="fields the API server writes, left out of the export (status, "
        "metadata.managedFields, metadata.resourceVersion ...)"
    )
    unchangedErrors: list[ObjectProblemOut] = Field(  # noqa: N815
        description="errors the object as given has too: reported, not in `errors`"
    )


class RenderOut(Schema):
    yaml: str = Field(
        description="the manifests to apply, as the designer's Download YAML: the pod, or "
        "the Deployment (+ HPA), Job, headless Service + Indexed Job, PyTorchJob, TrainJob, "
        "JobSet, LeaderWorkerSet, RayCluster or InferenceService chosen in `export.kind`"
    )
    kind: str = Field(
        description="Pod, Deployment, Job, IndexedJob, PyTorchJob, TrainJob, JobSet, "
        "LeaderWorkerSet, RayCluster or InferenceService"
    )
    qosClass: str | None  # noqa: N815
    qosReasons: list[str]  # noqa: N815
    errors: list[ObjectProblemOut]
    warnings: list[ObjectProblemOut]
    totals: dict[str, str] = Field(
        description="effective requests x the pods the export runs at once (replicas, workers)"
    )
    claims: list[dict[str, Any]] = Field(
        default_factory=list,
        description='with `"gpu": {"mode": "dra", ...}`: the pod\'s Dynamic Resource Allocation '
        "claims (name, source template|claim, object, deviceClass, count, containers); the "
        "ResourceClaimTemplate (or ResourceClaim) is in `yaml`, before the pod",
    )
    explanation: list[str] = Field(
        default_factory=list, description="why the export looks as it does (the page's lines)"
    )
    origin: OriginOut | None = Field(
        default=None,
        description="with `origin` in the request: the object exported, what changed in it "
        "(`diff`) and what it does not take",
    )
    kubernetesVersion: str  # noqa: N815
    versionNotes: list[VersionNoteOut]  # noqa: N815
    # Only with "namespacePolicy" in the request:
    namespace: str | None = Field(
        default=None,
        description="with `namespacePolicy`: the namespace the pod is admitted in (the "
        "design's `namespace`; else the only namespace the policy objects name; else default)",
    )
    admission: AdmissionOut | None = Field(
        default=None,
        description="with `namespacePolicy`: the pod after the namespace's LimitRanges and "
        "ResourceQuotas, as each object of POST /analyze (`defaulted` fields are pod paths, "
        "as in `errors`); null when no accepted policy is in the pod's namespace",
    )
    policies: list[PolicyOut] | None = Field(
        default=None,
        description="with `namespacePolicy`: every LimitRange and ResourceQuota it holds, "
        "with `applied`, and the API server's message for one it would refuse",
    )
    policyNotes: list[PolicyNoteOut] | None = Field(  # noqa: N815
        default=None,
        description="with `namespacePolicy`: objects it holds that are not read (a "
        "Deployment, a Pod that is not running)",
    )
    policyErrors: list[PolicyNoteOut] | None = Field(  # noqa: N815
        default=None,
        description="with `namespacePolicy`: documents that cannot be read",
    )


class KubeletIn(Schema):
    cpuCFSQuota: StrictBool = Field(  # noqa: N815 - the KubeletConfiguration field name
        default=True, description="kubelet cpuCFSQuota: enforce CPU limits with CFS quota"
    )
    cpuCFSQuotaPeriod: StrictStr = Field(  # noqa: N815
        default="100ms",
        description="kubelet cpuCFSQuotaPeriod, a Go duration such as 100ms or 5000us; another "
        "value than 100ms means the CustomCPUCFSQuotaPeriod gate is on, and must lie in 1ms..1s",
    )


class FitIn(Schema):
    pod: dict[str, Any] | str = Field(
        description="a Pod (or any workload with a pod template) as an object or YAML text"
    )
    node: dict[str, Any] = Field(
        description='a Node manifest object, or {"catalog": "<id>", "provider": "gke|eks|aks"}, '
        'or {"capacity": {"cpu": "96", "memory": "1152Gi", "nvidia.com/gpu": "8"}, '
        '"provider": "gke|eks|aks"}; a catalog or capacity node may add "gpuSharing": '
        '{"mode": "whole|mig-single|mig-mixed|time-slicing|mps", "profile": "1g.10gb", '
        '"migLayout": "1g.10gb=2, 2g.20gb=1, 3g.40gb=1" (or {"1g.10gb": 2, ...}, or '
        '[{"gpus": 4, "profiles": {...}}, ...]), "replicas": 4, "renameByDefault": false, '
        '"model": "h100-80gb" (capacity nodes)}'
    )
    daemonsetOverhead: dict[str, str] | None = None  # noqa: N815
    kubelet: KubeletIn | None = Field(
        default=None, description="the node's kubelet configuration (defaults: true, 100ms)"
    )
    resourceSlices: dict[str, Any] | list[Any] | str | None = Field(  # noqa: N815
        default=None,
        description="Dynamic Resource Allocation: the node's ResourceSlices as `kubectl get "
        "resourceslices -o yaml` prints them (YAML/JSON text, a `List` object or a list of "
        "objects), optionally with DeviceClasses, ResourceClaimTemplates and ResourceClaims. "
        "Templates and claims may also come in the `pod` text. The pod's "
        "`spec.resourceClaims` are then allocated from the devices available on the node "
        "(its `metadata.name`; for a catalog or capacity node, the node the slices name), and "
        "`podsPerNode` is the smaller of the resource count and the device count.",
    )


class KubeletPodOut(Schema):
    cpuShares: int = Field(description="ResourceConfig.CPUShares (2 for BestEffort)")  # noqa: N815
    cpuWeight: int = Field(  # noqa: N815
        description="the pod cgroup's cpu.weight on cgroup v2, as the kubelet computes it "
        "(getCPUWeight(cpuShares))"
    )
    cpuQuota: int | None = Field(  # noqa: N815
        description="ResourceConfig.CPUQuota in µs; null when unset (BestEffort, or a Burstable "
        "pod whose containers do not all limit cpu), -1 with cpuCFSQuota false"
    )
    cpuPeriod: int | None = Field(  # noqa: N815
        description="ResourceConfig.CPUPeriod in µs; null whenever cpuQuota is null"
    )
    memoryLimit: int | None = Field(  # noqa: N815
        description="ResourceConfig.Memory in bytes (pod overhead included); null when unset"
    )


class KubeletContainerOut(Schema):
    name: str | None
    cpuShares: int = Field(description="CRI LinuxContainerResources.CpuShares")  # noqa: N815
    cpuQuota: int = Field(  # noqa: N815
        description="CpuQuota in µs; 0 (not set) without a cpu limit or with cpuCFSQuota false"
    )
    cpuPeriod: int = Field(description="CpuPeriod in µs; 0 with cpuCFSQuota false")  # noqa: N815
    memoryLimit: int = Field(  # noqa: N815
        description="MemoryLimitInBytes; 0 (not set) without a memory limit"
    )
    oomScoreAdj: int | None = Field(  # noqa: N815
        description="GetContainerOOMScoreAdjust with the node's memory capacity; null only for "
        "a Burstable container on a node whose memory capacity is unknown"
    )


class KubeletOut(Schema):
    pod: KubeletPodOut
    containers: list[KubeletContainerOut] = Field(
        description="init containers (sidecars included) then app containers, in pod order"
    )


class UnreadableOut(Schema):
    field: str = Field(description="field path, e.g. spec.containers[0].resources.limits[memory]")
    resource: str
    value: str = Field(description="the value as written")


class FitOut(Schema):
    podsPerNode: int | None = Field(  # noqa: N815
        description="0 when the pod cannot land; null when unbounded (it requests nothing the "
        "node counts) or when a request cannot be read (see cannotCompute)"
    )
    bottleneck: str | None = Field(
        description='the resource that runs out first; "resourceClaims" when the devices do'
    )
    allocatable: dict[str, str]
    stranded: dict[str, str]
    pendingReasons: list[str]  # noqa: N815
    notes: list[str] = Field(
        description="what the counts assume or leave idle: how the GPUs are shared (MIG slices, "
        "replicas), GPUs stranded, what cannot be computed"
    )
    kubelet: KubeletOut | None = Field(
        description="what the node's kubelet would set for the pod, whether or not it fits; "
        "null when a cpu, memory or hugepages value cannot be read (see cannotCompute)"
    )
    kubeletNotes: list[str] = Field(  # noqa: N815
        description="about the kubelet values: absurd values that overflow its 64-bit "
        "arithmetic, a custom cpuCFSQuotaPeriod, what cannot be computed"
    )
    cannotCompute: list[UnreadableOut] = Field(  # noqa: N815
        description="values that are not quantities; what depends on them is not computed"
    )
    claims: dict[str, Any] | None = Field(
        default=None,
        description="with `resourceSlices` and a pod with resource claims: the node used, "
        "its `devices`, `podsPerNode` by devices, per claim the devices each request matches "
        "and the first pod's allocation, the `problem` that stops one more pod, and `notes`",
    )


FIT_DESCRIPTION = """\
How many copies of a pod one node takes, the bottleneck, what stays idle and why it would stay
Pending, plus `kubelet`: what the node's kubelet sets for the pod, computed as the kubelet's Go
code does (`ResourceConfigForPod` for the pod cgroup, `generateLinuxContainerResources` and
`GetContainerOOMScoreAdjust` for each container), in its integer units and int64 arithmetic.

`kubelet.pod` is the pod cgroup's `ResourceConfig`: `null` where the kubelet leaves a field
unset (a BestEffort pod has only `cpuShares` 2), `cpuQuota` -1 when `cpuCFSQuota` is false.
`kubelet.containers` are CRI `LinuxContainerResources`, where 0 means "not set".
`oomScoreAdj` uses the node's memory capacity. Give `"kubelet": {"cpuCFSQuota": false,
"cpuCFSQuotaPeriod": "5ms"}` for a kubelet configured that way.

A catalog or capacity node with `"gpuSharing"` advertises its GPUs as the NVIDIA device plugin
would: MIG single strategy = slices as `nvidia.com/gpu` (8 H100 80GB in 1g.10gb: 56), mixed =
`nvidia.com/mig-<profile>` from `migLayout`, time-slicing/MPS = `replicas` per GPU
(`nvidia.com/gpu.shared` with `renameByDefault`); `notes` say so.

**400** for a pod or node that cannot be read, a sharing the node cannot have (a profile of
another GPU model, a layout that does not fit a GPU), or a kubelet setting the kubelet would
refuse (its own message, e.g. `time: invalid duration "fast"`).

With `resourceSlices` (`kubectl get resourceslices -o yaml`) the pod's Dynamic Resource
Allocation claims are allocated too, as the DynamicResources plugin does (Kubernetes 1.34+,
resource.k8s.io/v1): each request's DeviceClass and CEL selectors are evaluated against the
node's devices (DeviceClasses come from the body, else NVIDIA's known classes), counts,
`allocationMode: All`, `firstAvailable` alternatives and constraints are honoured, and pods
are placed one after the other (a template gives each pod its own claim, a named
ResourceClaim is shared by all). The answer's `claims` says which devices match; devices
never appear in `allocatable` or the pod's requests.

**400** also when the slices cannot be read (the message names the part).
"""


class GoJsonParser(Parser):
    """Request bodies read as the Kubernetes API server's encoding/json reads them: an
    unpaired surrogate escape is U+FFFD, integers keep their digits (up to 4,300)."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        return go_json_loads(request.body)


api = NinjaAPI(
    parser=GoJsonParser(),
    title="Pod Resource Designer API",
    version="1",
    description=(
        "Check Kubernetes manifests and render pod designs with the same engine as the web "
        "pages and the `podspec` CLI. No authentication, session or CSRF token: the API "
        "changes nothing."
    ),
    urls_namespace="api-v1",
    docs_url=None,
)


def _error(status: int, message: str) -> HttpResponse:
    return HttpResponse(
        json.dumps({"error": message}), status=status, content_type="application/json"
    )


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _error(413, "The request body is too large.")


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def _read_body(request: HttpRequest, limit: int) -> bytes | HttpResponse:
    """The body, or a 413 answer decided from Content-Length before anything is read."""
    too_big = _error(413, f"The body is larger than the {limit:,}-byte limit.")
    length = _content_length(request)
    if length is not None and length > limit:
        return too_big
    body = request.body  # Django refuses more than DATA_UPLOAD_MAX_MEMORY_SIZE (21 MB)
    if len(body) > limit:
        return too_big
    return body


def _is_object(document: Document) -> bool:
    data = document.data
    return isinstance(data, dict) and isinstance(data.get("kind"), str) and bool(data["kind"])


def refusal(
    body: bytes,
    errors: list[dict[str, Any]],
    objects: int,
    hostile: list[dict[str, Any]],
    budget: int | None = None,
) -> str | None:
    """Why ``/analyze`` answers 400 for a checked body (the ``errors`` of its check_texts
    document, how many ``objects`` it has, the ``hostile`` ones among its errors), or None
    for 200 (see the docs)."""
    if not body.strip():
        return "The body is empty: send the manifest text (YAML or JSON) as the body."
    for error in errors:
        if error["document"] is None:
            return f"The body cannot be read: {error['message']}."
    for error in hostile:
        return f"Refused: document {error['document']} is hostile ({error['message']})."
    if objects:
        return None
    # Nothing checked: read again only to tell an empty input from one without objects.
    documents = read_documents(body, max_documents=budget + 1) if budget else read_documents(body)
    if not any(_is_object(d) for d in documents):
        if errors:
            first = errors[0]["message"]
            return (
                "The body holds no Kubernetes object: no document is YAML or JSON with a "
                f"kind ({first})."
            )
        return "The body holds no Kubernetes object (a YAML or JSON mapping with a kind)."
    return None


def _body_example(value: str) -> dict[str, Any]:
    return {"schema": {"type": "string"}, "example": value}


@api.post(
    "/analyze",
    response={200: CheckResultOut, 400: ErrorOut, 413: ErrorOut},
    summary="Check manifests (podspec check --format json)",
    description=ANALYZE_DESCRIPTION,
    operation_id="analyze",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/yaml": _body_example(EXAMPLE_MANIFEST),
                "application/json": _body_example(
                    '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, '
                    '"spec": {"containers": [{"name": "main", "image": "busybox"}]}}',
                ),
                "text/plain": _body_example(EXAMPLE_MANIFEST),
            },
        }
    },
)
def analyze(
    request: HttpRequest,
    kubernetesVersion: str | None = None,  # noqa: N803 - the query parameter's name
    namespace: str | None = None,
) -> HttpResponse:
    body = _read_body(request, MAX_INPUT_BYTES)
    if isinstance(body, HttpResponse):
        return body
    try:
        version = parse_kubernetes_version(kubernetesVersion)
    except ValueError as exc:
        return _error(400, f"{exc}.")
    if namespace is not None:
        problems = name_is_dns_label(namespace)
        if problems:
            return _error(400, f"namespace {namespace!r} is not valid: {problems[0]}.")
    budget = workload_budget(len(body))
    # A dump's slices on ANALYZE_JOBS processes (check.stream), the same document: when the
    # check would fork, on as many as the server's CPU tokens free now (designer.cpus),
    # never waiting for them; in this process with one or none.
    stream = CheckStream(
        [(REQUEST_FILE, body)],
        kubernetes_version=version,
        namespace=namespace or None,
        max_workloads=budget,
        jobs=settings.ANALYZE_JOBS or tokens().count,
    )
    if stream.would_fork():
        with tokens().take(stream.jobs) as jobs:
            stream.jobs = jobs
            chunks = list(stream.chunks(answer_chunk))
    else:
        chunks = list(stream.chunks(answer_chunk))
    rest = stream.rest()
    objects = sum(chunk.count for chunk in chunks)
    reason = refusal(body, rest["errors"], objects, stream.hostile(), budget)
    if reason is not None:
        return _error(400, reason)
    # The engine's dict as is (not re-validated through the schema), so the answer is
    # byte-for-byte what the CLI prints with --format json.
    return HttpResponse(answer_json(chunks, rest), content_type="application/json; charset=utf-8")


class AnswerChunk(NamedTuple):
    """A slice's entries as the answer writes them, made where the slice was checked."""

    blob: bytes | None  # the entries' JSON without the list's brackets (None: see objects)
    objects: list[dict[str, Any]] | None  # the entries, when orjson cannot write them
    count: int


def answer_chunk(objects: list[dict[str, Any]]) -> AnswerChunk:
    """The entries' part of ``dumps_json(document)`` (orjson's, without the brackets)."""
    try:
        return AnswerChunk(orjson.dumps(objects)[1:-1], None, len(objects))
    except (TypeError, orjson.JSONEncodeError):
        return AnswerChunk(None, objects, len(objects))


def answer_json(chunks: list[AnswerChunk], rest: dict[str, Any]) -> bytes:
    """``dumps_json({"objects": [...], **rest})``, byte for byte, from the chunks: the
    entries are not read back and written again (where orjson cannot write a part,
    dumps_json writes the whole document with the json module: so is it here)."""
    try:
        tail = orjson.dumps(rest)
    except (TypeError, orjson.JSONEncodeError):
        tail = None
    if tail is None or any(chunk.blob is None for chunk in chunks):
        objects: list[dict[str, Any]] = []
        for chunk in chunks:
            objects += chunk.objects if chunk.blob is None else orjson.loads(b"[%s]" % chunk.blob)
        return dumps_json({"objects": objects, **rest})
    listed = b",".join(chunk.blob for chunk in chunks if chunk.blob)
    return b'{"objects":[%s]%s' % (listed, b"}" if tail == b"{}" else b"," + tail[1:])


class RenderIn(Design):
    """The body of /render: a design, plus the cluster (its version, its namespace's
    policy) next to its fields."""

    kubernetesVersion: str | None = Field(  # noqa: N815
        default=None,
        description=f"one of {', '.join(SUPPORTED_VERSIONS)}; default {DEFAULT_VERSION}",
    )
    namespacePolicy: str | dict[str, Any] | list[Any] | None = Field(  # noqa: N815
        default=None,
        description="the namespace's LimitRanges and ResourceQuotas, as `kubectl get "
        "limitrange,resourcequota -n team -o yaml` prints them (YAML/JSON text, a `List` "
        "object or a list of objects; running Pods count for a quota without status): the "
        "answer then has `namespace`, `admission`, `policies`, `policyNotes`, `policyErrors`",
    )


def _policy_text(value: str | dict[str, Any] | list[Any] | None) -> str | None:
    """``namespacePolicy`` as text: objects travel as JSON, a list as the List kubectl
    prints."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        value = {"apiVersion": "v1", "kind": "List", "items": value}
    return dumps_json(value).decode()


def render_answer(
    design: Design, kubernetes_version: str | None = None, namespace_policy: str | None = None
) -> dict[str, Any]:
    """The render answer for a design; raises ValueError when its ``base`` cannot be a Pod
    or the version is not supported."""
    if len(design.containers) > MAX_RENDER_CONTAINERS:
        raise ValueError(f"A design has at most {MAX_RENDER_CONTAINERS} containers.")
    version = cluster_version(kubernetes_version)
    try:
        rendered = render_design(design, version=version, namespace_policy=namespace_policy)
    except DesignError as exc:
        raise ValueError(str(exc)) from exc
    return rendered.as_dict()


@api.post(
    "/render",
    response={200: RenderOut, 400: ErrorOut, 413: ErrorOut, 422: ValidationErrorOut},
    summary="Render a design as a Pod with its QoS and validation",
    description=RENDER_DESCRIPTION,
    operation_id="render",
)
def render_endpoint(request: HttpRequest, design: RenderIn) -> Any:
    if len(request.body) > MAX_RENDER_BYTES:
        limit = f"{MAX_RENDER_BYTES:,}"
        return Status(413, {"error": f"The body is larger than the {limit}-byte limit."})
    # The design proper, without the request's own field (fields are models already). Only
    # the fields the body set: a design given as its origin alone starts from the origin's
    # template, the fields it sets replacing the template's (render_design).
    given = design.model_fields_set & set(Design.model_fields)
    plain = Design.model_validate({name: getattr(design, name) for name in given})
    try:
        answer = render_answer(
            plain, design.kubernetesVersion, _policy_text(design.namespacePolicy)
        )
    except ValueError as exc:
        return Status(
            422, {"detail": [{"loc": ["body", "design"], "msg": str(exc), "type": "value_error"}]}
        )
    # The engine's dict as is (as /analyze): the namespace keys are there only when a
    # namespacePolicy was sent, rather than null (which would read as "no policy applies").
    return HttpResponse(dumps_json(answer), content_type="application/json; charset=utf-8")


def _first_workload(text: str) -> Workload:
    """The first workload of a YAML or JSON text: the documents after it are not read."""
    errors = []
    try:
        for document in iter_documents(text, max_bytes=MAX_RENDER_BYTES):
            workloads, read_errors = find_workloads([document])
            if workloads:
                return workloads[0]
            errors += read_errors
    except ManifestError as exc:
        raise ValueError(f"The pod text cannot be read: {exc}.") from exc
    raise ValueError(errors[0].message if errors else "No pod found in the text.")


def _fit_pod(value: dict[str, Any] | str) -> Pod:
    """The pod to fit: an object or YAML text; a workload's pod template is used as is."""
    if isinstance(value, str):
        workloads = [_first_workload(value)]
    else:
        workloads, errors = find_workloads([Document(0, 1, value, None)])
        if not workloads:
            raise ValueError(errors[0].message if errors else "No pod found in the object.")
    workload = workloads[0]
    pod, problems = pod_from_parts(workload.pod_metadata, workload.pod_spec)
    if pod is None:
        raise ValueError(str(problems[0]))
    return pod


SHARING_KEYS = {"mode", "profile", "migLayout", "replicas", "renameByDefault", "model"}


def _fit_sharing(value: object) -> tuple[GpuSharing, str | None]:
    """The node's gpuSharing object as a GpuSharing, and the GPU model it names."""
    if not isinstance(value, dict):
        raise ValueError("node.gpuSharing must be an object.")
    unknown = sorted(set(value) - SHARING_KEYS)
    if unknown:
        raise ValueError(
            f"node.gpuSharing has unknown field(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(SHARING_KEYS))}."
        )
    for key in ("mode", "profile", "model"):
        if key in value and not isinstance(value[key], str):
            raise ValueError(f"node.gpuSharing.{key} must be a string.")
    if "renameByDefault" in value and not isinstance(value["renameByDefault"], bool):
        raise ValueError("node.gpuSharing.renameByDefault must be true or false.")
    replicas = value.get("replicas")
    if replicas is not None and (isinstance(replicas, bool) or not isinstance(replicas, int)):
        raise ValueError("node.gpuSharing.replicas must be a whole number.")
    try:
        sharing = gpu_sharing(
            value.get("mode", "whole"),
            profile=value.get("profile", ""),
            layout=value.get("migLayout"),
            replicas=replicas,
            rename_by_default=value.get("renameByDefault", False),
        )
    except SharingError as exc:
        raise ValueError(f"node.gpuSharing: {exc}") from exc
    return sharing, value.get("model")


def _fit_node(value: dict[str, Any]) -> NodeInfo:
    provider = value.get("provider")
    if provider is not None and provider not in PROVIDERS:
        raise ValueError("provider must be one of gke, eks, aks.")
    max_pods = value.get("maxPods")
    sharing, model = _fit_sharing(value["gpuSharing"]) if "gpuSharing" in value else (None, None)
    try:
        if "catalog" in value:
            if model is not None:
                raise ValueError(
                    "node.gpuSharing.model is for capacity nodes; a catalog shape has its own "
                    "GPU model."
                )
            return node_from_catalog(str(value["catalog"]), provider, max_pods, gpu_sharing=sharing)
        if "capacity" in value:
            capacity = value["capacity"]
            if not isinstance(capacity, dict):
                raise ValueError("capacity must be an object of resource quantities.")
            return node_from_capacity(
                capacity, provider or "gke", max_pods, gpu_sharing=sharing, gpu_model=model
            )
    except SharingError as exc:
        raise ValueError(f"node.gpuSharing: {exc}") from exc
    if sharing is not None:
        raise ValueError(
            "node.gpuSharing is for catalog and capacity nodes: a Node manifest's allocatable "
            "already shows what its device plugin advertises."
        )
    return node_from_manifest(value)


@api.post(
    "/fit",
    response={200: FitOut, 400: ErrorOut, 413: ErrorOut, 422: ValidationErrorOut},
    summary="How many of a pod fit on a node, the bottleneck, what is stranded, why Pending, "
    "and what the kubelet sets",
    description=FIT_DESCRIPTION,
    operation_id="fit",
)
def fit_endpoint(request: HttpRequest, body: FitIn) -> Any:
    if len(request.body) > MAX_RENDER_BYTES:
        return Status(
            413, {"error": f"The body is larger than the {MAX_RENDER_BYTES:,}-byte limit."}
        )
    try:
        pod = _fit_pod(body.pod)
        node = _fit_node(body.node)
        kubelet = body.kubelet or KubeletIn()
        config = kubelet_config(kubelet.cpuCFSQuota, kubelet.cpuCFSQuotaPeriod)
        defaulted = pod_with_defaults(pod)
        slices = body.resourceSlices
        objects = dra_inputs(slices, body.pod) if slices is not None else None
        result = fit_with_claims(
            defaulted, node, body.daemonsetOverhead, objects, apply_defaults=False
        )
    except (ValueError, TypeError, KeyError, ManifestError) as exc:
        # KeyError's str() quotes its argument; the others are sentences already.
        text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        return Status(400, {"error": text or type(exc).__name__})
    # The same engine call as the designer's "What the node does" table.
    capacity = node.memory_capacity
    view = node_view(
        pod,
        Quantity.from_fraction(capacity, "BinarySI") if capacity is not None else None,
        defaulted=defaulted,
        kubelet=config,
    )
    answer = result.as_dict()
    unreadable = {u.field: u for u in (*view.unreadable, *result.unreadable)}
    keys = ("podsPerNode", "bottleneck", "allocatable", "stranded", "pendingReasons", "notes")
    return {
        **{k: answer[k] for k in keys},
        "claims": answer["claims"],
        "kubelet": view.kubelet.as_dict() if view.kubelet else None,
        "kubeletNotes": [n.text for n in view.notes],
        "cannotCompute": [u.as_dict() for u in unreadable.values()],
    }


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # django-ninja words every unreadable body "Cannot parse request body"; say why.
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError):
        return _error(400, f"The body is not JSON: {exc.__cause__}.")
    return _error(exc.status_code, str(exc))


# --- the docs page ----------------------------------------------------------------------

DOCS_RENDER_EXAMPLE = {
    "workload": "inference",
    "name": "inference",
    "containers": [
        {
            "name": "main",
            "image": "nvcr.io/nvidia/tritonserver:24.10-py3",
            "cpu_request": "4",
            "cpu_limit": "4",
            "memory_request": "16Gi",
            "memory_limit": "16Gi",
            "gpus": "1",
        }
    ],
}


@require_http_methods(["GET", "HEAD"])
def api_docs(request: HttpRequest) -> HttpResponse:
    """Our own docs page: the endpoints with real examples, computed by the engine."""
    analyze_answer = check_texts([(REQUEST_FILE, EXAMPLE_MANIFEST)])
    render_example = render_answer(Design.model_validate(DOCS_RENDER_EXAMPLE))
    context = {
        "max_input_bytes": MAX_INPUT_BYTES,
        "max_render_bytes": MAX_RENDER_BYTES,
        "max_containers": MAX_RENDER_CONTAINERS,
        "analyze_request": EXAMPLE_MANIFEST,
        "analyze_response": json.dumps(analyze_answer, indent=2, ensure_ascii=False),
        "render_request": json.dumps(DOCS_RENDER_EXAMPLE, indent=2),
        "render_response": json.dumps(render_example, indent=2, ensure_ascii=False),
        "error_example": json.dumps({"error": "The body is empty: send the manifest text."}),
    }
    return render(request, "api-docs.html", context)
