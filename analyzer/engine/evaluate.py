"""The engine: stratify once, compile once, evaluate semi-naively as often as asked.

Relations are Python sets of tuples; every (relation, columns) pair a rule looks up gets a
hash index, key set or selection (analyzer/engine/indexes.py) built once and extended as
tuples arrive. Each stratum runs its non-recursive rules once, then its delta variants
until nothing is new.
"""

from __future__ import annotations

import time
from operator import itemgetter
from typing import Dict, Iterable, List, Mapping, Optional

import analyzer.engine.ast as ast
from analyzer.engine.database import Database, RuleStats, check_facts
from analyzer.engine.errors import EngineError
from analyzer.engine.indexes import Indexes
from analyzer.engine.limits import Limits, Watchdog
from analyzer.engine.plan import annotate_aggregates
from analyzer.engine.stratify import (body_dependencies, dependency_maps, dependent_relations, needed_relations, stratify,
                                      stratify_over)
from analyzer.engine.variants import PLAIN, PROV, build_variants, link
from analyzer.engine.runtime import RUNTIME


def default_builtins() -> Mapping:
    """The builtin registry (empty while the front end's builtins module is absent)."""
    try:
        from analyzer.engine.builtins import BUILTINS
    except ImportError:
        return {}
    return BUILTINS


