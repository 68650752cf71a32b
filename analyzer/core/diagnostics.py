"""Diagnostics: problems found in input, reported with a stable code and a position.

One printed form for every diagnostic, ``path:line:col: CODE message``, optionally followed
by the source line and a caret under the column. Engine diagnostics use ``DL…`` codes;
memory-file diagnostics use the protocol's ``MC-…`` codes or our ``MA-…`` parse codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, List, Optional

from analyzer.core.span import Span


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem: where (span), what (code, message), and the source line for a caret."""

    span: Span
    code: str
    message: str
    severity: str = "error"
    source_line: Optional[str] = field(default=None, compare=False)

    def render(self, caret: bool = True) -> str:
        """Return ``path:line:col: CODE message`` plus the source line and a caret."""
        head = f"{self.span}: {self.code} {self.message}"
        if not caret or self.source_line is None:
            return head
        line = self.source_line.rstrip("\n").expandtabs(1)
        pad = " " * max(self.span.col - 1, 0)
        return f"{head}\n  {line}\n  {pad}^"

    def as_dict(self) -> dict:
        """A JSON-ready form with stable keys."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.span.path,
            "line": self.span.line,
            "col": self.span.col,
        }


def sort_diagnostics(diags: Iterable[Diagnostic]) -> List[Diagnostic]:
    """Sort by location, then code and message, and drop exact duplicates."""
    # the order of ``Diagnostic``'s fields, as plain tuples: sorting 200,000 diagnostics
    # through the dataclass comparison methods took seconds (issue 14)
    return sorted(set(diags), key=lambda d: (d.span.path, d.span.line, d.span.col, d.code, d.message, d.severity))


class DiagnosticError(Exception):
    """Raised when input cannot be used at all; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sort_diagnostics(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))
