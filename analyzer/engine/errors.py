"""Errors raised by the engine back end (stratification, evaluation, fact input).

Every engine error carries a stable ``code`` and, when the problem has a place in a source
file, a :class:`~analyzer.core.span.Span`; :meth:`EngineError.diagnostic` turns it into the one
printed form every command uses.
"""

from __future__ import annotations

from typing import Optional

from analyzer.core.span import Span


class EngineError(Exception):
    """A program, fact set or request the engine cannot evaluate."""

    code = "DL900"

    def __init__(self, message: str, span: Optional[Span] = None, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.span = span
        if code is not None:
            self.code = code

    def diagnostic(self, default_path: str = "<engine>"):
        """This error as a :class:`~analyzer.core.diagnostics.Diagnostic` (source line added when readable)."""
        from analyzer.core.diagnostics import Diagnostic

        span = self.span or Span(default_path, 1, 1)
        return Diagnostic(span, self.code, self.message, source_line=_source_line(span))


class StratificationError(EngineError):
    """Negation, an aggregate or a graph builtin depends on its own result (a cycle)."""

    code = "DL901"


class EvaluationLimitError(EngineError):
    """A resource limit (derived tuples, wall time) was reached; names the limit and relation."""

    code = "DL902"


class FactsError(EngineError):
    """Facts that do not fit the declarations (undeclared relation, arity, type, bad file)."""

    code = "DL903"


def _source_line(span: Span) -> Optional[str]:
    # a caret line is a convenience: any problem reading the file (missing, not a regular
    # file, not UTF-8) just drops it; never a read that could block on a FIFO
    from analyzer.engine.sourcefile import read_text

    try:
        lines = read_text(span.path).split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return lines[span.line - 1].rstrip("\r") + "\n" if 0 < span.line <= len(lines) else None
