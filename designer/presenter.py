"""What the designer page shows, assembled from one engine answer.

The engine (``render_design``) answers everything about a design: the report, the export, the
plan, the hints, the choice fields that apply. This module only places those answers on the
page: each message in the slot beside the form field it is about (``field_for_path`` maps
engine field paths to form fields), every sentence translated to the page's language. No
Kubernetes rule lives here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext, gettext_lazy

from designer.forms import (
    ALTERNATIVE_FIELDS,
    AlternativeForm,
    Cluster,
    ClusterForm,
    ContainerForm,
    PodForm,
    alternative_rows,
    cluster_initial,
    export_kind_choices,
    field_for_choice,
    field_for_path,
    field_label,
    format_pairs,
    page_query,
    touched_text,
)
from designer.i18n import translate
from designer.k8s.apiserver import cluster_version
from designer.k8s.core import Message, format_resources
from designer.k8s.design import (
    ADD_ALTERNATIVE,
    DRA_CHOICES,
    DRA_MODE,
    DROP_ORIGIN,
    GPU_RESOURCE_CHOICES,
    MAX_DRA_ALTERNATIVES,
    MODEL_FORMATS,
    REMOVE_ALTERNATIVE,
    WORKLOAD_TYPES,
    Design,
    DesignError,
    PodReport,
    Rendered,
    claim_choice_field,
    origin_active,
    removable,
    render_design,
    runtime_choices,
    settings_field,
    workload_type,
)
from designer.k8s.dra import KNOWN_DEVICE_CLASSES, KNOWN_GPU_PRODUCTS
from designer.k8s.gpu import mig_profiles


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
    # The user's edited fields (engine keys), as the page sent them or the action left them.
    touched: frozenset[str] = frozenset()
    # Optional PodForm fields to show when the forms could not make a design (the engine
    # cannot say which apply): those of the section the form says is chosen, as typed.
    kept_fields: frozenset[str] = frozenset()
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
    touched: frozenset[str] = frozenset(),
    was: str = "",
    since: frozenset[str] = frozenset(),
    problem: Message | None = None,
    cluster: Cluster | None = None,
    cluster_form: ClusterForm | None = None,
    notice: Message | None = None,
) -> Results:
    """Run the engine once on a design (after a button's ``action``; ``changed``,
    ``touched``, ``was``, ``since``: see design.apply_action) and place its messages beside the form
    fields (and the forms' own errors, when there are forms: the live update's fast path has
    none, see forms.design_from_query). ``problem`` is a message for the whole pod (e.g. an
    unknown workload type in a deep link). ``cluster`` is the Kubernetes version and
    namespace policy to answer for (default: the newest, none)."""
    slots: dict[str, list[FieldMessage]] = {}
    cluster = cluster or Cluster()

    def add(slot: str, message: FieldMessage) -> None:
        slots.setdefault(slot, []).append(message)

    for name, errors in cluster_form.errors.items() if cluster_form is not None else ():
        for text in errors:
            add(slot_id(None, name), FieldMessage("error", text))

    if problem is not None:
        add("err-pod", FieldMessage("error", translate(problem)))
    if notice is not None:  # issue 11: why the object the design came from is not here
        add("err-pod", FieldMessage("warning", translate(notice)))
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
        return Results(
            None,
            None,
            slots=slots,
            form_invalid=True,
            touched=touched,
            kept_fields=_kept(pod_form),
            cluster=cluster,
        )

    try:
        rendered = render_design(
            design,
            action,
            changed,
            touched=touched,
            was=was,
            since=since,
            version=cluster_version(cluster.kubernetes_version),
            # Read once per request, and only when there is one.
            namespace_policy=cluster.namespace_policy if cluster.has_policy else None,
        )
    except DesignError as exc:
        add("err-pod", FieldMessage("error", translate(exc.message)))
        return Results(None, None, slots=slots, form_invalid=True, cluster=cluster, touched=touched)
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
            found = object_problem.problem
            text = (
                f"{object_problem.kind} {found}"
                if level == "error"
                else f"{object_problem.kind} {found.field}: {found.message}"
            )
            if rendered.dra and object_problem.index < len(rendered.dra.objects):
                # The claim's ResourceClaimTemplate (or ResourceClaim) comes first.
                name, prefix = dra_field(claim_choice_field(found.field))
                add(slot_id(None, name), FieldMessage(level, prefix + text, api=True))
                continue
            if object_problem.pod_field is not None:
                # Inside the pod the design makes (an operator's rule on a container).
                index, name = field_for_path(design, object_problem.pod_field)
                add(slot_id(index, name), FieldMessage(level, text, api=True))
                continue
            setting = settings_field(
                rendered.objects[object_problem.index], found.field, design.export
            )
            add(
                slot_id(None, f"export_{setting}" if setting else "export_kind"),
                FieldMessage(level, text, api=True),
            )
    # ==== issue 11: the object the design came from, and the operators' settings
    if rendered.origin is not None:
        for unwritten in rendered.origin.unwritten:
            index, name = field_for_path(design, unwritten.path) if unwritten.path else (None, "")
            add(slot_id(index, name), FieldMessage("warning", translate(unwritten.message)))
    for setting, message in rendered.setting_hints.items():
        add(slot_id(None, f"export_{setting}"), FieldMessage("hint", translate(message)))
    # ==== end of issue 11
    if rendered.dra is not None:
        for level, messages in (("error", rendered.dra.problems), ("hint", rendered.dra.hints)):
            for key, message in messages.items():
                name, prefix = dra_field(key)
                add(slot_id(None, name), FieldMessage(level, prefix + translate(message)))
    for key, message in rendered.plan.problems.items():
        add(slot_id(None, field_for_choice(key)), FieldMessage("error", translate(message)))
    # issue 16 hook: proposals beside the GPU/node fields (e.g. a smaller MIG profile).
    for key, message in rendered.plan.hints.items():
        add(slot_id(None, field_for_choice(key)), FieldMessage("hint", translate(message)))
    for hint in rendered.hints:
        add(slot_id(hint.container, hint.field), FieldMessage(hint.level, translate(hint.message)))
    _namespace_slots(rendered, add)
    return Results(
        design,
        report,
        yaml=rendered.yaml,
        slots=slots,
        rendered=rendered,
        cluster=cluster,
        touched=rendered.touched,
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


# A DRA claim's choice keys (design/dra.py) that are not one form field each: a typed
# selector is a line of its textarea, an alternative's field is one of its row's fields.
_SELECTOR_KEY = re.compile(
    r"^(?P<owner>gpu(?:\.first_available\[\d+\])?)\.selectors\[(?P<n>\d+)\]$"
)
_ALTERNATIVE_KEY = re.compile(r"^gpu\.first_available\[(?P<i>\d+)\]\.(?P<field>\w+)$")


def dra_field(key: str) -> tuple[str, str]:
    """The PodForm field (or alternative row field) a DRA choice key is shown at, and the
    words to put before its message (which selector of the textarea it is about)."""
    prefix = ""
    selector = _SELECTOR_KEY.match(key)
    if selector:
        key = f"{selector.group('owner')}.selectors"
        prefix = gettext("Selector %(n)s:") % {"n": int(selector.group("n")) + 1} + " "
    alternative = _ALTERNATIVE_KEY.match(key)
    if alternative:
        return f"gpu_first_available-{alternative.group('i')}-{alternative.group('field')}", prefix
    if key == "gpu.mode":
        return "gpu_source", prefix  # the DRA claim's own problems (no app container)
    return field_for_choice(key), prefix


# --- the page's context --------------------------------------------------------------------

# The optional fields of each section, in the order the page lists them, as choice fields
# (the form names them "<group>_<field>"). Which of them apply is the engine's answer.
GPU_SECTION = ("gpu.mode", "gpu.model", "gpu.memory_gb", "gpu.profile", "gpu.rename_shared")
# The DRA claim's fields (the GPU section's DRA block lays them out by name).
DRA_SECTION = tuple(f"gpu.{name}" for name in DRA_CHOICES)
NODE_SECTION = (
    "node.catalog_id",
    "node.cpu",
    "node.memory",
    "node.gpus",
    "node.gpu_resource",
    "node.provider",
    "node.manifest",
    "node.mig_layout",
    "node.gpu_replicas",
    "node.resource_slices",
    "node.max_pods",
    "node.ds_cpu",
    "node.ds_memory",
)
KUBELET_SECTION = ("node.cpu_cfs_quota", "node.cpu_cfs_quota_period")
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
    "export.runtime",
    "export.model_format",
    "export.storage_uri",
)
OPTIONAL = frozenset(
    field_for_choice(f)
    for f in (*GPU_SECTION, *DRA_SECTION, *NODE_SECTION, *KUBELET_SECTION, *EXPORT_SECTION)
)


def shown_pod_fields(results: Results) -> set[str]:
    """The PodForm fields the page shows: every field but the optional ones, and of those the
    ones the engine says apply (MIG fields for a MIG mode, node fields for the chosen node
    source, the export kind's settings)."""
    # workload and size are rendered by hand (htmx preset selects); base, origin and
    # touched are hidden: no slot.
    shown = set(PodForm.base_fields) - OPTIONAL - {"workload", "size", "base", "origin", "touched"}
    if results.rendered is None:
        return shown | results.kept_fields
    return shown | {field_for_choice(f) for f in results.rendered.applicable}


def _kept(pod_form: PodForm | None) -> frozenset[str]:
    """The optional fields a form without a design keeps on the page: the DRA claim's when
    the form chose one (its values stay as typed until the form is fixed)."""
    if pod_form is None or pod_form["gpu_source"].value() != "dra":
        return frozenset()
    return frozenset(field_for_choice(f) for f in DRA_SECTION)


def _all_slot_ids(containers: int, results: Results) -> list[dict]:
    """Every error slot on the page, so an htmx update can also clear the stale ones; only
    slots of fields the page shows (an out-of-band swap needs its target). A message for a
    field that is not shown goes to the pod's slot."""
    shown = shown_pod_fields(results)
    ids = ["err-pod"] + [f"err-id_{name}" for name in PodForm.base_fields if name in shown]
    ids += [f"err-id_{name}" for name in ClusterForm.base_fields]
    if "gpu_first_available" in shown and results.design is not None:
        ids += [
            f"err-id_gpu_first_available-{i}-{name}"
            for i in range(len(results.design.gpu.first_available))
            for name in ALTERNATIVE_FIELDS
        ]
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


def _advice(results: Results) -> list[Any]:
    """The advice for the pod that runs: the admitted one when a namespace policy applies."""
    ns = results.rendered.namespace if results.rendered else None
    if ns is not None and ns.admission is not None:
        return ns.advice
    return results.report.advice if results.report else []


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
    unreadable = {u.resource for u in view.unreadable}
    context: dict[str, Any] = {
        # The cgroup columns that depend on an unreadable value show "unknown", not "—"
        # (which means the kubelet leaves the value unset).
        "cpu_unknown": "cpu" in unreadable,
        "memory_unknown": "memory" in unreadable,
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


# --- the DRA claim (issue 13) --------------------------------------------------------------

# What a download needs of a design is all but the pasted node objects and namespace policy
# (which can make its URL longer than servers accept, and do not change the YAML).
_NOT_FOR_DOWNLOAD = ("node_manifest", "node_resource_slices", "namespace_policy")


def _claims_context(results: Results) -> dict[str, Any]:
    """The claims card: the pod's claims and what they change, translated."""
    rendered = results.rendered
    if rendered is None or rendered.dra is None:
        return {}
    claims = [
        {
            "name": c.name,
            "kind": c.object_kind,
            "object": c.object_name,
            "device_class": c.device_class,
            "count": c.count,
            "containers": ", ".join(c.containers),
        }
        for c in rendered.dra.claims
    ]
    return {
        "claims": claims,
        "claim_lines": [translate(line) for line in rendered.claim_explanation],
    }


def _device_name(device_id: str) -> str:
    return device_id.rsplit("/", 1)[-1]


def _claims_fit_context(results: Results) -> dict[str, Any]:
    """The node panel's DRA part: which devices of the pasted ResourceSlices match each
    request of the pod's claims, and which the first pod gets."""
    fit = results.plan.fit if results.plan else None
    found = fit.claims if fit is not None else None
    if found is None:
        return {}
    rows = []
    allocations = found.fit.claims if found.fit else ()
    for allocation in allocations:
        for match in allocation.matches:
            allocated = allocation.devices.get(match.request, ())
            rows.append(
                {
                    # The request names its claim only when the pod has several.
                    "request": match.request
                    if len(allocations) == 1
                    else f"{allocation.claim}: {match.request}",
                    "device_class": match.device_class,
                    "count": match.count,
                    "matching": [_device_name(d) for d in match.matching],
                    "allocated": [_device_name(d) for d in allocated],
                    "problem": translate(match.problem) if match.problem else "",
                    # An alternative no device matches is no problem once another one is
                    # allocated (firstAvailable).
                    "claim_ok": allocation.ok,
                }
            )
    notes = [*found.notes, *(found.fit.notes if found.fit else ())]
    problem = found.fit.problem if found.fit else None
    return {
        "claims_fit": {
            "node": found.node or "",
            "pods": found.pods,
            "devices": len(found.devices),
            "rows": rows,
            "problem": translate(problem) if problem else "",
            "notes": [translate(n) for n in notes],
        }
    }


def _resource_rows(results: Results) -> list[tuple[str, str, str]]:
    """What the scheduler sees: the admitted pod's sums when a namespace policy applies. A
    resource with a value that cannot be read says so in its column (it is left out of the
    sum, which is therefore unknown)."""
    report = results.report
    if report is None:
        return []
    ns = results.rendered.namespace if results.rendered else None
    admitted = ns.admission if ns else None
    requests = format_resources(admitted.requests if admitted else report.requests)
    limits = format_resources(admitted.limits if admitted else report.limits)
    unknown = gettext("unknown") if report.unreadable else ""
    for u in report.unreadable:
        # A request defaults to its limit: an unreadable limit leaves the request unknown
        # too when the container sets no request of that resource.
        column = limits if ".limits[" in u.field else requests
        column[u.resource] = unknown
    names = list(requests) + [n for n in limits if n not in requests]
    return [(n, requests.get(n, ""), limits.get(n, "")) for n in names]


# --- the object the design came from (issue 11) ----------------------------------------------


def diff_lines(diff: str) -> list[dict[str, str]]:
    """A unified diff as lines the page marks up: ``kind`` is "file" (---/+++), "hunk"
    (@@), "added", "removed" or "same"; ``text`` the line without its +/-/space column."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            lines.append({"kind": "file", "text": line})
        elif line.startswith("@@"):
            lines.append({"kind": "hunk", "text": line})
        elif line.startswith("+"):
            lines.append({"kind": "added", "text": line[1:]})
        elif line.startswith("-"):
            lines.append({"kind": "removed", "text": line[1:]})
        else:
            lines.append({"kind": "same", "text": line[1:]})
    return lines


def _origin_context(results: Results) -> dict[str, Any]:
    """The origin panel: which object the export is, what changed (the diff), what the
    object does not take, and the errors it already had."""
    rendered = results.rendered
    if rendered is None or rendered.origin is None:
        return {}
    origin = rendered.origin
    lines = diff_lines(origin.diff)
    return {
        "origin": {
            "kind": origin.kind,
            "name": origin.name,
            "template": origin.template or '""',
            "changed": origin.changed,
            "diff": origin.diff,
            "diff_lines": lines,
            "added": sum(1 for line in lines if line["kind"] == "added"),
            "removed": sum(1 for line in lines if line["kind"] == "removed"),
            "unwritten": [translate(u.message) for u in origin.unwritten],
            "inherited": [f"{p.problem}" for p in rendered.inherited_errors],
            "dropped": origin.dropped,
        }
    }


ADD_ACTIONS = (
    ("add-app", gettext_lazy("Add app container")),
    ("add-sidecar", gettext_lazy("Add native sidecar")),
    ("add-init", gettext_lazy("Add init container")),
)


def with_touched(query: str, touched: frozenset[str]) -> str:
    """The address bar's query: the page's, and the fields the user edited (so a reload
    keeps them from the next preset)."""
    return f"{query}&{urlencode({'touched': touched_text(touched)})}" if touched else query


SIZE_CHOICES = PodForm.base_fields["size"].choices


def _legends(design: Design | None) -> list[dict[str, Any]]:
    """Each container fieldset's heading: its kind, its name and its field path, as the
    design now has them (a live answer refreshes them out of band)."""
    if design is None:
        return []
    paths = design.container_paths()
    return [
        {"index": i, "role": c.role, "name": c.name, "path": paths[i]}
        for i, c in enumerate(design.containers)
    ]


def results_context(results: Results, *, oob: bool, containers: int | None = None) -> dict:
    """The results panel's context (no forms needed). ``oob``: the answer also refreshes every
    field's message slot, the size preset, the container headings and the status bar;
    ``containers``: how many container fieldsets the page has (the design's, unless the form
    could not make one)."""
    design = results.design
    rendered = results.rendered
    count = len(design.containers) if containers is None and design else containers or 0
    slots = _all_slot_ids(count, results)
    query = page_query(design, results.cluster) if design else {}
    claim_lines = rendered.claim_explanation if rendered else ()
    share_query = urlencode(query)
    return {
        "results": results,
        "report": results.report,
        "query": with_touched(share_query, results.touched) if design else "",
        "share_query": share_query,
        "download_query": urlencode({k: v for k, v in query.items() if k not in _NOT_FOR_DOWNLOAD}),
        "error_count": results.error_count,
        "size_choices": SIZE_CHOICES,
        "size_value": design.size if design else "",
        "legends": _legends(design) if count == len(design.containers if design else []) else [],
        "resource_rows": _resource_rows(results),
        **_plan_context(results),
        **_claims_context(results),
        **_claims_fit_context(results),
        **_namespace_context(results),
        **_version_context(results),
        **_origin_context(results),
        "export_kind": rendered.kind if rendered else "",
        # The claims' own lines are shown with the claims.
        "export_lines": [
            translate(line) for line in rendered.explanation if line not in claim_lines
        ]
        if rendered
        else [],
        "advice": [
            {"message": translate(a.message), "reason": translate(a.reason)}
            for a in _advice(results)
        ],
        **_qos_context(results),
        "oob": oob,
        "all_slots": slots,
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
    _offer_model_profiles(pod_form, results)
    legends = _legends(design) if design and len(design.containers) == len(container_forms) else []
    dra = _dra_form_context(pod_form, container_forms, results, shown)
    # issue 11: the workload type's export kinds first (its record says which).
    pod_form.fields["export_kind"].choices = export_kind_choices(spec.id)
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
                "legend": legends[i]
                if i < len(legends)
                else {
                    "index": i,
                    "role": f["role"].value(),
                    "name": f["name"].value() or "",
                    "path": "",
                },
            }
            for i, f in enumerate(container_forms)
        ],
        "workload": spec,
        "gpu_choices": GPU_RESOURCE_CHOICES,
        "add_actions": ADD_ACTIONS,
        "kept_edits": _kept_edits(results),
        # Without a design (form errors) the select shows what was sent.
        "size_value": design.size if design else pod_form["size"].value() or "",
        "touched_text": touched_text(results.touched),
        "dra": dra,
        # issue 11: suggestions for the operators' settings, and the origin's actions.
        "runtime_choices": runtime_choices(),
        "model_formats": MODEL_FORMATS,
        "drop_origin": DROP_ORIGIN,
        "origin_active": bool(design and origin_active(design)),
        **{
            key: [pod_form[field_for_choice(n)] for n in section if field_for_choice(n) in shown]
            for key, section in (
                ("gpu_fields", GPU_SECTION),
                ("node_fields", NODE_SECTION),
                ("kubelet_fields", KUBELET_SECTION),
                ("export_fields", EXPORT_SECTION),
            )
        },
    }


def _offer_model_profiles(pod_form: PodForm, results: Results) -> None:
    """The MIG profile select lists the chosen GPU model's profiles only (and the current
    value when it is not one of them, so the select shows what the engine complains about)."""
    plan = results.plan
    if plan is not None:
        profiles = plan.mig_profiles
    else:
        try:
            profiles = mig_profiles(str(pod_form["gpu_model"].value() or ""))
        except ValueError:
            profiles = ()
    names = [p.name for p in profiles]
    current = str(pod_form["gpu_profile"].value() or "")
    if current and current not in names:
        names.append(current)
    pod_form.fields["gpu_profile"].choices = [("", "—")] + [(n, n) for n in names]


def _shown_value(value: Any) -> str:
    if isinstance(value, dict):
        return format_pairs(value).replace("\n", ", ")
    return str(value) if value not in (None, "") else "—"


def _kept_edits(results: Results) -> list[dict[str, Any]]:
    """The edits a preset kept, with their form labels, for the notice beside the preset."""
    rendered = results.rendered
    if rendered is None or results.design is None:
        return []
    containers = results.design.containers
    out = []
    for kept in rendered.kept:
        container = kept.container
        out.append(
            {
                "label": field_label(kept.field),
                "container": containers[container].name
                if container is not None and container < len(containers)
                else "",
                "value": _shown_value(kept.value),
                "preset": _shown_value(kept.preset),
            }
        )
    return out


def _dra_form_context(
    pod_form: PodForm, container_forms: list[Any], results: Results, shown: set[str]
) -> dict[str, Any] | None:
    """The GPU section's DRA block: its fields by name, the alternatives' rows and the
    containers that may share the claim; None without a DRA claim."""
    design = results.design
    if design is not None and design.gpu.mode != DRA_MODE:
        return None
    if design is None and pod_form["gpu_source"].value() != "dra":
        return None
    fields = {name: pod_form[f"gpu_{name}"] for name in DRA_CHOICES if f"gpu_{name}" in shown}
    dra = results.rendered.dra if results.rendered else None
    owner = dra.claims[0].containers[0] if dra and dra.claims else None
    names = [str(f["name"].value() or "") for f in container_forms]
    sharing = pod_form.fields["gpu_shared_by"]
    sharing.widget.choices = [(n, n) for n in dict.fromkeys(names) if n and n != owner]
    if pod_form.is_bound:
        rows = min(alternative_rows(pod_form.data), MAX_DRA_ALTERNATIVES)
        alternatives = [
            AlternativeForm(pod_form.data, prefix=f"gpu_first_available-{i}") for i in range(rows)
        ]
    else:
        alternatives = [
            AlternativeForm(initial=row, prefix=f"gpu_first_available-{i}")
            for i, row in enumerate(pod_form.initial.get("gpu_first_available") or [])
        ]
    return {
        "fields": fields,
        "owner": owner or "",
        "share_choices": bool(sharing.widget.choices),
        "alternatives": [
            {"index": i, "number": i + 1, "form": f, "remove": f"{REMOVE_ALTERNATIVE}{i}"}
            for i, f in enumerate(alternatives)
        ],
        "can_add": len(alternatives) < MAX_DRA_ALTERNATIVES,
        "add_action": ADD_ALTERNATIVE,
        "device_classes": [
            (c.name, translate(Message(c.label, {}))) for c in KNOWN_DEVICE_CLASSES.values()
        ],
        "products": [p.name for p in KNOWN_GPU_PRODUCTS],
    }
