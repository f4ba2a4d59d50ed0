"""Vendor the CRD schemas the export kinds are validated against.

    python tools/vendor_crds.py /path/to/crds   # a folder of <group>/<Kind>.yaml CRDs

For each kind in ``KINDS``, takes the ``openAPIV3Schema`` of the version the product exports,
drops the ``description`` texts (validation does not read them) and writes
``designer/k8s/design/crds/<group>/<Kind>.json`` (sorted keys), recording the sha256 of the
source CRD file in ``designer/k8s/design/crds/sources.json`` so the copy can be checked
against the upstream file (SOURCES.md names the repository, commit and path of each).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[1] / "designer" / "k8s" / "design" / "crds"
KINDS = (
    ("kubeflow.org", "PyTorchJob", "v1"),
    ("trainer.kubeflow.org", "TrainJob", "v1alpha1"),
    ("jobset.x-k8s.io", "JobSet", "v1alpha2"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet", "v1"),
    ("ray.io", "RayCluster", "v1"),
    ("serving.kserve.io", "InferenceService", "v1beta1"),
)


def without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: without_descriptions(v)
            for k, v in node.items()
            # "description" is a text, unless it is a property named so.
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [without_descriptions(v) for v in node]
    return node


def main(source: Path) -> None:
    sources = {}
    for group, kind, version in KINDS:
        raw = (source / group / f"{kind}.yaml").read_bytes()
        crd = yaml.load(raw, Loader=yaml.CSafeLoader)
        (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
        schema = without_descriptions(served["schema"]["openAPIV3Schema"])
        out = OUT / group / f"{kind}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(schema, sort_keys=True, separators=(",", ":")) + "\n")
        sources[f"{group}/{kind}"] = {
            "version": version,
            "crd_sha256": hashlib.sha256(raw).hexdigest(),
        }
    (OUT / "sources.json").write_text(json.dumps(sources, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
