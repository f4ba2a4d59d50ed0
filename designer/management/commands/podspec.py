"""The engine on the command line.

``manage.py podspec check [--format text|json] FILE...``: exit 0 when no object has errors,
1 when any has, 2 when an input cannot be read at all.
``manage.py podspec render [--kind K] [--format yaml|json] FILE``: a design (the JSON of
``POST /api/v1/render``) or a manifest's pod, as the YAML the designer would download.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
from django.core.management.base import BaseCommand, CommandParser
from pydantic import ValidationError

from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS, pod_from_parts
from designer.k8s.check import check_texts, pod_template_manifest
from designer.k8s.core import ERROR_TYPE_TEXT
from designer.k8s.design import (
    EXPORT_KINDS,
    WORKLOAD_TYPES,
    Design,
    design_from_pod,
    render_design,
    workload_of_kind,
)
from designer.k8s.manifest import MAX_INPUT_BYTES, load

# The web and API cap input at 20 MB; a local file may be a much larger cluster dump.
CLI_MAX_BYTES = 512 * 1024 * 1024


class Command(BaseCommand):
    help = "Check the resources of Kubernetes manifests as the API server and kubelet would."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        check = sub.add_parser(
            "check", help="Report QoS, effective resources, errors and warnings."
        )
        check.add_argument("files", nargs="+", metavar="FILE", help="manifest files; - reads stdin")
        check.add_argument("--format", choices=("text", "json"), default="text")
        check.add_argument(
            "--kubernetes-version",
            choices=SUPPORTED_VERSIONS,
            default=DEFAULT_VERSION,
            help=f"answer as a cluster of this release would (default: {DEFAULT_VERSION})",
        )
        check.add_argument(
            "-n",
            "--namespace",
            help="namespace of objects that name none (default: default), as kubectl apply -n",
        )
        render = sub.add_parser(
            "render",
            help="Render a design (the JSON of POST /api/v1/render) or a pod manifest as YAML.",
        )
        render.add_argument("file", metavar="FILE", help="design JSON or a manifest; - reads stdin")
        render.add_argument(
            "--kind",
            choices=tuple(EXPORT_KINDS),
            help="export as this kind (default: the design's choice, else by workload type)",
        )
        render.add_argument(
            "--workload",
            choices=tuple(WORKLOAD_TYPES),
            help="workload type for a manifest input (default: training)",
        )
        render.add_argument("--format", choices=("yaml", "json"), default="yaml")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "render":
            self.render(options)
            return
        inputs: list[tuple[str, bytes]] = []
        unreadable = False
        for name in options["files"]:
            try:
                if name == "-":
                    data = sys.stdin.buffer.read(CLI_MAX_BYTES + 1)
                else:
                    with Path(name).open("rb") as handle:
                        data = handle.read(CLI_MAX_BYTES + 1)
            except OSError as exc:
                self.stderr.write(f"{name}: {exc.strerror or exc}")
                unreadable = True
                continue
            inputs.append((name if name != "-" else "<stdin>", data))
        result = check_texts(
            inputs,
            max_bytes=CLI_MAX_BYTES,
            kubernetes_version=options["kubernetes_version"],
            namespace=options.get("namespace"),
        )
        if options["format"] == "json":
            # orjson prints what json.dumps(indent=2, ensure_ascii=False) does, much faster
            # for a whole-cluster report.
            self.stdout.write(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
        else:
            self.stdout.write(format_text(result))
        # 2: some input could not be read at all (missing, not text, too large, or not one
        # document of it parses); 1: an object has errors or a document could not be read.
        files_with_objects = {o["file"] for o in result["objects"]}
        if unreadable or any(
            e["document"] is None or e["file"] not in files_with_objects for e in result["errors"]
        ):
            sys.exit(2)
        if (
            result["errors"]
            or any(o["errors"] for o in [*result["objects"], *result.get("draObjects", [])])
            or any(not _admitted(o) for o in result["objects"])
            or any(not p["applied"] for p in result.get("policies", []))
        ):
            sys.exit(1)

    def render(self, options: dict[str, Any]) -> None:
        """Exit 0 when the rendered objects have no errors, 1 when they have, 2 when the input
        is neither a design nor a manifest with a pod."""
        name = options["file"]
        try:
            if name == "-":
                data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
            else:
                with Path(name).open("rb") as handle:
                    data = handle.read(MAX_INPUT_BYTES + 1)
            design = design_from_input(data, options.get("workload"))
            if options.get("kind"):
                design.export.kind = options["kind"]
            rendered = render_design(design)
        except (OSError, ValueError) as exc:
            self.stderr.write(f"{name}: {getattr(exc, 'strerror', None) or exc}")
            sys.exit(2)
        if options["format"] == "json":
            self.stdout.write(json.dumps(rendered.as_dict(), indent=2, ensure_ascii=False))
        else:
            self.stdout.write(rendered.yaml, ending="")
            for problem in rendered.report.errors:
                self.stderr.write(f"error: {problem}")
            for problem in rendered.object_errors:
                self.stderr.write(f"error: {problem.kind} {problem.problem}")
        if not rendered.ok:
            sys.exit(1)


def design_from_input(data: bytes, workload: str | None) -> Design:
    """A design from its JSON, or from the first workload of a manifest (YAML or JSON)."""
    try:
        return Design.model_validate_json(data)
    except ValidationError as exc:
        design_error = exc
    workloads, errors = load(data)
    if not workloads:
        reason = errors[0].message if errors else str(design_error.errors()[0]["msg"])
        raise ValueError(f"neither a design nor a manifest with a pod: {reason}")
    first = workloads[0]
    manifest = pod_template_manifest(first)
    pod, problems = pod_from_parts(manifest["metadata"], manifest["spec"])
    if pod is None:
        raise ValueError(str(problems[0]))
    return design_from_pod(pod, workload or workload_of_kind(first.kind))


def _pods(obj: dict[str, Any]) -> str:
    """How many pods a template stands for, as the text output says it."""
    if obj.get("replicas") is not None:
        return f"{obj['replicas']} pod(s)"
    low, high = obj.get("replicasMin"), obj.get("replicasMax")
    if low is not None or high is not None:
        return f"{low if low is not None else 0}..{high if high is not None else '?'} pod(s)"
    return "pods: not fixed by the object"


def _admitted(obj: dict[str, Any]) -> bool:
    admission = obj.get("admission")
    return admission is None or admission["allowed"]


def format_admission(obj: dict[str, Any]) -> list[str]:
    """The lines for an object's admission and version notes (the JSON's English)."""
    lines: list[str] = []
    admission = obj.get("admission")
    if admission:
        qos = admission["qosClass"] or "unknown"
        change = f" ({admission['qosChange']})" if admission["qosChange"] else ""
        lines.append(f"  admitted: QoS {qos}{change}")
        for d in admission["defaulted"]:
            lines.append(f"  defaulted: {d['field']}={d['value']} (from {d['from']})")
        for name, value in admission["annotations"].items():
            lines.append(f"  annotation: {name}: {value}")
        for d in admission["denials"]:
            where = f" ({d['object']})" if d["object"] else ""
            pod = f", pod {d['replica']}" if d.get("replica") else ""
            text = d["apiServerMessage"] or d["message"]
            lines.append(f"  denied by {d['plugin']}{where}{pod}: {text}")
        quota = admission["quota"]
        if quota:
            if quota["fits"] is None:
                lines.append("  quota: no matching quota limits what this pod uses")
            else:
                lines.append(
                    f"  quota: fits {quota['fits']} more (of {quota['replicas']} wanted); "
                    f"bottleneck {quota['bottleneck']} in {quota['object']}"
                )
    for note in obj.get("versionNotes", []):
        lines.append(f"  version: {note['field']}: {note['message']}")
    return lines


def format_policies(result: dict[str, Any]) -> list[str]:
    lines = []
    for p in result.get("policies", []):
        where = f"{p['file']}#{p['document']}" + (f" {p['path']}" if p["path"] else "")
        name = f"{p['namespace']}/{p['name'] or '<unnamed>'}"
        if p["applied"]:
            lines.append(f"{p['kind']} {name} ({where}): applied")
        else:
            lines.append(f"{p['kind']} {name} ({where}): not applied: {p['message']}")
    return lines


def format_text(result: dict[str, Any]) -> str:
    lines: list[str] = []
    for obj in result["objects"]:
        name = (
            f"{obj['namespace']}/{obj['name']}" if obj["namespace"] else obj["name"] or "<unnamed>"
        )
        where = f"{obj['file']}#{obj['document']}" + (f" {obj['path']}" if obj["path"] else "")
        template = obj.get("template") or ""
        if template:
            where += f" {template}"
        shape = " (found by shape)" if obj.get("foundBy") == "shape" else ""
        lines.append(
            f"{obj['kind']} {name} ({where}){shape}: QoS {obj['qosClass'] or 'unknown'}, "
            f"{_pods(obj)}"
        )
        requests = ", ".join(f"{k}={v}" for k, v in obj["effectiveRequests"].items()) or "none"
        limits = ", ".join(f"{k}={v}" for k, v in obj["effectiveLimits"].items()) or "none"
        lines.append(f"  requests: {requests}")
        lines.append(f"  limits:   {limits}")
        for reason in obj["qosReasons"]:
            lines.append(f"  why: {reason}")
        for err in obj["errors"]:
            # The API server's wording: "Required value", "Invalid value: ...: <detail>".
            kind = ERROR_TYPE_TEXT.get(err.get("type", ""), err.get("type", ""))
            detail = (
                f"{kind}: {err['message']}" if kind and err["message"] else kind or err["message"]
            )
            origin = f" ({err['origin']})" if err.get("origin") else ""
            lines.append(f"  error: {err['field']}: {detail}{origin}")
        for warning in obj["warnings"]:
            origin = f" ({warning['origin']})" if warning.get("origin") else ""
            lines.append(f"  warning: {warning['field']}: {warning['message']}{origin}")
        for note in obj.get("notes") or []:
            lines.append(f"  note: {note['field']}: {note['message']} ({note['origin']})")
        for advice in obj.get("advice") or []:
            lines.append(f"  advice: {advice['message']}")
        lines += [f"  {line}" for line in claim_lines(obj.get("claims") or [])]
        lines += format_admission(obj)
    for skipped in result.get("skipped") or []:
        where = f"{skipped['file']}#{skipped['document']}"
        where += f" {skipped['path']}" if skipped["path"] else ""
        name = skipped["name"] or "<unnamed>"
        lines.append(f"{skipped['kind']} {name} ({where}): skipped: {skipped['reason']}")
    for dra in result.get("draObjects") or []:
        lines += dra_object_lines(dra)
    lines += format_policies(result)
    for err in result["errors"]:
        doc = "" if err["document"] is None else f" document {err['document']}"
        lines.append(f"{err['file']}{doc}: cannot read: {err['message']}")
    with_errors = sum(1 for o in result["objects"] if o["errors"])
    denied = sum(1 for o in result["objects"] if not _admitted(o))
    summary = (
        f"{len(result['objects'])} workload(s), {with_errors} with errors, "
        f"{len(result.get('skipped') or [])} without a pod template, "
        f"{len(result['errors'])} unreadable document(s)"
    )
    if result.get("draObjects"):
        dra_errors = sum(1 for o in result["draObjects"] if o["errors"])
        summary += (
            f", {len(result['draObjects'])} resource.k8s.io object(s), {dra_errors} with errors"
        )
    if result.get("policies"):
        summary += f", {denied} denied by admission"
    lines.append(summary + f" (Kubernetes {result.get('kubernetesVersion', DEFAULT_VERSION)})")
    return "\n".join(lines)


SOURCE_KINDS = {"template": "ResourceClaimTemplate", "claim": "ResourceClaim"}


def claim_lines(claims: list[dict[str, Any]]) -> list[str]:
    """``claim gpu: ResourceClaimTemplate two-gpus, 2 device(s) of gpu.nvidia.com, for main``."""
    lines = []
    for claim in claims:
        if claim["source"] == "extendedResource":
            head = (
                f"claim via {claim['resource']}: DeviceClass {claim['object']} may serve "
                f"{claim['count']} device(s), for {', '.join(claim['containers'])}"
            )
        else:
            kind = SOURCE_KINDS.get(claim["source"], "?")
            head = f"claim {claim['name']}: {kind} {claim['object']}"
            if not claim["found"]:
                head += " (not in the input)"
            else:
                count = "all matching" if claim["count"] is None else str(claim["count"])
                head += f", {count} device(s) of {claim['deviceClass'] or 'several classes'}"
            if claim["containers"]:
                head += f", for {', '.join(claim['containers'])}"
        lines.append(head)
        lines += [f"  note: {note}" for note in claim["notes"]]
    return lines


def dra_object_lines(obj: dict[str, Any]) -> list[str]:
    name = f"{obj['namespace']}/{obj['name']}" if obj["namespace"] else obj["name"] or "<unnamed>"
    where = f"{obj['file']}#{obj['document']}" + (f" {obj['path']}" if obj["path"] else "")
    users = [
        f"{u['kind']} {u['name']}" + (f" (claim {u['claim']})" if u.get("claim") else "")
        for u in obj["usedBy"]
    ]
    lines = [
        f"{obj['kind']} {name} ({where}): used by {', '.join(users) or 'nothing in the input'}"
    ]
    for err in obj["errors"]:
        kind = ERROR_TYPE_TEXT.get(err["type"], err["type"])
        detail = f"{kind}: {err['message']}" if err["message"] else kind
        lines.append(f"  error: {err['field']}: {detail}")
    for warning in obj["warnings"]:
        lines.append(f"  warning: {warning['field']}: {warning['message']}")
    return lines
