"""The Analyze page: paste, upload or drop manifests; see every workload's QoS, requests
and errors; open one in the designer.

Views parse the request, make one engine call (``check_files``) and render. The analysis
(one summary row per workload plus its pod template, never the raw input) is kept in a
database table (``designer.store.AnalysisStore``) under a random id, so the results
address ``/analyze/r/<id>`` can be filtered, paged and reloaded without sending 20 MB again,
on any replica.
"Open in designer" posts the analysis and the row: the analysis keeps, per row, what
rebuilds the object the template came from (the object, its List path, the template path,
and a TrainJob's runtime when the input has it; each object once, see ``ORIGIN_KINDS``), so
the designer exports that same object (design.origin). The button also posts the row's pod
template (``encode_blob``): after the analysis has expired, the template still opens, as a
plain design, and the designer says why.
"""

from __future__ import annotations

import decimal
import logging
import math
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import push_url
from pydantic import ValidationError

from designer.forms import decode_blob, design_query, encode_blob
from designer.i18n import message_data, message_from_data, translate
from designer.k8s.admission import ANNOTATION
from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS
from designer.k8s.check import (
    DEFAULT_NAMESPACE,
    CheckedObject,
    InputError,
    PolicyReport,
    check_files,
    pod_template_manifest,
)
from designer.k8s.core import Message, Pod, int_text, name_is_dns_label
from designer.k8s.design import (
    MAX_ORIGIN_CONTEXT,
    Origin,
    RoundTripError,
    design_from_origin,
    design_from_pod,
    workload_of_kind,
)
from designer.k8s.gpu import requested_gpus
from designer.k8s.manifest import MAX_INPUT_BYTES
from designer.limits import workload_budget
from designer.models import SharedDesign
from designer.store import AnalysisStore, AnalysisTooLarge, OriginStore, OriginTooLarge, dumps_json

log = logging.getLogger("designer.analyze")

PAGE_SIZE = 100
# A multipart body carries the file (or the text) plus boundaries and the CSRF token.
MULTIPART_OVERHEAD = 64 * 1024
QOS_CLASSES = ("Guaranteed", "Burstable", "BestEffort")
UNKNOWN_QOS = "unknown"
NO_NAMESPACE = "-"  # filter value for "no namespace set" (never a valid namespace)
# Longer designer addresses go through a stored share link (proxies and gunicorn refuse
# request lines over ~4 KB).
MAX_DESIGNER_URL = 4000


# --- turning the engine's answer into rows ------------------------------------------------


def _gpus(checked: CheckedObject) -> str:
    total = requested_gpus(checked.report.requests)
    if total.denominator == 1:
        return int_text(total.numerator) if total else ""
    return _fraction_text(total, "")


def _template(checked: CheckedObject) -> dict[str, Any] | None:
    """The pod template of a workload, as the designer opens it; None if not decodable."""
    if checked.report.pod is None:
        return None
    return pod_template_manifest(checked.workload)


def _times(per_pod: str, pods: int | None) -> str:
    """GPUs of a template times the pods it stands for ("" when either is unknown)."""
    if not per_pod or pods is None:
        return ""
    return _fraction_text(_fraction(per_pod) * pods) if pods else "0"


def _admission_row(checked: CheckedObject) -> dict[str, Any] | None:
    """The admission of a row as stored: the engine's answer, messages kept as data."""
    a = checked.admission
    if a is None:
        return None
    why = a.explanation()
    texts = a.api_server_messages()
    return {
        "allowed": a.allowed,
        "qos": a.qos_class,
        "change": message_data(why) if why else None,
        # The API server's own words (English), as kubectl prints them.
        "denials": [
            {
                "plugin": d.plugin,
                "object": d.source,
                "text": text or d.message,
                "replica": d.replica,
            }
            for d, text in zip(a.denials, texts, strict=True)
        ],
        "defaulted": a.as_dict()["defaulted"],
        "annotation": a.annotations.get(ANNOTATION),
        "quota": a.quota.as_dict() if a.quota else None,
    }


