"""What a pod template's report depends on: the key under which a cluster dump's pods share
one report.

A ``kubectl get pods -A -o yaml`` dump repeats the resource-relevant projection of a pod
(its containers' names and resources, restartPolicy, init containers, overhead...) across
the pods of one ReplicaSet, but never the whole pod: every pod has its own name, uid,
generateName, pod-template-hash label, image tag (across rollouts), node, volumes and status.
The key keeps every field the checks read, and replaces the fields that differ from pod to
pod by what the checks make of them:

* a field no check reads (uid, resourceVersion...) is left out; the volumes and mounts
  stay, but for the service account token volume's name (kube-api-access-<random>) and a
  claim's name (see _volumes);
* a field whose value only matters when it is invalid (the name, generateName, namespace,
  a label's value, an image, the nodeName, hostname and subdomain) becomes ``True`` when it
  is valid (every valid value gets the same report) and ``[value]`` when it is not (its
  report names the value; the list keeps a ``true`` written in the manifest apart from a
  valid value).

So two pods with one key get the same report, message for message; the differential test
(tests/k8s/check/test_check_memo.py) checks it against a check without sharing.
"""

from __future__ import annotations

import secrets
import string
from typing import Any

import orjson

from designer.k8s.core import (
    is_dns1123_label,
    is_dns1123_subdomain_ok,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
)
from designer.k8s.design import WORKLOAD_OF_KIND
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


class _Validity:
    """Whether the API server accepts a string, remembered for the strings that repeat from
    pod to pod (namespaces, generateNames, label values); bounded."""

    LIMIT = 65_536

    def __init__(self, check: Any) -> None:
        self.check = check
        self.known: dict[str, bool] = {}

    def __call__(self, value: Any) -> Any:
        """``True`` for a valid value, ``[value]`` otherwise (see the module docstring)."""
        if type(value) is not str:  # noqa: E721 (a str subclass is not what YAML gives)
            return [value]
        return True if self.valid(value) else [value]

    def valid(self, value: str) -> bool:
        """Whether the API server accepts the string."""
        ok = self.known.get(value)
        if ok is None:
            ok = bool(value) and not self.check(value)
            if len(self.known) >= self.LIMIT:
                self.known.clear()
            self.known[value] = ok
        return ok


_generate_name_ok = _Validity(lambda v: name_is_dns_subdomain(v, prefix=True))
_volume_name_ok = _Validity(is_dns1123_label).valid
# A pod's node (a mirror pod must name one), and its hostname and subdomain (a StatefulSet's
# pods are named after their pod): only their validity is read (apiserver.pod).
_SPEC_NAMES = (
    ("nodeName", _Validity(name_is_dns_subdomain)),
    ("hostname", _Validity(is_dns1123_label)),
    ("subdomain", _Validity(is_dns1123_label)),
)
_namespace_ok = _Validity(name_is_dns_label)
_label_value_ok = _Validity(lambda v: is_valid_label_value(v) if v else [])


def _name_ok(value: Any) -> Any:
    """A pod's name is its own: checked every time, not remembered (name_is_dns_subdomain's
    two checks, without building its messages)."""
    if type(value) is str and value and is_dns1123_subdomain_ok(value):  # noqa: E721
        return True
    return [value]


def _labels(labels: Any) -> Any:
    """Label keys stay (they are validated as they are); a label's value only matters for
    its validity (pod-template-hash, controller-revision-hash, statefulset pod names and
    indexes differ on every pod) unless a rule reads it (Kueue's queue)."""
    if type(labels) is not dict:  # noqa: E721
        return labels
    known = _label_value_ok.known  # the values seen before, looked up here (a dump's hot loop)
    out = {}
    for k, v in labels.items():
        if k in LABELS_READ:
            out[k] = [v]
        elif type(v) is str and known.get(v):  # noqa: E721
            out[k] = True
        else:
            out[k] = _label_value_ok(v)
    return out


