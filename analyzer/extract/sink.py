"""What one file's extraction produces: facts with positions, diagnostics, unit ranges.

A :class:`Sink` belongs to one file. It holds plain data only (strings, ints, tuples, lists),
so a whole extraction result can be cached (``marshal``, analyzer/cache.py) keyed by the
file's content hash and merged into the project's :class:`~analyzer.factbase.FactBase` later
(analyzer/project.py).
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
        # 0-based inclusive line ranges of the units the file's ordinal columns count, in order:
        # every unit of an entry file (`unit`), the h2 units of subjects/reconciliations
        self.units: List[Tuple[int, int]] = []
        self.has_title = False
        self.info: tuple = ()  # extractor-specific summary kept with the facts (the manifest's)
        self.key: Optional[str] = None  # set by the loader: a digest that determines the facts

    def fact(self, relation: str, *values, line: int = 1, col: int = 1) -> None:
        """Record ``relation(values...)`` at ``line``/``col`` (1-based) of this file."""
        self.facts.append((relation, tuple(values), line, col))

    def diag(self, code: str, message: str, line: int = 1, col: int = 1, severity: str = "error") -> None:
        """Record a diagnostic at ``line``/``col`` (1-based) of this file."""
        self.diagnostics.append((code, message, line, col, severity))

    def to_plain(self) -> tuple:
        """Plain nested tuples and lists (``marshal``-able) for the facts cache."""
        return (self.path, self.facts, self.diagnostics, self.units, self.has_title, self.info)

    @classmethod
    def from_plain(cls, data) -> Optional["Sink"]:
        """Rebuild a sink from :meth:`to_plain` output; None when the data is malformed."""
        try:
            path, facts, diagnostics, units, has_title, info = data
            # our own output, keyed by content hash: only the container shapes are checked
            if not (isinstance(path, str) and isinstance(facts, list) and isinstance(diagnostics, list)
                    and isinstance(units, list) and isinstance(info, tuple)):
                return None
            if facts and not (isinstance(facts[0], tuple) and isinstance(facts[0][1], tuple)):
                return None
        except (TypeError, ValueError, IndexError):
            return None
        sink = cls(path)
        sink.facts, sink.diagnostics, sink.units = facts, diagnostics, units
        sink.has_title, sink.info = bool(has_title), info
        return sink
