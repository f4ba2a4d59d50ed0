"""The operator side of ``podspec check``: where each pod template is in its object, how
many pods it stands for, the objects without one, and paths as they are written.

JSON keys this module adds to each entry of ``objects``:

* ``template``: the JSON path of the pod template in its document (``""`` for a Pod,
  ``spec.template``, ``spec.pytorchReplicaSpecs.Worker.template``, ``spec.predictor`` ...;
  for a TrainJob the field that configures the pods: ``spec.trainer``);
* ``replicas``: how many pods it stands for, ``null`` when the object does not say (an
  autoscaler, the node count or another object decides); ``replicasMin`` / ``replicasMax``:
  the bounds the object gives (``null`` when none); ``replicasFrom``: the fields it comes from;
* ``role`` (``Worker``, ``head``, ``leader``, ``predictor`` ...), ``foundBy`` (``kind``:
  from the kinds table; ``shape``: an unknown kind searched by shape), ``operator``;
* ``runtime`` for a TrainJob: the runtime its pods come from (``kind``, ``name``, and
  ``file``/``document`` in the input or ``builtin``, the Trainer manifest it is a copy of);
* ``notes``: what an operator or a GPU scheduler changes about the template's meaning
  (``field``, ``message``, ``origin``).

Errors and warnings of operators carry ``origin`` (who says so); the API server's have none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from designer.k8s.core import FieldError, FieldWarning
from designer.k8s.manifest import Skipped, Workload
from designer.k8s.operators import Finding


def template_section(w: Workload) -> dict[str, Any]:
    out: dict[str, Any] = {
        "template": w.template,
        **w.replicas.as_dict(),
        "role": w.role,
        "foundBy": w.found_by,
        "operator": w.record.operator if w.record is not None else "",
    }
    runtime = w.facts.get("runtime")
    if runtime:
        out["runtime"] = dict(runtime)
    return out


# Objects without a pod template that the check reads for something else: said so.
READ_AS = {
    "LimitRange": "a namespace policy (see policies)",
    "ResourceQuota": "a namespace policy (see policies)",
}
DRA_GROUP = "resource.k8s.io"


def skipped_entry(file: str, skipped: Skipped) -> dict[str, Any]:
    reason = skipped.reason_text
    obj = skipped.obj if isinstance(skipped.obj, dict) else {}
    api_version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    if api_version.rpartition("/")[0] == DRA_GROUP:
        reason += "; a Dynamic Resource Allocation object (see draObjects)"
    elif skipped.kind in READ_AS and api_version == "v1":
        reason += f"; {READ_AS[skipped.kind]}"
    return {
        "file": file,
        "document": skipped.document,
        "path": skipped.path,
        "kind": skipped.kind,
        "name": skipped.name,
        "reason": reason,
    }


@dataclass(frozen=True)
class PathRewriter:
    """Maps the paths of an assembled pod (KServe's inline container as containers[0], the
    TrainJob fields a runtime's node container takes, KubeRay's autoscaler) to where they
    are written. Without a map it returns what it is given."""

    pattern: re.Pattern[str] | None
    mapping: dict[str, str]

    def text(self, text: str) -> str:
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: self.mapping[m.group(0)], text)

    def error(self, e: FieldError) -> FieldError:
        if self.pattern is None:
            return e
        return FieldError(self.text(e.field), e.type, self.text(e.message), e.value)

    def warning(self, w: FieldWarning) -> FieldWarning:
        if self.pattern is None:
            return w
        return FieldWarning(self.text(w.field), self.text(w.message))

    def finding(self, f: Finding) -> Finding:
        if self.pattern is None:
            return f
        if isinstance(f.message, str):
            f = Finding(f.field, self.text(f.message), f.origin, f.type, f.value, f.severity)
        return f.with_field(self.text(f.field))


_NONE = PathRewriter(None, {})
_CACHE: dict[tuple[tuple[str, str], ...], PathRewriter] = {}


def path_rewriter(path_map: tuple[tuple[str, str], ...]) -> PathRewriter:
    if not path_map:
        return _NONE
    cached = _CACHE.get(path_map)
    if cached is None:
        keys = sorted((a for a, _b in path_map), key=len, reverse=True)
        # A path starts at a word boundary and ends where a path may end (".", "[", end).
        alternation = "|".join(re.escape(k) for k in keys)
        pattern = re.compile(rf"(?<![\w.\]])(?:{alternation})(?![\w])")
        cached = _CACHE[path_map] = PathRewriter(pattern, dict(path_map))
    return cached
