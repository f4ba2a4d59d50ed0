"""Views: parse the request, make one engine call, render. No Kubernetes rule lives here."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import replace_url
from django_htmx.middleware import HtmxDetails

from designer.forms import (
    ContainerFormSet,
    PodForm,
    design_from_forms,
    design_initial,
    design_query,
    field_for_choice,
    field_for_path,
)
from designer.i18n import translate, translate_template
from designer.k8s.core import format_resources
from designer.k8s.design import (
    GPU_RESOURCE_CHOICES,
    WORKLOADS,
    Design,
    DesignError,
    Plan,
    PodReport,
    Rendered,
    design_action,
    preset_design,
    quantity_hint,
    removable,
    render_design,
    settings_field,
)
from designer.k8s.gpu import gpu_count_problem
from designer.models import SharedDesign

log = logging.getLogger("designer.views")


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


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
    def plan(self) -> Plan | None:
        return self.rendered.plan if self.rendered else None

    @property
    def downloadable(self) -> bool:
        return bool(self.rendered and self.rendered.ok and not self.form_invalid)

    @property
    def error_count(self) -> int:
        return sum(1 for msgs in self.slots.values() for m in msgs if m.level == "error")


def _advice_text(template: str, params: dict[str, Any]) -> str:
    """Advice templates are %-formatted only when they have params (advice.py's rule)."""
    return translate_template(template, params) if params else _(template)


def _slot(container: int | None, name: str) -> str:
    if container is None:
        return f"err-id_{name}" if name else "err-pod"
    return f"err-id_c-{container}-{name}" if name else f"err-c-{container}"


def design_results(design: Design | None, pod_form: PodForm, formset: Any) -> Results:
    """Run the engine on a design and place its messages beside the form fields."""
    slots: dict[str, list[FieldMessage]] = {}

    def add(slot: str, message: FieldMessage) -> None:
        slots.setdefault(slot, []).append(message)

    # Form-level problems (a label line without "=", too many containers) first.
    for name, errors in pod_form.errors.items():
        for text in errors:
            add(_slot(None, "" if name == "__all__" else name), FieldMessage("error", text))
    for i, form in enumerate(formset.forms if formset.is_bound else []):
        for name, errors in form.errors.items():
            for text in errors:
                add(_slot(i, "" if name == "__all__" else name), FieldMessage("error", text))
    for text in formset.non_form_errors() if formset.is_bound else []:
        add("err-pod", FieldMessage("error", text))
    if design is None:
        return Results(None, None, slots=slots, form_invalid=True)

    try:
        rendered = render_design(design)
    except DesignError as exc:
        add("err-pod", FieldMessage("error", translate(exc.message)))
        return Results(None, None, slots=slots, form_invalid=True)
    report = rendered.report
    for err in report.errors:
        index, name = field_for_path(design, err.field, err.message)
        add(_slot(index, name), FieldMessage("error", str(err), err.field, api=True))
    for warning in report.warnings:
        index, name = field_for_path(design, warning.field)
        add(
            _slot(index, name),
            FieldMessage("warning", f"{warning.field}: {warning.message}", warning.field, api=True),
        )
    for level, problems in (
        ("error", rendered.object_errors),
        ("warning", rendered.object_warnings),
    ):
        for problem in problems:
            setting = settings_field(rendered.objects[problem.index], problem.problem.field)
            text = (
                f"{problem.kind} {problem.problem}"
                if level == "error"
                else (f"{problem.kind} {problem.problem.field}: {problem.problem.message}")
            )
            add(
                _slot(None, f"export_{setting}" if setting else "export_kind"),
                FieldMessage(level, text, api=True),
            )
    for key, problem in rendered.plan.problems.items():
        add(_slot(None, field_for_choice(key)), FieldMessage("error", translate(problem)))
    for i, container in enumerate(design.containers):
        gpu_problem = gpu_count_problem(container.gpus) if container.gpus.strip() else None
        if gpu_problem:
            add(_slot(i, "gpus"), FieldMessage("hint", translate(gpu_problem)))
        for resource, names in (
            ("cpu", ("cpu_request", "cpu_limit")),
            ("memory", ("memory_request", "memory_limit")),
        ):
            for name in names:
                hint = quantity_hint(resource, getattr(container, name))
                if hint:
                    add(_slot(i, name), FieldMessage("hint", translate(hint)))
    return Results(design, report, yaml=rendered.yaml, slots=slots, rendered=rendered)


def _bind(data: QueryDict) -> tuple[PodForm, Any, Design | None]:
    pod_form = PodForm(data)
    formset = ContainerFormSet(data, prefix="c")
    return pod_form, formset, design_from_forms(pod_form, formset)


def _unbound(design: Design) -> tuple[PodForm, Any]:
    pod_initial, containers = design_initial(design)
    return PodForm(initial=pod_initial), ContainerFormSet(initial=containers, prefix="c")


def _context(request: HttpRequest, pod_form: PodForm, formset: Any, results: Results) -> dict:
    query = urlencode(design_query(results.design)) if results.design else ""
    workload = results.design.workload if results.design else pod_form["workload"].value()
    spec = WORKLOADS.get(workload or "") or WORKLOADS["training"]
    container_forms = list(formset.forms)
    container_paths = results.design.container_paths() if results.design else []
    shown = shown_pod_fields(pod_form, results.rendered.kind if results.rendered else "")
    return {
        "pod_form": pod_form,
        "formset": formset,
        "containers": [
            {
                "form": f,
                "index": i,
                "slot_id": f"err-c-{i}",
                "removable": removable(results.design, i) if results.design else True,
                "path": container_paths[i] if i < len(container_paths) else "",
            }
            for i, f in enumerate(container_forms)
        ],
        "results": results,
        "report": results.report,
        "workload": spec,
        "query": query,
        "gpu_choices": GPU_RESOURCE_CHOICES,
        "add_actions": [
            ("add-app", _("Add app container")),
            ("add-sidecar", _("Add native sidecar")),
            ("add-init", _("Add init container")),
        ],
        "resource_rows": _resource_rows(results.report),
        **_plan_context(results.plan),
        "export_kind": results.rendered.kind if results.rendered else "",
        "export_lines": [translate(line) for line in results.rendered.explanation]
        if results.rendered
        else [],
        "advice": [
            {
                "message": _advice_text(a.message_template, a.params),
                "reason": _advice_text(a.reason_template, {}),
            }
            for a in (results.report.advice if results.report else [])
        ],
        **_qos_context(results.report),
        "oob": bool(getattr(request, "htmx", False) and request.htmx.target == "results"),
        "all_slots": _all_slot_ids(pod_form, container_forms, results),
        **{
            key: [pod_form[name] for name in section if name in shown]
            for key, section in (
                ("gpu_fields", GPU_SECTION),
                ("node_fields", NODE_SECTION),
                ("export_fields", EXPORT_SECTION),
            )
        },
    }


def _messages(messages: Any) -> list[str]:
    return [translate(m) for m in messages or ()]


def _qos_context(report: PodReport | None) -> dict[str, Any]:
    """The QoS class's reasons and eviction priority, translated."""
    qos = report.qos if report else None
    if qos is None:
        return {}
    return {
        "qos_reasons": [translate(r.as_message()) for r in qos.reasons],
        "eviction_priority": _(qos.eviction_priority),
    }


def _plan_context(plan: Plan | None) -> dict[str, Any]:
    """Translated lines of the GPU, node-fit and headroom panels."""
    if plan is None:
        return {}
    view = plan.node_view
    context: dict[str, Any] = {
        "eviction_order": translate(view.eviction_order_message)
        if view.eviction_order_message
        else view.eviction_order,
        "throttling_text": translate(view.throttling_message)
        if view.throttling_message
        else view.throttling_reason,
        "node_containers": [
            {
                "c": c,
                "oom_reason": translate(c.oom_score_adj_message)
                if c.oom_score_adj_message
                else c.oom_score_adj_reason,
            }
            for c in view.containers
        ],
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


NODE_FIELDS = {
    "catalog": {"node_catalog_id", "node_provider"},
    "custom": {"node_cpu", "node_memory", "node_gpus", "node_gpu_resource", "node_provider"},
    "manifest": {"node_manifest"},
}
NODE_COMMON = {"node_max_pods", "node_ds_cpu", "node_ds_memory"}
EXPORT_FIELDS = {
    "Deployment": {"export_replicas", "export_max_surge", "export_max_unavailable", "export_hpa"},
    "Job": {"export_job_restart_policy", "export_backoff_limit"},
    "IndexedJob": {"export_workers", "export_master_port", "export_backoff_limit"},
}
JOB_COMMON = {"export_ttl_seconds_after_finished", "export_active_deadline_seconds"}
HPA_FIELDS = {
    "export_hpa_min",
    "export_hpa_max",
    "export_hpa_cpu_utilization",
    "export_hpa_gpu_metric",
}


# The optional fields of each section, in the order the page lists them.
GPU_SECTION = ("gpu_model", "gpu_memory_gb", "gpu_profile", "gpu_rename_shared")
NODE_SECTION = (
    "node_catalog_id",
    "node_cpu",
    "node_memory",
    "node_gpus",
    "node_gpu_resource",
    "node_provider",
    "node_manifest",
    "node_max_pods",
    "node_ds_cpu",
    "node_ds_memory",
)
EXPORT_SECTION = (
    "export_replicas",
    "export_max_surge",
    "export_max_unavailable",
    "export_hpa",
    "export_hpa_min",
    "export_hpa_max",
    "export_hpa_cpu_utilization",
    "export_hpa_gpu_metric",
    "export_workers",
    "export_master_port",
    "export_job_restart_policy",
    "export_backoff_limit",
    "export_ttl_seconds_after_finished",
    "export_active_deadline_seconds",
)


def shown_pod_fields(pod_form: PodForm, export_kind: str) -> set[str]:
    """The PodForm fields the page shows (the template shows a field only where it applies:
    MIG fields for a MIG mode, node fields for the chosen node source, ...)."""
    mode = pod_form["gpu_mode"].value()
    source = pod_form["node_source"].value() or ""
    optional = {"gpu_model", "gpu_memory_gb", "gpu_profile", "gpu_rename_shared"}
    optional |= set().union(*NODE_FIELDS.values(), NODE_COMMON)
    optional |= set().union(*EXPORT_FIELDS.values(), JOB_COMMON, HPA_FIELDS)
    # workload and size are rendered by hand (htmx preset selects) and base is hidden: no slot.
    shown = set(pod_form.fields) - optional - {"workload", "size", "base"}
    if mode in ("mig-single", "mig-mixed"):
        shown |= {"gpu_model", "gpu_memory_gb", "gpu_profile"}
    if mode in ("time-slicing", "mps"):
        shown.add("gpu_rename_shared")
    if source:
        shown |= NODE_FIELDS.get(source, set()) | NODE_COMMON
    shown |= EXPORT_FIELDS.get(export_kind, set())
    if export_kind in ("Job", "IndexedJob"):
        shown |= JOB_COMMON
    if export_kind == "Deployment" and pod_form["export_hpa"].value():
        shown |= HPA_FIELDS
    return shown


def _all_slot_ids(pod_form: PodForm, container_forms: list, results: Results) -> list[dict]:
    """Every error slot on the page, so an htmx update can also clear the stale ones; only
    slots of fields the page shows (an out-of-band swap needs its target). A message for a
    field that is not shown goes to the pod's slot."""
    export_kind = results.rendered.kind if results.rendered else ""
    shown = shown_pod_fields(pod_form, export_kind)
    ids = ["err-pod"] + [f"err-id_{name}" for name in pod_form.fields if name in shown]
    for i, form in enumerate(container_forms):
        ids.append(f"err-c-{i}")
        ids += [f"err-id_c-{i}-{name}" for name in form.fields if name != "base"]
    slots = {slot: list(results.slots.get(slot, [])) for slot in ids}
    for slot, messages in results.slots.items():
        if slot not in slots:
            slots["err-pod"] += messages
    return [{"id": slot, "messages": messages} for slot, messages in slots.items()]


@require_http_methods(["GET", "HEAD"])
@vary_on_headers("HX-Request", "HX-Target")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """The designer. The query string holds the whole design, so every URL is shareable."""
    data = request.GET
    action = data.get("action", "")
    # A full design carries the formset's management fields; a bare "?workload=inference"
    # (a deep link to a workload type) starts from that type's preset.
    if "c-TOTAL_FORMS" in data:
        pod_form, formset, design = _bind(data)
        if design is not None and action:
            design = design_action(design, action, data.get("changed", ""))
            if not request.htmx:
                # Without JavaScript, a button click lands on the canonical URL so a
                # reload does not repeat it.
                return redirect(f"{request.path}?{urlencode(design_query(design))}")
            pod_form, formset = _unbound(design)
    else:
        design = preset_design(
            data.get("preset") or data.get("workload") or "training", data.get("size")
        )
        pod_form, formset = _unbound(design)
    return _render_designer(request, pod_form, formset, design)


def _render_designer(
    request: HtmxHttpRequest, pod_form: PodForm, formset: Any, design: Design | None
) -> HttpResponse:
    results = design_results(design, pod_form, formset)
    context = _context(request, pod_form, formset, results)
    template = "designer/index.html"
    if request.htmx:
        target = request.htmx.target or ""
        template += "#results" if target == "results" else "#designer"
    response = render(request, template, context)
    if request.htmx and design is not None:
        response = replace_url(response, f"/?{context['query']}")
    return response


@require_GET
def export_yaml(request: HttpRequest) -> HttpResponse:
    """The preview's YAML as a download; refused (409) while the design has errors."""
    pod_form, formset, design = _bind(request.GET)
    results = design_results(design, pod_form, formset)
    if not results.downloadable:
        return HttpResponse(
            _("The design has errors; fix them before downloading the YAML."),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    filename = f"{design.name or 'pod'}.yaml"
    response = HttpResponse(results.yaml, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def share(request: HtmxHttpRequest) -> HttpResponse:
    """Store the design under a short permanent id; the same design gives the same id."""
    # htmx posts the form; without JavaScript the design travels in the form's action URL.
    data = request.POST if "c-TOTAL_FORMS" in request.POST else request.GET
    pod_form, formset, design = _bind(data)
    if design is None:
        return _share_failed(request, _("The design has form errors; fix them to share it."), 400)
    try:
        shared = SharedDesign.save_design(design)
    except DatabaseError:
        log.exception("a share link could not be stored")
        message = _(
            "The share link could not be saved: the database refused the write (it may be "
            "full or read-only). Your design is not lost: it is in this page’s address, "
            "which you can copy and share instead."
        )
        return _share_failed(request, message, 503, urlencode(design_query(design)))
    url = request.build_absolute_uri(f"/s/{shared.id}")
    if request.htmx:
        return render(request, "designer/index.html#share-link", {"share_url": url})
    return redirect(f"/s/{shared.id}")


def _share_failed(
    request: HtmxHttpRequest, message: str, status: int, query: str = ""
) -> HttpResponse:
    """The reason beside the Share button (htmx: static/app.js swaps answers marked
    X-Swap-Error, as htmx swaps no 4xx/5xx by itself), or a page linking back."""
    context = {"share_error": message, "query": query or request.GET.urlencode()}
    if request.htmx:
        response = render(request, "designer/index.html#share-link", context, status=status)
        response["X-Swap-Error"] = "true"
        return response
    return render(request, "share-failed.html", context, status=status)


@require_http_methods(["GET", "HEAD"])
@vary_on_headers("HX-Request", "HX-Target")
def shared_design(request: HtmxHttpRequest, share_id: str) -> HttpResponse:
    design = SharedDesign.load_design(share_id)
    if design is None:
        raise Http404(_("No shared design has this link. It may have been mistyped."))
    pod_form, formset = _unbound(design)
    return _render_designer(request, pod_form, formset, design)
