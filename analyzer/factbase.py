"""The fact base: base relations extracted from a memory project, each fact with its span.

Extractors add facts with :meth:`FactBase.add`; the engine receives
:meth:`FactBase.relations` (name -> sorted tuples) and :meth:`FactBase.span_of` for proof
trees. Relations must be declared in ``facts/schema.dl``; the extractor tests check it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Tuple, Union

from analyzer.span import Span

Value = Union[str, int]
Fact = Tuple[Value, ...]


class FactBase:
    """A set of facts per relation, with the first source span seen for each fact."""

    def __init__(self) -> None:
        self._facts: Dict[str, set] = defaultdict(set)
        self._spans: Dict[Tuple[str, Fact], Span] = {}

    def add(self, relation: str, *values: Value, span: Optional[Span] = None) -> None:
        """Add one fact ``relation(values...)``; the first span recorded for it is kept."""
        fact = tuple(values)
        self._facts[relation].add(fact)
        if span is not None:
            key = (relation, fact)
            old = self._spans.get(key)
            # keep the smallest span so the result does not depend on extraction order
            if old is None or span < old:
                self._spans[key] = span

    def add_located(self, path: str, rows: Iterable[Tuple[str, tuple, int, int]]) -> None:
        """Add many ``(relation, values, line, col)`` rows from one file (a fast path for extractors)."""
        facts, spans = self._facts, self._spans
        for relation, values, line, col in rows:
            fact = tuple(values)
            facts[relation].add(fact)
            key = (relation, fact)
            span = Span(path, line, col)
            old = spans.get(key)
            if old is None or span < old:
                spans[key] = span

    def extend(self, other: "FactBase") -> None:
        """Add every fact (and span) of ``other``."""
        for rel, facts in other._facts.items():
            for fact in facts:
                self.add(rel, *fact, span=other._spans.get((rel, fact)))

    def relation(self, name: str) -> List[Fact]:
        """The facts of one relation, sorted."""
        return sorted(self._facts.get(name, ()), key=_sort_key)

    def relations(self) -> Dict[str, List[Fact]]:
        """Every non-empty relation, by name (sorted), with sorted facts."""
        return {name: self.relation(name) for name in sorted(self._facts) if self._facts[name]}

    def span_of(self, relation: str, fact: Iterable[Value]) -> Optional[Span]:
        """The source span of a fact, or None for facts without a file position."""
        return self._spans.get((relation, tuple(fact)))

    def spans(self) -> Dict[Tuple[str, Fact], Span]:
        """Every recorded span, keyed by (relation, fact)."""
        return dict(self._spans)

    def __len__(self) -> int:
        return sum(len(f) for f in self._facts.values())


def _sort_key(fact: Fact) -> tuple:
    # numbers sort before symbols in the same column; never compare int with str
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in fact)
