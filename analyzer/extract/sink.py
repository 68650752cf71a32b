"""What one file's extraction produces: facts with positions, diagnostics, unit ranges.

A :class:`Sink` belongs to one file. It holds plain data only (strings, ints, lists), so a
whole extraction result can be cached as JSON keyed by the file's content hash and merged
into the project's :class:`~analyzer.factbase.FactBase` later (analyzer/project.py).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

FactRow = Tuple[str, tuple, int, int]  # relation, values, line, col


class Sink:
    """Collects the facts and diagnostics extracted from one file (project-relative path)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.facts: List[FactRow] = []
        self.diagnostics: List[Tuple[str, str, int, int, str]] = []  # code, message, line, col, severity
        self.units: List[Tuple[int, int]] = []  # 0-based inclusive line ranges, in unit order
        self.has_title = False

    def fact(self, relation: str, *values, line: int = 1, col: int = 1) -> None:
        """Record ``relation(values...)`` at ``line``/``col`` (1-based) of this file."""
        self.facts.append((relation, tuple(values), line, col))

    def diag(self, code: str, message: str, line: int = 1, col: int = 1, severity: str = "error") -> None:
        """Record a diagnostic at ``line``/``col`` (1-based) of this file."""
        self.diagnostics.append((code, message, line, col, severity))

    def to_json(self) -> Dict:
        """A JSON-ready form (for the facts cache)."""
        return {
            "path": self.path,
            "facts": [[r, list(v), ln, c] for r, v, ln, c in self.facts],
            "diagnostics": [list(d) for d in self.diagnostics],
            "units": [list(u) for u in self.units],
            "has_title": self.has_title,
        }

    @classmethod
    def from_json(cls, data: Dict) -> Optional["Sink"]:
        """Rebuild a sink from :meth:`to_json` output; None when the data is malformed."""
        try:
            sink = cls(str(data["path"]))
            # our own output, keyed by content hash: only the row shape is checked here
            sink.facts = [(r, tuple(v), ln, c) for r, v, ln, c in data["facts"]]
            sink.diagnostics = [(str(a), str(b), int(c), int(d), str(e)) for a, b, c, d, e in data["diagnostics"]]
            sink.units = [(int(a), int(b)) for a, b in data["units"]]
            sink.has_title = bool(data["has_title"])
        except (KeyError, TypeError, ValueError):
            return None
        return sink