# Kinds whose template opens as the object it came from: every kind but a bare Pod (the
# design is the pod; exported as a Pod it loses nothing).
def _keeps_origin(checked: CheckedObject) -> bool:
    return checked.workload.kind != "Pod" and checked.report.pod is not None


# One object kept for Open in designer may take this much JSON; a larger one opens as its
# pod template only (the analysis says so).
MAX_ORIGIN_OBJECT_BYTES = 512 * 1024


class _Objects:
    """The objects an analysis keeps, each once (a PyTorchJob's Master and Worker share
    theirs), by (document, List path)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.index: dict[tuple[Any, ...], int] = {}
        self.too_large = 0

    def add(self, key: tuple[Any, ...], obj: Any) -> int | None:
        if key in self.index:
            return self.index[key]
        if not isinstance(obj, dict) or len(dumps_json(obj)) > MAX_ORIGIN_OBJECT_BYTES:
            self.too_large += 1
            self.index[key] = -1
            return None
        self.index[key] = len(self.items)
        self.items.append(obj)
        return self.index[key]


def _origin_row(checked: CheckedObject, objects: _Objects) -> dict[str, Any] | None:
    """What rebuilds the object a row's template came from: indexes into the analysis's
    ``objects``, the template path and the object's List path."""
    w = checked.workload
    found = objects.add((checked.file, w.document, w.path), w.obj)
    if found is None or found < 0:
        return None
    context = []
    runtime = w.facts.get("runtime") or {}
    runtime_object = w.facts.get("runtime_object")
    if runtime_object is not None and "builtin" not in runtime:
        key = ("runtime", runtime.get("kind"), runtime.get("name"), runtime.get("document"))
        at = objects.add(key, runtime_object)
        if at is not None and at >= 0:
            context.append(at)
    return {"object": found, "context": context[:MAX_ORIGIN_CONTEXT], "template": w.template}


def analysis_from_check(
    source: str,
    objects: list[CheckedObject],
    errors: list[InputError],
    skipped: list[dict[str, Any]] | None = None,
    policies: list[PolicyReport] | None = None,
    kubernetes_version: str = DEFAULT_VERSION,
    namespace: str | None = None,
    *,
    keep_objects: bool = True,
) -> dict[str, Any]:
    """What the store keeps: one row per pod template, the objects without one, the
    documents that were not read, and the namespace policies found, for the Kubernetes
    version the analysis answers for; with ``keep_objects``, the objects the templates
    came from (each once), for Open in designer."""
    rows = []
    kept = _Objects()
    for checked in objects:
        data = checked.as_dict()
        requests = data["effectiveRequests"]
        gpus = _gpus(checked)
        pods = data["replicas"] if data["replicas"] is not None else data["replicasMin"]
        rows.append(
            {
                "kind": data["kind"],
                "name": data["name"],
                "namespace": data["namespace"],
                "document": data["document"],
                "path": data["path"],
                "template": data["template"],
                "role": data["role"],
                "replicas": data["replicas"],
                "replicas_min": data["replicasMin"],
                "replicas_max": data["replicasMax"],
                "found_by": data["foundBy"],
                "qos": data["qosClass"],
                "cpu": requests.get("cpu", ""),
                "memory": requests.get("memory", ""),
                "gpus": gpus,
                # GPUs of every pod it stands for (the least it runs when autoscaled).
                "gpus_total": _times(gpus, pods),
                "pods_known": data["replicas"] is not None,
                "requests": requests,
                # The API server's full message ("Invalid value: ...: must be ..."): the
                # JSON shape's terse "message" can be empty (a Required error).
                "errors": [
                    {"field": e.field, "text": e.body(), "origin": getattr(e, "origin", "")}
                    for e in checked.errors
                ],
                "warnings": data["warnings"],
                "notes": [_note(n) for n in checked.notes],
                "reasons": data["qosReasons"],
                # The same reasons as (template, params), so each viewer reads them in the
                # page's language.
                "reason_messages": [message_data(r.message) for r in checked.report.qos.reasons]
                if checked.report.qos and not checked.workload.path_map
                else [],
                # Advice for the workload type the object opens as (design.advice), kept as
                # (template, params) so each viewer reads it in the page's language.
                "advice": [
                    {"message": message_data(a.message), "reason": message_data(a.reason)}
                    for a in checked.advice
                ],
                "template_manifest": _template(checked),
                # issue 11: what rebuilds the object (None: a Pod, or objects not kept).
                "origin": _origin_row(checked, kept)
                if keep_objects and _keeps_origin(checked)
                else None,
                "admission": _admission_row(checked),
                "version_notes": [
                    {
                        "field": n.field,
                        "message": message_data(n.message),
                        "source": n.as_dict()["source"],
                    }
                    for n in checked.version_notes
                ],
            }
        )
    unreadable = [{"document": e.document, "message": e.message} for e in errors]
    return {
        "version": 3,
        "source": source,
        "rows": rows,
        "objects": kept.items,
        # Objects that were not kept (too large; or all, when the analysis was too large
        # with them): their rows open as pod templates only.
        "objects_not_kept": kept.too_large if keep_objects else -1,
        "skipped": list(skipped or []),
        "unreadable": unreadable,
        "kubernetes_version": kubernetes_version,
        "namespace": namespace or DEFAULT_NAMESPACE,
        "policies": [p.as_dict() for p in policies or []],
    }


