"""What the chosen Kubernetes release does differently to one pod (versions.VERSION_DIFFERENCES
applied to a manifest), as notes at the fields they concern."""

from __future__ import annotations

from dataclasses import dataclass

from designer.k8s.apiserver.defaults import pod_with_defaults
from designer.k8s.apiserver.versions import DIFFERENCES_BY_KEY, ClusterVersion
from designer.k8s.core import Message, Pod, gettext_noop, is_pod_level_resources_set


@dataclass(frozen=True)
class VersionNote:
    """A difference the chosen release makes to this pod, at the field it concerns."""

    field: str
    key: str  # the VERSION_DIFFERENCES record
    message: Message

    def as_dict(self) -> dict[str, str]:
        return {
            "field": self.field,
            "message": self.message.text,
            "source": DIFFERENCES_BY_KEY[self.key].source,
        }


N_FIELD_UNKNOWN = gettext_noop(
    "Kubernetes %(version)s has no spec.resources field: kubectl apply refuses the pod "
    '(strict decoding error: unknown field "%(field)s") unless --validate=false, which drops '
    "it; the answers here are for the pod without it."
)
N_POD_LEVEL_DROPPED = gettext_noop(
    "Kubernetes %(version)s drops %(field)s without a warning (PodLevelResources is alpha and "
    "off by default): the answers here are for the pod without it. From 1.34 it is validated "
    "and decides the QoS class."
)
N_RESIZE_DROPPED = gettext_noop(
    "Kubernetes %(version)s drops %(field)s (InPlacePodVerticalScaling is alpha and off by "
    "default): resources cannot be resized in place; from 1.33 they can."
)
N_LIMITS_NOT_DEFAULTED = gettext_noop(
    "Kubernetes %(version)s does not default the pod-level limits from the container limits "
    "(kubernetes#136120, fixed in 1.36): %(field)s stays without limits."
)
N_EMPTY_POD_LEVEL_QOS = gettext_noop(
    "On Kubernetes %(version)s an empty %(field)s decides the QoS class on its own, so the "
    "container resources are ignored for it (kubernetes#135082, fixed in 1.36)."
)


def _limits_differ(pod: Pod) -> bool:
    """Whether the 1.36 pod-level limit defaulting would set a limit on this pod."""
    fixed = pod_with_defaults(pod, default_pod_limits=True).spec.resources
    unfixed = pod_with_defaults(pod, default_pod_limits=False).spec.resources
    return (fixed.limits if fixed else None) != (unfixed.limits if unfixed else None)


def _extra(model: object) -> dict:
    return getattr(model, "model_extra", None) or {}


def version_notes(
    pod: Pod, version: ClusterVersion, *, spec_path: str = "spec"
) -> list[VersionNote]:
    """What ``version`` does differently to ``pod`` (as written) than the newest release."""
    if version.version is None:
        return []
    v = version.version
    notes: list[VersionNote] = []
    res = pod.spec.resources
    res_path = f"{spec_path}.resources"
    if res is not None and not version.pod_level_resources:
        if not version.has("pod_level_resources_field"):
            msg = Message(N_FIELD_UNKNOWN, {"version": v, "field": res_path})
            notes.append(VersionNote(res_path, "pod_level_resources_field", msg))
        else:
            msg = Message(N_POD_LEVEL_DROPPED, {"version": v, "field": res_path})
            notes.append(VersionNote(res_path, "pod_level_resources", msg))
    if res is not None and version.pod_level_resources:
        if (
            not version.default_pod_limits
            and res.requests
            and not res.limits
            and _limits_differ(pod)
        ):
            msg = Message(N_LIMITS_NOT_DEFAULTED, {"version": v, "field": res_path})
            notes.append(VersionNote(res_path, "pod_level_limit_defaulting", msg))
        if (
            not version.qos_requires_pod_level_values
            and not is_pod_level_resources_set(pod)
            and any(
                r in c.requests or r in c.limits
                for _, c in pod.spec.all_containers()
                for r in ("cpu", "memory")
            )
        ):
            msg = Message(N_EMPTY_POD_LEVEL_QOS, {"version": v, "field": res_path})
            notes.append(VersionNote(res_path, "qos_ignores_empty_pod_level", msg))
    if not version.in_place_resize:
        for rel, c in pod.spec.all_containers():
            if _extra(c).get("resizePolicy"):
                path = f"{spec_path}.{rel}.resizePolicy"
                msg = Message(N_RESIZE_DROPPED, {"version": v, "field": path})
                notes.append(VersionNote(path, "in_place_resize", msg))
    return notes
