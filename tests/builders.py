"""Shared builders for the tests: a container, a pod, a quantity.

    pod([container("app", {"cpu": "1"}, {"cpu": "2"})], init=[...], resources={...})

``requests``/``limits`` of None leave the field out; an empty dict is kept (``requests: {}``),
which is a different pod for some rules.
"""

from __future__ import annotations

from typing import Any

from designer.k8s.core import Pod, Quantity


def container(
    name: str | None = "main",
    requests: dict[str, Any] | None = None,
    limits: dict[str, Any] | None = None,
    *,
    image: str | None = "busybox",
    **fields: Any,
) -> dict[str, Any]:
    """A container manifest; ``name``/``image`` None or "" leave the field out."""
    out: dict[str, Any] = {}
    if name:
        out["name"] = name
    if image:
        out["image"] = image
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    out["resources"] = resources
    out.update(fields)
    return out


def pod_spec(
    containers: list[dict[str, Any]],
    init: list[dict[str, Any]] | None = None,
    *,
    resources: dict[str, Any] | None = None,
    overhead: dict[str, Any] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": containers, **spec}
    if init is not None:
        body["initContainers"] = init
    if resources is not None:
        body["resources"] = resources
    if overhead is not None:
        body["overhead"] = overhead
    return body


def pod(
    containers: list[dict[str, Any]],
    init: list[dict[str, Any]] | None = None,
    *,
    resources: dict[str, Any] | None = None,
    overhead: dict[str, Any] | None = None,
    name: str | None = "p",
    **spec: Any,
) -> Pod:
    """A Pod model (metadata.name ``name`` unless None)."""
    body = pod_spec(containers, init, resources=resources, overhead=overhead, **spec)
    metadata = {"name": name} if name else {}
    return Pod.model_validate(
        {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": body}
    )


def q(text: str) -> Quantity:
    return Quantity.parse(text)


def pod_from_spec(spec: dict[str, Any], metadata: dict[str, Any] | None = None) -> Pod:
    """A Pod model from a whole spec (and metadata, default ``{"name": "p"}``)."""
    meta = {"name": "p"} if metadata is None else metadata
    return Pod.model_validate({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """The paths (``spec.containers[0].image``) where two manifests differ: keys one lacks,
    lists of other lengths, values not equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            here = f"{path}.{k}" if path else k
            out += [here] if k not in a or k not in b else differences(a[k], b[k], here)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for p in differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]