def _note(note: Any) -> dict[str, Any]:
    message = note.message
    return {
        "field": note.field,
        "origin": note.origin,
        "message": message_data(message) if isinstance(message, Message) else None,
        "text": note.text,
    }


# --- filters and summary -------------------------------------------------------------------


ADMISSION_FILTERS = ("denied", "admitted", "none")


@dataclass(frozen=True)
class Filters:
    qos: str = ""
    errors: str = ""  # "yes" | "no" | ""
    namespace: str = ""
    page: int = 1
    admission: str = ""  # "denied" | "admitted" (by a policy) | "none" (no policy) | ""

    @classmethod
    def from_query(cls, query: QueryDict) -> Filters:
        qos = query.get("qos", "")
        errors = query.get("errors", "")
        try:
            page = max(1, min(int(query.get("page", "1")), 1_000_000))
        except ValueError:
            page = 1
        admission = query.get("admission", "")
        return cls(
            qos=qos if qos in (*QOS_CLASSES, UNKNOWN_QOS) else "",
            errors=errors if errors in ("yes", "no") else "",
            namespace=query.get("namespace", "")[:300],
            page=page,
            admission=admission if admission in ADMISSION_FILTERS else "",
        )

    @property
    def active(self) -> bool:
        return bool(self.qos or self.errors or self.namespace or self.admission)

    def query(self, **changes: Any) -> str:
        values = {
            "qos": self.qos,
            "errors": self.errors,
            "namespace": self.namespace,
            "admission": self.admission,
            "page": "",
        }
        values.update(changes)
        return urlencode({k: v for k, v in values.items() if v not in ("", 1, None)})

    def keep(self, row: dict[str, Any]) -> bool:
        if self.qos and (row["qos"] or UNKNOWN_QOS) != self.qos:
            return False
        if self.errors == "yes" and not row["errors"]:
            return False
        if self.errors == "no" and row["errors"]:
            return False
        if self.admission and _admission_state(row) != self.admission:
            return False
        return not self.namespace or (row["namespace"] or NO_NAMESPACE) == self.namespace


def _admission_state(row: dict[str, Any]) -> str:
    admission = row.get("admission")
    if not admission:
        return "none"
    return "admitted" if admission["allowed"] else "denied"


def _total(values: list[str]) -> str:
    total = sum((_fraction(v) for v in values if v), Fraction(0))
    return _fraction_text(total)


def _fraction(text: str) -> Fraction:
    """A GPU count as stored (digits, or a decimal), also past int()'s 4300 digits (a
    limit of thousands of digits is a valid quantity)."""
    if text.isdigit() and len(text) > 4000:
        return Fraction(int(decimal.Decimal(text)))
    return Fraction(text)


