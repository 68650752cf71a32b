"""Rule compilation: each planned rule variant becomes a specialised Python function.

The generated source is plain nested ``for`` loops over sets and index lookups, tuple
construction and set membership tests: no per-tuple dictionaries or interpretation, which
is what makes the engine as fast as a hand-written semi-naive loop. Three flavours are
generated from the same plan (see :data:`PLAIN`, :data:`PROV`, :data:`WHY`); provenance
bookkeeping lives only in its own flavour, so plain evaluation pays nothing for it.
Every function's source is kept and can be printed (``Engine.source()``).
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

import analyzer.engine.ast as ast

import analyzer.engine.shapes as shapes
from analyzer.engine.errors import EngineError
from analyzer.engine.plan import CALL, SCAN, Step, outer_vars
from analyzer.engine.shapes import constant_key, counted_by_length, projection_rule
from analyzer.engine.astfmt import rule_text

PLAIN, PROV, WHY = "plain", "prov", "why"
_CMP_OPS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


#: loops in one generated function before the rest of the body moves to a nested function:
#: CPython allows 20 nested blocks per function and 100 indentation levels per file
LOOPS_PER_FUNCTION = 10
#: relation atoms and builtin calls one aggregate body may hold (its loops cannot be split)
MAX_AGGREGATE_ATOMS = 12


def _one_line(text: str) -> str:
    """``text`` for a comment of the generated source: a line break or NUL inside a string
    constant would end the comment early (found by the grammar fuzzer: SyntaxError, exit 3)."""
    return "".join(ch if ch.isprintable() or ch == "\t" else repr(ch)[1:-1] for ch in text)

class Resources:
    """The named inputs a generated function takes: sets, deltas, indexes, builtins."""

    def __init__(self):
        self.params: Dict[Tuple, str] = {}

    def name(self, key: Tuple) -> str:
        """The parameter name for ``key`` = (kind, relation[, columns[, constant key]]).

        Kinds: ``F`` a relation's set, ``D`` its delta, ``I`` a hash index on columns
        (key -> tuples), ``K`` the set of keys of such an index (membership tests only),
        ``Q`` the tuples whose key columns hold constants (a selection), ``N`` the ``add``
        of the set of new tuples, ``U`` that set itself, ``P`` provenance, ``B`` a builtin,
        ``CTX`` the builtin context."""
        if key not in self.params:
            # a selection's constant key is left out of its name (a symbol may be long)
            shown = key[1:3] if key[0] == "Q" else key[1:]
            parts = [key[0]] + ["_".join(map(str, k)) if isinstance(k, tuple) else str(k)
                                for k in shown]
            parts[0] = {"N": "add", "U": "new"}.get(parts[0], parts[0])
            base = re.sub(r"\W", "_", "_".join(parts))
            while base in self.params.values():  # names made alike by the substitution
                base += "_"
            self.params[key] = base
        return self.params[key]


class RuleCompiler:
    """Generates the source of one variant of one rule."""

    def __init__(self, rule: ast.Rule, index: int, steps: List[Step], flavour: str, builtins,
                 base: bool = False, unique: bool = False):
        self.rule, self.index, self.steps, self.flavour = rule, index, steps, flavour
        # unique: every hash index this code reads is in unique form (analyzer/engine/indexes.py),
        # key -> the one tuple: a lookup is a get and a test, not a loop over a bucket
        self.unique = unique
        # a base variant (no delta atom) adds its heads untested: the evaluation drops those
        # its relation held already (rare: facts of a derived relation) after the call
        self.base = base
        # proof search (analyzer/engine/provenance.py) resolves only F, I, B and CTX resources;
        # an aggregate body is generated in the plain flavour, but still for proof search
        self.proving = flavour == WHY
        self.builtins = builtins
        self.res = Resources()
        self.lines: List[str] = []
        self.depth = 1
        self.loops = 0
        # Filters never nest: inside a loop a failed test is ``continue``; in a function
        # before its first loop, ``return``. Only loops add indentation, and a function
        # with LOOPS_PER_FUNCTION loops hands the rest of the body to a nested function.
        self.frame_loops = 0  # loops opened in the function being generated
        self.scope_loops = 0  # loops a `continue` can go to (in the function or aggregate)
        self.in_aggregate = False
        self.prelude: List[str] = []  # nested functions holding the rest of long bodies
        self.agg_names: List[str] = []
        self.tmp = 0
        self.kept: List[str] = []  # why flavour: body tuples, builtin results, aggregate values
        self.names: Dict[str, str] = {}

    # -- helpers ---------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def fresh(self, prefix: str) -> str:
        self.tmp += 1
        return f"{prefix}{self.tmp}"

    def var(self, name: str) -> str:
        if name not in self.names:
            self.names[name] = "v_" + name if name.isidentifier() else f"v{len(self.names)}"
        return self.names[name]

    def expr(self, term) -> str:
        if isinstance(term, ast.Var):
            return self.var(term.name)
        if isinstance(term, ast.Const):
            return repr(term.value)
        if isinstance(term, ast.BinOp):
            left, right = self.expr(term.left), self.expr(term.right)
            if term.op == "/":
                return f"_div({left}, {right})"
            if term.op == "%":
                return f"_mod({left}, {right})"
            return f"({left} {term.op} {right})"
        if isinstance(term, ast.Aggregate):
            return term._pyname
        raise EngineError(f"unsupported term {term!r}", getattr(term, "span", None))

    def value(self, term) -> str:
        """:meth:`expr` for a value that is kept (head column, binding, builtin argument):
        computed numbers are checked against the number range."""
        code = self.expr(term)
        if isinstance(term, ast.BinOp) or (isinstance(term, ast.Aggregate) and term.func == "sum"):
            return f"_num({code})"
        return code

    @staticmethod
    def tuple_expr(parts: List[str]) -> str:
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"

    # -- generation ------------------------------------------------------------------
    def generate(self, fname: str) -> Tuple[str, List[Tuple]]:
        body_lines = self.lines
        if self.flavour == WHY:
            for i, t in enumerate(self.rule.head.args):
                if isinstance(t, ast.Var) and t.name in self.steps_bound0():
                    if t.name not in self.names:
                        self.emit(f"{self.var(t.name)} = T[{i}]")
        if self.flavour != PLAIN or not projection_rule(self):
            self.gen_steps(self.steps, self.head_action)
        params = list(self.res.params.items())
        extra = {PLAIN: ["_check"], PROV: ["_check", "IT"], WHY: ["T"]}[self.flavour]
        sig = ", ".join([p for _, p in params] + extra)
        head = [f"def {fname}({sig}):", f"    # {_one_line(rule_text(self.rule))}"]
        gets = [f"    {p}_get = {p}.get" for k, p in params if k[0] == "I"]
        return "\n".join(head + gets + self.prelude + body_lines) + "\n", [k for k, _ in params]

    def steps_bound0(self):
        return self.steps[0].bound if self.steps else frozenset()

    def head_action(self) -> None:
        head = self.rule.head
        h = self.tuple_expr([self.value(t) for t in head.args])
        if self.flavour == WHY:
            outer = outer_vars(self.rule)
            env = "{" + ", ".join(f"{n!r}: {self.var(n)}" for n in sorted(outer)) + "}"
            self.emit(f"if {h} == T:")
            self.emit(f"    yield {env}, ({''.join(k + ', ' for k in self.kept)})")
            return
        add = self.res.name(("N", head.rel))
        if self.flavour == PLAIN and self.base and shapes.TIGHT:
            self.emit(f"{add}({h})")
            return
        self.emit(f"h = {h}")
        if self.flavour == PLAIN:
            full = self.res.name(("F", head.rel))
            self.emit(f"if h not in {full}:")
            self.emit(f"    {add}(h)")
        else:
            prov = self.res.name(("P", head.rel))
            self.emit(f"if h not in {prov}:")
            self.emit(f"    {prov}[h] = ({self.index}, IT)")
            self.emit(f"    {add}(h)")

    def gen_steps(self, steps: List[Step], innermost) -> None:
        if not steps:
            innermost()
            return
        step, rest = steps[0], steps[1:]
        agg_loops = max((sum(s.kind in (SCAN, CALL) for s in a.steps) + 1 for a in step.aggs), default=0)
        if not self.in_aggregate and self.frame_loops and (
                self.frame_loops >= LOOPS_PER_FUNCTION or self.frame_loops + agg_loops >= 18):
            self.split(steps, innermost)
            return
        saved = self.depth
        for agg in step.aggs:
            self.gen_aggregate(agg)
        getattr(self, "gen_" + step.kind)(step)
        self.gen_steps(rest, innermost)
        self.depth = saved

    def split(self, steps: List[Step], innermost) -> None:
        """Generate ``steps`` as a nested function of the bindings so far, and call it here."""
        name = self.fresh("_rest")
        bound = sorted(self.var(v) for v in steps[0].bound if v in self.names)
        args = ", ".join(dict.fromkeys(bound + self.kept + self.agg_names))
        self.emit(("yield from " if self.flavour == WHY else "") + f"{name}({args})")
        saved = self.lines, self.depth, self.frame_loops, self.scope_loops
        self.lines, self.depth, self.frame_loops, self.scope_loops = [], 2, 0, 0
        self.gen_steps(steps, innermost)
        self.prelude += [f"    def {name}({args}):"] + self.lines
        self.lines, self.depth, self.frame_loops, self.scope_loops = saved

    def filter(self, cond: str) -> None:
        """Go on only when ``cond`` holds, without nesting (see ``frame_loops``)."""
        if self.scope_loops == 0 and self.in_aggregate:
            # an aggregate body before its first loop: a one-pass loop to `continue` out of
            self.emit("for _once in _ONCE:")
            self.depth += 1
            self.scope_loops = 1
        self.emit(f"if not ({cond}): " + ("continue" if self.scope_loops else "return"))

    def open_loop(self, target: str, source: str, keep: bool) -> None:
        if self.loops == 0 and self.flavour != WHY:
            chunk = self.fresh("chunk")
            self.emit(f"for {chunk} in _chunks({source}):")
            self.depth += 1
            self.frame_loops += 1
            self.emit("_check()")
            source = chunk
        self.loops += 1
        self.frame_loops += 1
        self.scope_loops += 1
        if keep:
            self.emit(f"for {keep} in {source}:")
            self.depth += 1
            self.emit(f"{target} = {keep}")
        else:
            self.emit(f"for {target} in {source}:")
            self.depth += 1

    def unpack(self, atom: ast.Atom, bound, filter_bound: bool, wildcards: bool = True):
        """Loop targets for an atom's columns plus the equality checks they need (without
        ``wildcards``: for the projection of :meth:`getter`, the columns binding variables)."""
        targets, checks, seen = [], [], set()
        for t in atom.args:
            if not wildcards and not (isinstance(t, ast.Var) and t.name not in bound):
                continue
            if isinstance(t, ast.Var) and t.name not in bound and t.name not in seen:
                seen.add(t.name)
                targets.append(self.var(t.name))
            elif isinstance(t, ast.Var) and t.name in seen:
                tmp = self.fresh("r")
                targets.append(tmp)
                checks.append(f"{tmp} == {self.var(t.name)}")
            elif filter_bound and not isinstance(t, ast.Wildcard):
                tmp = self.fresh("c")
                targets.append(tmp)
                checks.append(f"{tmp} == {self.expr(t)}")
            else:
                targets.append("_")
        if not targets:  # a relation without columns (``z()``): its one tuple is ()
            return "_", checks
        return (targets[0] + "," if len(targets) == 1 else ", ".join(targets)), checks

    def emit_checks(self, checks: List[str]) -> None:
        if checks:
            self.filter(" and ".join(checks))

    def key_of(self, atom: ast.Atom, bound):
        cols = tuple(i for i, t in enumerate(atom.args) if _is_bound(t, bound))
        parts = [self.expr(atom.args[i]) for i in cols]
        key = parts[0] if len(parts) == 1 else self.tuple_expr(parts) if parts else ""
        return cols, key

    def gen_scan(self, step: Step) -> None:
        atom = step.literal
        keep = self.fresh("t") if self.flavour == WHY else None
        if keep:
            self.kept.append(keep)
        cols, key = self.key_of(atom, step.bound)
        if step.delta:
            target, checks = self.unpack(atom, step.bound, filter_bound=True)
            self.open_loop(target, self.res.name(("D", atom.rel)), keep)
            self.emit_checks(checks)
            return
        if len(cols) == len(atom.args) and cols:
            self.filter(f"{self.member(atom, key)} in {self.member_of(atom, cols)}")
            if keep:
                self.emit(f"{keep} = {self.tuple_expr([self.expr(t) for t in atom.args])}")
            return
        target, checks = self.unpack(atom, step.bound, filter_bound=False)
        # not inside an aggregate: count and sum see every matching tuple, not each binding
        wildcards = not keep and not self.in_aggregate and any(isinstance(t, ast.Wildcard) for t in atom.args)
        if wildcards and self.distinct_scan(atom, step.bound, cols, key):
            return
        if cols and self.unique and constant_key(atom, cols) is None:
            found = self.fresh("t")
            self.emit(f"{found} = {self.res.name(('I', atom.rel, cols))}_get({key})")
            self.filter(f"{found} is not None")
            self.emit(f"{target} = {found}")
            self.emit_checks(checks)
            return
        source = self.lookup(atom, cols, key) if cols else self.res.name(("F", atom.rel))
        # the outermost loop only: there duplicates multiply everything after them, while an
        # inner lookup's bucket is mostly one tuple, where deduplicating costs more (67,000
        # dict.fromkeys calls in a cold 10k read) than it could save
        if wildcards and self.loops == 0:
            target, checks = self.unpack(atom, step.bound, filter_bound=False, wildcards=False)
            # itemgetter of one column yields the value itself: a set of them is built a
            # quarter faster than a dict (a set of tuples is not)
            one = target.count(",") == 1 and target.endswith(",")
            target = target.rstrip(",")
            if one and not cols and shapes.TIGHT and self.flavour == PLAIN:
                # the distinct values of one column of a whole relation: its key set, built
                # once per evaluation and shared by every rule that reads it so
                # (``valid_scope(S) :- entry(_, _, _, _, S), ...``, the scopes of 10,000 entries)
                col = next(i for i, t in enumerate(atom.args) if isinstance(t, ast.Var) and t.name not in step.bound)
                source = self.res.name(("K", atom.rel, (col,)))
            else:
                distinct = "set" if one else "dict.fromkeys"
                source = f"{distinct}(map({self.getter(atom, step.bound)}, {source}))"
        self.open_loop(target, source, keep)
        self.emit_checks(checks)

    def lookup(self, atom: ast.Atom, cols, key: str) -> str:
        """The tuples of ``atom`` whose ``cols`` equal ``key``: a selection when the key is
        constant (see analyzer/engine/shapes.py; not in proof search), else an index lookup."""
        selection = constant_key(atom, cols) if not self.proving else None
        if selection is not None:
            return self.res.name(selection)
        return f"{self.res.name(('I', atom.rel, cols))}_get({key}, ())"

    def count_lookup(self, atom: ast.Atom, cols, key: str) -> str:
        """How many tuples :meth:`lookup` gives (a unique index holds one or none)."""
        if self.unique and constant_key(atom, cols) is None:
            return f"(1 if {key} in {self.res.name(('I', atom.rel, cols))} else 0)"
        return f"len({self.lookup(atom, cols, key)})"

    def member_of(self, atom: ast.Atom, cols) -> str:
        """What a fully bound atom is tested against: its relation, or for a one-column
        relation the set of its values (no 1-tuple to build and hash per test)."""
        if len(atom.args) == 1 and not self.proving and shapes.TIGHT:
            return self.key_set(atom, cols)
        return self.res.name(("F", atom.rel))

    def member(self, atom: ast.Atom, key: str) -> str:
        """The value tested by :meth:`member_of` (``key`` is the atom's columns, all bound)."""
        if len(atom.args) == 1 and not self.proving and shapes.TIGHT:
            return key
        return self.tuple_expr([self.expr(t) for t in atom.args])

    def key_set(self, atom: ast.Atom, cols) -> str:
        """A membership-only lookup's resource: the set of keys (``K``), or, in proof search,
        the index."""
        return self.res.name(("I" if self.proving or not shapes.TIGHT else "K", atom.rel, cols))

    def distinct_scan(self, atom: ast.Atom, bound, cols, key: str) -> bool:
        """An atom that binds no variable is an existence test: one test, not a loop over
        every matching tuple (each of which would derive the same heads again)."""
        if any(isinstance(t, ast.Var) and t.name not in bound for t in atom.args):
            return False
        self.filter(f"{key} in {self.key_set(atom, cols)}" if cols else self.res.name(("F", atom.rel)))
        return True

    def getter(self, atom: ast.Atom, bound) -> str:
        """A function (made once per call) projecting the atom's tuples on the columns that
        bind variables: a scan with wildcards then visits each distinct binding once, so a
        column it ignores cannot multiply the work of the literals after it."""
        cols = [i for i, t in enumerate(atom.args) if isinstance(t, ast.Var) and t.name not in bound]
        name = self.fresh("proj")
        self.prelude.append(f"    {name} = _itemgetter({', '.join(map(str, cols))})")
        return name

    def gen_neg(self, step: Step) -> None:
        atom = step.literal.atom
        if atom.rel in self.builtins:
            # !builtin(...) holds when the call yields no result for the bound arguments
            args = [self.value(t) if _is_bound(t, step.bound) else "None" for t in atom.args]
            fn, ctx = self.res.name(("B", atom.rel)), self.res.name(("CTX",))
            self.filter(f"next(iter({fn}({ctx}, {self.tuple_expr(args)})), None) is None")
            return
        cols, key = self.key_of(atom, step.bound)
        if not cols:
            self.filter(f"not {self.res.name(('F', atom.rel))}")
        elif len(cols) == len(atom.args):
            self.filter(f"{self.member(atom, key)} not in {self.member_of(atom, cols)}")
        else:
            self.filter(f"{key} not in {self.key_set(atom, cols)}")

    def gen_cmp(self, step: Step) -> None:
        lit = step.literal
        if step.assign is not None:
            var, other = (lit.left, lit.right) if (
                isinstance(lit.left, ast.Var) and lit.left.name == step.assign) else (lit.right, lit.left)
            self.emit(f"{self.var(step.assign)} = {self.value(other)}")
            return
        self.filter(f"{self.expr(lit.left)} {_CMP_OPS[lit.op]} {self.expr(lit.right)}")

    def gen_call(self, step: Step) -> None:
        atom = step.literal
        args = [self.value(t) if _is_bound(t, step.bound) else "None" for t in atom.args]
        fn = self.res.name(("B", atom.rel))
        ctx = self.res.name(("CTX",))
        keep = self.fresh("b") if self.flavour == WHY else None
        if keep:
            self.kept.append(keep)
        target, checks = self.unpack(atom, step.bound, filter_bound=False)
        self.open_loop(target, f"{fn}({ctx}, {self.tuple_expr(args)})", keep)
        self.emit_checks(checks)

    def gen_aggregate(self, agg) -> None:
        """An aggregate's value, computed once per distinct group key and call.

        The aggregated relations belong to lower strata, so within one call of the rule
        function a group's value never changes; without the cache a rule such as
        ``n(K, N) :- r(K, _), N = count : { r(K, _) }`` would re-run the aggregate body
        for every ``r`` tuple of the group (n^2 for n tuples of one key)."""
        node = agg.node
        name = self.fresh("agg")
        object.__setattr__(node, "_pyname", name)
        length = counted_by_length(self, agg)
        if length is not None:  # no loop, and so no cache either
            self.emit(f"{name} = {length}")
            self.agg_names.append(name)
            if self.flavour == WHY:
                self.kept.append(name)
            return
        cache = self.fresh("aggcache")
        self.prelude.append(f"    {cache} = {{}}")
        group = sorted(getattr(node, "_grouping", frozenset()))
        # one grouping variable is its own key (no tuple to build and hash per lookup)
        key = self.tuple_expr([self.var(v) for v in group]) if len(group) > 1 else self.var(group[0]) if group else "()"
        init = {"count": "0", "sum": "0"}.get(node.func, "None")
        self.emit(f"{name} = {cache}.get({key}, {cache})")
        self.emit(f"if {name} is {cache}:")
        self.depth += 1
        self.emit(f"{name} = {init}")
        atoms = sum(1 for s in agg.steps if s.kind in (SCAN, CALL))
        if atoms > MAX_AGGREGATE_ATOMS:
            raise EngineError(f"an aggregate body holds {atoms} relation atoms and builtin calls, over "
                              f"the maximum of {MAX_AGGREGATE_ATOMS}", node.span, code="DL932")
        saved = self.depth, self.loops, self.scope_loops, self.in_aggregate, self.frame_loops
        self.loops = max(self.loops, 1)  # no limit-check chunking inside an aggregate
        self.scope_loops, self.in_aggregate = 0, True

        def accumulate():
            if node.func == "count":
                self.emit(f"{name} += 1")
            elif node.func == "sum":
                self.emit(f"{name} += {self.expr(node.target)}")
            else:
                val = self.fresh("x")
                op = "<" if node.func == "min" else ">"
                self.emit(f"{val} = {self.expr(node.target)}")
                self.emit(f"if {name} is None or {val} {op} {name}:")
                self.emit(f"    {name} = {val}")

        flavour, self.flavour = self.flavour, PLAIN  # aggregate bodies keep no proof tuples
        self.gen_steps(agg.steps, accumulate)
        self.flavour = flavour
        self.depth, self.loops, self.scope_loops, self.in_aggregate, self.frame_loops = saved
        self.emit(f"{cache}[{key}] = {name}")
        self.depth -= 1
        self.agg_names.append(name)
        if self.flavour == WHY:
            self.kept.append(name)
        if node.func in ("min", "max"):
            self.filter(f"{name} is not None")


def _is_bound(term, bound) -> bool:
    if isinstance(term, ast.Wildcard):
        return False
    if isinstance(term, ast.Var):
        return term.name in bound
    return True


def compile_function(rule, index, steps, flavour, builtins, fname, base=False, unique=False):
    """Source and parameter keys of one rule variant's function (``base``: a variant without
    a delta atom; ``unique``: for unique indexes; see :class:`RuleCompiler`)."""
    return RuleCompiler(rule, index, steps, flavour, builtins, base, unique).generate(fname)
