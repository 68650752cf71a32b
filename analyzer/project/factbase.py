"""The fact base: base relations extracted from a memory project, each fact with its span.

Extractors add facts with :meth:`FactBase.add`; the engine receives
:meth:`FactBase.relation_sets` (name -> unsorted set: the engine keeps sets itself) and
:meth:`FactBase.spans` for proof trees; :meth:`FactBase.relations` gives sorted lists for
dumps and tests. Relations must be declared in ``facts/schema.dl``; the extractor tests check it.

Spans of bulk-added files (:meth:`FactBase.add_columns`) are folded in lazily, on the first
span query: a plain ``read`` never asks for them, and building one ``Span`` per fact was a
large part of loading a 10,000-entry project.

So are their facts: a bulk-added file's rows are merged into a relation's set when that
relation is first asked for. A ``read`` evaluates rules that read 90,000 of the 160,000
facts of a 10,000-entry project (Evidence items, titles and Subject displays are for other
commands), and asks for those relations only (:meth:`FactBase.relation_sets` with names):
the other sets are never built.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import defaultdict
from itertools import repeat
from typing import Dict, Iterable, List, Optional, Tuple, Union

from analyzer.core.span import Span
from analyzer.project.extract.sink import positions

Value = Union[str, int]
Fact = Tuple[Value, ...]


class FactBase:
    """A set of facts per relation, with the first source span seen for each fact."""

    def __init__(self) -> None:
        self._facts: Dict[str, set] = defaultdict(set)
        self._spans: Dict[Tuple[str, Fact], Span] = {}
        self._located: List[Tuple[str, dict]] = []  # (path, columns) whose spans are not folded in yet
        self._pending: Dict[str, list] = {}  # relation -> value lists of bulk-added files not in its set yet
        # what digest() hashes: each bulk-added file as (path, content key), each single fact
        self._chunks: List[Tuple[str, str]] = []
        self._singles: set = set()

    def add(self, relation: str, *values: Value, span: Optional[Span] = None) -> None:
        """Add one fact ``relation(values...)``; the first span recorded for it is kept."""
        fact = tuple(values)
        self._facts[relation].add(fact)
        self._singles.add((relation, fact))
        if span is not None:
            key = (relation, fact)
            old = self._spans.get(key)
            # keep the smallest span so the result does not depend on extraction order
            if old is None or span < old:
                self._spans[key] = span

    def add_rows(self, relation: str, facts: List[Fact], spans: List[Span]) -> None:
        """Add many facts of one relation, ``facts[i]`` with ``spans[i]``: what :meth:`add`
        does for each, in a few set and dict operations (a history reading adds the three
        inventory facts of 22,000 files)."""
        if not facts:
            return
        self._facts[relation].update(facts)
        keys = list(zip(repeat(relation), facts))
        self._singles.update(keys)
        known = self._spans
        if len(set(keys)) == len(keys) and known.keys().isdisjoint(keys):
            known.update(zip(keys, spans))  # no fact seen before: each span is its first
            return
        for key, span in zip(keys, spans):
            old = known.get(key)
            if old is None or span < old:
                known[key] = span

    def add_columns(self, path: str, columns: Dict[str, tuple], key: Optional[str] = None) -> None:
        """Add the facts of one file, given by relation as ``(values, lines, cols)`` (a
        :attr:`~analyzer.project.extract.sink.Sink.columns`; ``values`` are tuples): one set update per
        relation, made when the relation is first asked for. Their spans are recorded on
        first use. ``key``, when given, is a digest that determines the facts (the facts cache
        key of the file's extraction); otherwise :meth:`digest` hashes the facts themselves.
        The lists are kept, not copied: do not modify them afterwards."""
        pending = self._pending
        for relation, found in columns.items():
            if found[0]:
                waiting = pending.get(relation)
                if waiting is None:
                    pending[relation] = [found[0]]
                else:
                    waiting.append(found[0])
        self._located.append((path, columns))
        if key is None:
            plain = [(relation, values, list(positions(lines)), list(positions(cols)))
                     for relation, (values, lines, cols) in sorted(columns.items()) if values]
            # version 2 writes no references: the bytes then depend on the values alone, not on
            # how many references each tuple has (which marshal's later versions record)
            key = "rows:" + hashlib.sha256(marshal.dumps(plain, 2)).hexdigest()
        self._chunks.append((path, key))

    def _set(self, relation: str) -> Optional[set]:
        """The set of ``relation`` with every bulk-added row merged in (None when no fact of
        it was ever added)."""
        waiting = self._pending.pop(relation, None)
        if waiting is None:
            return self._facts.get(relation)
        facts = self._facts[relation]
        for values in waiting:
            facts.update(values)
        return facts

    def _merge_all(self) -> Dict[str, set]:
        for relation in list(self._pending):
            self._set(relation)
        return self._facts

    def column_values(self, relations: Iterable[str], col: int) -> set:
        """The distinct values of column ``col`` of ``relations``, without building the
        relations' sets (e.g. every evidence source path, analyzer/project/loader.py)."""
        from operator import itemgetter

        get = itemgetter(col)
        found: set = set()
        for relation in relations:
            for values in (self._facts.get(relation, ()), *self._pending.get(relation, ())):
                found.update(map(get, values))
        return found

    def digest(self) -> str:
        """A digest of every fact: equal digests mean equal fact bases (the converse may
        fail, e.g. for the same facts added in another way, which only costs a reuse).
        Independent of the order in which files and facts were added."""
        h = hashlib.sha256(b"memory-analyzer-factbase-1\0")
        h.update(marshal.dumps(sorted(self._chunks)))
        singles = sorted(self._singles, key=lambda rf: (rf[0], _sort_key(rf[1])))
        h.update(marshal.dumps(singles))
        return h.hexdigest()

    def _fold_spans(self) -> Dict[Tuple[str, Fact], Span]:
        """Record the spans of every bulk-added row (smallest span wins, as in :meth:`add`)."""
        spans = self._spans
        for path, columns in self._located:
            for relation, (values, lines, cols) in columns.items():
                for fact, line, col in zip(values, positions(lines), positions(cols)):
                    key = (relation, fact)
                    span = Span(path, line, col)
                    old = spans.get(key)
                    if old is None or span < old:
                        spans[key] = span
        self._located = []
        return spans

    def extend(self, other: "FactBase") -> None:
        """Add every fact (and span) of ``other``."""
        for rel, facts in other._merge_all().items():
            for fact in facts:
                self.add(rel, *fact, span=other.span_of(rel, fact))

    def relation(self, name: str) -> List[Fact]:
        """The facts of one relation, sorted (numbers before symbols in a column)."""
        facts = self._set(name) or ()
        try:
            # Tuples compare in C. If no comparison met an int and a str at the same
            # position, every answer equals _sort_key's, so the order is the same.
            return sorted(facts)
        except TypeError:
            return sorted(facts, key=_sort_key)

    def relations(self) -> Dict[str, List[Fact]]:
        """Every non-empty relation, by name (sorted), with sorted facts."""
        facts = self._merge_all()
        return {name: self.relation(name) for name in sorted(facts) if facts[name]}

    def relation_sets(self, names: Optional[Iterable[str]] = None) -> Dict[str, set]:
        """Every non-empty relation (of ``names``, when given: the others' sets are not
        built) as an unsorted set, for the engine (which needs no order and copies what it
        is given). The sets are the fact base's own: do not modify them."""
        if names is None:
            return {name: facts for name, facts in self._merge_all().items() if facts}
        found = {}
        pending, known = self._pending, self._facts
        for name in names:  # _set inlined: a history reading asks for 240,000 relations
            waiting = pending.pop(name, None)
            if waiting is None:
                facts = known.get(name)
            else:
                facts = known[name]
                for values in waiting:
                    facts.update(values)
            if facts:
                found[name] = facts
        return found

    def span_of(self, relation: str, fact: Iterable[Value]) -> Optional[Span]:
        """The source span of a fact, or None for facts without a file position."""
        return self._fold_spans().get((relation, tuple(fact)))

    def spans_of(self, relation: str) -> Dict[Fact, Span]:
        """The span of every fact of one relation that has one (smallest span wins), without
        folding the spans of every other relation in (a check locates a few relations only)."""
        return {fact: Span(*place) for fact, place in self.places_of(relation).items()}

    def places_of(self, relation: str) -> Dict[Fact, Tuple[str, int, int]]:
        """:meth:`spans_of` as plain ``(path, line, col)`` tuples, which order as spans do:
        compared in C, and what ``fleet check`` keeps of a project (cheap to pickle)."""
        found: Dict[Fact, Tuple[str, int, int]] = {}
        for (rel, fact), span in self._spans.items():
            if rel == relation:
                found[fact] = (span.path, span.line, span.col)
        for path, columns in self._located:
            located = columns.get(relation)
            if located is None:
                continue
            for fact, line, col in zip(located[0], positions(located[1]), positions(located[2])):
                place = (path, line, col)
                old = found.get(fact)
                if old is None or place < old:
                    found[fact] = place
        return found

    def spans(self) -> Dict[Tuple[str, Fact], Span]:
        """Every recorded span, keyed by (relation, fact)."""
        return dict(self._fold_spans())

    def __len__(self) -> int:
        return sum(len(f) for f in self._merge_all().values())


def _sort_key(fact: Fact) -> tuple:
    # numbers sort before symbols in the same column; never compare int with str
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in fact)