def _fraction_text(total: Fraction, spec: str = "g") -> str:
    """A whole count as its digits, else as a float written with ``spec``."""
    if total.denominator == 1:
        return int_text(total.numerator)
    try:
        return format(float(total), spec)
    except OverflowError:
        return int_text(total.numerator // total.denominator)


def _row_gpus_total(row: dict[str, Any]) -> str:
    """Analyses stored before pods were counted have no gpus_total: one pod each."""
    return row["gpus_total"] if "gpus_total" in row else row["gpus"]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {q: 0 for q in QOS_CLASSES}
    unknown = 0
    for row in rows:
        if row["qos"] in counts:
            counts[row["qos"]] += 1
        else:
            unknown += 1
    classes = [(q, counts[q]) for q in QOS_CLASSES]
    if unknown:
        classes.append((UNKNOWN_QOS, unknown))
    return {
        "total": len(rows),
        "classes": classes,
        # Pods counted: a 5-replica Deployment with 1 GPU each requests 5.
        "gpus": _total([_row_gpus_total(r) for r in rows]),
        # Some GPU template's pod count is not fixed (autoscaled, per node): at least.
        "gpus_at_least": any(r["gpus"] and not r.get("pods_known", True) for r in rows),
        "gpus_per_template": _total([r["gpus"] for r in rows]),
        "with_errors": sum(1 for r in rows if r["errors"]),
        "with_warnings": sum(1 for r in rows if r["warnings"]),
        "denied": sum(1 for r in rows if _admission_state(r) == "denied"),
        "admitted_by_policy": sum(1 for r in rows if _admission_state(r) == "admitted"),
        "namespaces": sorted({r["namespace"] or NO_NAMESPACE for r in rows}),
    }


QOS_LABELS = {
    "Guaranteed": gettext_lazy("Guaranteed"),
    "Burstable": gettext_lazy("Burstable"),
    "BestEffort": gettext_lazy("BestEffort"),
    UNKNOWN_QOS: gettext_lazy("unknown"),
}
BAR_LEFT, BAR_WIDTH, BAR_HEIGHT, BAR_GAP = 104, 220, 20, 8


def chart(classes: list[tuple[str, int]], filters: Filters) -> dict[str, Any]:
    """Bar geometry for the server-side SVG (attributes only: CSP forbids inline styles)."""
    top = max((n for _q, n in classes), default=0) or 1
    bars = []
    for i, (qos, count) in enumerate(classes):
        width = 0 if not count else max(2, round(BAR_WIDTH * count / top))
        y = i * (BAR_HEIGHT + BAR_GAP)
        bars.append(
            {
                "qos": qos,
                "label": QOS_LABELS[qos],
                "count": count,
                "css": qos.lower(),
                "y": y,
                "text_y": y + BAR_HEIGHT - 5,
                "width": width,
                "count_x": BAR_LEFT + width + 6,
                "href": "?" + filters.query(qos=qos, page=""),
            }
        )
    height = max(1, len(classes) * (BAR_HEIGHT + BAR_GAP) - BAR_GAP)
    return {
        "bars": bars,
        "height": height,
        "width": BAR_LEFT + BAR_WIDTH + 60,
        "left": BAR_LEFT,
    }


def _reason_texts(row: dict[str, Any]) -> list[str]:
    """The QoS reasons in the page's language (English as stored for older analyses)."""
    messages = [message_from_data(m) for m in row.get("reason_messages") or []]
    if messages and all(messages):
        return [translate(m) for m in messages]  # type: ignore[arg-type]
    return list(row["reasons"])


def _advice_texts(row: dict[str, Any]) -> list[dict[str, str]]:
    """The row's advice in the page's language (none for analyses stored before it)."""
    out = []
    for item in row.get("advice") or []:
        message = message_from_data(item.get("message"))
        reason = message_from_data(item.get("reason"))
        if message is not None:
            out.append(
                {"message": translate(message), "reason": translate(reason) if reason else ""}
            )
    return out


def _message_text(data: Any) -> str:
    message = message_from_data(data)
    return translate(message) if message else ""


def _admission_view(row: dict[str, Any]) -> dict[str, Any] | None:
    admission = row.get("admission")
    if not admission:
        return None
    qos = admission["qos"] or UNKNOWN_QOS
    return {
        **admission,
        "qos_label": QOS_LABELS.get(qos, qos),
        "qos_css": qos.lower(),
        "changed": bool(admission["qos"]) and admission["qos"] != row["qos"],
        "change_text": _message_text(admission["change"]) if admission["change"] else "",
    }


def _note_text(note: dict[str, Any]) -> str:
    message = message_from_data(note.get("message"))
    return translate(message) if message else str(note.get("text", ""))


def _row_view(index: int, row: dict[str, Any], objects: list[Any] | None = None) -> dict[str, Any]:
    template = row.get("template_manifest") if "template_manifest" in row else row.get("template")
    template_path = row.get("template") if "template_manifest" in row else None
    return {
        **row,
        "template_path": template_path if isinstance(template_path, str) else "",
        "operator_notes": [
            {"field": n["field"], "origin": n["origin"], "text": _note_text(n)}
            for n in row.get("notes") or []
        ],
        "admission": _admission_view(row),
        "note_texts": [
            {"field": n["field"], "text": _message_text(n["message"]), "source": n["source"]}
            for n in row.get("version_notes") or []
        ],
        "reason_texts": _reason_texts(row),
        "advice_texts": _advice_texts(row),
        "index": index,
        "qos_label": QOS_LABELS.get(row["qos"] or UNKNOWN_QOS, row["qos"]),
        "qos_css": (row["qos"] or UNKNOWN_QOS).lower(),
        "is_template": row["kind"] != "Pod",
        "open_blob": encode_blob(template) if template else "",
        # Open in designer exports the object itself (issue 11).
        "opens_object": bool(row.get("origin")) and bool(objects),
    }


SOURCE_LABELS = {
    "pasted": gettext_lazy("pasted text"),
    "upload": gettext_lazy("uploaded file"),
}


def _source_label(analysis: dict[str, Any]) -> str:
    """What was analyzed: the file name, or "pasted text" in the page's language."""
    label = SOURCE_LABELS.get(analysis.get("source_kind", ""))
    return str(label) if label is not None else analysis["source"]


def results_context(analysis_id: str, analysis: dict[str, Any], filters: Filters) -> dict:
    rows = analysis["rows"]
    matching = [(i, r) for i, r in enumerate(rows) if filters.keep(r)]
    pages = max(1, math.ceil(len(matching) / PAGE_SIZE))
    page = min(filters.page, pages)
    start = (page - 1) * PAGE_SIZE
    objects = analysis.get("objects") or []
    shown = [_row_view(i, r, objects) for i, r in matching[start : start + PAGE_SIZE]]
    totals = summary(rows)
    base = reverse("analysis", args=[analysis_id])
    return {
        "analysis_id": analysis_id,
        "results_url": base,
        "source": _source_label(analysis),
        "summary": totals,
        "chart": chart(totals["classes"], filters),
        "unreadable": analysis["unreadable"],
        "skipped": analysis.get("skipped") or [],
        "filters": filters,
        "rows": shown,
        "matching": len(matching),
        "first": start + 1 if shown else 0,
        "last": start + len(shown),
        "page": page,
        "pages": pages,
        "prev_url": f"{base}?{filters.query(page=page - 1)}" if page > 1 else "",
        "next_url": f"{base}?{filters.query(page=page + 1)}" if page < pages else "",
        "page_size": PAGE_SIZE,
        "qos_choices": [(q, QOS_LABELS[q]) for q in (*QOS_CLASSES, UNKNOWN_QOS)],
        "no_namespace": NO_NAMESPACE,
        "any_template": any(r["kind"] != "Pod" for r in rows),
        "any_origin": any(r.get("origin") for r in rows),
        "objects_not_kept": analysis.get("objects_not_kept", 0),
        "kubernetes_version": analysis.get("kubernetes_version", DEFAULT_VERSION),
        "default_namespace": analysis.get("namespace", DEFAULT_NAMESPACE),
        "policies": analysis.get("policies", []),
        "admission_choices": [
            ("denied", gettext_lazy("Denied")),
            ("admitted", gettext_lazy("Admitted by a policy")),
            ("none", gettext_lazy("No policy applies")),
        ],
    }


# --- views -------------------------------------------------------------------------------


class AnalyzeForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Paste manifests"),
        required=False,
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 10,
                "spellcheck": "false",
                "autocomplete": "off",
                "placeholder": "apiVersion: apps/v1\nkind: Deployment\n...",
            }
        ),
        help_text=gettext_lazy(
            "YAML or JSON, one or many documents separated by ---; Lists included."
        ),
    )
    file = forms.FileField(
        label=gettext_lazy("Or upload a file"),
        required=False,
        widget=forms.ClearableFileInput(
            attrs={"accept": ".yaml,.yml,.json,.txt,application/yaml,application/json,text/plain"}
        ),
    )
    kubernetes_version = forms.ChoiceField(
        label=gettext_lazy("Kubernetes version"),
        choices=[(v, v) for v in reversed(SUPPORTED_VERSIONS)],
        initial=DEFAULT_VERSION,
        required=False,
        help_text=gettext_lazy("Answers follow the API server and kubelet of this release."),
    )
    namespace = forms.CharField(
        label=gettext_lazy("Default namespace"),
        required=False,
        max_length=63,
        widget=forms.TextInput(attrs={"placeholder": DEFAULT_NAMESPACE, "autocomplete": "off"}),
        help_text=gettext_lazy(
            "For objects that name none, as kubectl apply -n would create them. LimitRanges and "
            "ResourceQuotas in the input apply to the workloads of their namespace."
        ),
    )

    def clean_namespace(self) -> str:
        namespace = (self.cleaned_data.get("namespace") or "").strip()
        problems = name_is_dns_label(namespace) if namespace else []
        if problems:
            raise forms.ValidationError(problems[0])  # Kubernetes' own wording (English)
        return namespace


