"""What an operator (or a scheduler extension) says about a pod template: a ``Finding``.

The operators' webhooks and controllers speak English, word for word as their Go code
prints (a ``field.Error`` body, or a plain ``fmt.Errorf`` text); the engine's own
explanations are ``Message``s the web layer translates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.k8s.core import FieldError, Message


@dataclass(frozen=True)
class Finding:
    field: str
    message: str | Message
    origin: str  # who says so: "Kubeflow Training Operator webhook", "KubeRay", ...
    type: str = ""  # Go field.ErrorType when the rule returns a field.Error, else ""
    value: Any = None
    severity: str = "error"  # "error": refused; "warning": accepted, not what was meant

    @classmethod
    def of(cls, error: FieldError, origin: str) -> Finding:
        return cls(error.field, error.message, origin, error.type, error.value)

    @property
    def text(self) -> str:
        return self.message.text if isinstance(self.message, Message) else self.message

    def body(self) -> str:
        """The text after ``<field>: ``, as the operator prints it."""
        if not self.type:
            return self.text
        return FieldError(self.field, self.type, self.text, self.value).body()

    def with_field(self, path: str) -> Finding:
        return Finding(path, self.message, self.origin, self.type, self.value, self.severity)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field}
        if self.type:
            out["type"] = self.type
        out["message"] = self.text
        out["text"] = self.body()
        out["origin"] = self.origin
        return out

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()


@dataclass
class OperatorReport:
    """Errors (the object or its pods are refused), warnings (accepted, but not what you
    meant) and notes (how the operator or a scheduler changes what the template means)."""

    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)

    def extend(self, other: OperatorReport) -> None:
        self.errors += other.errors
        self.warnings += other.warnings
        self.notes += other.notes