def _image_ok(value: Any) -> Any:
    """An image is only ever refused when missing or padded with whitespace (the API
    server's and the Training Operator's checks); any other image gets the same report."""
    if type(value) is str and value and value == value.strip():  # noqa: E721
        return True
    return [value]


def _project_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """What the checks read of a pod's metadata (see the module docstring), in its order."""
    out = {}
    generate_names = _generate_name_ok.known
    namespaces = _namespace_ok.known
    for k, v in meta.items():
        if k in SKIPPED_METADATA:
            continue
        if k == "name":
            v = _name_ok(v)
        elif k == "labels":
            v = _labels(v)
        elif k == "namespace":
            v = True if type(v) is str and namespaces.get(v) else _namespace_ok(v)  # noqa: E721
        elif k == "generateName":
            v = True if type(v) is str and generate_names.get(v) else _generate_name_ok(v)  # noqa: E721
        out[k] = v
    return out


_CONTAINER_LISTS = frozenset({"containers", "initContainers", "ephemeralContainers"})


def _container(c: Any, renamed: dict[str, Any]) -> Any:
    # A copy whose fields are replaced in place (faster than a filtering comprehension: a
    # dump's pods are keyed one by one; the key only needs the same order for the same pod).
    if type(c) is not dict:  # noqa: E721
        return c
    out = dict(c)
    image = out.get("image", _ABSENT)
    if image is not _ABSENT:
        out["image"] = _image_ok(image)
    if renamed:
        mounts = out.get("volumeMounts")
        if type(mounts) is list:  # noqa: E721
            out["volumeMounts"] = [_mount(m, renamed) for m in mounts]
    return out


def _mount(mount: Any, renamed: dict[str, Any]) -> Any:
    if type(mount) is dict:  # noqa: E721
        name = mount.get("name")
        if type(name) is str and name in renamed:  # noqa: E721
            return {**mount, "name": renamed[name]}
    return mount


_ABSENT = object()
# The volume a pod's service account token is mounted from is named after the pod
# (kube-api-access-<random>): its name stands in as its position among such volumes, in
# the volumes and in the mounts that name it (a mount of another name is not found
# whichever name it was, so the report is the same).
TOKEN_VOLUME_PREFIX = "kube-api-access-"


def _volumes(volumes: Any) -> tuple[Any, dict[str, Any]]:
    """The volumes as the key holds them, and the names replaced (see TOKEN_VOLUME_PREFIX):
    a token volume's name when it is a valid name no other volume has, of a volume with
    only a projected source; a claim's name, which only has to be set (a StatefulSet's pods each
    mount their own claim), as whether it is."""
    if type(volumes) is not list:  # noqa: E721
        return volumes, {}
    out: list[Any] = []
    renamed: dict[str, Any] = {}
    # A name another volume has too is kept: the Duplicate error reads it.
    names = [v.get("name") for v in volumes if type(v) is dict]  # noqa: E721
    for volume in volumes:
        if type(volume) is not dict:  # noqa: E721
            out.append(volume)
            continue
        name = volume.get("name")
        if (
            type(name) is str  # noqa: E721
            and name.startswith(TOKEN_VOLUME_PREFIX)
            and names.count(name) == 1
            and len(volume) == 2
            and type(volume.get("projected")) is dict  # noqa: E721
            and _volume_name_ok(name)
        ):
            # Not a string: no volume's own name can be equal to it.
            renamed[name] = stand_in = {"tokenVolume": len(renamed)}
            volume = {**volume, "name": stand_in}
        claim = volume.get("persistentVolumeClaim")
        if type(claim) is dict and "claimName" in claim:  # noqa: E721
            claim_name = claim["claimName"]
            set_ = type(claim_name) is str and bool(claim_name)  # noqa: E721
            volume = {
                **volume,
                "persistentVolumeClaim": {**claim, "claimName": set_ or [claim_name]},
            }
        out.append(volume)
    return out, renamed


