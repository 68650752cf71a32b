"""The result of an evaluation: every relation, pattern queries, proofs and statistics (per-rule
:class:`RuleStats` with ``profile=True``, and their table form :func:`render_profile`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Union

from analyzer.core.span import Span
import analyzer.engine.ast as ast
from analyzer.engine.errors import EngineError, FactsError

_PYTYPE = {ast.SYMBOL: str, ast.NUMBER: int}


def sort_key(tup: tuple) -> tuple:
    """Numbers before symbols within a column; an int is never compared with a str."""
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in tup)


def sorted_tuples(tuples: Iterable[tuple]) -> List[tuple]:
    """Tuples in the engine's one order (fast path when no column mixes types)."""
    tuples = list(tuples)
    try:
        # if no int/str comparison happens the plain order equals the keyed order
        return sorted(tuples)
    except TypeError:
        return sorted(tuples, key=sort_key)


def check_facts(rel: str, tuples: Iterable, decls: Mapping):
    """Validate input facts against the declaration: declared relation, arity, column types.

    Returns the facts as a collection of tuples: a set or frozenset of exact tuples is
    returned as itself (a set-to-set update reuses the stored hashes, 4x faster than from a
    list), anything else as a new list."""
    decl = decls.get(rel)
    if decl is None:
        raise FactsError(f"facts given for undeclared relation {rel!r}")
    types = [_PYTYPE[c.type] for c in decl.columns]
    if isinstance(tuples, (set, frozenset)) and set(map(type, tuples)) <= {tuple}:
        out = tuples
    else:
        out = list(map(tuple, tuples))  # tuple() of a tuple is the tuple itself
    # fast path, column by column in C (a per-fact Python loop was a tenth of a
    # 10,000-entry read): zip(*out) transposes in one pass and, strict, fails on a row of
    # another length; the detailed loop below only runs to name the first bad fact
    try:
        columns = list(zip(*out, strict=True))
    except ValueError:
        columns = None
    if columns is not None and (len(columns) == len(types) or not out) and all(
            set(map(type, column)) <= {py} for column, py in zip(columns, types)):
        return out
    for tup in out:
        if len(tup) != len(types):
            raise FactsError(f"fact {rel}{tup!r} has {len(tup)} values; "
                             f"{rel} is declared with {len(types)} columns")
        for value, py, col in zip(tup, types, decl.columns):
            if type(value) is not py:
                raise FactsError(f"fact {rel}{tup!r}: column {col.name} is a {col.type}, "
                                 f"got {type(value).__name__} {value!r}")
    return out


