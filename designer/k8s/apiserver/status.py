"""How the API server words a refusal: the ``Status.message`` of a 403 Forbidden (admission)
or a 422 Invalid (validation), with Go's error aggregation.

* ``aggregate``: k8s.io/apimachinery/pkg/util/errors ``aggregate.Error()`` (and
  ``field.ErrorList.ToAggregate``): one message as is; several joined by ", " inside
  brackets, each text once (when all texts are equal, one text without brackets).
* ``forbidden_message``: ``apierrors.NewForbidden`` via ``admission.NewForbidden`` —
  ``pods "<name>" is forbidden: <err>``.
* ``invalid_message``: ``apierrors.NewInvalid`` — ``LimitRange "<name>" is invalid: <errs>``.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.k8s.core import FieldError, go_quote


def aggregate(messages: Iterable[str]) -> str | None:
    """utilerrors.NewAggregate(errs).Error(); None for no error."""
    seen: list[str] = []
    for message in messages:
        if message not in seen:
            seen.append(message)
    if not seen:
        return None
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def forbidden_message(resource: str, name: str, message: str) -> str:
    """NewForbidden(GroupResource, name, err).Error(): ``pods "p" is forbidden: ...``."""
    return f"{resource} {go_quote(name)} is forbidden: {message}"


def invalid_text(kind: str, name: str, aggregated: str) -> str:
    """NewInvalid's message when the field errors are already aggregated."""
    return f"{kind} {go_quote(name)} is invalid: {aggregated}"


def invalid_message(kind: str, name: str, errors: Iterable[FieldError]) -> str:
    """NewInvalid(GroupKind, name, errs).Error(): ``LimitRange "x" is invalid: [...]``."""
    text = aggregate(str(e) for e in errors)
    if text is None:
        return f"{kind} {go_quote(name)} is invalid"
    return f"{kind} {go_quote(name)} is invalid: {text}"
