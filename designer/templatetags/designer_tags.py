from typing import Any

from django import template

register = template.Library()


@register.filter
def slot(results: Any, slot_id: str) -> list:
    """Messages for one error slot (``err-<input id>``) of the designer."""
    return results.slots.get(f"err-{slot_id}", []) if results else []


@register.filter
def container_slot(results: Any, index: int) -> list:
    return results.slots.get(f"err-c-{index}", []) if results else []