class Database:
    """Relations after evaluation (read-only view), with queries, proofs and profile stats."""

    def __init__(self, engine, full: Dict[str, set], prov, spans, stats, done, watchdog=None):
        self.engine = engine
        self.watchdog = watchdog  # the evaluation's limits, which proof building counts against
        self._full = full
        self._prov = prov
        self.spans = spans
        self._stats = stats
        self._done = frozenset(done)
        self._why_cache: dict = {}

    def _rel(self, name: str) -> set:
        if name not in self._full:
            raise EngineError(f"undeclared relation {name!r}", code="DL906")
        if name not in self._done:
            raise EngineError(f"relation {name!r} was not evaluated (not needed by only=)",
                              code="DL909")
        return self._full[name]

    def relation(self, name: str) -> List[tuple]:
        """Every tuple of a relation, sorted."""
        return sorted_tuples(self._rel(name))

    def tuples(self, name: str) -> set:
        """Every tuple of a relation as the engine's own unsorted set, not copied (do not
        modify it): for a caller that groups or sorts them its own way (sorting a relation
        of millions of tuples first would cost more than that)."""
        return self._rel(name)

    def evaluated(self, name: str) -> bool:
        """Whether relation ``name`` is complete in this database (declared and evaluated)."""
        return name in self._done

    def known(self) -> frozenset:
        """The relations this result holds completely (others raise DL909 when read)."""
        return self._done

    def count(self, name: str) -> int:
        """How many tuples a relation holds."""
        return len(self._rel(name))

    def contains(self, name: str, tup: tuple) -> bool:
        """Whether ``tup`` is in relation ``name``."""
        return tuple(tup) in self._rel(name)

    def query(self, pattern: Union[str, ast.Atom]) -> List[tuple]:
        """Sorted tuples matching a pattern: constants, repeated variables, ``_``."""
        if isinstance(pattern, str):
            from analyzer.engine.syntax import parse_query

            pattern = parse_query(pattern)
        tuples = self._rel(pattern.rel)
        decl = self.engine.program.decls[pattern.rel]
        if len(pattern.args) != decl.arity:
            raise EngineError(f"{pattern.rel} has {decl.arity} columns, the pattern gives "
                              f"{len(pattern.args)}", pattern.span, code="DL910")
        tests = []
        first: Dict[str, int] = {}
        for i, term in enumerate(pattern.args):
            if isinstance(term, ast.Const):
                tests.append((i, None, term.value))
            elif isinstance(term, ast.Var):
                if term.name in first:
                    tests.append((i, first[term.name], None))
                else:
                    first[term.name] = i
            elif not isinstance(term, ast.Wildcard):
                raise EngineError("a query pattern holds only constants, variables and _",
                                  getattr(term, "span", None) or pattern.span, code="DL910")
        if not tests:
            return sorted_tuples(tuples)
        return sorted_tuples(t for t in tuples if all(
            t[i] == value and type(t[i]) is type(value) if j is None else t[i] == t[j]
            for i, j, value in tests))

    @property
    def stats(self):
        """Per-rule :class:`RuleStats` (needs ``profile=True``)."""
        if self._stats is None:
            raise EngineError("no profile: evaluate with profile=True", code="DL911")
        return list(self._stats)

    def why(self, rel: str, tup: tuple):
        """A proof tree for ``rel(tup)``, or None when the tuple is not in the relation."""
        if self._prov is None:
            raise EngineError("no provenance: evaluate with provenance=True", code="DL912")
        from analyzer.engine.provenance import prove

        tup = tuple(tup)
        if tup not in self._rel(rel):
            return None
        if self.watchdog is None:
            return prove(self, rel, tup)
        with self.watchdog.watching("building proofs"):
            try:
                return prove(self, rel, tup, self.watchdog.check)
            except MemoryError:
                raise self.watchdog.out_of_memory() from None


@dataclass
class RuleStats:
    """Seconds spent in one rule's variants, how many times they ran, tuples they added."""

    rule: ast.Rule
    seconds: float = 0.0
    iterations: int = 0
    derived: int = 0

    @property
    def text(self) -> str:
        """The rule as written, on one line."""
        from analyzer.engine.astfmt import rule_text

        return rule_text(self.rule)

    @property
    def span(self):
        """Where the rule is written."""
        return self.rule.span

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"rule": self.text, "location": str(self.span) if self.span else None,
                "seconds": round(self.seconds, 6), "iterations": self.iterations,
                "derived": self.derived}


def render_profile(stats: List[RuleStats]) -> str:
    """An aligned table, slowest rule first (ties by location), facts left out."""
    rows = [s for s in stats if not s.rule.is_fact]
    rows.sort(key=lambda s: (-s.seconds, s.span or Span("", 0, 0), s.text))
    table = [("seconds", "iters", "derived", "location", "rule")]
    for s in rows:
        table.append((f"{s.seconds:.4f}", str(s.iterations), str(s.derived),
                      str(s.span) if s.span else "-", s.text))
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    lines = []
    for r in table:
        cells = [r[i].rjust(widths[i]) if i < 3 else r[i].ljust(widths[i]) for i in range(4)]
        lines.append("  ".join(cells + [r[4]]).rstrip())
    return "\n".join(lines)
