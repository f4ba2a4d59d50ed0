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
    ContainerForm,
    PodForm,
    design_query,
    field_for_choice,
    field_for_path,
)
from designer.i18n import translate
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
) -> Results:
    """Run the engine once on a design (after a button's ``action``) and place its messages
    beside the form fields (and the forms' own errors, when there are forms: the live
    update's fast path has none, see forms.design_from_query). ``problem`` is a message for
    the whole pod (e.g. an unknown workload type in a deep link)."""
    slots: dict[str, list[FieldMessage]] = {}

    def add(slot: str, message: FieldMessage) -> None:
        slots.setdefault(slot, []).append(message)

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
        return Results(None, None, slots=slots, form_invalid=True)

    try:
        rendered = render_design(design, action, changed)
    except DesignError as exc:
        add("err-pod", FieldMessage("error", translate(exc.message)))
        return Results(None, None, slots=slots, form_invalid=True)
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
    return Results(design, report, yaml=rendered.yaml, slots=slots, rendered=rendered)


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


def _qos_context(report: PodReport | None) -> dict[str, Any]:
    """The QoS class's reasons and eviction priority, translated."""
    qos = report.qos if report else None
    if qos is None:
        return {}
    return {
        "qos_reasons": [translate(r.message) for r in qos.reasons],
        "eviction_priority": translate(qos.eviction_priority),
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


def _resource_rows(report: PodReport | None) -> list[tuple[str, str, str]]:
    if report is None:
        return []
    requests = format_resources(report.requests)
    limits = format_resources(report.limits)
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
        "query": urlencode(design_query(design)) if design else "",
        "resource_rows": _resource_rows(results.report),
        **_plan_context(results),
        "export_kind": rendered.kind if rendered else "",
        "export_lines": [translate(line) for line in rendered.explanation] if rendered else [],
        "advice": [
            {"message": translate(a.message), "reason": translate(a.reason)}
            for a in (results.report.advice if results.report else [])
        ],
        **_qos_context(results.report),
        "oob": oob,
        "all_slots": _all_slot_ids(count, results),
    }


def designer_context(pod_form: PodForm, formset: Any, results: Results, *, oob: bool) -> dict:
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
