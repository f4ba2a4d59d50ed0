"""The engine on the command line.

``manage.py podspec check [--format text|json] [--jobs N] FILE...``: exit 0 when no object
has errors, 1 when any has, 2 when an input cannot be read at all. Large dumps are checked
a slice of pods at a time on N processes (check.stream); each slice's part of the report is
written where it is checked (the workers send text, not entries) and the report written
once every slice is checked.
``manage.py podspec render [--kind K] [--format yaml|json] FILE``: a design (the JSON of
``POST /api/v1/render``) or a manifest's pod, as the YAML the designer would download.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from django.core.management.base import BaseCommand, CommandParser
from pydantic import ValidationError

from designer.cpus import default_jobs
from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS, pod_from_parts
from designer.k8s.check import CheckStream, pod_template_manifest
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
            "-j",
            "--jobs",
            type=_positive_int,
            default=default_jobs(),
            help="processes that check slices of large dumps and files at once (default: the "
            "machine's cores); the report is the same for any N",
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
        stream = CheckStream(
            inputs,
            max_bytes=CLI_MAX_BYTES,
            kubernetes_version=options["kubernetes_version"],
            namespace=options.get("namespace"),
            jobs=options["jobs"],
        )
        counts = Counts()
        if options["format"] == "json":
            write_json(counts.watch(stream.chunks(json_chunk)), stream.rest, self.stdout)
        else:
            write_text(counts.watch(stream.chunks(text_chunk)), stream.rest, counts, self.stdout)
        rest = stream.rest()
        # 2: some input could not be read at all (missing, not text, too large, or not one
        # document of it parses); 1: an object has errors or a document could not be read.
        if unreadable or any(
            e["document"] is None or e["file"] not in counts.files for e in rest["errors"]
        ):
            sys.exit(2)
        if (
            rest["errors"]
            or counts.with_errors
            or any(o["errors"] for o in rest.get("draObjects", []))
            or counts.denied
            or any(not p["applied"] for p in rest.get("policies", []))
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


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


class Chunk(NamedTuple):
    """A slice's part of the report, written by the process that checked it, and what the
    exit code and the summary count of its objects."""

    text: str
    objects: int
    with_errors: int
    denied: int
    files: frozenset[str]


def _chunk(text: str, objects: list[dict[str, Any]]) -> Chunk:
    return Chunk(
        text,
        len(objects),
        sum(1 for o in objects if o["errors"]),
        sum(1 for o in objects if not _admitted(o)),
        frozenset(o["file"] for o in objects),
    )


def json_chunk(objects: list[dict[str, Any]]) -> Chunk:
    """The entries as write_json writes them (``orjson.dumps(document, OPT_INDENT_2)``'s
    lines for them), joined."""
    if not objects:
        return _chunk("", objects)
    # The list at once ("[\n  {...},\n  {...}\n]"), its items moved in by two more columns.
    listed = orjson.dumps(objects, option=orjson.OPT_INDENT_2)
    return _chunk(listed[4:-2].replace(b"\n", b"\n  ").decode(), objects)


def text_chunk(objects: list[dict[str, Any]]) -> Chunk:
    """The entries' lines of the text report."""
    return _chunk("\n".join("\n".join(object_lines(o)) for o in objects), objects)


class Counts:
    """What the exit code and the text summary need of the objects, counted as they pass."""

    def __init__(self) -> None:
        self.objects = 0
        self.with_errors = 0
        self.denied = 0
        self.files: set[str] = set()

    def watch(self, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        for chunk in chunks:
            self.objects += chunk.objects
            self.with_errors += chunk.with_errors
            self.denied += chunk.denied
            self.files |= chunk.files
            yield chunk


# Chunks are written in batches of at least this many characters (a 100,000-pod report is
# 100 MB).
WRITE_BATCH = 1 << 20


def write_json(chunks: Iterator[Chunk], rest: Callable[[], dict[str, Any]], out: Any) -> None:
    """``orjson.dumps(document, option=OPT_INDENT_2)`` plus a newline, byte for byte,
    written a chunk at a time: the document is never held whole."""
    batch: list[str] = ['{\n  "objects": [']
    size = 0
    first = True
    for chunk in chunks:
        if not chunk.objects:
            continue
        batch += ["\n    " if first else ",\n    ", chunk.text]
        first = False
        size += len(chunk.text)
        if size >= WRITE_BATCH:
            out.write("".join(batch), ending="")
            batch, size = [], 0
    batch.append("]" if first else "\n  ]")
    tail = orjson.dumps(rest(), option=orjson.OPT_INDENT_2).decode()
    batch.append(",\n" + tail[2:] if tail != "{}" else "\n}")
    out.write("".join(batch))


def write_text(
    chunks: Iterator[Chunk],
    rest: Callable[[], dict[str, Any]],
    counts: Counts,
    out: Any,
) -> None:
    """format_text's report, written a chunk at a time."""
    batch: list[str] = []
    size = 0
    for chunk in chunks:
        if not chunk.objects:
            continue
        batch.append(chunk.text)
        size += len(chunk.text)
        if size >= WRITE_BATCH:
            out.write("\n".join(batch), ending="\n")
            batch, size = [], 0
    batch += tail_lines(rest(), counts.objects, counts.with_errors, counts.denied)
    out.write("\n".join(batch))


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
    """The text report of a whole check_texts document."""
    lines: list[str] = []
    for obj in result["objects"]:
        lines += object_lines(obj)
    objects = result["objects"]
    with_errors = sum(1 for o in objects if o["errors"])
    denied = sum(1 for o in objects if not _admitted(o))
    return "\n".join(lines + tail_lines(result, len(objects), with_errors, denied))


def object_lines(obj: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    name = f"{obj['namespace']}/{obj['name']}" if obj["namespace"] else obj["name"] or "<unnamed>"
    where = f"{obj['file']}#{obj['document']}" + (f" {obj['path']}" if obj["path"] else "")
    template = obj.get("template") or ""
    if template:
        where += f" {template}"
    shape = " (found by shape)" if obj.get("foundBy") == "shape" else ""
    lines.append(
        f"{obj['kind']} {name} ({where}){shape}: QoS {obj['qosClass'] or 'unknown'}, {_pods(obj)}"
    )
    requests = ", ".join(f"{k}={v}" for k, v in obj["effectiveRequests"].items()) or "none"
    limits = ", ".join(f"{k}={v}" for k, v in obj["effectiveLimits"].items()) or "none"
    lines.append(f"  requests: {requests}")
    lines.append(f"  limits:   {limits}")
    for reason in obj["qosReasons"]:
        lines.append(f"  why: {reason}")
    for err in obj["errors"]:
        # The API server's wording: "Required value", 'Invalid value: "2Gi": <detail>'.
        detail = err["text"]
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
    return lines


def tail_lines(result: dict[str, Any], objects: int, with_errors: int, denied: int) -> list[str]:
    """What follows the objects: skipped objects, DRA objects, policies, unreadable
    documents and the summary (``objects``, ``with_errors``, ``denied``: counted)."""
    lines: list[str] = []
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
    summary = (
        f"{objects} workload(s), {with_errors} with errors, "
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
    return lines


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
        lines.append(f"  error: {err['field']}: {err['text']}")
    for warning in obj["warnings"]:
        lines.append(f"  warning: {warning['field']}: {warning['message']}")
    return lines
