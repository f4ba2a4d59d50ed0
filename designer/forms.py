"""The designer form: a view of ``Design`` (designer.k8s.workloads).

The form only parses and shows; every Kubernetes rule lives in the engine. Engine field
paths (``spec.containers[0].resources.limits[cpu]``) map to form fields in one place,
``field_for_path``.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from dataclasses import dataclass
from typing import Any, get_args

from django import forms
from django.http import QueryDict
from django.urls import reverse_lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel, ValidationError

from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS
from designer.k8s.design import (
    COMMON_SELECTORS,
    DRA_CHOICES,
    DRA_MODE,
    EXPORT_KINDS,
    MAX_CONTAINERS,
    MAX_DRA_ALTERNATIVES,
    MAX_DRA_SELECTORS,
    SIZE_KEYS,
    WORKLOAD_TYPES,
    ContainerDesign,
    Design,
    ExportSettings,
    ExtraResource,
    GpuChoice,
    HeadroomChoice,
    NodeChoice,
    Origin,
    offered_export_kinds,
)
from designer.k8s.dra import CEL_MAX_LENGTH
from designer.k8s.gpu import mig_models, sharing_modes
from designer.k8s.manifest import go_json_loads
from designer.k8s.scheduler import catalog_shapes

QUANTITY_MAX = 100  # long enough for any real quantity; longer input is refused at the field
QUANTITY_HELP = {
    "cpu": _("Cores: 500m = half a core, 2 = two cores."),
    "memory": _("Bytes with a unit: 512Mi, 16Gi (Mi/Gi are powers of 2; M/G powers of 10)."),
}


def example(text: str) -> Any:
    """A placeholder that cannot be taken for a value: an example, said to be one (and shown
    in the lighter, slanted hint style of app.css)."""
    return format_lazy(_("e.g. {example}"), example=text)


def default_shown(text: Any) -> Any:
    """A placeholder for what an empty field means."""
    return format_lazy(_("empty: {default}"), default=text)


class QuantityInput(forms.TextInput):
    def __init__(self, placeholder: Any = None) -> None:
        attrs = {"autocomplete": "off", "spellcheck": "false", "inputmode": "text", "class": "qty"}
        if placeholder is not None:  # (a lazy text: not evaluated at import time)
            attrs["placeholder"] = placeholder
        super().__init__(attrs=attrs)


def quantity_field(label: str, placeholder: str, help_text: Any = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=QUANTITY_MAX,
        widget=QuantityInput(example(placeholder)),
        help_text=help_text,
    )


def encode_blob(value: Any) -> str:
    """JSON → zlib → base64url: how a manifest's non-form fields travel in a form or URL."""
    if not value:
        return ""
    raw = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


MAX_BLOB_BYTES = 2 * 1024 * 1024


def decode_blob(text: str) -> dict[str, Any] | None:
    """Inverse of encode_blob; raises ValueError with a clear message when tampered."""
    if not text:
        return None
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_BLOB_BYTES)
        if inflater.unconsumed_tail:
            raise ValueError("too large")
        value = go_json_loads(raw)  # unpaired surrogates become U+FFFD, as in Go
    except (ValueError, zlib.error) as exc:
        raise ValueError(str(_("This saved manifest data is damaged and cannot be read."))) from exc
    if not isinstance(value, dict):
        raise ValueError(str(_("This saved manifest data is damaged and cannot be read.")))
    return value


def parse_pairs(text: str) -> dict[str, str]:
    """``key=value`` per line (or comma-separated); raises ValueError naming the bad line."""
    pairs: dict[str, str] = {}
    for chunk in re.split(r"[\n,]", text):
        line = chunk.strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep:
            key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise ValueError(str(_("“%(line)s” is not key=value.") % {"line": line[:60]}))
        pairs[key.strip()] = value.strip()
    return pairs


def format_pairs(pairs: dict[str, str]) -> str:
    return "\n".join(f"{k}={v}" for k, v in pairs.items())


def parse_extra(text: str) -> list[ExtraResource]:
    """``name=limit`` or ``name=request/limit`` per line."""
    extras = []
    for name, value in parse_pairs(text).items():
        request, sep, limit = value.partition("/")
        extras.append(
            ExtraResource(name=name, request=request.strip(), limit=limit.strip())
            if sep
            else ExtraResource(name=name, limit=value)
        )
    return extras


def format_extra(extras: list[ExtraResource]) -> str:
    return "\n".join(
        f"{e.name}={e.request}/{e.limit}" if e.request else f"{e.name}={e.limit}" for e in extras
    )


def action_attrs(action: str) -> dict[str, Any]:
    """htmx attributes for an input whose change re-renders the whole designer (it changes
    other fields, e.g. the GPU sharing mode sets the container's GPU resource name). The
    page's #designer element gives every request hx-include and hx-swap."""
    return {
        "hx-post": reverse_lazy("index"),
        "hx-trigger": "change",
        "hx-vals": json.dumps({"action": action}),
        "hx-target": "#designer",
    }


def _profile_choices() -> list[tuple[str, str]]:
    names: dict[str, int] = {}
    for model in mig_models():
        for profile in model.profiles:
            names.setdefault(profile.name, profile.memory_gb)
    return [("", "—")] + [(n, n) for n in sorted(names, key=lambda n: (names[n], n))]


class LiveForm(forms.Form):
    """Marks inputs whose edits refresh the results live (htmx listens on ``.live``)."""

    static_fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, bound in self.fields.items():
            if name not in self.static_fields and not isinstance(bound.widget, forms.HiddenInput):
                css = bound.widget.attrs.get("class", "")
                bound.widget.attrs["class"] = f"{css} live".strip()


