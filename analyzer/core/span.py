"""Source positions shared by every layer.

A :class:`Span` is where something came from: a file path (as the user should see it), a
1-based line and a 1-based column. Columns are 1-based everywhere in our output; the only
conversion from 0-based offsets happens in :meth:`Span.from_offset`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A position in a source file: path, 1-based line, 1-based column."""

    path: str
    line: int = 1
    col: int = 1

    @classmethod
    def from_offset(cls, path: str, text: str, offset: int) -> "Span":
        """Build a span from a 0-based character offset into ``text``."""
        line = text.count("\n", 0, offset) + 1
        start = text.rfind("\n", 0, offset) + 1
        return cls(path, line, offset - start + 1)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"
