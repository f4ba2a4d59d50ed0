from typing import Any

from django import template

from designer.k8s.apiserver import DEFAULT_VERSION, SUPPORTED_VERSIONS

register = template.Library()


@register.filter
def slot(results: Any, slot_id: str) -> list:
    """Messages for one error slot (``err-<input id>``) of the designer."""
    return results.slots.get(f"err-{slot_id}", []) if results else []


@register.filter
def container_slot(results: Any, index: int) -> list:
    return results.slots.get(f"err-c-{index}", []) if results else []


@register.simple_tag
def kubernetes_versions() -> dict[str, str]:
    """The release answers default to and the range a user can choose from."""
    return {
        "default": DEFAULT_VERSION,
        "first": SUPPORTED_VERSIONS[0],
        "last": SUPPORTED_VERSIONS[-1],
    }
