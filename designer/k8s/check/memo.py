"""What a pod template's report depends on: the key under which a cluster dump's pods share
one report.

A ``kubectl get pods -A -o yaml`` dump repeats the resource-relevant projection of a pod
(its containers' names and resources, restartPolicy, init containers, overhead...) across
the pods of one ReplicaSet, but never the whole pod: every pod has its own name, uid,
generateName, pod-template-hash label, image tag (across rollouts), node, volumes and status.
The key keeps every field the checks read, and replaces the fields that differ from pod to
pod by what the checks make of them:

* a field no check reads (uid, resourceVersion, nodeName, volumes...) is left out; of the
  volumes, advice reads the memory-backed emptyDirs (with their index) and which volume is
  mounted at /dev/shm, so those stay;
* a field whose value only matters when it is invalid (the name, generateName, namespace,
  a label's value, an image) becomes ``True`` when it is valid (every valid value
  gets the same report) and ``[value]`` when it is not (its report names the value; the list
  keeps a ``true`` written in the manifest apart from a valid value).

So two pods with one key get the same report, message for message; the differential test
(tests/k8s/test_check_memo.py) checks it against a check without sharing.
"""

from __future__ import annotations

from typing import Any

import orjson

from designer.k8s.core import (
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
)
from designer.k8s.manifest import Workload
from designer.k8s.operators import LABELS_READ

# Set by the API server or by controllers, different on every pod, read by no check.
SKIPPED_METADATA = frozenset(
    {
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "ownerReferences",
        "managedFields",
        "generation",
        "selfLink",
    }
)
# The engine validates neither volumes nor node placement (a pod's projected service
# account token volume is named after the pod).
SKIPPED_SPEC = frozenset({"nodeName", "volumes", "hostname", "subdomain"})
SKIPPED_CONTAINER = frozenset({"volumeMounts"})


def _name_ok(value: Any) -> Any:
    """``True`` for a name the API server accepts (it reads nothing else in it)."""
    if isinstance(value, str) and value and not name_is_dns_subdomain(value):
        return True
    return [value]


def _generate_name_ok(value: Any) -> Any:
    if isinstance(value, str) and value and not name_is_dns_subdomain(value, prefix=True):
        return True
    return [value]


def _namespace_ok(value: Any) -> Any:
    if isinstance(value, str) and value and not name_is_dns_label(value):
        return True
    return [value]


def _labels(labels: Any) -> Any:
    """Label keys stay (they are validated as they are); a label's value only matters for
    its validity (pod-template-hash, controller-revision-hash, statefulset pod names and
    indexes differ on every pod) unless a rule reads it (Kueue's queue)."""
    if not isinstance(labels, dict):
        return labels
    out = {}
    for k, v in labels.items():
        if k not in LABELS_READ and isinstance(v, str) and not is_valid_label_value(v):
            out[k] = True
        else:
            out[k] = [v]
    return out


def _image_ok(value: Any) -> Any:
    """An image is only ever refused when missing or padded with whitespace (the API
    server's and the Training Operator's checks); any other image gets the same report."""
    if isinstance(value, str) and value and value == value.strip():
        return True
    return [value]


_METADATA = {
    "name": _name_ok,
    "generateName": _generate_name_ok,
    "namespace": _namespace_ok,
    "labels": _labels,
}


def _container(c: Any) -> Any:
    if not isinstance(c, dict):
        return c
    out = {}
    for k, v in c.items():
        if k == "image":
            out[k] = _image_ok(v)
        elif k not in SKIPPED_CONTAINER:
            out[k] = v
    mounts = c.get("volumeMounts")
    if isinstance(mounts, list):
        # Advice reads which volume is /dev/shm (design.advice).
        out["volumeMounts"] = [
            m for m in mounts if not isinstance(m, dict) or m.get("mountPath") in SHM_PATHS
        ]
    return out


SHM_PATHS = ("/dev/shm", "/dev/shm/")


def _memory_volumes(volumes: Any) -> Any:
    """The memory-backed emptyDirs with their index (advice names them by their path)."""
    if not isinstance(volumes, list):
        return volumes
    out = []
    for i, volume in enumerate(volumes):
        empty_dir = volume.get("emptyDir") if isinstance(volume, dict) else None
        if not isinstance(volume, dict) or (
            isinstance(empty_dir, dict) and empty_dir.get("medium") == "Memory"
        ):
            out.append([i, volume])
    return out


def memo_key(workload: Workload) -> bytes | None:
    """The bytes two workloads share exactly when their pod reports are equal (None: the
    workload cannot be keyed, e.g. a value JSON cannot hold; it is checked on its own)."""
    meta, spec = workload.pod_metadata, workload.pod_spec
    if not isinstance(meta, dict) or not isinstance(spec, dict):
        return None
    projected_meta = {}
    for k, v in meta.items():
        if k in SKIPPED_METADATA:
            continue
        project = _METADATA.get(k)
        projected_meta[k] = project(v) if project is not None else v
    projected_spec = {}
    for k, v in spec.items():
        if k == "volumes":
            projected_spec[k] = _memory_volumes(v)
            continue
        if k in SKIPPED_SPEC:
            continue
        if k in ("containers", "initContainers", "ephemeralContainers") and isinstance(v, list):
            projected_spec[k] = [_container(c) for c in v]
        else:
            projected_spec[k] = v
    try:
        # Without OPT_SORT_KEYS: the same pod written in another key order only misses the
        # memo (a dump writes every pod the same way). A key that is not a string (YAML's
        # ``true:``) raises: such a pod is checked on its own.
        key = orjson.dumps(
            [
                workload.kind == "Pod",
                workload.pod_spec_path,
                workload.metadata_path,
                projected_meta,
                projected_spec,
            ]
        )
    except (TypeError, orjson.JSONEncodeError):
        return None
    # orjson writes NaN and infinities as null: a key with a null might stand for either.
    return None if b"null" in key else key
