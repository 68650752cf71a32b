"""Source positions shared by every layer.

A :class:`Span` is where something came from: a file path (as the user should see it), a
1-based line and a 1-based column. Lines and columns are 1-based everywhere in our output,
as Lark's tokens count them; code that starts from a 0-based offset adds 1 where it builds
the span.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A position in a source file: path, 1-based line, 1-based column."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"
