"""What the designer page shows, assembled from one engine answer.

The engine (``render_design``) answers everything about a design: the report, the export, the
plan, the hints, the choice fields that apply. This module only places those answers on the
page: each message in the slot beside the form field it is about (``field_for_path`` maps
engine field paths to form fields), every sentence translated to the page's language. No
Kubernetes rule lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext_lazy

from designer.forms import (
    Cluster,
    ClusterForm,
    ContainerForm,
    PodForm,
    cluster_initial,
    field_for_choice,
    field_for_path,
    page_query,
)
from designer.i18n import translate
from designer.k8s.apiserver import cluster_version
from designer.k8s.core import Message, format_resources
from designer.k8s.design import (
    GPU_RESOURCE_CHOICES,
    WORKLOAD_TYPES,
    Design,
    DesignError,
    PodReport,
    Rendered,
    removable,
    render_design,
    settings_field,
    workload_type,
)


@dataclass
class FieldMessage:
    level: str  # "error" | "warning" | "hint"
    text: str
    path: str = ""
    api: bool = False  # the API server's own text, shown in English as kubectl prints it


@dataclass
class Results:
    """Everything the results panel and the per-field slots show."""

    design: Design | None
    report: PodReport | None
    yaml: str = ""
    # slot id ("err-id_c-0-cpu_limit") → messages; pod/container-wide under "err-pod"/"err-c-0"
    slots: dict[str, list[FieldMessage]] = field(default_factory=dict)
    form_invalid: bool = False
    rendered: Rendered | None = None
    # The Kubernetes version and namespace policy the answers are for (issue #12).
    cluster: Cluster = field(default_factory=Cluster)

    @property
    def plan(self) -> Any:
        return self.rendered.plan if self.rendered else None

    @property
    def downloadable(self) -> bool:
        return bool(self.rendered and self.rendered.ok and not self.form_invalid)

    @property
    def error_count(self) -> int:
        return sum(1 for msgs in self.slots.values() for m in msgs if m.level == "error")


def slot_id(container: int | None, name: str) -> str:
    if container is None:
        return f"err-id_{name}" if name else "err-pod"
    return f"err-id_c-{container}-{name}" if name else f"err-c-{container}"


def design_results(
    design: Design | None,
    pod_form: PodForm | None = None,
    formset: Any = None,
    *,
    action: str = "",
    changed: str = "",
    problem: Message | None = None,
    cluster: Cluster | None = None,
    cluster_form: ClusterForm | None = None,
) -> Results:
    """Run the engine once on a design (after a button's ``action``) and place its messages
    beside the form fields (and the forms' own errors, when there are forms: the live
    update's fast path has none, see forms.design_from_query). ``problem`` is a message for
    the whole pod (e.g. an unknown workload type in a deep link). ``cluster`` is the
    Kubernetes version and namespace policy to answer for (default: the newest, none)."""
    slots: dict[str, list[FieldMessage]] = {}
    cluster = cluster or Cluster()

    def add(slot: str, message: FieldMessage) -> None:
        slots.setdefault(slot, []).append(message)

    for name, errors in cluster_form.errors.items() if cluster_form is not None else ():
        for text in errors:
            add(slot_id(None, name), FieldMessage("error", text))

    if problem is not None:
        add("err-pod", FieldMessage("error", translate(problem)))
    # Form-level problems (a label line without "=", too many containers) first.
    for name, errors in pod_form.errors.items() if pod_form is not None else ():
        for text in errors:
            add(slot_id(None, "" if name == "__all__" else name), FieldMessage("error", text))
    bound = formset is not None and formset.is_bound
    for i, form in enumerate(formset.forms if bound else []):
        for name, errors in form.errors.items():
            for text in errors:
                add(slot_id(i, "" if name == "__all__" else name), FieldMessage("error", text))
    for text in formset.non_form_errors() if bound else []:
        add("err-pod", FieldMessage("error", text))
    if design is None:
        return Results(None, None, slots=slots, form_invalid=True, cluster=cluster)

    try:
        rendered = render_design(
            design,
            action,
            changed,
            version=cluster_version(cluster.kubernetes_version),
            # Read once per request, and only when there is one.
            namespace_policy=cluster.namespace_policy if cluster.has_policy else None,
        )
    except DesignError as exc:
        add("err-pod", FieldMessage("error", translate(exc.message)))
        return Results(None, None, slots=slots, form_invalid=True, cluster=cluster)
    design = rendered.design
    report = rendered.report
    for err in report.errors:
        index, name = field_for_path(design, err.field, err.resource)
        # An error whose path does not end in its resource says which one it is about.
        text = str(err)
        if err.resource and not err.field.endswith(f"[{err.resource}]"):
            text = f"{err.resource}: {text}"
        add(slot_id(index, name), FieldMessage("error", text, err.field, api=True))
    for warning in report.warnings:
        index, name = field_for_path(design, warning.field)
        text = f"{warning.field}: {warning.message}"
        add(slot_id(index, name), FieldMessage("warning", text, warning.field, api=True))
    for level, problems in (
        ("error", rendered.object_errors),
        ("warning", rendered.object_warnings),
    ):
        for object_problem in problems:
            setting = settings_field(
                rendered.objects[object_problem.index], object_problem.problem.field
            )
            found = object_problem.problem
            text = (
                f"{object_problem.kind} {found}"
                if level == "error"
                else f"{object_problem.kind} {found.field}: {found.message}"
            )
            add(
                slot_id(None, f"export_{setting}" if setting else "export_kind"),
                FieldMessage(level, text, api=True),
            )
    for key, message in rendered.plan.problems.items():
        add(slot_id(None, field_for_choice(key)), FieldMessage("error", translate(message)))
    # issue 16 hook: proposals beside the GPU/node fields (e.g. a smaller MIG profile).
    for key, message in rendered.plan.hints.items():
        add(slot_id(None, field_for_choice(key)), FieldMessage("hint", translate(message)))
    for hint in rendered.hints:
        add(slot_id(hint.container, hint.field), FieldMessage(hint.level, translate(hint.message)))
    _namespace_slots(rendered, add)
    return Results(
        design, report, yaml=rendered.yaml, slots=slots, rendered=rendered, cluster=cluster
    )


def _namespace_slots(rendered: Rendered, add: Any) -> None:
    """The namespace policy's messages: beside the panel, what the API server says of the
    pasted objects (an invalid LimitRange, word for word) and what cannot be read; beside
    each field LimitRanger fills, the value it sets."""
    ns = rendered.namespace
    if ns is None:
        return
    panel = slot_id(None, "namespace_policy")
    for report in ns.invalid:
        add(panel, FieldMessage("error", report.policy.message or "", api=True))
    for level, message in ns.panel_notes():
        add(panel, FieldMessage(level, translate(message)))
    for path, resource, message in ns.field_notes():
        index, name = field_for_path(rendered.design, path, resource)
        add(slot_id(index, name), FieldMessage("hint", translate(message)))


# --- the page's context --------------------------------------------------------------------

# The optional fields of each section, in the order the page lists them, as choice fields
# (the form names them "<group>_<field>"). Which of them apply is the engine's answer.
GPU_SECTION = ("gpu.model", "gpu.memory_gb", "gpu.profile", "gpu.rename_shared")
NODE_SECTION = (
    "node.catalog_id",
    "node.cpu",
    "node.memory",
    "node.gpus",
    "node.gpu_resource",
    "node.provider",
    "node.manifest",
    "node.max_pods",
    "node.ds_cpu",
    "node.ds_memory",
)
EXPORT_SECTION = (
    "export.replicas",
    "export.max_surge",
    "export.max_unavailable",
    "export.hpa",
    "export.hpa_min",
    "export.hpa_max",
    "export.hpa_cpu_utilization",
    "export.hpa_gpu_metric",
    "export.workers",
    "export.master_port",
    "export.job_restart_policy",
    "export.backoff_limit",
    "export.ttl_seconds_after_finished",
    "export.active_deadline_seconds",
)
OPTIONAL = frozenset(field_for_choice(f) for f in (*GPU_SECTION, *NODE_SECTION, *EXPORT_SECTION))


def shown_pod_fields(results: Results) -> set[str]:
    """The PodForm fields the page shows: every field but the optional ones, and of those the
    ones the engine says apply (MIG fields for a MIG mode, node fields for the chosen node
    source, the export kind's settings)."""
    # workload and size are rendered by hand (htmx preset selects) and base is hidden: no slot.
    shown = set(PodForm.base_fields) - OPTIONAL - {"workload", "size", "base"}
    applicable = results.rendered.applicable if results.rendered else frozenset()
    return shown | {field_for_choice(f) for f in applicable}


def _all_slot_ids(containers: int, results: Results) -> list[dict]:
    """Every error slot on the page, so an htmx update can also clear the stale ones; only
    slots of fields the page shows (an out-of-band swap needs its target). A message for a
    field that is not shown goes to the pod's slot."""
    shown = shown_pod_fields(results)
    ids = ["err-pod"] + [f"err-id_{name}" for name in PodForm.base_fields if name in shown]
    ids += [f"err-id_{name}" for name in ClusterForm.base_fields]
    for i in range(containers):
        ids.append(f"err-c-{i}")
        ids += [f"err-id_c-{i}-{name}" for name in ContainerForm.base_fields if name != "base"]
    slots = {slot: list(results.slots.get(slot, [])) for slot in ids}
    for slot, messages in results.slots.items():
        if slot not in slots:
            slots["err-pod"] += messages
    # The page's own slots read results.slots: a message for a field that is not shown is
    # shown with the pod's messages there too, never dropped.
    results.slots = {slot: messages for slot, messages in slots.items() if messages}
    return [{"id": slot, "messages": messages} for slot, messages in slots.items()]


def _messages(messages: Any) -> list[str]:
    return [translate(m) for m in messages or ()]


def _qos_context(results: Results) -> dict[str, Any]:
    """The QoS class the node gives the pod (after admission, when a namespace policy
    applies), its reasons and eviction priority, translated."""
    report = results.report
    ns = results.rendered.namespace if results.rendered else None
    qos = ns.qos if ns and ns.admission else report.qos if report else None
    context: dict[str, Any] = {"qos_class": qos.qos_class if qos else None, "qos_result": qos}
    if qos is None:
        return context
    return {
        **context,
        "qos_reasons": [translate(r.message) for r in qos.reasons],
        "eviction_priority": translate(qos.eviction_priority),
    }


def _namespace_context(results: Results) -> dict[str, Any]:
    """The Namespace admission card: the written and the admitted class, the denials (the
    API server's words), the fields LimitRanger set, its annotation and the quota's room."""
    ns = results.rendered.namespace if results.rendered else None
    if ns is None:
        return {"ns_view": None}
    view: dict[str, Any] = {
        "namespace": ns.namespace,
        "policies": [
            {
                "ref": r.policy.ref,
                "namespace": r.policy.namespace,
                "applied": r.policy.ok and r.policy.namespace == ns.namespace,
                "invalid": not r.policy.ok,
                "used_from": r.used_from,
            }
            for r in ns.policies
        ],
        "admission": None,
    }
    a = ns.admission
    if a is not None:
        why = a.explanation()
        view["admission"] = {
            "allowed": a.allowed,
            "written": a.written_qos,
            "admitted": a.qos_class,
            "change": translate(why) if why else "",
            "denials": [
                {
                    "plugin": d.plugin,
                    "object": d.source,
                    "text": text or d.message,
                    "replica": d.replica,
                }
                for d, text in zip(a.denials, a.api_server_messages(), strict=True)
            ],
            "defaulted": [
                {"field": f"spec.{d.field}", "value": d.value, "from": d.source}
                for d in a.defaulted
            ],
            "annotations": sorted(a.annotations.items()),
            "quota": a.quota,
        }
    return {"ns_view": view}


def _version_context(results: Results) -> dict[str, Any]:
    rendered = results.rendered
    return {
        "kubernetes_version": results.cluster.kubernetes_version,
        "version_notes": [
            {"field": n.field, "text": translate(n.message), "source": n.as_dict()["source"]}
            for n in (rendered.version_notes if rendered else ())
        ],
    }


def _plan_context(results: Results) -> dict[str, Any]:
    """Translated lines of the GPU, node-fit and headroom panels."""
    plan = results.plan
    if plan is None:
        return {}
    view = plan.node_view
    context: dict[str, Any] = {
        "eviction_order": translate(view.eviction_order),
        "throttling_text": translate(view.throttling),
        "node_containers": [
            {"c": c, "oom_reason": translate(c.oom_reason)} for c in view.containers
        ],
        # issue 16 hook: the node view's notes (what cannot be computed, absurd values).
        "node_notes": _messages(view.notes),
        "sharing": plan.sharing,
        "gpu_resource_name": plan.gpu_resource or "",
        "headroom_lines": _messages(plan.headroom.lines) if plan.headroom else [],
        "allocatable_lines": _messages(plan.node.estimate.formula_lines)
        if plan.node and plan.node.estimate
        else [],
    }
    if plan.fit is not None:
        f = plan.fit
        names = list(dict.fromkeys([*f.requests, *f.stranded, *f.allocatable]))
        context["fit_rows"] = [
            (n, f.allocatable.get(n, ""), f.requests.get(n, ""), f.stranded.get(n, ""))
            for n in names
        ]
        context["fit_pending"] = _messages(r.message for r in f.pending_reasons)
        context["fit_notes"] = _messages(f.notes)
    return context


def _resource_rows(results: Results) -> list[tuple[str, str, str]]:
    """What the scheduler sees: the admitted pod's sums when a namespace policy applies."""
    report = results.report
    if report is None:
        return []
    ns = results.rendered.namespace if results.rendered else None
    admitted = ns.admission if ns else None
    requests = format_resources(admitted.requests if admitted else report.requests)
    limits = format_resources(admitted.limits if admitted else report.limits)
    names = list(requests) + [n for n in limits if n not in requests]
    return [(n, requests.get(n, ""), limits.get(n, "")) for n in names]


ADD_ACTIONS = (
    ("add-app", gettext_lazy("Add app container")),
    ("add-sidecar", gettext_lazy("Add native sidecar")),
    ("add-init", gettext_lazy("Add init container")),
)


def results_context(results: Results, *, oob: bool, containers: int | None = None) -> dict:
    """The results panel's context (no forms needed). ``oob``: the answer also refreshes every
    field's message slot; ``containers``: how many container fieldsets the page has (the
    design's, unless the form could not make one)."""
    design = results.design
    rendered = results.rendered
    count = len(design.containers) if containers is None and design else containers or 0
    return {
        "results": results,
        "report": results.report,
        "query": urlencode(page_query(design, results.cluster)) if design else "",
        "resource_rows": _resource_rows(results),
        **_plan_context(results),
        **_namespace_context(results),
        **_version_context(results),
        "export_kind": rendered.kind if rendered else "",
        "export_lines": [translate(line) for line in rendered.explanation] if rendered else [],
        "advice": [
            {"message": translate(a.message), "reason": translate(a.reason)}
            for a in (results.report.advice if results.report else [])
        ],
        **_qos_context(results),
        "oob": oob,
        "all_slots": _all_slot_ids(count, results),
    }


def designer_context(
    pod_form: PodForm,
    formset: Any,
    results: Results,
    *,
    oob: bool,
    cluster_form: ClusterForm | None = None,
) -> dict:
    """The whole designer's context: the forms (bound, or initialised from a design) and the
    engine's results."""
    design = results.design
    workload = design.workload if design else pod_form["workload"].value()
    spec = WORKLOAD_TYPES.get(workload or "") or workload_type("training")
    container_forms = list(formset.forms)
    container_paths = design.container_paths() if design else []
    shown = shown_pod_fields(results)
    return {
        **results_context(results, oob=oob, containers=len(container_forms)),
        "pod_form": pod_form,
        "formset": formset,
        "cluster_form": cluster_form or ClusterForm(initial=cluster_initial(results.cluster)),
        "containers": [
            {
                "form": f,
                "index": i,
                "slot_id": f"err-c-{i}",
                "removable": removable(design, i) if design else True,
                "path": container_paths[i] if i < len(container_paths) else "",
            }
            for i, f in enumerate(container_forms)
        ],
        "workload": spec,
        "gpu_choices": GPU_RESOURCE_CHOICES,
        "add_actions": ADD_ACTIONS,
        **{
            key: [pod_form[field_for_choice(n)] for n in section if field_for_choice(n) in shown]
            for key, section in (
                ("gpu_fields", GPU_SECTION),
                ("node_fields", NODE_SECTION),
                ("export_fields", EXPORT_SECTION),
            )
        },
    }