def _form_for(analysis: dict[str, Any]) -> AnalyzeForm:
    """An empty form that keeps the version and namespace an analysis answered for."""
    namespace = analysis.get("namespace")
    return AnalyzeForm(
        initial={
            "kubernetes_version": analysis.get("kubernetes_version", DEFAULT_VERSION),
            "namespace": "" if namespace == DEFAULT_NAMESPACE else namespace,
        }
    )


def _size_text(limit: int = MAX_INPUT_BYTES) -> str:
    return f"{limit // (1024 * 1024)} MB"


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _store_failed_message() -> str:
    return _(
        "The analysis could not be kept: the database refused to store it (it may be full or "
        "read-only). Nothing was changed; analyze again in a moment."
    )


def _form_error(request: HttpRequest, form: AnalyzeForm, message: str, status: int) -> HttpResponse:
    context = {"form": form, "input_error": message, "max_size": _size_text()}
    if getattr(request, "htmx", False):
        # htmx swaps only 2xx answers: the message replaces the results area.
        return render(request, "analyze/index.html#analysis", context)
    return render(request, "analyze/index.html", context, status=status)


def _csrf_failure(request: HttpRequest) -> HttpResponse | None:
    return CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})


@csrf_exempt  # checked in the view, after the size check (see _analyze_post)
@require_http_methods(["GET", "HEAD", "POST"])
def analyze_page(request: HttpRequest) -> HttpResponse:
    """The Analyze page; a POST analyzes the pasted text or the uploaded file."""
    if request.method == "POST":
        return _analyze_post(request)
    return render(request, "analyze/index.html", {"form": AnalyzeForm(), "max_size": _size_text()})


