"""Ad hoc questions: a goal (a conjunction) and added rules over a base program and its facts.

Two layers. The base program (the shipped rules, or a user's PROGRAM.dl) is evaluated as it
is, from the compiled-program cache, and only as far as the question needs. The goal and any
added rules (``-e``, ``--rules``, shell lines) form a small program on top whose inputs are
the base relations they name; it is checked like any rule file (carets point into the goal)
and compiled afresh, which costs milliseconds. The goal becomes the rule
``__goal(V1, ..., Vn) :- goal.`` over its named variables, so negation, comparisons,
arithmetic, aggregates and builtins mean exactly what they mean in rule files.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Mapping, Optional

from analyzer.core.lifetime import gc_paused
from analyzer.core.diagnostics import Diagnostic, DiagnosticError
from analyzer.engine import ast
from analyzer.engine.builtins import BUILTINS
from analyzer.engine.functors import FRESH
from analyzer.core.span import Span

GOAL = "__goal"
UNKNOWN_RELATION = "DL915"  # a goal or added rule names a relation that is neither declared nor built in
ARITY = "DL916"  # kept for the pattern form; arity errors in goals are the checker's DL103
NEVER_MATCHES = "DL917"  # a goal atom over a base relation with no facts and no rule
NEEDS_REQUEST = "DL918"  # a request-dependent relation asked without a read request
BUILTIN_HEAD = "DL919"  # an added rule or fact for a relation of the base program
NO_GOAL = "DL920"  # a program queried without a goal that has no .output/.printsize directive


@dataclass
class Answer:
    """The answer to one goal: named columns, sorted rows, optional proofs."""

    goal: str
    columns: List[str]
    rows: List[tuple]
    relation: Optional[str] = None  # the relation of a one-atom goal
    proofs: Optional[list] = None
    stats: Optional[list] = None
    warnings: list = field(default_factory=list)  # DL921 near misses (analyzer/query/constants.py)
    written: Dict[str, str] = field(default_factory=dict)  # casefolded ID -> as written (for proofs)


@dataclass
class Session:
    """A base engine with its facts, plus added rules; answers goals without re-reading input.

    ``request_hints``: base relations that hold a request nobody gave, each with what to do;
    a goal that depends on one of them is an error saying so (never a partial answer).
    ``spans`` is called once, on the first question asked with proofs.
    """

    engine: object
    facts: Mapping[str, Iterable[tuple]]
    spans: Optional[Callable[[], Mapping]] = None
    request_hints: Mapping[str, str] = field(default_factory=dict)
    limits: object = None
    watchdog: object = None  # one Watchdog for every evaluation and proof of a request
    decls: Dict[str, ast.Decl] = field(default_factory=dict)
    rules: List[ast.Rule] = field(default_factory=list)
    sources: Dict[str, str] = field(default_factory=dict)
    others: List["Session"] = field(default_factory=list)  # further base programs, lower priority
    gathered: frozenset = frozenset()  # base relations gathered on request: no facts is an answer
    _dbs: Dict[bool, object] = field(default_factory=dict)
    _covered: Dict[bool, frozenset] = field(default_factory=dict)  # what each kept database holds fully
    _added: int = 0
    _merged: Optional[dict] = None

    # ---- what can be asked ------------------------------------------------------------

    @property
    def base_decls(self) -> Mapping[str, ast.Decl]:
        """The declarations of the base programs (this one first, then ``others``)."""
        if self._merged is None:
            merged: dict = {}
            for session in reversed(self.others):
                merged.update(session.engine.program.decls)
            merged.update(self.engine.program.decls)
            self._merged = merged
        return self._merged

    def owner(self, rel: str) -> "Session":
        """The base session whose program answers ``rel`` (the first that declares it)."""
        for session in [self, *self.others]:
            if rel in session.engine.program.decls:
                return session
        return self

    def rules_for(self, rel: str) -> List[ast.Rule]:
        """The rules (base, then added) whose head is ``rel``."""
        base = self.owner(rel).engine.rules if rel not in self.decls else []
        return [r for r in [*base, *self.rules] if r.head.rel == rel]

    def relations(self) -> List[str]:
        """Every relation a goal may name (base, added), sorted."""
        return sorted({*self.base_decls, *self.decls})

    def decl(self, name: str) -> Optional[ast.Decl]:
        """The declaration of ``name`` (added first, then base), or None."""
        return self.decls.get(name) or self.base_decls.get(name)

    # ---- adding rules -----------------------------------------------------------------

    def add(self, text: str, path: Optional[str] = None) -> List[str]:
        """Add declarations and rules (a rule pack, an ``-e`` text, a shell line); returns the
        relations they define. Nothing is added when anything in ``text`` is wrong."""
        rules, decls, _sources = self.add_all([(text, path)])[0]
        return sorted({r.head.rel for r in rules} | {d.name for d in decls})

    def add_all(self, texts) -> List[tuple]:
        """Add several texts (``(text, path or None)`` pairs) as one program, so that a rule
        may use a relation a later text (or a later rule) defines; returns each text's
        ``(rules, declarations, sources)``. Nothing is added when anything in any text is wrong."""
        from analyzer.engine.syntax import parse_program

        decls, rules, sources, parsed = dict(self.decls), list(self.rules), {}, []
        for text, path in texts:
            self._added += 1
            program = parse_program(text, path or f"<rule {self._added}>")
            sources.update(program.sources)
            for decl in program.all_decls:
                known = decls.get(decl.name) or self.base_decls.get(decl.name)
                if known is not None and _shape(known) != _shape(decl):
                    raise _error(decl.span, "DL102", f"relation {decl.name} redeclared with different columns "
                                 f"(first declared at {known.span})", {**self.sources, **sources})
                decls.setdefault(decl.name, decl)
            for rule in program.rules:
                if rule.head.rel in self.base_decls:
                    raise _error(rule.head.span, BUILTIN_HEAD, f"{rule.head.rel} is a relation of the built-in "
                                 "program; added rules define new relations (give this one another name)",
                                 sources)
            rules += program.rules
            parsed.append((program.rules, program.all_decls, program.sources))
        _declare_heads(decls, rules, self.base_decls)
        self._check(decls, rules, (), {**self.sources, **sources})
        self.decls, self.rules = decls, rules
        self.sources.update(sources)
        return parsed

    # ---- asking -----------------------------------------------------------------------

    def ask(self, goal: str, *, provenance: bool = False, profile: bool = False,
            max_proofs: Optional[int] = None, written: bool = False) -> Answer:
        """Evaluate ``goal`` (e.g. ``owner(I, M, _, _, _), !loaded(M)``) and return its answer
        (with ``provenance``: proofs of the first ``max_proofs`` rows, all when None).

        Constants are read as the protocol reads them (analyzer/query/constants.py): a
        protocol ID matching nothing in its column is matched casefolded, other near misses
        are warnings on the answer. ``written``: answers show casefolded IDs as written."""
        from analyzer.engine.syntax import parse_goal
        from analyzer.query.constants import read_constants, show_written, written_ids

        parsed = parse_goal(goal)
        sources = {**self.sources, "<goal>": goal}
        answer, tables = self._evaluate(goal, parsed, sources, provenance, profile, max_proofs)
        body, warnings = read_constants(parsed, tables, sources)
        if body != parsed:  # the base relations are kept: only the goal is evaluated again
            answer, _ = self._evaluate(goal, body, sources, provenance, profile, max_proofs)
        answer.warnings = warnings
        if written:
            answer.written = written_ids(self._written_facts())
            answer.rows = show_written(answer.rows, answer.written)
        return answer

    def _written_facts(self) -> Dict[str, Iterable[tuple]]:
        from analyzer.query.constants import WRITTEN

        return {rel: self.facts.get(rel, ()) for rel in WRITTEN}

    def _evaluate(self, goal: str, parsed: tuple, sources: Dict[str, str], provenance: bool, profile: bool,
                  max_proofs: Optional[int]):
        """``(answer, column_values)``: the answer to the goal ``parsed`` and a function giving
        the values of a column of any relation the evaluation holds (None when it holds none)."""
        from analyzer.engine.evaluate import Engine

        columns, head_args, body = _goal_columns(parsed, self.decls, self.base_decls)
        decls = dict(self.decls)
        rule = ast.Rule(ast.Atom(GOAL, tuple(head_args), Span("<goal>", 1, 1)), body, "", Span("<goal>", 1, 1))
        _unknown_relations([rule], {**self.base_decls, **decls}, sources)
        from analyzer.engine.check import variable_types

        upper = self._program(decls, [])
        types = variable_types(upper, body)
        decls[GOAL] = ast.Decl(GOAL, tuple(ast.Column(f"c{i}", types.get(a.name, ast.SYMBOL))
                                           for i, a in enumerate(head_args)), "", rule.span)
        program = self._check(decls, self.rules + [rule], body, sources)
        # the base relations are declared here but defined by no added rule: stratified by
        # name, not through the graph (each question would otherwise order the whole program)
        engine = Engine(program, below=self.base_decls)
        if self.limits is not None:
            engine.limits = self.limits
        used = [r for r in engine.needed([GOAL]) if r in self.base_decls and r not in self.decls]
        by_owner: Dict[int, tuple] = {}
        for rel in used:
            owner = self.owner(rel)
            by_owner.setdefault(id(owner), (owner, []))[1].append(rel)
        dbs = {}
        for owner, rels in by_owner.values():
            base_db = owner._base(rels, provenance, profile)
            dbs.update({rel: base_db for rel in rels})
        facts = {r: dbs[r].tuples(r) for r in used}

        with gc_paused():  # many small acyclic objects next to a large fact base (see run_read)
            db = engine.evaluate(facts, provenance=provenance, profile=profile, only=[GOAL], watchdog=self.watchdog)
        rows = db.relation(GOAL)
        relation = body[0].rel if len(body) == 1 and isinstance(body[0], ast.Atom) else None
        proofs = None
        if provenance:
            proofs = [_stitch(db.why(GOAL, row), dbs) for row in rows[:max_proofs]]
        stats = None
        if profile:
            stats = [s for base_db in {id(d): d for d in dbs.values()}.values() for s in base_db.stats] + db.stats

        def column_values(rel: str, k: int):
            held = facts.get(rel)
            if held is None and rel in self.decls and db.evaluated(rel):
                held = db.tuples(rel)
            return None if held is None else {row[k] for row in held if k < len(row)}

        return Answer(goal, columns, rows, relation, proofs, stats), column_values

    def outputs(self):
        """Soufflé-style output of a program without a goal: ``([(name, columns, rows)],
        [(name, size)])`` for its ``.output`` and ``.printsize`` relations."""
        directives = self.engine.program.directives
        shown = list(dict.fromkeys(r for d in directives if d.kind == "output" for r in d.relations))
        sized = list(dict.fromkeys(r for d in directives if d.kind == "printsize" for r in d.relations))
        if not shown and not sized:
            raise _error(None, NO_GOAL, "no goal given and the program has no .output or .printsize "
                         "directive: give a goal, e.g. 'path(X, Y)'", {})
        db = self._base(shown + sized, False)
        return ([(r, [c.name for c in self.base_decls[r].columns], db.relation(r)) for r in shown],
                [(r, db.count(r)) for r in sized])

    # ---- internals --------------------------------------------------------------------

    def _program(self, decls: Mapping[str, ast.Decl], rules: list, sources: Optional[dict] = None) -> ast.Program:
        # only the added declarations are checked (each question): the base programs' were
        # checked when they were loaded, and add_all refuses one that redeclares them (DL102)
        all_decls = [d for n, d in decls.items() if n not in self.base_decls]
        return ast.Program(decls={**self.base_decls, **decls}, rules=list(rules), files=list(sources or ()),
                           all_decls=all_decls, sources=dict(sources or {}))

    def _check(self, decls, rules, goal_body, sources) -> ast.Program:
        from analyzer.engine.check import check_program

        _unknown_relations(rules, {**self.base_decls, **decls}, sources)
        program = self._program(decls, rules, sources)
        diags = [d for d in check_program(program) if d.severity == "error"]
        if diags:
            raise DiagnosticError(diags)
        self._needs_request(program, rules, sources)
        if goal_body:
            self._never_matches(program, goal_body, sources)
        return program

    def _needs_request(self, program, rules, sources) -> None:
        request = set(self.request_hints)
        if not request:
            return
        for rule in rules:
            for atom, _neg, _depth in _atoms(rule.body):
                if atom.rel not in self.base_decls or atom.rel in self.decls:
                    continue
                via = sorted(self.owner(atom.rel).engine.needed([atom.rel]) & request)
                if via:
                    # the hint of the first request in the session's order (most specific first)
                    first = next(r for r in self.request_hints if r in via)
                    raise _error(atom.span, NEEDS_REQUEST, f"{atom.rel} depends on a request "
                                 f"({', '.join(via)}); {self.request_hints[first]}", sources)

    def _never_matches(self, program, body, sources) -> None:
        for lit in body:
            if not isinstance(lit, ast.Atom) or lit.rel in BUILTINS or lit.rel in self.gathered \
                    or self.rules_for(lit.rel):
                continue
            if not self.facts.get(lit.rel) and not self.owner(lit.rel).engine.facts.get(lit.rel):
                raise _error(lit.span, NEVER_MATCHES, f"the goal can never match: {lit.rel} has no facts "
                             "here and no rule derives it", sources)

    def reuse(self, db, covered: Iterable[str], provenance: bool = False) -> None:
        """Answer the relations ``covered`` from ``db``, an evaluation of the base program over
        this session's facts made elsewhere (check's, for rule packs)."""
        self._dbs[provenance] = db
        self._covered[provenance] = frozenset(covered)

    def _base(self, used: List[str], provenance: bool, profile: bool = False):
        # A kept database answers the relations it was evaluated for and the base relations
        # whose facts it was given; any other base relation reads empty in it (its facts were
        # left out, not absent), so a goal naming one evaluates again.
        db = self._dbs.get(provenance)
        covered = self._covered.get(provenance, frozenset())
        if db is not None and all(r in covered for r in used) and not profile:
            return db
        wanted = sorted(set(used) | covered)
        derived = {r.head.rel for r in self.engine.rules}  # tables of facts in rule files too
        only = [r for r in wanted if r in derived]
        needed = self.engine.needed(only) | set(wanted)
        facts = {r: rows for r, rows in self.facts.items() if r in needed}
        if self.limits is not None:
            self.engine.limits = self.limits
        spans = self.spans() if provenance and self.spans is not None else None

        # the base database is kept for the session: freeze what it allocated (see run_read)
        with gc_paused(freeze=True):
            db = self.engine.evaluate(facts, spans=spans, provenance=provenance, profile=profile, only=only,
                                      watchdog=self.watchdog)
        self._dbs[provenance] = db
        self._covered[provenance] = frozenset(needed)
        return db


def _shape(decl: ast.Decl) -> tuple:
    return tuple((c.name, c.type) for c in decl.columns)


def _error(span, code: str, message: str, sources: Mapping[str, str]) -> DiagnosticError:
    from analyzer.engine.syntax import line_of

    span = span or Span("<command line>", 1, 1)
    text = sources.get(span.path)
    return DiagnosticError([Diagnostic(span, code, message,
                                       source_line=line_of(text, span.line) if text is not None else None)])


def _atoms(literals):
    from analyzer.engine.check import iter_atoms

    return iter_atoms(literals)


def nearest(name: str, known: Iterable[str]) -> Optional[str]:
    """The known name closest to ``name`` (for "did you mean"), or None."""
    known = sorted(set(known))
    lowered = {k.lower(): k for k in known}
    if name.lower() in lowered:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    if close:
        return close[0]
    part = [k for k in known if name in k or k in name]
    return min(part, key=lambda k: (abs(len(k) - len(name)), k)) if part else None


def _unknown_relations(rules, decls: Mapping[str, ast.Decl], sources) -> None:
    for rule in rules:
        for atom, _neg, _depth in _atoms((rule.head,) + tuple(rule.body)):
            if atom.rel in decls or atom.rel in BUILTINS or atom.rel == GOAL:
                continue
            near = nearest(atom.rel, [*decls, *BUILTINS])
            hint = f"; the nearest known relation is {near}" if near else ""
            raise _error(atom.span, UNKNOWN_RELATION, f"unknown relation {atom.rel!r}: neither declared nor "
                         f"built in{hint} (`analyze schema` lists them)", sources)


def _declare_heads(decls: Dict[str, ast.Decl], rules: List[ast.Rule], base: Mapping[str, ast.Decl]) -> None:
    """Declare the head relation of every added rule that has no ``.decl``, typing each column
    from the rule body (a shell line or ``-e`` text need not repeat what the checker infers).

    Rules may come in any order: a head is typed from a rule whose body names no relation
    still waiting for its own declaration (its own head aside), so ``p(N) :- q(N).`` before
    ``q(N) :- budget(_, N).`` types p's column from q's. Heads that only mutual recursion
    defines are then typed from what is known."""
    from analyzer.engine.check import variable_types

    def waiting_on(rule) -> set:
        return {a.rel for a, _neg, _depth in _atoms(rule.body)} & pending - {rule.head.rel}

    pending = {r.head.rel for r in rules if r.head.rel not in decls and r.head.rel not in base
               and r.head.rel not in BUILTINS}
    while pending:
        ready = [r for r in rules if r.head.rel in pending and not waiting_on(r)]
        for rule in ready or [r for r in rules if r.head.rel in pending]:
            if rule.head.rel in pending:
                decls[rule.head.rel] = _head_decl(rule, {**base, **decls}, variable_types)
                pending.discard(rule.head.rel)
                if not ready:
                    break  # one guess at a time: it may let the others be typed exactly


def _head_decl(rule: ast.Rule, known: Mapping[str, ast.Decl], variable_types) -> ast.Decl:
    """The declaration of ``rule``'s head, its columns typed from the body over ``known``."""
    head = rule.head
    types = variable_types(ast.Program(decls=dict(known), rules=[]), rule.body)
    columns: List[ast.Column] = []
    for i, arg in enumerate(head.args):
        if isinstance(arg, ast.Var):
            typ, name = types.get(arg.name, ast.SYMBOL), arg.name.lower()
            if name.startswith(FRESH):  # a functor's value: no name of the user's
                name = f"c{i}"
        elif isinstance(arg, ast.Const):
            typ, name = (ast.NUMBER if isinstance(arg.value, int) else ast.SYMBOL), f"c{i}"
        else:
            typ, name = ast.NUMBER, f"c{i}"
        if name in {c.name for c in columns}:
            name = f"{name}_{i}"
        columns.append(ast.Column(name, typ))
    return ast.Decl(head.rel, tuple(columns), "", head.span)