class Engine:
    """A stratified, compiled program; :meth:`evaluate` runs it over a set of facts."""

    def __init__(self, program: ast.Program, *, limits: Optional[Limits] = None,
                 builtins: Optional[Mapping] = None, below: Iterable[str] = ()):
        """``below``: relations no rule of ``program`` defines that it sits on top of (the
        base program of an ad hoc goal); they are stratified without a graph
        (:func:`~analyzer.engine.stratify.stratify_over`), to the same strata."""
        self.program = program
        self.limits = limits or Limits()
        self.builtins = default_builtins() if builtins is None else builtins
        self._rules: Optional[List[ast.Rule]] = list(program.rules)
        self._rest = None
        self.facts: Dict[str, list] = {}  # program facts: rel -> [(tuple, span)]
        for rule in self.rules:
            _check_relations(rule, program.decls, self.builtins)
            annotate_aggregates(rule)
            if rule.is_fact:
                self.facts.setdefault(rule.head.rel, []).append((_ground(rule.head), rule.span))
        self.strata = stratify_over(program, self.builtins, below) if below else stratify(program, self.builtins)
        self._compiled: Dict[str, list] = {}
        self._code: Dict[str, object] = {}  # flavour -> code object of its variant functions
        self._selected: Dict[str, dict] = {}  # flavour -> selections its variants read (selected)
        self._why_variants: Dict[int, object] = {}  # rule index -> proof search function

    def state(self) -> dict:
        """What :meth:`from_state` needs to rebuild this engine without re-stratifying
        (picklable: the program, its strata, facts and dependency maps; limits and builtins
        are not kept)."""
        return {"program": self.program, "rules": self.rules, "facts": self.facts, "strata": self.strata,
                "maps": self.maps()}

    @property
    def rules(self) -> List[ast.Rule]:
        """The program's rules in source order (a stored engine reads them on first use:
        evaluating needs only its compiled variants, analyzer/engine/cache.py)."""
        if self._rules is None:
            self._rules = self._rest()["rules"]
        return self._rules

    @classmethod
    def from_state(cls, state: dict, compiled: Optional[Dict[str, list]] = None, rest=None) -> "Engine":
        """Rebuild an engine from :meth:`state` (and already compiled variants, by flavour).

        With ``rest`` (a function returning ``{"rules": [...]}``) the state holds no
        ``rules``: they are read on first use."""
        engine = cls.__new__(cls)
        engine.program = state["program"]
        engine.limits = Limits()
        engine.builtins = default_builtins()
        engine._rules = state["rules"] if rest is None else None
        engine._rest = rest
        engine.facts = state["facts"]
        engine.strata = state["strata"]
        engine._compiled = dict(compiled or {})
        engine._code = {}
        engine._selected = {}
        engine._why_variants = {}
        # computing the maps walks every rule body (about 10 ms for the read rules): a
        # stored program brings them along
        engine._maps = state.get("maps")
        return engine

    def compiled(self, flavour: str) -> list:
        """Per stratum ``(non-recursive variants, delta variants)``, compiled on first use."""
        if flavour not in self._compiled:
            rules = [r if not r.is_fact else None for r in self.rules]
            groups = [build_variants(rules, s, self.builtins, flavour, link_later=True) if s.rules else ([], [])
                      for s in self.strata]
            self._code[flavour] = link(groups)
            self._compiled[flavour] = groups
        return self._compiled[flavour]

    def selected(self, flavour: str) -> dict:
        """``(relation, columns) -> constant keys``: every selection the variants of
        ``flavour`` may read (analyzer/engine/indexes.py computes those of one relation and
        columns in one pass)."""
        selected = self._selected.get(flavour)
        if selected is None:
            found: dict = {}
            for base, delta in self.compiled(flavour):
                for v in (*base, *delta):
                    for key in (*v.params, *(s for _, s in v.empty_if if s is not None)):
                        if key[0] == "Q":
                            found.setdefault(key[1:3], set()).add(key[3])
            selected = self._selected[flavour] = {k: frozenset(v) for k, v in found.items()}
        return selected

    def code(self, flavour: str):
        """The code object holding every compiled variant function of ``flavour`` (None for
        variants that came compiled from the program cache)."""
        self.compiled(flavour)
        return self._code.get(flavour)

    def source(self, provenance: bool = False) -> str:
        """The generated Python source of every rule variant, in evaluation order."""
        out = []
        for base, delta in self.compiled(PROV if provenance else PLAIN):
            out.extend(v.source for v in base + delta)
        return "\n".join(out)

    def needed(self, only: Iterable[str]) -> set:
        """The relations an ``evaluate(..., only=only)`` reads or derives; facts of any other
        relation cannot change its result, so a caller may leave them out."""
        return set(self._needed(tuple(only)))

    def _needed(self, only: tuple) -> frozenset:
        # the same few ``only`` lists are asked for again and again (each judgement and read
        # evaluation, and the read's own questions): the closure is walked once per list
        cache = self.__dict__.setdefault("_needed_of", {})
        found = cache.get(only)
        if found is None:
            found = cache[only] = frozenset(needed_relations(self.program, self.builtins, list(only), maps=self.maps()))
        return found

    def _constant(self):
        """``(ruleless, facts, spans)``, computed once per engine: the relations no rule
        derives (complete from the start of every evaluation), the program's facts as one
        set per relation, and the span of each (the first stated)."""
        found = self.__dict__.get("_constant_parts")
        if found is None:
            ruleless = set(self.program.decls)
            for s in self.strata:
                if s.rules:
                    ruleless.difference_update(s.relations)
            facts: Dict[str, frozenset] = {}
            spans: Dict[tuple, object] = {}
            for rel, items in self.facts.items():
                facts[rel] = frozenset(tup for tup, _ in items)
                for tup, span in items:
                    if span is not None:
                        spans.setdefault((rel, tup), span)
            found = self.__dict__["_constant_parts"] = (frozenset(ruleless), facts, spans)
        return found

    def maps(self):
        """The rule dependency maps ``(reads, readers)`` (computed once per engine)."""
        maps = getattr(self, "_maps", None)
        if maps is None:
            maps = self._maps = dependency_maps(self.program, self.builtins)
        return maps

    def dependent_on(self, inputs: Iterable[str]) -> set:
        """The relations whose tuples may change when the tuples of ``inputs`` change: the
        inputs and every relation a rule derives from one of them, directly or through
        other relations (any body dependency: positive, negated, aggregated or read by a
        graph builtin). Every other derived relation is the same for all values of the
        inputs, given the rest of the facts."""
        return dependent_relations(self.program, self.builtins, inputs, maps=self.maps())

    def evaluate(self, facts: Mapping[str, Iterable[tuple]], *, spans: Optional[Mapping] = None,
                 provenance: bool = False, profile: bool = False,
                 only: Optional[Iterable[str]] = None, watchdog: Optional[Watchdog] = None,
                 given: Optional[Mapping[str, set]] = None, checked: Iterable[str] = ()) -> Database:
        """Evaluate over ``facts`` (relation -> tuples); see :class:`Database` for the result.

        The limits are enforced by ``watchdog`` (a fresh one for :attr:`limits` if None); the
        result keeps it, so proofs built from it count against the same limits.

        ``given`` holds derived relations already evaluated over the same facts (complete,
        e.g. materialized by analyzer/engine/materialize.py): they are taken as they are and
        a stratum all of whose relations are given is not run. Not with ``provenance``:
        given tuples have no derivations to show.

        ``checked`` names relations whose facts are sets of tuples known to conform to the
        declarations: checked by an earlier evaluation of this program (the same facts, e.g.
        under the same fact-base digest), or a project's fact base, which the extractors fill
        as facts/schema.dl declares (see analyzer/query/program.py ``extracted``). They are
        taken without checking them again, and a relation no rule derives is not even copied
        (do not modify such a set while its result is in use)."""
        if given and provenance:
            raise ValueError("given relations carry no provenance")
        given = given or {}
        wanted = None
        if only is not None:
            only = list(only)
            for rel in only:
                if rel not in self.program.decls:
                    raise EngineError(f"undeclared relation {rel!r} in only=", code="DL906")
        elif given:
            only = [rel for s in self.strata if s.rules for rel in s.relations if rel not in given]
        if only is not None:
            wanted = needed_relations(self.program, self.builtins, only, stop=given, maps=self.maps()) if given \
                else self._needed(tuple(only))
        if given:
            # facts only the given strata read are not even loaded (nor reported as known)
            facts = {rel: tuples for rel, tuples in facts.items() if rel in wanted}
        dog = watchdog or Watchdog(self.limits)
        run = _Run(self, provenance, profile, dog)
        run.load(facts, spans or {}, frozenset(checked))
        for rel, tuples in given.items():
            run.full[rel] = tuples
        if given:
            run.done &= wanted
        compiled = self.compiled(PROV if provenance else PLAIN)
        run.indexes.selected = self.selected(PROV if provenance else PLAIN)
        with dog.watching():
            try:
                for si, (base, delta) in enumerate(compiled):
                    stratum = self.strata[si]
                    if not stratum.rules or (wanted is not None and wanted.isdisjoint(stratum.relations)):
                        continue
                    if given and all(rel in given for rel in stratum.relations):
                        run.done.update(stratum.relations)  # done already: its relations are given
                        continue
                    run.stratum(stratum, base, delta)
                    run.done.update(stratum.relations)
            except MemoryError:
                raise dog.out_of_memory() from None
            run.current = None  # evaluation is over: later limit errors name no rule
        return Database(self, run.full, run.prov, run.spans, run.stats if profile else None,
                        run.done, dog)