def _analyze_post(request: HttpRequest) -> HttpResponse:
    # Refuse an oversize body from its Content-Length, before Django parses the multipart
    # body (the CSRF check reads request.POST, which would spool the whole upload).
    too_large = _("The input is larger than %(size)s. Analyze a smaller file.") % {
        "size": _size_text()
    }
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_INPUT_BYTES + MULTIPART_OVERHEAD:
        return _form_error(request, AnalyzeForm(), too_large, 413)
    failure = _csrf_failure(request)
    if failure is not None:
        return failure

    form = AnalyzeForm(request.POST, request.FILES)
    if not form.is_valid():
        if "namespace" in form.errors:
            message = _("The namespace is not valid: %(reason)s.") % {
                "reason": form.errors["namespace"][0]
            }
            return _form_error(request, form, message, 400)
        return _form_error(request, form, _("The form could not be read."), 400)
    upload = form.cleaned_data["file"]
    text = form.cleaned_data["text"] or ""
    if upload:
        if upload.size > MAX_INPUT_BYTES:
            return _form_error(request, AnalyzeForm(), too_large, 413)
        data: str | bytes = upload.read()
        source = os.path.basename(upload.name or "")
        source_kind = "file" if source else "upload"
        source = source or "uploaded file"
    elif text.strip():
        if len(text) > MAX_INPUT_BYTES or len(text.encode("utf-8", "replace")) > MAX_INPUT_BYTES:
            return _form_error(request, AnalyzeForm(), too_large, 413)
        data = text
        source, source_kind = "pasted text", "pasted"
    else:
        return _form_error(
            request, form, _("Paste some manifests, or choose or drop a file, then Analyze."), 400
        )

    version = form.cleaned_data.get("kubernetes_version") or DEFAULT_VERSION
    namespace = form.cleaned_data.get("namespace") or None
    result = check_files(
        [(source, data)],
        kubernetes_version=version,
        namespace=namespace,
        max_workloads=workload_budget(len(data)),
    )
    objects, errors = result.objects, result.errors
    whole_input = [e for e in errors if e.document is None]
    if whole_input:
        message = _("The input cannot be read: %(reason)s.") % {"reason": whole_input[0].message}
        return _form_error(request, form if not upload else AnalyzeForm(), message, 400)

    def analysis_of(keep_objects: bool) -> dict[str, Any]:
        analysis = analysis_from_check(
            source,
            objects,
            errors,
            result.skipped,
            result.policies,
            result.kubernetes_version,
            namespace,
            keep_objects=keep_objects,
        )
        analysis["source_kind"] = source_kind
        return analysis

    analysis = analysis_of(keep_objects=True)
    try:
        try:
            analysis_id = AnalysisStore.default().save(analysis)
        except AnalysisTooLarge:
            if not analysis["objects"]:
                raise
            # Without the objects the templates came from (Open in designer then opens
            # the pod template only, and the page says so).
            analysis = analysis_of(keep_objects=False)
            analysis_id = AnalysisStore.default().save(analysis)
    except AnalysisTooLarge as exc:
        message = _(
            "This analysis is %(size)s compressed, more than the %(limit)s one analysis may "
            "keep. Analyze fewer documents at once, or use the podspec CLI or the API, "
            "which keep nothing."
        ) % {"size": _megabytes(exc.size), "limit": _megabytes(exc.limit)}
        return _form_error(request, AnalyzeForm(), message, 413)
    except DatabaseError:
        log.exception("the analysis could not be stored")
        return _form_error(request, AnalyzeForm(), _store_failed_message(), 503)
    url = reverse("analysis", args=[analysis_id])
    if getattr(request, "htmx", False):
        context = results_context(analysis_id, analysis, Filters())
        context.update({"form": _form_for(analysis), "max_size": _size_text()})
        response = render(request, "analyze/index.html#analysis", context)
        return push_url(response, url)
    response = redirect(url)
    response.status_code = 303  # See Other: a reload shows the results, it does not re-post
    return response


