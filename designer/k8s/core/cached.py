"""functools.cached_property without its lock.

Python 3.11's cached_property holds one lock per property for every instance of the class
while it computes a value (Python 3.12 dropped it). ``podspec check --jobs`` and the API fork
workers from a process in which other threads may be checking: a worker forked while another
thread was inside, say, ``PodReport._as_dict`` inherits that lock held by a thread that does
not exist in it, and waits for it forever (seen in CI: a stream's worker hung in
``cached_property.__get__``). Without the lock two threads may both compute a value; each
property here is a pure function of its instance, so either result is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
_MISSING = object()


class cached_property(Generic[T]):  # noqa: N801 (a drop-in for functools.cached_property)
    """A value computed on first access and kept in the instance's ``__dict__``."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname: str | None = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        cache = instance.__dict__
        value = cache.get(self.attrname, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            cache[self.attrname] = value
        return value