def volumes_known(workload: Workload) -> bool:
    """Whether the template's volumes are all its pods get: so for Kubernetes' own kinds; an
    operator's controller (or an unknown kind's) may add some (JobSet's volumeClaimPolicies,
    KServe's storage initializer), so their mounts are not looked up."""
    record = workload.record
    return record is not None and not record.operator


def memo_key(workload: Workload) -> bytes | None:
    """The bytes two workloads share exactly when their pod reports are equal (None: the
    workload cannot be keyed, e.g. a value JSON cannot hold; it is checked on its own)."""
    spec = workload.pod_spec
    if not isinstance(spec, dict):
        return None
    return _key(
        workload.kind,
        workload.pod_spec_path,
        workload.metadata_path,
        workload.pod_metadata,
        _project_spec(spec),
        volumes_known(workload),
    )


def _spec_copy(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of the spec with its names as their validity (its volumes as they are)."""
    copy = dict(spec)
    for k, ok in _SPEC_NAMES:
        if k in copy:
            copy[k] = ok(copy[k])
    return copy


def _project_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """What the checks read of a pod spec (see the module docstring)."""
    projected = _spec_copy(spec)
    renamed: dict[str, Any] = {}
    if "volumes" in spec:
        projected["volumes"], renamed = _volumes(spec["volumes"])
    for k in _CONTAINER_LISTS.intersection(projected):
        items = projected[k]
        if type(items) is list:  # noqa: E721
            projected[k] = [_container(c, renamed) for c in items]
    return projected


def _key(
    kind: str,
    spec_path: str,
    metadata_path: str,
    meta: Any,
    projected_spec: dict[str, Any],
    known_volumes: bool = True,
) -> bytes | None:
    if not isinstance(meta, dict):
        return None
    projected_meta = _project_meta(meta)
    try:
        # Without OPT_SORT_KEYS: the same pod written in another key order only misses the
        # memo (a dump writes every pod the same way). A key that is not a string (YAML's
        # ``true:``) raises: such a pod is checked on its own.
        key = orjson.dumps(
            (
                kind == "Pod",
                # Advice follows the workload type the kind opens as (check.manifests).
                WORKLOAD_OF_KIND.get(kind, ""),
                known_volumes,
                spec_path,
                metadata_path,
                projected_meta,
                projected_spec,
            )
        )
    except (TypeError, orjson.JSONEncodeError):
        return None
    # orjson writes NaN and infinities as null: a key with a null might stand for either.
    return None if b"null" in key else key


# --- pods that differ in their containers' names ----------------------------------------

# Container names stand in as these tokens (random per process: no manifest can hold one).
TOKEN = "zq" + "".join(secrets.choice(string.ascii_lowercase) for _ in range(12))


def canonical(workload: Workload) -> tuple[bytes, dict[str, str]] | None:
    """The memo key of a core-kind pod template with its containers renamed ``<TOKEN>0``,
    ``<TOKEN>1`` ..., and the renaming back (token -> name): pods of two Deployments with
    the same resources but other container names share one report, each entry then written
    with its own names (CheckedObject.as_dict). The renamed template itself is only built
    when the report is not in the memo yet (:func:`renamed`). None when the names could
    matter beyond their text: an operator's kind (it requires a container by name), a name
    that is invalid or repeated (the API server's message names it), a name written
    elsewhere in the pod (an env var's resourceFieldRef, an annotation), DRA claims."""
    record = workload.record
    if record is None or record.operator or workload.path_map or workload.facts:
        return None
    return canonical_parts(
        workload.kind,
        workload.pod_spec_path,
        workload.metadata_path,
        workload.pod_metadata,
        workload.pod_spec,
    )


def canonical_parts(
    kind: str, spec_path: str, metadata_path: str, meta: Any, spec: Any
) -> tuple[bytes, dict[str, str]] | None:
    """:func:`canonical` of a core kind's pod template given by its parts (a cluster dump's
    Pod before its Workload is made: check.stamps)."""
    if not isinstance(spec, dict) or "resourceClaims" in spec:
        return None
    # _project_spec, with each container's name replaced by its token on the way.
    projected_spec = _spec_copy(spec)
    renamed: dict[str, Any] = {}
    if "volumes" in spec:
        projected_spec["volumes"], renamed = _volumes(spec["volumes"])
    names: list[str] = []
    known = _container_names.known
    for key in _CONTAINER_KEYS:
        items = spec.get(key)
        if items is None:
            continue
        if type(items) is not list:  # noqa: E721
            return None
        projected_items = []
        for c in items:
            if type(c) is not dict:  # noqa: E721
                return None
            name = c.get("name")
            if type(name) is not str or not (known.get(name) or _container_name_ok(name)):  # noqa: E721
                return None
            projected = _container(c, renamed)
            projected["name"] = _token(len(names))
            names.append(name)
            projected_items.append(projected)
        projected_spec[key] = projected_items
    if len(names) > 1 and len(set(names)) != len(names):
        return None
    key = _key(kind, spec_path, metadata_path, meta, projected_spec)
    if key is None:
        return None
    for n in names:
        if b'"' + n.encode() + b'"' in key:
            return None
    # An operator rule could still read the object's own containers (obj): only core kinds.
    # Pods with the same names share one map (CheckedObject.as_dict caches by it).
    named = tuple(names)
    mapping = _MAPPINGS.get(named)
    if mapping is None:
        if len(_MAPPINGS) >= _Validity.LIMIT:
            _MAPPINGS.clear()
        mapping = _MAPPINGS[named] = {_token(i): n for i, n in enumerate(names)}
    return key, mapping


_CONTAINER_KEYS = ("containers", "initContainers", "ephemeralContainers")
_TOKENS = tuple(f"{TOKEN}{i}" for i in range(32))
_MAPPINGS: dict[tuple[str, ...], dict[str, str]] = {}


def _token(i: int) -> str:
    return _TOKENS[i] if i < len(_TOKENS) else f"{TOKEN}{i}"


_container_names = _Validity(name_is_dns_label)
_container_name_ok = _container_names.valid


def renamed(workload: Workload, names: dict[str, str]) -> Workload:
    """The workload :func:`canonical` keyed, with its containers renamed to the tokens."""
    spec = dict(workload.pod_spec)
    count = 0
    for key in _CONTAINER_KEYS:
        items = spec.get(key)
        if items is None:
            continue
        spec[key] = [{**c, "name": f"{TOKEN}{count + i}"} for i, c in enumerate(items)]
        count += len(items)
    assert count == len(names)
    # A copy with the renamed spec (dataclasses.replace would re-run __init__: a tenth of
    # the check's time on a dump).
    copy = object.__new__(Workload)
    copy.__dict__.update(workload.__dict__)
    copy.__dict__["pod_spec"] = spec
    return copy


TOKEN_BYTES = TOKEN.encode()


def rename(value: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """``value`` (a JSON-ready entry) with the tokens of :func:`canonical` replaced by the
    names they stand for, as a new entry (the shared report's lists are never changed).
    Tokens and names are DNS labels: JSON writes them as they are."""
    # Longest first: <TOKEN>1 must not eat the start of <TOKEN>12.
    tokens = sorted(names, key=len, reverse=True)
    try:
        blob = orjson.dumps(value)
    except TypeError:  # an integer past 64 bits (a quota's hard limit): string by string
        return _renamed_strings(value, [(t, names[t]) for t in tokens])
    if TOKEN_BYTES not in blob:
        return value
    for token in tokens:
        blob = blob.replace(token.encode(), names[token].encode())
    return orjson.loads(blob)


def _renamed_strings(value: Any, pairs: list[tuple[str, str]]) -> Any:
    """``value`` with every string (keys included) renamed as :func:`rename`'s bytes are."""
    if isinstance(value, str):
        if TOKEN in value:
            for token, name in pairs:
                value = value.replace(token, name)
        return value
    if isinstance(value, dict):
        return {_renamed_strings(k, pairs): _renamed_strings(v, pairs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_renamed_strings(v, pairs) for v in value]
    return value