# --- fields for the DRA claim (lists in the design) -------------------------------------------


class LinesField(forms.CharField):
    """A textarea holding one item per line (CEL selectors): the cleaned value is the list of
    its non-blank lines, at most ``max_items``."""

    def __init__(self, *, max_items: int, **kwargs: Any) -> None:
        self.max_items = max_items
        super().__init__(**kwargs)

    def clean(self, value: Any) -> list[str]:  # type: ignore[override]
        text = super().clean(value)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(lines) > self.max_items:
            raise forms.ValidationError(
                _("At most %(max)s selectors: this has %(count)s.")
                % {"max": self.max_items, "count": len(lines)}
            )
        return lines


class NamesInput(forms.CheckboxSelectMultiple):
    """Checkboxes of container names (the page sets ``choices``); a query may also carry the
    names comma-separated in one value, as the design's address does."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[str]:
        values = data.getlist(name) if hasattr(data, "getlist") else data.get(name) or []
        if isinstance(values, str):
            values = [values]
        return [n.strip() for v in values for n in str(v).split(",") if n.strip()]


class NamesField(forms.Field):
    """Container names (the containers that share the GPU claim). Which names exist is the
    engine's to say (design/dra.py names a missing one), not the field's."""

    widget = NamesInput

    def to_python(self, value: Any) -> list[str]:
        names = list(dict.fromkeys(value or []))
        if len(names) > MAX_CONTAINERS or any(len(n) > 300 for n in names):
            raise forms.ValidationError(_("These are not container names."))
        return names


class DefaultRadioSelect(forms.RadioSelect):
    """Radio buttons with one of them checked when the value is unset (the field's default,
    which the design model applies to an unset value too)."""

    def __init__(self, default: str, attrs: dict[str, Any] | None = None) -> None:
        self.default = default
        super().__init__(attrs)

    def format_value(self, value: Any) -> list[str]:
        return super().format_value(value) or [self.default]


def _selector_input(key: str, datalist: str) -> forms.TextInput:
    return forms.TextInput(
        attrs={
            "list": datalist,
            "autocomplete": "off",
            "placeholder": COMMON_SELECTORS[key].example,
        }
    )


def product_field() -> forms.CharField:
    """The common selector "GPU product" (NVIDIA's productName)."""
    return forms.CharField(
        label=_(COMMON_SELECTORS["product"].label),
        required=False,
        max_length=200,
        widget=_selector_input("product", "dra-products"),
    )


def mig_profile_field() -> forms.CharField:
    """The common selector "MIG profile"."""
    return forms.CharField(
        label=_(COMMON_SELECTORS["mig_profile"].label),
        required=False,
        max_length=50,
        widget=_selector_input("mig_profile", "dra-mig-profiles"),
    )


def min_memory_field(**kwargs: Any) -> forms.CharField:
    """The common selector "GPU memory at least" (a quantity; a bare number is Gi)."""
    return forms.CharField(
        label=_(COMMON_SELECTORS["min_memory"].label),
        required=False,
        max_length=QUANTITY_MAX,
        widget=QuantityInput(COMMON_SELECTORS["min_memory"].example),
        **kwargs,
    )


class AlternativeForm(LiveForm):
    """One ``firstAvailable`` alternative of the claim: its fields as the page shows them,
    named ``gpu_first_available-<i>-<field>`` (AlternativesField reads them back)."""

    device_class = forms.CharField(
        label=_("DeviceClass"),
        required=False,
        max_length=253,
        widget=forms.TextInput(attrs={"list": "dra-device-classes", "autocomplete": "off"}),
    )
    count = forms.CharField(
        label=_("Devices"),
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric"}),
    )
    product = product_field()
    min_memory = min_memory_field()
    mig_profile = mig_profile_field()
    selectors = LinesField(
        label=_("Other CEL selectors"),
        required=False,
        max_items=MAX_DRA_SELECTORS,
        max_length=MAX_DRA_SELECTORS * (CEL_MAX_LENGTH + 1),
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false", "class": "cel"}),
        help_text=_("One CEL expression per line."),
    )


ALTERNATIVE_FIELDS = tuple(AlternativeForm.base_fields)


class AlternativesInput(forms.Widget):
    """Reads the alternatives' rows (``<name>-<i>-<field>``, i = 0, 1, ... while a row has any
    field) from the query; the page renders them with AlternativeForm, not with this widget."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[dict[str, str]]:
        return [
            {key: data.get(f"{name}-{i}-{key}", "") for key in ALTERNATIVE_FIELDS}
            for i in range(alternative_rows(data, name))
        ]


def alternative_rows(data: Any, name: str = "gpu_first_available") -> int:
    """How many alternative rows a query holds (one more than the limit at most, so the
    field can say there are too many)."""
    keys = [k for k in data if k.startswith(f"{name}-")]
    count = 0
    while count <= MAX_DRA_ALTERNATIVES and any(k.startswith(f"{name}-{count}-") for k in keys):
        count += 1
    return count


class AlternativesField(forms.Field):
    """The claim's ``firstAvailable`` alternatives: each row cleaned by AlternativeForm's own
    fields; a row is kept even when blank, so row i on the page is alternative i."""

    widget = AlternativesInput

    def to_python(self, value: Any) -> list[dict[str, Any]]:
        rows = value or []
        if len(rows) > MAX_DRA_ALTERNATIVES:
            raise forms.ValidationError(
                _("At most %(max)s alternatives.") % {"max": MAX_DRA_ALTERNATIVES}
            )
        cleaned = []
        for i, row in enumerate(rows, start=1):
            out: dict[str, Any] = {}
            for key, field in AlternativeForm.base_fields.items():
                try:
                    out[key] = field.clean(row.get(key, ""))
                except forms.ValidationError as exc:
                    raise forms.ValidationError(
                        _("Alternative %(n)s, %(field)s: %(error)s")
                        % {"n": i, "field": field.label, "error": " ".join(exc.messages)}
                    ) from None
            cleaned.append(out)
        return cleaned


GPU_SOURCES = (
    ("plugin", _("Device plugin (nvidia.com/gpu: N)")),
    ("dra", _("DRA claim (resource.k8s.io/v1, Kubernetes 1.34+)")),
)
MAX_SLICES_YAML = 1_000_000


def export_kind_choices(workload: str | None) -> list[Any]:
    """The export select's options: the workload type's default, then the kinds its record
    offers first and the others, in two groups (design.offered_export_kinds)."""
    default: list[Any] = [("", _("Default for the workload type"))]
    if workload not in WORKLOAD_TYPES:
        return default + [(k.id, _(k.label)) for k in EXPORT_KINDS.values()]
    first, rest = offered_export_kinds(workload)
    if not first:
        return default + [(k.id, _(k.label)) for k in rest]
    return default + [
        (_("Made for this workload type"), [(k.id, _(k.label)) for k in first]),
        (_("Other kinds"), [(k.id, _(k.label)) for k in rest]),
    ]


class PodForm(LiveForm):
    static_fields = (
        "workload",
        "size",
        "gpu_source",
        "gpu_allocation_mode",
        "gpu_mode",
        "gpu_model",
        "gpu_memory_gb",
        "gpu_profile",
        "gpu_rename_shared",
        "node_source",
        "export_kind",
        "export_hpa",
    )

    workload = forms.ChoiceField(
        label=_("Workload type"),
        # A callable: a workload type registered after start-up is offered too.
        choices=lambda: [(k, _(w.label)) for k, w in WORKLOAD_TYPES.items()],
    )
    size = forms.ChoiceField(
        label=_("Size preset"),
        required=False,
        choices=[(k, k) for k in SIZE_KEYS] + [("custom", _("Custom"))],
    )
    name = forms.CharField(label=_("Pod name"), required=False, max_length=300)
    namespace = forms.CharField(label=_("Namespace"), required=False, max_length=100)
    labels = forms.CharField(
        label=_("Labels"),
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": example("app=trainer")}),
        help_text=_("One key=value per line."),
    )
    priority_class_name = forms.CharField(label=_("Priority class"), required=False, max_length=300)
    restart_policy = forms.ChoiceField(
        label=_("Restart policy"),
        required=False,
        choices=[("Always", "Always"), ("OnFailure", "OnFailure"), ("Never", "Never")],
    )
    gpu_toleration = forms.BooleanField(
        label=_("Tolerate the nvidia.com/gpu taint on GPU nodes"), required=False
    )
    node_selector = forms.CharField(
        label=_("Node selector"),
        required=False,
        max_length=5000,
        widget=forms.Textarea(
            attrs={
                "rows": 2,
                "placeholder": example("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"),
            }
        ),
        help_text=_("One key=value per line."),
    )
    shm_size = quantity_field(_("/dev/shm size"), "16Gi")

    # GPU sharing (applies to the first app container with GPUs).
    gpu_mode = forms.ChoiceField(
        label=_("GPU sharing mode"),
        required=False,
        choices=[(m.key, _(m.label)) for m in sharing_modes()],
        widget=forms.Select(attrs=action_attrs("gpu")),
    )
    gpu_model = forms.ChoiceField(
        label=_("GPU model (for MIG)"),
        required=False,
        choices=[(m.key, m.label) for m in mig_models()],
        widget=forms.Select(attrs=action_attrs("gpu")),
    )
    gpu_memory_gb = forms.CharField(
        label=_("GPU memory needed (GB)"),
        required=False,
        max_length=20,
        widget=forms.TextInput(
            attrs={"placeholder": example("20"), "inputmode": "decimal", **action_attrs("gpu")}
        ),
        help_text=_(
            "With no profile picked, the smallest MIG profile of the GPU that holds it is used; "
            "a picked profile is kept and checked against it."
        ),
    )
    # Every known profile is accepted (a profile of another GPU model gets the engine's own
    # message, naming the model's profiles); the page lists only the chosen model's
    # (presenter, from Plan.mig_profiles).
    gpu_profile = forms.ChoiceField(
        label=_("MIG profile"),
        required=False,
        choices=_profile_choices(),
        widget=forms.Select(attrs=action_attrs("gpu")),
        help_text=_("The profiles of the chosen GPU model, smallest first."),
    )
    gpu_rename_shared = forms.BooleanField(
        label=_("The cluster renames shared GPUs to nvidia.com/gpu.shared"),
        required=False,
        widget=forms.CheckboxInput(attrs=action_attrs("gpu")),
    )

    # GPUs through a DRA claim (design/dra.py): the fields of GpuChoice's mode "dra".
    # gpu_source is the form's own switch: "dra" is GpuChoice.mode "dra" (see _design).
    gpu_source = forms.ChoiceField(
        label=_("How the pod gets its GPUs"),
        required=False,
        choices=GPU_SOURCES,
        widget=DefaultRadioSelect("plugin", attrs=action_attrs("gpu")),
    )
    gpu_device_class = forms.CharField(
        label=_("DeviceClass"),
        required=False,
        max_length=253,
        widget=forms.TextInput(attrs={"list": "dra-device-classes", "autocomplete": "off"}),
        help_text=_("gpu.nvidia.com: whole GPUs; mig.nvidia.com: MIG partitions."),
    )
    gpu_allocation_mode = forms.ChoiceField(
        label=_("How many devices"),
        required=False,
        choices=[
            ("ExactCount", _("A number of devices (ExactCount)")),
            ("All", _("Every matching device of the node (All)")),
        ],
        widget=DefaultRadioSelect("ExactCount", attrs=action_attrs("gpu")),
    )
    gpu_count = forms.CharField(
        label=_("Devices per pod"),
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "placeholder": _("as GPUs")}),
        help_text=_("Empty: the GPU container's GPUs field."),
    )
    gpu_product = product_field()
    gpu_min_memory = min_memory_field(help_text=_("40 means 40Gi."))
    gpu_mig_profile = mig_profile_field()
    gpu_selectors = LinesField(
        label=_("Other CEL selectors"),
        required=False,
        max_items=MAX_DRA_SELECTORS,
        max_length=MAX_DRA_SELECTORS * (CEL_MAX_LENGTH + 1),
        widget=forms.Textarea(
            attrs={
                "rows": 2,
                "spellcheck": "false",
                "class": "cel",
                "placeholder": "device.attributes['gpu.nvidia.com'].architecture == 'Hopper'",
            }
        ),
        help_text=_("One CEL expression per line; every selector must be true for a device."),
    )
    gpu_shared_by = NamesField(
        label=_("Containers that share the claim"),
        required=False,
        help_text=_("They see the same devices as the GPU container."),
    )
    gpu_claim_source = forms.ChoiceField(
        label=_("Claim from"),
        required=False,
        choices=[
            ("template", _("A ResourceClaimTemplate: one claim, and its own devices, per pod")),
            ("claim", _("A ResourceClaim: one claim that every pod shares")),
        ],
        widget=DefaultRadioSelect("template"),
    )
    gpu_first_available = AlternativesField(
        label=_("Alternatives (firstAvailable)"), required=False
    )

    # Node fit.
    node_source = forms.ChoiceField(
        label=_("Node"),
        required=False,
        choices=[
            ("", _("No node chosen")),
            ("catalog", _("A common GPU node shape")),
            ("custom", _("A custom shape")),
            ("manifest", _("A pasted Node (kubectl get node NAME -o yaml)")),
        ],
        widget=forms.Select(attrs=action_attrs("node")),
    )
    node_catalog_id = forms.ChoiceField(
        label=_("Node shape"),
        required=False,
        choices=[("", "—")]
        + [
            (n.id, f"{n.id} ({n.vcpus} vCPU, {n.memory}, {n.gpu_count}× {n.gpu_model})")
            for n in catalog_shapes()
        ],
    )
    node_provider = forms.ChoiceField(
        label=_("Managed Kubernetes (reserved-resource formula)"),
        required=False,
        choices=[("", _("The shape's own cloud")), ("gke", "GKE"), ("eks", "EKS"), ("aks", "AKS")],
    )
    node_cpu = quantity_field(_("Node vCPUs"), "96")
    node_memory = quantity_field(_("Node memory"), "1152Gi")
    node_gpus = quantity_field(_("GPU count of the node"), "8")
    # How the node's device plugin shares its GPUs (with the GPU sharing mode above).
    node_mig_layout = forms.CharField(
        label=_("MIG layout of the node"),
        required=False,
        max_length=1000,
        widget=forms.TextInput(
            attrs={
                "placeholder": example("4: 3g.40gb=2; 4: 1g.10gb=7"),
                "autocomplete": "off",
                "spellcheck": "false",
            }
        ),
        help_text=_(
            "Each GPU's slices as profile=count; a GPU count and a colon in front give GPUs "
            "different layouts; or a mig-parted name such as all-balanced. Empty: every GPU in "
            "the chosen profile."
        ),
    )
    node_gpu_replicas = forms.CharField(
        label=_("Replicas per GPU"),
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"placeholder": example("4"), "inputmode": "numeric"}),
        help_text=_("The replicas of the device plugin's sharing configuration."),
    )
    # The node's kubelet configuration (KubeletConfiguration cpuCFSQuota, cpuCFSQuotaPeriod).
    node_cpu_cfs_quota = forms.TypedChoiceField(
        label=_("cpuCFSQuota"),
        required=False,
        # "on" as the addresses made before this field existed say it (design_query).
        choices=[
            ("on", _("true (the default): CPU limits are enforced")),
            ("off", _("false: CPU limits are not enforced")),
        ],
        coerce=lambda value: value == "on",
        empty_value="",
    )
    node_cpu_cfs_quota_period = forms.CharField(
        label=_("cpuCFSQuotaPeriod"),
        required=False,
        max_length=30,
        widget=forms.TextInput(
            attrs={"placeholder": default_shown("100ms"), "autocomplete": "off", "class": "qty"}
        ),
        help_text=_("A Go duration such as 100ms or 5000us."),
    )
    node_gpu_resource = forms.CharField(
        label=_("Node GPU resource"),
        required=False,
        max_length=300,
        widget=forms.TextInput(attrs={"list": "gpu-resources", "autocomplete": "off"}),
    )
    node_manifest = forms.CharField(
        label=_("Node manifest"),
        required=False,
        max_length=200_000,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "kubectl get node NAME -o yaml"}),
    )
    node_max_pods = forms.CharField(label=_("Max pods per node"), required=False, max_length=10)
    node_resource_slices = forms.CharField(
        label=_("The node's ResourceSlices"),
        required=False,
        max_length=MAX_SLICES_YAML,
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "spellcheck": "false",
                "placeholder": "kubectl get resourceslices -o yaml",
            }
        ),
        help_text=_("Where the DRA claim's devices come from: paste them to see which match."),
    )
    node_ds_cpu = quantity_field(_("DaemonSet CPU per node"), "500m")
    node_ds_memory = quantity_field(_("DaemonSet memory per node"), "1Gi")

    # Memory headroom helper.
    headroom_peak = quantity_field(_("Observed peak memory"), "12Gi")
    headroom_percent = forms.CharField(
        label=_("Headroom %"),
        required=False,
        max_length=6,
        widget=forms.TextInput(attrs={"placeholder": default_shown("25"), "inputmode": "decimal"}),
    )

    # Export as (the object wrapping the pod template).
    export_kind = forms.ChoiceField(
        label=_("Export as"),
        required=False,
        choices=lambda: export_kind_choices(None),
        widget=forms.Select(attrs=action_attrs("export")),
    )
    export_replicas = forms.IntegerField(label=_("Replicas"), required=False)
    export_max_surge = forms.CharField(
        label=_("maxSurge"),
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"placeholder": default_shown(_("auto"))}),
    )
    export_max_unavailable = forms.CharField(
        label=_("maxUnavailable"),
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"placeholder": default_shown(_("auto"))}),
    )
    export_hpa = forms.BooleanField(
        label=_("Add a HorizontalPodAutoscaler"),
        required=False,
        widget=forms.CheckboxInput(attrs=action_attrs("export")),
    )
    export_hpa_min = forms.IntegerField(label=_("HPA min replicas"), required=False)
    export_hpa_max = forms.IntegerField(label=_("HPA max replicas"), required=False)
    export_hpa_cpu_utilization = forms.IntegerField(
        label=_("HPA target CPU utilization (%)"), required=False
    )
    export_hpa_gpu_metric = forms.BooleanField(
        label=_("Also scale on GPU utilization (custom metric)"), required=False
    )
    export_backoff_limit = forms.IntegerField(label=_("backoffLimit"), required=False)
    export_job_restart_policy = forms.ChoiceField(
        label=_("Job pod restartPolicy"),
        required=False,
        choices=[("OnFailure", "OnFailure"), ("Never", "Never")],
    )
    export_ttl_seconds_after_finished = forms.IntegerField(
        label=_("ttlSecondsAfterFinished"), required=False
    )
    export_active_deadline_seconds = forms.IntegerField(
        label=_("activeDeadlineSeconds"), required=False
    )
    export_workers = forms.IntegerField(label=_("Workers"), required=False)
    export_master_port = forms.IntegerField(label=_("Master port"), required=False)
    # ==== issue 11: the ML operators' export settings and the object a design came from
    export_runtime = forms.CharField(
        label=_("Training runtime (ClusterTrainingRuntime)"),
        required=False,
        max_length=300,
        widget=forms.TextInput(
            attrs={"list": "export-runtimes", "autocomplete": "off", "spellcheck": "false"}
        ),
        help_text=_("The runtime the TrainJob runs on; Kubeflow Trainer installs these."),
    )
    export_model_format = forms.CharField(
        label=_("Model format"),
        required=False,
        max_length=300,
        widget=forms.TextInput(
            attrs={"list": "export-model-formats", "autocomplete": "off", "spellcheck": "false"}
        ),
        help_text=_("KServe picks the serving runtime (and its image) for this format."),
    )
    export_storage_uri = forms.CharField(
        label=_("Model location (storageUri)"),
        required=False,
        max_length=2000,
        widget=forms.TextInput(
            attrs={
                "placeholder": "hf://meta-llama/Llama-3.1-8B-Instruct",
                "autocomplete": "off",
                "spellcheck": "false",
                "inputmode": "url",
            }
        ),
        help_text=_("s3://, gs://, pvc://, hf:// or https:// where the model is."),
    )
    # The id of the stored object the design was opened from (design.Origin.id).
    origin = forms.CharField(required=False, widget=forms.HiddenInput, max_length=64)
    # ==== end of issue 11
    base = forms.CharField(required=False, widget=forms.HiddenInput, max_length=3_000_000)
    # The fields the user edited (names of this form and the container forms, comma
    # separated): a preset leaves them as they are (design.actions.apply_action). Not part of
    # the design; app.js adds a field's name when the user edits it.
    touched = forms.CharField(required=False, widget=forms.HiddenInput, max_length=20_000)

    def clean_labels(self) -> dict[str, str]:
        try:
            return parse_pairs(self.cleaned_data["labels"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_node_selector(self) -> dict[str, str]:
        try:
            return parse_pairs(self.cleaned_data["node_selector"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_base(self) -> dict[str, Any] | None:
        try:
            return decode_blob(self.cleaned_data["base"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc


class ContainerForm(LiveForm):
    role = forms.ChoiceField(
        label=_("Kind"),
        choices=[
            ("app", _("App container")),
            ("sidecar", _("Native sidecar (init, restartPolicy: Always)")),
            ("init", _("Init container")),
        ],
    )
    name = forms.CharField(label=_("Container name"), required=False, max_length=300)
    image = forms.CharField(label=_("Image"), required=False, max_length=1000)
    command = forms.CharField(
        label=_("Command"),
        required=False,
        max_length=5000,
        widget=forms.TextInput(attrs={"placeholder": example("python train.py --epochs 10")}),
    )
    cpu_request = quantity_field(_("CPU request"), "2 or 500m")
    cpu_limit = quantity_field(_("CPU limit"), "2 or 500m")
    memory_request = quantity_field(_("Memory request"), "16Gi")
    memory_limit = quantity_field(_("Memory limit"), "16Gi")
    gpus = forms.CharField(
        label=_("GPUs"),
        required=False,
        max_length=QUANTITY_MAX,
        widget=QuantityInput(),
    )
    gpu_resource = forms.CharField(
        label=_("GPU resource name"),
        required=False,
        max_length=300,
        widget=forms.TextInput(attrs={"list": "gpu-resources", "autocomplete": "off"}),
    )
    ephemeral_request = quantity_field(_("Ephemeral storage request"), "10Gi")
    ephemeral_limit = quantity_field(_("Ephemeral storage limit"), "20Gi")
    extra = forms.CharField(
        label=_("Other resources"),
        required=False,
        max_length=5000,
        widget=forms.Textarea(
            attrs={"rows": 2, "placeholder": example("hugepages-2Mi=1Gi, example.com/fpga=1/1")}
        ),
        help_text=_("One per line: name=limit, or name=request/limit."),
    )
    base = forms.CharField(required=False, widget=forms.HiddenInput, max_length=3_000_000)

    def clean_extra(self) -> list[ExtraResource]:
        try:
            return parse_extra(self.cleaned_data["extra"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_base(self) -> dict[str, Any] | None:
        try:
            return decode_blob(self.cleaned_data["base"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc


class BaseContainerFormSet(forms.BaseFormSet):
    def clean(self) -> None:
        if any(self.errors):
            return
        if not any(f.cleaned_data.get("role") == "app" for f in self.forms):
            raise forms.ValidationError(_("A pod needs at least one app container."))


ContainerFormSet = forms.formset_factory(
    ContainerForm,
    formset=BaseContainerFormSet,
    extra=0,
    max_num=MAX_CONTAINERS,
    absolute_max=MAX_CONTAINERS,
    validate_max=True,
)


# Sub-models of Design edited by PodForm fields named "<group>_<field>".
CHOICE_GROUPS: dict[str, type[BaseModel]] = {
    "gpu": GpuChoice,
    "node": NodeChoice,
    "headroom": HeadroomChoice,
    "export": ExportSettings,
}


def _group_values(group: str, model: type[BaseModel], cleaned: dict[str, Any]) -> dict[str, Any]:
    """A sub-model's values from cleaned form data. An emptied field takes its default, except
    that an emptied optional number (ttlSecondsAfterFinished) becomes None, i.e. unset."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        value = cleaned.get(f"{group}_{name}")
        if value is None and name != "kind" and type(None) in get_args(info.annotation):
            values[name] = None
        elif value not in (None, ""):
            values[name] = value
    return values


def design_initial(design: Design) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Form initial data for a design (the inverse of ``design_from_forms``)."""
    pod = {
        "workload": design.workload,
        "size": design.size if design.size in SIZE_KEYS else "custom",
        "name": design.name,
        "namespace": design.namespace,
        "labels": format_pairs(design.labels),
        "priority_class_name": design.priority_class_name,
        "restart_policy": design.restart_policy,
        "gpu_toleration": design.gpu_toleration,
        "node_selector": format_pairs(design.node_selector),
        "shm_size": design.shm_size,
        "base": encode_blob(design.base),
        "origin": design.origin.id if design.origin else "",  # the address carries the id only
    }
    for group in CHOICE_GROUPS:
        for name, value in getattr(design, group).model_dump().items():
            key = f"{group}_{name}"
            if isinstance(value, bool) and not isinstance(
                PodForm.base_fields.get(key), forms.BooleanField
            ):
                # A yes/no select (cpuCFSQuota): an absent parameter keeps the default.
                value = "on" if value else "off"
            pod[key] = value
    # The DRA claim's lists as their fields hold them: selectors one per line, the
    # alternatives as rows (see AlternativesField), shared_by as checked names.
    if design.gpu.mode == DRA_MODE:
        pod["gpu_source"] = "dra"  # unset is "plugin" (the radio's default)
        pod["gpu_mode"] = ""
        pod["gpu_selectors"] = "\n".join(design.gpu.selectors)
        pod["gpu_first_available"] = [
            {**alt, "selectors": "\n".join(alt["selectors"])} for alt in pod["gpu_first_available"]
        ]
    else:
        # Not on the page without a claim (a device plugin design's address stays as it was).
        for name in DRA_CHOICES:
            pod.pop(f"gpu_{name}", None)
    containers = []
    for c in design.containers:
        data = c.model_dump(exclude={"extra", "base"})
        data["extra"] = format_extra(c.extra)
        data["base"] = encode_blob(c.base)
        containers.append(data)
    return pod, containers


def design_query(design: Design) -> dict[str, str]:
    """The design as GET parameters: what the address bar holds and the form submits."""
    pod, containers = design_initial(design)
    query: dict[str, str] = {}
    for key, value in pod.items():
        if isinstance(value, bool):
            if value:
                query[key] = "on"
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            if value:
                query[key] = ",".join(value)  # container names (NamesInput reads both forms)
        elif isinstance(value, list):
            # Rows: every field of every row, blank ones too, so no row is lost.
            for i, row in enumerate(value):
                for name, item in row.items():
                    query[f"{key}-{i}-{name}"] = str(item)
        elif value not in (None, ""):
            query[key] = str(value)
    query["c-TOTAL_FORMS"] = str(len(containers))
    query["c-INITIAL_FORMS"] = "0"
    for i, data in enumerate(containers):
        for key, value in data.items():
            if value not in (None, ""):
                query[f"c-{i}-{key}"] = str(value)
    return query


def design_from_forms(pod_form: PodForm, formset: Any) -> Design | None:
    """Build the design from valid forms; None when any form is invalid."""
    if not pod_form.is_valid() or not formset.is_valid():
        return None
    return _design(pod_form.cleaned_data, [dict(f.cleaned_data) for f in formset.forms])


def _design(pod: dict[str, Any], container_data: list[dict[str, Any]]) -> Design | None:
    containers = [ContainerDesign(**data) for data in container_data]
    if pod.get("gpu_source") == "dra":
        # The DRA claim replaces the device plugin's sharing modes (whose select is then
        # not on the page).
        pod = {**pod, "gpu_mode": DRA_MODE}
    try:
        return Design(
            workload=pod["workload"],
            size=pod["size"] or "custom",
            name=pod["name"],
            namespace=pod["namespace"],
            labels=pod["labels"],
            priority_class_name=pod["priority_class_name"],
            restart_policy=pod["restart_policy"],
            gpu_toleration=pod["gpu_toleration"],
            node_selector=pod["node_selector"],
            shm_size=pod["shm_size"],
            containers=containers,
            base=pod["base"],
            origin=Origin(id=pod["origin"]) if pod.get("origin") else None,
            **{
                group: model(**_group_values(group, model, pod))
                for group, model in CHOICE_GROUPS.items()
            },
        )
    except ValidationError:
        return None


# --- the live update's fast path ----------------------------------------------------------


class _Fallback(Exception):
    """The query has something only the full forms can report (an error, an odd value)."""


def _clean_form(form_class: type[forms.Form], data: QueryDict, prefix: str) -> dict[str, Any]:
    """What ``form_class(data, prefix=...).cleaned_data`` holds, computed with the form's own
    field classes (``Field.clean``, the widgets' ``value_from_datadict`` and the form's
    ``clean_<name>`` methods, exactly as BaseForm._clean_fields calls them) but without
    building a form, which deep-copies every field. Raises _Fallback on any error."""
    cleaned: dict[str, Any] = {}
    for name, field in form_class.base_fields.items():
        key = f"{prefix}-{name}" if prefix else name
        value = field.widget.value_from_datadict(data, {}, key)
        try:
            cleaned[name] = field.clean(value)
        except forms.ValidationError:
            raise _Fallback from None
        method = getattr(form_class, f"clean_{name}", None)
        if method is not None:
            holder = _Cleaned(cleaned)
            try:
                cleaned[name] = method(holder)
            except forms.ValidationError:
                raise _Fallback from None
    return cleaned


class _Cleaned:
    """Stands in for a form in its ``clean_<name>`` methods, which read ``cleaned_data``."""

    def __init__(self, cleaned: dict[str, Any]) -> None:
        self.cleaned_data = cleaned


def design_from_query(data: QueryDict) -> Design | None:
    """The design a full designer query describes, without building the forms: the live
    update's fast path. None when building the forms is needed to say what is wrong (or to
    be sure of the answer); otherwise exactly ``design_from_forms(PodForm(data),
    ContainerFormSet(data, prefix="c"))`` (tests/web/test_forms_fast_path.py checks it)."""
    try:
        total = data.get("c-TOTAL_FORMS", "")
        initial = data.get("c-INITIAL_FORMS", "")
        if not (total.isascii() and total.isdigit() and initial == "0"):
            raise _Fallback
        count = int(total)
        if not 1 <= count <= MAX_CONTAINERS:
            raise _Fallback
        pod = _clean_form(PodForm, data, "")
        containers = []
        for i in range(count):
            if not any(key.startswith(f"c-{i}-") for key in data):
                raise _Fallback  # an untouched extra form: the formset skips it
            containers.append(_clean_form(ContainerForm, data, f"c-{i}"))
        if not any(c.get("role") == "app" for c in containers):
            raise _Fallback
    except _Fallback:
        return None
    return _design(pod, containers)


# --- the user's edited fields (the hidden "touched" field) --------------------------------

_TOUCHED_CONTAINER = re.compile(r"^c-(\d+)-(\w+)$")
_ENGINE_CONTAINER = re.compile(r"^containers\[(\d+)\]\.(\w+)$")


def touched_keys(text: str) -> frozenset[str]:
    """The engine's keys ("name", "containers[0].cpu_request") for the form field names the
    page lists as edited ("name", "c-0-cpu_request"); names that are no field are ignored."""
    keys = set()
    for name in text.split(","):
        name = name.strip()
        match = _TOUCHED_CONTAINER.match(name)
        if match and match.group(2) in ContainerForm.base_fields:
            keys.add(f"containers[{int(match.group(1))}].{match.group(2)}")
        elif name in PodForm.base_fields:
            keys.add(name)
    return frozenset(keys)


def touched_text(keys: frozenset[str] | set[str]) -> str:
    """The inverse of touched_keys: form field names, comma separated, in a stable order."""
    names = []
    for key in keys:
        match = _ENGINE_CONTAINER.match(key)
        names.append(f"c-{match.group(1)}-{match.group(2)}" if match else key)
    return ",".join(sorted(names))


def field_label(key: str) -> Any:
    """The form label of an engine key ("containers[0].cpu_request" → "CPU request")."""
    match = _ENGINE_CONTAINER.match(key)
    fields = ContainerForm.base_fields if match else PodForm.base_fields
    field = fields.get(match.group(2) if match else key)
    return field.label if field is not None else key


# --- the cluster: the Kubernetes version and the namespace's policy ---------------------------

# The pasted policy travels in the query string like the rest of the page (a share link
# keeps it in the database): kubectl's own output of a namespace's LimitRanges and quotas is
# a few KB. Servers cap a request line (gunicorn: 8190 bytes with `make serve`).
MAX_POLICY_CHARS = 50_000


@dataclass(frozen=True)
class Cluster:
    """What the page answers for besides the design: the cluster's Kubernetes release and
    its namespace's LimitRanges/ResourceQuotas (pasted text). It describes the cluster, not
    the pod, so it is not part of the Design: the address and share links carry it beside."""

    kubernetes_version: str = DEFAULT_VERSION
    namespace_policy: str = ""

    @property
    def has_policy(self) -> bool:
        return bool(self.namespace_policy.strip())


class ClusterForm(LiveForm):
    kubernetes_version = forms.ChoiceField(
        label=_("Kubernetes version"),
        choices=[(v, v) for v in reversed(SUPPORTED_VERSIONS)],
        initial=DEFAULT_VERSION,
        required=False,
        help_text=_("Answers follow the API server and kubelet of this release."),
    )
    namespace_policy = forms.CharField(
        label=_("LimitRanges and ResourceQuotas of the namespace"),
        required=False,
        strip=False,  # YAML: the first line's indentation is part of the text
        max_length=MAX_POLICY_CHARS,
        widget=forms.Textarea(
            attrs={
                "rows": 6,
                "spellcheck": "false",
                "autocomplete": "off",
                "placeholder": "kubectl get limitrange,resourcequota -n team -o yaml",
            }
        ),
        help_text=_(
            "Paste them (YAML or JSON, Lists included): the results show the pod as the "
            "namespace's admission lets it in. They apply in the pod's namespace; objects "
            "that name none are in it."
        ),
    )

    def clean_kubernetes_version(self) -> str:
        return self.cleaned_data["kubernetes_version"] or DEFAULT_VERSION


def cluster_initial(cluster: Cluster) -> dict[str, str]:
    return {
        "kubernetes_version": cluster.kubernetes_version,
        "namespace_policy": cluster.namespace_policy,
    }


def cluster_query(cluster: Cluster) -> dict[str, str]:
    """The cluster as GET parameters, after the design's: the version always (a link keeps
    the release it was made for), the policy when there is one."""
    query = {"kubernetes_version": cluster.kubernetes_version}
    if cluster.has_policy:
        query["namespace_policy"] = cluster.namespace_policy
    return query


def page_query(design: Design, cluster: Cluster) -> dict[str, str]:
    """The whole page as GET parameters: what the address bar holds and the form submits."""
    return {**design_query(design), **cluster_query(cluster)}


def cluster_from_forms(form: ClusterForm) -> Cluster:
    """The cluster of a bound form; a field with an error (the form says which) takes its
    default, so the page still answers."""
    form.is_valid()
    cleaned = form.cleaned_data
    return Cluster(
        cleaned.get("kubernetes_version") or DEFAULT_VERSION,
        cleaned.get("namespace_policy") or "",
    )


def cluster_from_query(data: QueryDict) -> Cluster | None:
    """The cluster of a query without building the form (the live update's fast path); None
    when the form must say what is wrong. Exactly ``cluster_from_forms(ClusterForm(data))``
    otherwise."""
    try:
        cleaned = _clean_form(ClusterForm, data, "")
    except _Fallback:
        return None
    return Cluster(cleaned["kubernetes_version"], cleaned["namespace_policy"])


# Engine resource names → container form fields (request, limit).
RESOURCE_FIELDS = {
    "cpu": ("cpu_request", "cpu_limit"),
    "memory": ("memory_request", "memory_limit"),
    "ephemeral-storage": ("ephemeral_request", "ephemeral_limit"),
}
POD_FIELDS = {
    "metadata.name": "name",
    "metadata.namespace": "namespace",
    "metadata.labels": "labels",
    "spec.restartPolicy": "restart_policy",
    "spec.priorityClassName": "priority_class_name",
    "spec.nodeSelector": "node_selector",
    "spec.volumes": "shm_size",
    "spec.tolerations": "gpu_toleration",
    "spec.resourceClaims": "gpu_source",  # a DRA claim (issue 11: not written to an origin)
}
CONTAINER_PATH = re.compile(
    r"^(spec\.(?:containers|initContainers)\[\d+\])(?:\.(\w+))?(?:\.(requests|limits))?(?:\[([^\]]+)\])?"
)


def field_for_choice(key: str) -> str:
    """A planning problem key ("node.manifest") as its PodForm field ("node_manifest")."""
    group, _sep, name = key.partition(".")
    return f"{group}_{name}"


def field_for_path(
    design: Design, path: str, resource: str | None = None
) -> tuple[int | None, str]:
    """Where an engine field path shows on the form: (container index or None, field name).

    Unmapped paths come back as (None, "") or (index, ""): shown at the top of the pod or
    of that container, never dropped.
    """
    match = CONTAINER_PATH.match(path)
    if not match:
        for prefix, name in POD_FIELDS.items():
            if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
                return None, name
        return None, ""
    container_path, attr, kind, key = match.groups()
    paths = design.container_paths()
    if container_path not in paths:
        return None, ""
    index = paths.index(container_path)
    if attr in ("name", "image", "command"):
        return index, attr
    if attr == "restartPolicy":
        return index, "role"
    if attr != "resources":
        return index, ""
    if kind and not key:
        # An error on a whole requests/limits map (request > limit) names its resource.
        key = resource
    if not key:
        return index, ""
    column = 0 if kind == "requests" else 1
    if key in RESOURCE_FIELDS:
        return index, RESOURCE_FIELDS[key][column]
    if key == (design.containers[index].gpu_resource.strip() or "nvidia.com/gpu"):
        return index, "gpus"
    return index, "extra"