def _goal_columns(body, decls, base):
    """``(column names, head variables, body)`` of the goal rule.

    The columns are the goal's named variables in order of first appearance (variables local
    to an aggregate excluded). A goal without named variables that is one atom answers with
    the relation's whole tuples, its columns named as declared.
    """
    names: List[str] = []

    def visit(term):
        # a functor's value variable (analyzer/engine/functors.py) is no column of the answer
        if isinstance(term, ast.Var) and term.name not in names and not term.name.startswith(FRESH):
            names.append(term.name)
        elif isinstance(term, ast.BinOp):
            visit(term.left)
            visit(term.right)

    for lit in body:
        if isinstance(lit, ast.Comparison):
            terms = (lit.left, lit.right)
        else:
            terms = (lit.atom if isinstance(lit, ast.Negation) else lit).args
        for term in terms:
            visit(term)
    if names:
        return names, [ast.Var(n, Span("<goal>", 1, 1)) for n in names], body
    if len(body) == 1 and isinstance(body[0], ast.Atom) and body[0].rel not in BUILTINS:
        atom = body[0]
        decl = decls.get(atom.rel) or base.get(atom.rel)
        if decl is not None and decl.arity == len(atom.args):
            fresh = [ast.Var(f"Col__{i}", getattr(a, "span", None) or atom.span) for i, a in enumerate(atom.args)]
            extra = tuple(ast.Comparison("=", v, a, a.span) for v, a in zip(fresh, atom.args)
                          if not isinstance(a, ast.Wildcard))
            return ([c.name for c in decl.columns], fresh,
                    (ast.Atom(atom.rel, tuple(fresh), atom.span),) + extra)
    return [], [], body


def _stitch(proof, dbs: Mapping[str, object]):
    """Replace the leaves of an upper-layer proof that are derived base tuples with their
    proofs in the base program that answered them (``dbs``: relation -> database)."""
    if proof is None:
        return proof
    seen = set()
    todo = [proof]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        base_db = dbs.get(node.relation)
        if node.rule is None and base_db is not None and getattr(base_db, "_prov", None) is not None \
                and base_db.contains(node.relation, node.tuple):
            sub = base_db.why(node.relation, node.tuple)
            if sub is not None:
                node.rule, node.span, node.bindings = sub.rule, sub.span, sub.bindings
                node.children, node.absent, node.builtins = sub.children, sub.absent, sub.builtins
                continue
        todo.extend(node.children)
    return proof
