"""Limits and helpers every part of the reader shares."""

from __future__ import annotations

from typing import Any

MAX_INPUT_BYTES = 20 * 1024 * 1024
# Real manifests nest ~20 levels (CRD schemas ~60); anything deeper is refused.
MAX_DEPTH = 100
# Bound on nodes copied for aliases in one document, on top of go-yaml's ratio.
MAX_ALIAS_NODES = 1_000_000
# Helm renders and dumps of single objects have hundreds or thousands; each one
# costs a few microseconds of bookkeeping, so millions of "---" lines are refused.
MAX_DOCUMENTS = 50_000


class _DocError(Exception):
    """A document that cannot be read; ``hostile`` when it was refused to protect the reader
    (an alias bomb, nesting too deep) rather than malformed."""

    def __init__(self, line: int, message: str, *, hostile: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.hostile = hostile


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def copy_tree(value: Any) -> Any:
    """A deep copy of the dicts and lists of a manifest (scalars, which are immutable, are
    shared), without recursion: for alias expansion, and ~10x faster than copy.deepcopy for
    the manifests the product copies."""
    if type(value) is dict:
        root: Any = {}
    elif type(value) is list:
        root = []
    else:
        return value
    stack = [(value, root)]
    while stack:
        src, dst = stack.pop()
        items = src.items() if type(src) is dict else enumerate(src)
        for k, v in items:
            tv = type(v)
            if tv is dict or tv is list:
                c = {} if tv is dict else []
                stack.append((v, c))
                v = c
            if type(dst) is dict:
                dst[k] = v
            else:
                dst.append(v)
    return root