class _Run:
    """The state of one evaluation: relations, indexes, provenance, counters, deadline."""

    def __init__(self, engine: Engine, provenance: bool, profile: bool, watchdog: Watchdog):
        self.engine = engine
        self.full: Dict[str, set] = {name: set() for name in engine.program.decls}
        self.indexes = Indexes(self.full)
        self.prov: Optional[Dict[str, dict]] = {n: {} for n in self.full} if provenance else None
        self.spans: Dict = {}
        self.profile = profile
        self.stats = [RuleStats(r) for r in engine.rules] if profile else None
        self.done = set(engine._constant()[0])  # relations without rules are complete from the start
        self.derived = 0
        self.height = 0
        self.watchdog = watchdog
        watchdog.run = self
        self.new: Dict[str, set] = {}
        self.current: Optional[int] = None  # the index of the rule being evaluated
        self.ctx = _Context(self.full)

    def load(self, facts: Mapping, spans: Mapping, trusted: frozenset = frozenset()) -> None:
        decls = self.engine.program.decls
        _, program_facts, program_spans = self.engine._constant()
        for rel, tuples in program_facts.items():
            self.full[rel].update(tuples)
        self.spans.update(program_spans)
        for rel, tuples in facts.items():
            if rel in trusted and isinstance(tuples, (set, frozenset)) and rel in decls:
                # conforming already (evaluate's ``checked``); a relation that no rule derives
                # and the program adds no fact to is never written: the caller's set serves
                if rel in self.done and rel not in program_facts and not self.full[rel]:
                    self.full[rel] = tuples
                else:
                    self.full[rel].update(tuples)
                continue
            checked = check_facts(rel, tuples, decls)  # first: it names an undeclared relation
            self.full[rel].update(checked)  # a set comes back as itself: set-to-set reuses its hashes
        self.spans.update(spans)
        if self.prov is not None:
            for rel, tuples in self.full.items():
                self.prov[rel] = dict.fromkeys(tuples, (None, 0))

    def check(self) -> None:
        """Raise when a limit is reached (per iteration, and per chunk of a rule's outer loop
        where the watchdog has no timer)."""
        self.watchdog.check()

    def derived_count(self) -> int:
        """Tuples derived so far, including those not merged yet."""
        return self.derived + sum(map(len, self.new.values()))

    def progress(self):
        """``(derived tuples, running rule or None, [(relation, size)] largest first)``."""
        count = self.derived_count()
        sizes = {rel: len(t) for rel, t in self.full.items() if t}
        for rel, t in self.new.items():
            if t:
                sizes[rel] = sizes.get(rel, 0) + len(t)
        rule = None if self.current is None else self.engine.rules[self.current]
        return count, rule, sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))

    def stratum(self, stratum, base, delta_variants) -> None:
        self.height += 1
        self.new = {rel: set() for rel in stratum.relations}
        for variant in base:
            self.call(variant, None)
        self.merge()
        if not stratum.recursive:
            return
        delta = {rel: set(self.full[rel]) for rel in stratum.relations}
        while any(delta.values()):
            self.height += 1
            self.new = {rel: set() for rel in stratum.relations}
            for variant in delta_variants:
                if delta[variant.delta_rel]:
                    self.call(variant, delta)
            delta = self.new
            self.merge()

    def call(self, variant, delta) -> None:
        self.current = variant.rule
        if delta is None and self.idle(variant):
            if self.profile:
                self.stats[variant.rule].iterations += 1  # it ran, and found nothing
            return
        # indexes are built for the variants that run (a variant that returns at once needs
        # none), then kept and extended by every later merge; a variant whose indexes all
        # turn out unique runs its code for them (analyzer/engine/indexes.py)
        unique = self.indexes.prepare(variant.params, self.done, variant.unique_fn is not None)
        fn = variant.unique_fn if unique else variant.fn
        args = [self.resource(key, delta, unique) for key in variant.params] + [self.check]
        if self.prov is not None:
            args.append(self.height)
        target = self.new[variant.head]
        before = len(target)
        start = time.perf_counter() if self.profile else 0.0
        try:
            fn(*args)
        except TypeError as exc:  # e.g. a comparison between a number and a symbol
            span = self.engine.rules[variant.rule].span
            raise EngineError(f"type error evaluating rule: {exc}", span, code="DL907") from None
        except EngineError as exc:
            raise type(exc)(exc.message, exc.span or self.engine.rules[variant.rule].span, exc.code) from None
        known = self.full[variant.head]
        if known and delta is None and target:
            # a base variant adds its heads untested (analyzer/engine/compile.py): those the
            # relation already held (its facts, given tuples) are not new
            target -= target & known
        if self.profile:
            stats = self.stats[variant.rule]
            stats.seconds += time.perf_counter() - start
            stats.iterations += 1
            stats.derived += len(target) - before

    def idle(self, variant) -> bool:
        """Whether a variant over full relations derives nothing for sure: a positive atom of
        its body (outside aggregates) reads a complete relation, or selection of one, that is
        empty. It is then not run, and builds no index (``relation_problem(E, D) :-
        relation_entry(E, _), entry_relation(E, _, T), ...`` with no relation written looped
        over 10,000 entries for nothing); or no tuple of its first atom passes a one-column
        membership test of it (``schema_issue``: every entry's file is canonical storage, so
        ``!canonical_storage(M)`` rejects all 10,000 entries, and no entry index is built)."""
        for rel, selection in variant.empty_if:
            if rel not in self.done:
                continue  # still being derived: it may grow
            if not self.full[rel]:
                return True
            if selection is not None and not self.indexes.get(selection, True):
                return True
        # a membership test that no tuple of the first atom passes (one pass in C, which stops
        # at the first tuple that passes: a variant that derives something pays one test)
        for rel, selection, col, tested, negated in variant.filtered_if:
            if rel not in self.done or tested not in self.done:
                continue
            first = self.full[rel] if selection is None else self.indexes.get(selection, True)
            keys = zip(map(itemgetter(col), first))  # the tested relation holds 1-tuples
            if self.full[tested].issuperset(keys) if negated else self.full[tested].isdisjoint(keys):
                return True
        return False

    def resource(self, key, delta, unique=False):
        kind = key[0]
        if kind == "F":
            return self.full[key[1]]
        if kind == "D":
            return delta[key[1]]
        if kind == "N":
            return self.new[key[1]].add
        if kind == "U":
            return self.new[key[1]]
        if kind in ("I", "K", "Q"):
            return self.indexes.get(key, key[1] in self.done, unique)
        if kind == "P":
            return self.prov[key[1]]
        if kind == "B":
            return self.engine.builtins[key[1]].fn
        return self.ctx

    def merge(self) -> None:
        for rel, tuples in self.new.items():
            if not tuples:
                continue
            if self.full[rel]:
                self.full[rel].update(tuples)
            else:  # the first tuples (every relation of a non-recursive stratum): no copy
                self.full[rel] = tuples
            self.derived += len(tuples)
            self.indexes.extend(rel, tuples)
        self.new = {}  # merged: counted in self.derived from now on
        self.check()