@require_http_methods(["GET", "HEAD"])
def analysis(request: HttpRequest, analysis_id: str) -> HttpResponse:
    """An analysis, filtered and paged by GET parameters (``qos``, ``errors``, ``namespace``,
    ``page``). htmx requests targeting ``#rows`` get only the rows."""
    stored = AnalysisStore.default().load(analysis_id)
    if stored is None:
        context = {
            "form": AnalyzeForm(),
            "max_size": _size_text(),
            "input_error": _(
                "This analysis has expired or never existed: analyses are kept for a day. "
                "Paste or upload the manifests again."
            ),
        }
        return render(request, "analyze/index.html", context, status=404)
    context = results_context(analysis_id, stored, Filters.from_query(request.GET))
    htmx = getattr(request, "htmx", None)
    if htmx and htmx.target == "rows":
        return render(request, "analyze/index.html#rows", context)
    context.update({"form": _form_for(stored), "max_size": _size_text()})
    return render(request, "analyze/index.html", context)


def pod_from_template(template: dict[str, Any]) -> Pod:
    """A Pod made of a stored pod template; raises ValueError when it cannot be one."""
    metadata = template.get("metadata")
    spec = template.get("spec")
    if not isinstance(metadata, dict) or not isinstance(spec, dict):
        raise ValueError("not a pod template")
    try:
        return Pod.model_validate(
            {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
        )
    except ValidationError as exc:
        raise ValueError(str(exc)) from exc


# The reason an origin could not come along, carried as the design's origin id (the
# designer says it: designer.origins.ORIGIN_MARKS); a stored origin's id is 20 hex digits.
ORIGIN_EXPIRED = "analysis-expired"
ORIGIN_TOO_LARGE = "too-large"
ORIGIN_UNSAVED = "not-saved"


def _design_from_row(analysis_id: str, row: str) -> tuple[Any, str]:
    """(the design of an analysis row's object, "") when the analysis keeps the object;
    (None, why) when it should but cannot, (None, "") when the row has none (a Pod)."""
    stored = AnalysisStore.default().load(analysis_id)
    if stored is None:
        return None, ORIGIN_EXPIRED
    rows = stored.get("rows") or []
    objects = stored.get("objects") or []
    if not (row.isascii() and row.isdigit() and len(row) < 10 and int(row) < len(rows)):
        return None, ""
    found = rows[int(row)].get("origin")
    if not isinstance(found, dict):
        return None, ""
    try:
        origin = Origin(
            object=objects[found["object"]],
            template=found["template"],
            context=[objects[i] for i in found.get("context") or []],
        )
        design = design_from_origin(origin)
    except (RoundTripError, IndexError, KeyError, TypeError, ValueError):
        log.warning("the object of analysis %s row %s cannot be opened", analysis_id, row)
        return None, ""
    try:
        origin_id = OriginStore.default().save(origin)
    except OriginTooLarge:
        return None, ORIGIN_TOO_LARGE
    except DatabaseError:
        log.exception("the object a design was opened from could not be stored")
        return None, ORIGIN_UNSAVED
    design.origin = origin.model_copy(update={"id": origin_id})
    return design, ""


def _error_page(request: HttpRequest, message: str, status: int, **extra: Any) -> HttpResponse:
    context = {"form": AnalyzeForm(), "max_size": _size_text(), "input_error": message, **extra}
    return render(request, "analyze/index.html", context, status=status)


@require_POST
def open_in_designer(request: HttpRequest) -> HttpResponse:
    """Start a design from one analyzed workload and go to the designer: from the object
    its template came from when the analysis keeps it (the designer then exports that
    object), else from the row's pod template (``workload``), as a plain design."""
    design, why = None, ""
    analysis_id = request.POST.get("analysis", "")
    if analysis_id:
        design, why = _design_from_row(analysis_id, request.POST.get("row", ""))
    if design is None:
        try:
            template = decode_blob(request.POST.get("workload", ""))
            if template is None:
                raise ValueError("empty")
            pod = pod_from_template(template)
            kind = str(template.get("kind") or "Pod")
            design = design_from_pod(pod, workload=workload_of_kind(kind))
            if why:
                # The designer says why the object did not come along.
                design.origin = Origin(id=why)
        except (ValueError, TypeError, AttributeError, KeyError):
            return _error_page(
                request,
                _(
                    "This workload cannot be opened in the designer: its pod template could "
                    "not be read. Analyze the manifest again."
                ),
                400,
            )
    query = urlencode(design_query(design))
    url = f"{reverse('index')}?{query}"
    if len(url) > MAX_DESIGNER_URL:
        try:
            url = reverse("shared-design", args=[SharedDesign.save_design(design).id])
        except DatabaseError:
            # The design still opens from its long address; some proxies refuse it.
            log.exception("a short link for an opened workload could not be stored")
            return _error_page(
                request,
                _(
                    "A short link for this workload could not be stored: the database "
                    "refused the write (it may be full or read-only). The design is in the "
                    "long address below; it opens unless a proxy refuses addresses that long."
                ),
                503,
                long_url=url,
            )
    return redirect(url)
