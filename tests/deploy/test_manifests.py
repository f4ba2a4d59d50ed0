"""deploy/: the designer deployed on Kubernetes by its own YAML.

Every manifest passes the official schema strictly (kubernetes-validate) and ``podspec check``
with no error; the workloads' resources are what the designer renders for the designs the
README links (so the README, the files and the designer cannot drift apart).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import kubernetes_validate
import pytest
import yaml

from designer.analyze import pod_from_template
from designer.forms import design_query
from designer.k8s.check import check_text, pod_template_manifest
from designer.k8s.design import (
    Design,
    ExportSettings,
    HeadroomChoice,
    design_action,
    design_from_pod,
    render_design,
)

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KUBERNETES = "1.37.0"

# How each workload was sized with the designer: the workload type, the export, and the
# memory peak measured for it (bench/load.py and the README's figures), plus 25% headroom.
DESIGNS: dict[str, dict[str, Any]] = {
    "deployment.yaml": {
        "workload": "inference",
        "export": ExportSettings(
            kind="Deployment", replicas=2, hpa=True, hpa_min=2, hpa_max=6, hpa_cpu_utilization=70
        ),
        # 2 workers, each analyzing a 20 MB cluster dump at once: 2 x 620 MB + the master.
        "peak": "1300Mi",
        "also": ["hpa.yaml"],
    },
    "migrate-job.yaml": {
        "workload": "batch",
        "export": ExportSettings(
            kind="Job",
            backoff_limit=3,
            job_restart_policy="OnFailure",
            ttl_seconds_after_finished=86400,
        ),
        "peak": "100Mi",  # manage.py migrate: 76 MB on PostgreSQL
        "also": [],
    },
}


def resources() -> list[str]:
    kustomization = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
    return kustomization["resources"]


def without_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("#"))


def design_for(name: str) -> Design:
    spec = DESIGNS[name]
    objects, errors = check_text(name, (DEPLOY / name).read_text())
    assert errors == [] and len(objects) == 1
    pod = pod_from_template(pod_template_manifest(objects[0].workload))
    design = design_from_pod(pod, workload=spec["workload"])
    design.export = spec["export"]
    design.headroom = HeadroomChoice(peak=spec["peak"], percent="25")
    return design_action(design, "headroom")


def test_kustomization_lists_every_manifest_in_deploy() -> None:
    files = {p.name for p in DEPLOY.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(resources()) == files


@pytest.mark.parametrize("name", resources())
def test_every_manifest_passes_the_kubernetes_schema_strictly(name: str) -> None:
    for document in yaml.safe_load_all((DEPLOY / name).read_text()):
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_podspec_check_finds_no_error_and_guaranteed_workloads() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "podspec", "check", "--format", "json"]
        + [str(DEPLOY / name) for name in resources()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == []
    workloads = {(o["kind"], o["name"]): o for o in report["objects"]}
    assert set(workloads) == {
        ("Deployment", "pod-resource-designer"),
        ("Job", "pod-resource-designer-migrate"),
    }
    for obj in workloads.values():
        assert obj["errors"] == [] and obj["warnings"] == []
        assert obj["qosClass"] == "Guaranteed"


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_the_workloads_are_what_the_designer_renders_for_their_design(name: str) -> None:
    rendered = render_design(design_for(name))
    assert rendered.ok and rendered.report.errors == []
    assert rendered.report.qos.qos_class == "Guaranteed"
    expected = "---\n".join(
        without_comments((DEPLOY / f).read_text()) for f in [name, *DESIGNS[name]["also"]]
    )
    assert rendered.yaml == expected


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_the_readme_links_each_design(name: str) -> None:
    link = "/?" + urlencode(design_query(design_for(name)))
    assert len(link) < 4000, "a designer address this long needs a share link"
    assert link in (ROOT / "README.md").read_text(), f"README.md should link {name}: {link}"