class _Context:
    """What builtins may see: complete relations, and relations as networkx graphs."""

    def __init__(self, full):
        self._full = full
        self._graphs = {}

    def relation(self, name: str) -> set:
        """The tuples of a (completely evaluated) relation."""
        return self._full[name]

    def graph(self, name: str):
        """A binary relation as a networkx DiGraph (built once per evaluation)."""
        if name not in self._graphs:
            import networkx as nx

            graph = nx.DiGraph()
            graph.add_edges_from(sorted(self._full[name], key=repr))
            self._graphs[name] = graph
        return self._graphs[name]


def _ground(atom: ast.Atom) -> tuple:
    values = []
    for t in atom.args:
        if isinstance(t, ast.Const):
            values.append(t.value)
        elif isinstance(t, ast.BinOp) and not _has_vars(t):
            values.append(RUNTIME["_num"](eval(_const_expr(t), dict(RUNTIME))))  # noqa: S307 - constants only
        else:
            raise EngineError("a fact must be ground", atom.span, code="DL908")
    return tuple(values)


def _has_vars(term) -> bool:
    if isinstance(term, ast.BinOp):
        return _has_vars(term.left) or _has_vars(term.right)
    return not isinstance(term, ast.Const)


def _const_expr(term) -> str:
    if isinstance(term, ast.Const):
        return repr(term.value)
    op = {"/": "_div", "%": "_mod"}.get(term.op)
    left, right = _const_expr(term.left), _const_expr(term.right)
    return f"{op}({left}, {right})" if op else f"({left} {term.op} {right})"


def _check_relations(rule: ast.Rule, decls, builtins) -> None:
    if rule.head.rel not in decls:
        raise EngineError(f"undeclared relation {rule.head.rel!r}", rule.head.span, code="DL906")
    for rel, _neg, span in body_dependencies(rule.body, builtins):
        if rel not in decls:
            raise EngineError(f"undeclared relation {rel!r}", span, code="DL906")
