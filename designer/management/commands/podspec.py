"""``manage.py podspec check [--format text|json] FILE...``: the engine on the command line.

Exit 0 when no object has errors, 1 when any has, 2 when an input cannot be read at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from designer.k8s.check import check_texts
from designer.k8s.manifest import MAX_INPUT_BYTES


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

    def handle(self, *args: Any, **options: Any) -> None:
        inputs: list[tuple[str, bytes]] = []
        unreadable = False
        for name in options["files"]:
            try:
                if name == "-":
                    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
                else:
                    with Path(name).open("rb") as handle:
                        data = handle.read(MAX_INPUT_BYTES + 1)
            except OSError as exc:
                self.stderr.write(f"{name}: {exc.strerror or exc}")
                unreadable = True
                continue
            inputs.append((name if name != "-" else "<stdin>", data))
        result = check_texts(inputs)
        if options["format"] == "json":
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_text(result))
        if unreadable or any(e["document"] is None for e in result["errors"]):
            sys.exit(2)
        if any(o["errors"] for o in result["objects"]):
            sys.exit(1)


def format_text(result: dict[str, Any]) -> str:
    lines: list[str] = []
    for obj in result["objects"]:
        name = (
            f"{obj['namespace']}/{obj['name']}" if obj["namespace"] else obj["name"] or "<unnamed>"
        )
        where = f"{obj['file']}#{obj['document']}" + (f" {obj['path']}" if obj["path"] else "")
        lines.append(f"{obj['kind']} {name} ({where}): QoS {obj['qosClass'] or 'unknown'}")
        requests = ", ".join(f"{k}={v}" for k, v in obj["effectiveRequests"].items()) or "none"
        limits = ", ".join(f"{k}={v}" for k, v in obj["effectiveLimits"].items()) or "none"
        lines.append(f"  requests: {requests}")
        lines.append(f"  limits:   {limits}")
        for reason in obj["qosReasons"]:
            lines.append(f"  why: {reason}")
        for err in obj["errors"]:
            lines.append(f"  error: {err['field']}: {err['message']}")
        for warning in obj["warnings"]:
            lines.append(f"  warning: {warning['field']}: {warning['message']}")
    for err in result["errors"]:
        doc = "" if err["document"] is None else f" document {err['document']}"
        lines.append(f"{err['file']}{doc}: cannot read: {err['message']}")
    with_errors = sum(1 for o in result["objects"] if o["errors"])
    lines.append(
        f"{len(result['objects'])} workload(s), {with_errors} with errors, "
        f"{len(result['errors'])} unreadable document(s)"
    )
    return "\n".join(lines)
