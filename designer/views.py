"""Views: parse the request, make one engine call, render. No Kubernetes rule lives here; the
page's assembly is designer.presenter's."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlencode

from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import replace_url
from django_htmx.middleware import HtmxDetails

from designer.addresses import MAX_ADDRESS, expand_page, page_address, short_query
from designer.forms import (
    Cluster,
    ClusterForm,
    ContainerFormSet,
    PodForm,
    cluster_from_forms,
    cluster_from_query,
    design_from_forms,
    design_from_query,
    design_initial,
    page_query,
    touched_keys,
    touched_text,
)
from designer.i18n import translate
from designer.k8s.core import Message
from designer.k8s.design import Design, UnknownWorkloadType, preset_design
from designer.models import SharedCluster
from designer.origins import keep_origin, resolve_origin
from designer.presenter import (
    Results,
    design_results,
    designer_context,
    results_context,
    with_touched,
)

log = logging.getLogger("designer.views")


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _bind(data: QueryDict) -> tuple[PodForm, Any, Design | None]:
    pod_form = PodForm(data)
    formset = ContainerFormSet(data, prefix="c")
    return pod_form, formset, design_from_forms(pod_form, formset)


def _bind_cluster(data: QueryDict | dict[str, str]) -> tuple[ClusterForm | None, Cluster]:
    """The Kubernetes version and namespace policy of a query (None and the defaults when
    it names neither)."""
    if not any(name in data for name in ClusterForm.base_fields):
        return None, Cluster()
    form = ClusterForm(data)
    return form, cluster_from_forms(form)


def _unbound(design: Design, touched: frozenset[str] = frozenset()) -> tuple[PodForm, Any]:
    pod_initial, containers = design_initial(design)
    pod_initial["touched"] = touched_text(touched)
    return PodForm(initial=pod_initial), ContainerFormSet(initial=containers, prefix="c")


def _design_url(design: Design, cluster: Cluster, touched: frozenset[str] = frozenset()) -> str:
    return page_address(with_touched(urlencode(page_query(design, cluster)), touched))


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request", "HX-Target")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """The designer. The address holds the whole design (or ``?page=<id>`` for a long one,
    see designer.addresses), so every page is a link. The page's own requests are POSTs: a
    pasted namespace policy or node manifest is longer than a request line may be."""
    problem: Message | None = None
    if request.method == "POST":
        data = request.POST
    else:
        data, problem = expand_page(request.GET)
    action = data.get("action", "")
    # The fields the user edited (issue 16): a preset leaves them alone.
    touched = touched_keys(data.get("touched", ""))
    # A full design carries the formset's management fields; a bare "?workload=inference"
    # (a deep link to a workload type) starts from that type's preset.
    if "c-TOTAL_FORMS" in data:
        if request.htmx and request.htmx.target == "results" and not action:
            # A live update (a typed value): read the design straight from the query; only
            # a query the forms must explain takes the forms' way below.
            design, notice = resolve_origin(design_from_query(data))
            cluster = cluster_from_query(data)
            if design is not None and cluster is not None:
                return _render_results(
                    request,
                    design_results(design, cluster=cluster, touched=touched, notice=notice),
                )
        pod_form, formset, design = _bind(data)
        design, notice = resolve_origin(design)
        cluster_form, cluster = _bind_cluster(data)
        results = design_results(
            design,
            pod_form,
            formset,
            action=action,
            changed=data.get("changed", ""),
            touched=touched,
            was=data.get("was", ""),
            # Fields typed while this action's first answer was on its way (static/app.js).
            since=touched_keys(data.get("since", "")),
            cluster=cluster,
            cluster_form=cluster_form,
            notice=notice,
        )
        if results.design is not None and not request.htmx and (action or request.method == "POST"):
            # Without JavaScript, a button click or a posted form lands on the page's
            # address, so a reload repeats neither.
            return redirect(_design_url(results.design, cluster, results.touched))
        if action and results.design is not None:
            # The action changed the design: the form shows the new one (a valid form had
            # no form errors, so the results stand as they are).
            pod_form, formset = _unbound(results.design, results.touched)
        return _render_designer(request, pod_form, formset, results, cluster_form)
    try:
        design = preset_design(
            data.get("preset") or data.get("workload") or "training", data.get("size")
        )
    except UnknownWorkloadType as exc:
        problem = exc.message
        design = preset_design("training")
    pod_form, formset = _unbound(design)
    cluster_form, cluster = _bind_cluster(data)
    results = design_results(
        design, pod_form, formset, problem=problem, cluster=cluster, cluster_form=cluster_form
    )
    return _render_designer(request, pod_form, formset, results, cluster_form)


def _short_links(context: dict[str, Any]) -> str | None:
    """The page's address (None without a design), with the links beside the design
    (download, share without JavaScript) made short when they would be too long."""
    if not context.get("query"):
        return None
    address = page_address(context["query"])
    # A link too long to travel reads the page's own stored query (one row per edit, not
    # one per link): the download and the share take the design from it, touched or not.
    page = address.partition("?")[2]
    for key in ("download_query", "share_query"):
        if len(context[key]) > MAX_ADDRESS:
            context[key] = page
    return address


def _render_results(request: HtmxHttpRequest, results: Results) -> HttpResponse:
    """The results panel and every message slot (out of band), without the forms."""
    context = results_context(results, oob=True)
    address = _short_links(context)
    response = render(request, "designer/index.html#results", context)
    return replace_url(response, address) if address else response


def _render_designer(
    request: HtmxHttpRequest,
    pod_form: PodForm,
    formset: Any,
    results: Results,
    cluster_form: ClusterForm | None = None,
) -> HttpResponse:
    target = request.htmx.target if request.htmx else None
    context = designer_context(
        pod_form, formset, results, oob=target == "results", cluster_form=cluster_form
    )
    address = _short_links(context)
    template = "designer/index.html"
    if request.htmx:
        template += "#results" if target == "results" else "#designer"
    response = render(request, template, context)
    if request.htmx and address and results.design is not None:
        response = replace_url(response, address)
    return response


@require_GET
def export_yaml(request: HttpRequest) -> HttpResponse:
    """The preview's YAML as a download; refused (409) while the design has errors."""
    data, problem = expand_page(request.GET)
    if problem is not None:
        return HttpResponse(
            translate(problem), status=404, content_type="text/plain; charset=utf-8"
        )
    pod_form, formset, design = _bind(data)
    design, _notice = resolve_origin(design)
    cluster_form, cluster = _bind_cluster(data)
    results = design_results(design, pod_form, formset, cluster=cluster, cluster_form=cluster_form)
    if not results.downloadable or results.design is None:
        return HttpResponse(
            _("The design has errors; fix them before downloading the YAML."),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    filename = f"{results.design.name or 'pod'}.yaml"
    response = HttpResponse(results.yaml, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def share(request: HtmxHttpRequest) -> HttpResponse:
    """Store the design under a short permanent id; the same design gives the same id."""
    # htmx posts the form; without JavaScript the design travels in the form's action URL.
    data = request.POST if "c-TOTAL_FORMS" in request.POST else expand_page(request.GET)[0]
    pod_form, formset, design = _bind(data)
    # A share link keeps the whole object the design came from (it never expires).
    design, _notice = resolve_origin(design)
    if design is None:
        return _share_failed(request, _("The design has form errors; fix them to share it."), 400)
    _cluster_form, cluster = _bind_cluster(data)
    try:
        share_id = SharedCluster.save_page(
            design, cluster.kubernetes_version, cluster.namespace_policy
        )
    except DatabaseError:
        log.exception("a share link could not be stored")
        message = _(
            "The share link could not be saved: the database refused the write (it may be "
            "full or read-only). Your design is not lost: it is in this page’s address, "
            "which you can copy and share instead."
        )
        return _share_failed(request, message, 503, urlencode(page_query(design, cluster)))
    path = reverse("shared-design", args=[share_id])
    if request.htmx:
        url = request.build_absolute_uri(path)
        return render(request, "designer/index.html#share-link", {"share_url": url})
    return redirect(path)


def _share_failed(
    request: HtmxHttpRequest, message: str, status: int, query: str = ""
) -> HttpResponse:
    """The reason beside the Share button (htmx: static/app.js swaps answers marked
    X-Swap-Error, as htmx swaps no 4xx/5xx by itself), or a page linking back."""
    context = {"share_error": message, "query": short_query(query or request.GET.urlencode())}
    if request.htmx:
        response = render(request, "designer/index.html#share-link", context, status=status)
        response["X-Swap-Error"] = "true"
        return response
    return render(request, "share-failed.html", context, status=status)


@require_http_methods(["GET", "HEAD"])
@vary_on_headers("HX-Request", "HX-Target")
def shared_design(request: HtmxHttpRequest, share_id: str) -> HttpResponse:
    page = SharedCluster.load_page(share_id)
    if page is None:
        raise Http404(_("No shared design has this link. It may have been mistyped."))
    design, cluster_values = page
    design = keep_origin(design)
    pod_form, formset = _unbound(design)
    cluster_form, cluster = _bind_cluster(cluster_values)
    results = design_results(design, pod_form, formset, cluster=cluster, cluster_form=cluster_form)
    return _render_designer(request, pod_form, formset, results, cluster_form)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A refused CSRF token (settings.CSRF_FAILURE_VIEW). The designer's own requests are
    POSTs, and htmx swaps no 403: a live update refused this way (the cookie was cleared, a
    proxy strips the Origin header) would change nothing on the page. So an htmx request
    gets the reason in place of the results panel (static/app.js swaps answers marked
    X-Swap-Error); the design stays in the form and in the address."""
    log.warning("CSRF check refused %s %s: %s", request.method, request.path, reason)
    htmx = getattr(request, "htmx", None)
    if htmx and htmx.target in ("results", "designer"):
        # The browser's address (the design as last answered), when it is this site's.
        reload_url = htmx.current_url_abs_path or reverse("index")
        response = render(
            request, "designer/csrf-expired.html", {"reload_url": reload_url}, status=403
        )
        response["X-Swap-Error"] = "true"
        response["HX-Retarget"] = "#results"
        response["HX-Reswap"] = "outerHTML"
        return response
    return render(request, "403_csrf.html", status=403)
