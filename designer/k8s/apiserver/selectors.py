"""Label selectors as the API server reads them: ``ValidateLabelSelector``, the conversion to a
``labels.Selector`` (``LabelSelectorAsSelector``) and ``Matches``, and how a selector prints as
a bad value.

Go sources mirrored (kubernetes/kubernetes, staging/src/k8s.io/apimachinery):

* pkg/apis/meta/v1/validation/validation.go: ``ValidateLabelSelector``,
  ``ValidateLabelSelectorRequirement`` (strict: ``AllowInvalidLabelValueInSelector`` is false
  on create), ``ValidateLabelName``, ``ValidateLabels``;
* pkg/apis/meta/v1/helpers.go: ``LabelSelectorAsSelector`` (nil: Nothing; no requirement:
  Everything; each requirement through ``labels.NewRequirement``, which refuses what the
  validation refuses);
* pkg/labels/selector.go: ``Requirement.Matches`` (In, NotIn, Exists, DoesNotExist, Equals);
* pkg/util/validation/field/errors.go ``ErrorBody``: a ``*metav1.LabelSelector`` bad value is
  dereferenced, and the struct value (its String() has a pointer receiver) prints as ``%#v``:
  ``v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.Label...}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from designer.k8s.apiserver.pod import validate_labels
from designer.k8s.core import (
    FieldError,
    Unquoted,
    child,
    forbidden,
    go_map,
    go_quote,
    index,
    invalid,
    is_qualified_name,
    is_valid_label_value,
    required,
)

MSG_VALUES_REQUIRED = "must be specified when `operator` is 'In' or 'NotIn'"
MSG_VALUES_FORBIDDEN = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
MSG_OPERATOR = "not a valid selector operator"
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

Matcher = Callable[[Any], bool]


def _expressions(selector: Mapping[str, Any]) -> list[Any]:
    found = selector.get("matchExpressions")
    return found if isinstance(found, list) else []


def _match_labels(selector: Mapping[str, Any]) -> Mapping[str, Any]:
    found = selector.get("matchLabels")
    return found if isinstance(found, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _values(requirement: Mapping[str, Any]) -> list[Any]:
    found = requirement.get("values")
    return found if isinstance(found, list) else []


def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """ValidateLabelSelector (strict): the matchLabels, then each requirement's operator and
    values, key, and each value."""
    if not isinstance(selector, dict):
        return []
    errs = validate_labels(_match_labels(selector), child(path, "matchLabels"))
    for i, requirement in enumerate(_expressions(selector)):
        where = index(child(path, "matchExpressions"), i)
        requirement = requirement if isinstance(requirement, dict) else {}
        operator = _text(requirement.get("operator"))
        values = _values(requirement)
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(required(child(where, "values"), MSG_VALUES_REQUIRED))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(child(where, "values"), MSG_VALUES_FORBIDDEN))
        else:
            errs.append(invalid(child(where, "operator"), operator, MSG_OPERATOR))
        key = _text(requirement.get("key"))
        errs += [invalid(child(where, "key"), key, m) for m in is_qualified_name(key)]
        for j, value in enumerate(values):
            text = _text(value)
            errs += [
                invalid(index(child(where, "values"), j), text, m)
                for m in is_valid_label_value(text)
            ]
    return errs


def is_empty_selector(selector: Any) -> bool:
    """``len(MatchLabels)+len(MatchExpressions) == 0`` of a selector that is set."""
    return isinstance(selector, dict) and not _match_labels(selector) and not _expressions(selector)


def selector_matcher(selector: Any) -> Matcher | None:
    """LabelSelectorAsSelector: the selector's ``Matches``, or None when the conversion fails
    (a requirement ``labels.NewRequirement`` refuses). A selector that is not set matches
    nothing; one without requirements, everything."""
    if not isinstance(selector, dict):
        return _nothing
    match_labels = _match_labels(selector)
    expressions = _expressions(selector)
    if not match_labels and not expressions:
        return _everything
    requirements: list[tuple[str, str, frozenset[str]]] = []
    for key, value in match_labels.items():
        text = _text(value)
        if is_qualified_name(str(key)) or is_valid_label_value(text):
            return None
        requirements.append((str(key), "Equals", frozenset({text})))
    for requirement in expressions:
        requirement = requirement if isinstance(requirement, dict) else {}
        operator = _text(requirement.get("operator"))
        key = _text(requirement.get("key"))
        values = [_text(v) for v in _values(requirement)]
        if operator not in OPERATORS or is_qualified_name(key):
            return None
        if (operator in ("In", "NotIn")) != bool(values):
            return None
        if any(is_valid_label_value(v) for v in values):
            return None
        requirements.append((key, operator, frozenset(values)))

    def matches(labels: Any) -> bool:
        labels = labels if isinstance(labels, Mapping) else {}
        for key, operator, values in requirements:
            present = key in labels
            if operator in ("Equals", "In"):
                if not present or _text(labels[key]) not in values:
                    return False
            elif operator == "NotIn":
                if present and _text(labels[key]) in values:
                    return False
            elif operator == "Exists":
                if not present:
                    return False
            elif present:  # DoesNotExist
                return False
        return True

    return matches


def _nothing(labels: Any) -> bool:
    return False


def _everything(labels: Any) -> bool:
    return True


def is_everything(matcher: Matcher) -> bool:
    """``selector.Empty()``: the selector without requirements (Nothing is not empty)."""
    return matcher is _everything


def _go_strings(values: Any) -> str:
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(_text(v)) for v in values) + "}"


def go_label_selector(selector: Any) -> Unquoted:
    """``%#v`` of the metav1.LabelSelector value a ``*LabelSelector`` bad value prints as."""
    selector = selector if isinstance(selector, dict) else {}
    labels = selector.get("matchLabels")
    labels_text = go_map(labels if isinstance(labels, dict) else None)
    expressions = selector.get("matchExpressions")
    if not isinstance(expressions, list):
        expressions_text = "[]v1.LabelSelectorRequirement(nil)"
    else:
        parts = []
        for e in expressions:
            e = e if isinstance(e, dict) else {}
            values = e.get("values")
            parts.append(
                "v1.LabelSelectorRequirement{"
                f"Key:{go_quote(_text(e.get('key')))}, "
                f"Operator:{go_quote(_text(e.get('operator')))}, "
                f"Values:{_go_strings(values if isinstance(values, list) else None)}}}"
            )
        expressions_text = "[]v1.LabelSelectorRequirement{" + ", ".join(parts) + "}"
    return Unquoted(
        f"v1.LabelSelector{{MatchLabels:{labels_text}, MatchExpressions:{expressions_text}}}"
    )
