"""One rule of a checked program as one SQL ``SELECT`` over per-repository tables.

The body's relation atoms become the ``FROM`` list, joined on ``repo`` and on shared
variables; constants and repeated variables are ``WHERE`` conditions. A negation is a
``NOT EXISTS`` (an anti-join), an aggregate a ``GROUP BY`` of its body ``LEFT JOIN``ed on
its grouping variables (``coalesce(count, 0)``: a group with an empty body still counts 0, as
the native engine does; a correlated scalar subquery where the body cannot be grouped alone),
comparisons are ``WHERE`` conditions
or bind a variable (``X = expr``). Builtins are SQL expressions where SQL computes exactly
the value Python does (``||``, ``starts_with``, ``length`` of code points, ``CAST`` to text),
registered Python functions where it would not (``casefold``, globs, the linear-time regular
expressions: analyzer/engine/sql/functions.py), and scans of per-relation helper tables for the
graph builtins (transitive closure, cycles, components: built once the relation is
complete, analyzer/engine/sql/duck.py). What cannot be compiled is refused with DL940.

The SQL is DuckDB's dialect; other dialects are reached through sqlglot (docs/fleet.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import analyzer.engine.ast as ast
from analyzer.engine.errors import EngineError
from analyzer.engine.sql.tables import REPO, columns, quote
from analyzer.engine.astfmt import literal_text
from analyzer.engine.plan import term_vars
from analyzer.engine.safety import literal_args, subterms

REPOS = "__repos"  # the table of repository numbers: the source of a body without relation atoms
UNCOMPILABLE = "DL940"

#: graph builtin -> (helper kind, its columns after ``repo``)
GRAPH_HELPERS = {"reaches": ("tc", ("src", "dst")), "on_cycle": ("cyc", ("node",)),
                 "scc_of": ("scc", ("node", "comp"))}


def helper_table(kind: str, rel: str) -> str:
    """The name of a graph helper table of relation ``rel``."""
    return f"__{kind}__{rel}"


def literal(value) -> str:
    """A constant as SQL."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise EngineError(f"unsupported constant {value!r}", code=UNCOMPILABLE)
    if isinstance(value, int):
        return f"CAST({value} AS BIGINT)"
    return "'" + value.replace("'", "''") + "'"


# builtin -> {mode: fn(args) -> ("test", cond) | ("value", {position: expr}, udf)}; ``udf``
# marks a registered Python function, computed once in a lateral subquery
def _test(fmt):
    return lambda a: ("test", fmt.format(*a))


def _value(fmt, udf=False):
    return lambda a: ("value", {len(a) - 1: fmt.format(*a)}, udf)


SCALARS: Dict[str, Dict[str, Callable]] = {
    "glob_match": {"bb": _test("ma_glob_match({0}, {1})")},
    "glob_match_under": {"bb": _test("ma_glob_match_under({0}, {1})")},
    "glob_match_ext": {"bb": _test("ma_glob_match_ext({0}, {1})")},
    "re_match": {"bb": _test("ma_re_match({0}, {1})")},
    "starts_with": {"bb": _test("starts_with({0}, {1})")},
    "ends_with": {"bb": _test("ends_with({0}, {1})")},
    "contains": {"bb": _test("contains({0}, {1})")},
    "glob_invalid": {"bf": _value("ma_glob_invalid({0})", True)},
    "path_invalid": {"bf": _value("ma_path_invalid({0})", True)},
    "casefold": {"bf": _value("ma_casefold({0})", True)},
    "lower": {"bf": _value("ma_lower({0})", True)},
    "upper": {"bf": _value("ma_upper({0})", True)},
    "trim": {"bf": _value("ma_trim({0})", True)},
    "substr": {"bbbf": _value("ma_substr({0}, {1}, {2})", True)},
    "to_number": {"bf": _value("ma_to_number({0})", True)},
    "strlen": {"bf": _value("CAST(length({0}) AS BIGINT)")},
    "to_string": {"bf": _value("CAST({0} AS VARCHAR)")},
    # the native builtins refuse to build a symbol over the maximum length (DL931): the runner
    # checks every stored symbol column after each stratum and recursive round (duck.py)
    "concat": {"bbf": _value("({0} || {1})")},
    "concat3": {"bbbf": _value("({0} || {1} || {2})")},
    "replace": {"bbbf": _value("(CASE WHEN {1} <> '' THEN replace({0}, {1}, {2}) END)")},
}

#: builtins whose SQL is never NULL when its inputs are not (every bound value is not NULL:
#: columns are NOT NULL, Python functions' and min/max's results are tested): no
#: ``IS NOT NULL`` test, which made DuckDB build each message twice before its anti-joins
TOTAL = frozenset({"concat", "concat3", "strlen", "to_string"})

#: builtin -> {mode: fn(args) -> (source SQL, output column per position)}: several results
GENERATORS: Dict[str, Dict[str, Callable]] = {
    # every split of C: A is its first i characters, B the rest (i = 0 .. length)
    "concat": {"ffb": lambda a: (f"(SELECT substring({a[2]}, 1, CAST(i AS BIGINT)) AS o0, "
                                 f"substring({a[2]}, CAST(i AS BIGINT) + 1) AS o1 "
                                 f"FROM (SELECT unnest(range(0, length({a[2]}) + 1)) AS i))",
                                 {0: "o0", 1: "o1"})},
    "split": {"bbff": lambda a: (f"(SELECT unnest(ma_split({a[0]}, {a[1]})) AS o2, "
                                 f"CAST(unnest(range(0, len(ma_split({a[0]}, {a[1]})))) AS BIGINT) AS o3)",
                                 {2: "o2", 3: "o3"})},
}


@dataclass
class Context:
    """What the rules of one program share while compiled: declarations, builtins, the
    alias counter, the table each atom reads, and the graph helpers they need."""

    decls: Dict[str, ast.Decl]
    builtins: Dict
    table: Callable[[ast.Atom], str] = None  # atom -> table SQL (a delta variant swaps one)
    helpers: Set[Tuple[str, str]] = field(default_factory=set)
    count: int = 0
    lateral: bool = True  # Python functions in a lateral subquery (Spark: inline, it plans them apart)
    #: an aggregate bound to a variable as a lateral subquery of its own (Spark: a scalar
    #: subquery inside another one may not refer to the outermost query, and an aggregate whose
    #: body reads an earlier aggregate's variable nests exactly so)
    lateral_aggregates: bool = False
    #: a negated relation atom as an ``ANTI JOIN`` at the end of the body's joins (DuckDB),
    #: not a ``NOT EXISTS`` subquery: DuckDB plans the subquery as a mark join over the whole
    #: join of the body (`sem_line`: 100,000 rows joined to find that none is left), the
    #: anti-join where its columns are bound
    anti_joins: bool = False
    #: relations known to hold no tuples in any repository: a negation of one holds, and is
    #: left out (analyzer/engine/sql/duck.py: its planning was most of an evaluation's cost)
    empty: Callable[[str], bool] = lambda rel: False

    def alias(self, prefix: str = "t") -> str:
        """A fresh table alias."""
        self.count += 1
        return f"{prefix}{self.count}"


class Body:
    """A rule body (or an aggregate's or negation's) being turned into FROM and WHERE."""

    def __init__(self, ctx: Context, env: Optional[Dict[str, str]] = None, repo: Optional[str] = None):
        self.ctx = ctx
        self.env: Dict[str, str] = dict(env or {})
        self.repo = repo
        self.froms: List[str] = []
        self.where: List[str] = []
        self._aggregates: Dict[int, str] = {}  # id(aggregate node) -> its value's column
        # a body of its own (a rule's, a grouped aggregate's), not a subquery reading an
        # enclosing query's columns: its aggregates may be joined as grouped tables
        self.closed = env is None and repo is None
        # whether a row of the relation atoms' join may give several rows (a generator, a
        # graph helper's scan): see :func:`rule_select`
        self.multiplies = False

    # -- terms -------------------------------------------------------------------------
    def expr(self, term) -> Optional[str]:
        """SQL for a term whose variables are bound, else None."""
        if isinstance(term, ast.Var):
            return self.env.get(term.name)
        if isinstance(term, ast.Const):
            return literal(term.value)
        if isinstance(term, ast.BinOp):
            left, right = self.expr(term.left), self.expr(term.right)
            if left is None or right is None:
                return None
            if term.op in "/%":
                # truncating division and C's remainder, as the native engine (DL905 on zero)
                op = "//" if term.op == "/" else "%"
                return (f"(CASE WHEN {right} = 0 THEN error('DL905 division by zero') "
                        f"ELSE {left} {op} {right} END)")
            return f"({left} {term.op} {right})"
        if isinstance(term, ast.Aggregate):
            return self.aggregate(term)
        return None

    def aggregate(self, node: ast.Aggregate) -> Optional[str]:
        """The aggregate's value: 0 for an empty count or sum, NULL for an empty min/max."""
        grouping = getattr(node, "_grouping", frozenset())
        if any(v not in self.env for v in grouping):
            return None
        if id(node) in self._aggregates:  # once, however often the term is asked for
            return self._aggregates[id(node)]
        joined = self._grouped(node, sorted(grouping)) if self.closed and not self.ctx.lateral_aggregates else None
        if joined is not None:
            self._aggregates[id(node)] = joined
            return joined
        inner = Body(self.ctx, {v: self.env[v] for v in grouping}, self.repo)
        inner.add(node.body)
        value = _aggregate_value(node, inner)
        if not self.ctx.lateral_aggregates:
            return f"(SELECT {value} {inner.from_where()})"
        # an aggregate without GROUP BY gives exactly one row: a cross join keeps every row
        alias = self.ctx.alias("a")
        self.froms.append(f"LATERAL (SELECT {value} AS v {inner.from_where()}) AS {alias}")
        self._aggregates[id(node)] = f"{alias}.v"
        return self._aggregates[id(node)]

    def _grouped(self, node: ast.Aggregate, grouping: List[str]) -> Optional[str]:
        """Join the aggregate as a table of its body grouped by ``repo`` and ``grouping``
        (``LEFT JOIN``: a group absent from it counts 0); None when its body does not bind
        every grouping variable by itself. DuckDB plans the correlated scalar subquery as
        several hash aggregates and joins over every outer row (`id_count`: four over every
        entry); this is one aggregate and one join."""
        if _divides(node.body):
            # grouped, its body runs for every group of every repository, also for those the
            # rule never asks about: a zero divisor there would stop the evaluation (DL905)
            # where the native engine (and the correlated subquery) never computes it
            return None
        inner = Body(self.ctx)
        try:
            inner.add(node.body)
        except EngineError:  # its inputs are the enclosing rule's: correlated instead
            return None
        if any(v not in inner.env for v in grouping):
            return None
        alias = self.ctx.alias("a")
        keys = [inner.repo] + [inner.env[v] for v in grouping]
        names = [REPO] + [f"g{i}" for i in range(len(grouping))]
        select = ", ".join(f"{k} AS {n}" for k, n in zip(keys, names))
        on = " AND ".join(f"{alias}.{n} = {outer}"
                          for n, outer in zip(names, [self.repo] + [self.env[v] for v in grouping]))
        group = ", ".join(str(i + 1) for i in range(len(keys)))
        self.froms.append(f"LEFT JOIN (SELECT {select}, {_aggregate_value(node, inner)} AS v "
                          f"{inner.from_where()} GROUP BY {group}) AS {alias} ON {on}")
        return f"{alias}.v" if node.func in ("min", "max") else f"coalesce({alias}.v, 0)"

    # -- literals ----------------------------------------------------------------------
    def add(self, literals) -> None:
        """Translate ``literals``: relation atoms first, then the rest as their inputs are
        bound (the order the planner would take them in)."""
        if not any(self._is_relation(lit) for lit in literals) and self.repo is None:
            alias = self.ctx.alias("r")
            self.froms.append(f"{quote(REPOS)} AS {alias}")
            self.repo = f"{alias}.{REPO}"
        deferred = []
        for lit in literals:
            if self._is_relation(lit):
                deferred.extend(self.scan(lit, self.ctx.table(lit), columns(self.ctx.decls[lit.rel])))
        rest = [lit for lit in literals if not self._is_relation(lit)] + deferred
        while rest:
            left = [lit for lit in rest if not self.step(lit)]
            if len(left) == len(rest):
                raise EngineError(f"cannot order {literal_text(left[0])} for SQL: its inputs are never bound",
                                  getattr(left[0], "span", None), code=UNCOMPILABLE)
            rest = left

    def _is_relation(self, lit) -> bool:
        return isinstance(lit, ast.Atom) and lit.rel not in self.ctx.builtins

    def scan(self, atom: ast.Atom, table: str, cols) -> List[ast.Comparison]:
        """Join ``table`` (columns ``cols``) for ``atom``; returns the argument conditions
        that need variables bound later (an arithmetic argument)."""
        alias = self.ctx.alias()
        self.froms.append(f"{table} AS {alias}")
        if self.repo is None:
            self.repo = f"{alias}.{REPO}"
        else:
            self.where.append(f"{alias}.{REPO} = {self.repo}")
        later = []
        for col, term in zip(cols, atom.args):
            ref = f"{alias}.{quote(col)}"
            if isinstance(term, ast.Wildcard):
                continue
            if isinstance(term, ast.Var) and term.name not in self.env:
                self.env[term.name] = ref
                continue
            value = self.expr(term)
            if value is None:
                later.append(_Equal(ref, term))
            else:
                self.where.append(f"{ref} = {value}")
        return later

    def step(self, lit) -> bool:
        """Translate ``lit`` if its inputs are bound; False to try again later."""
        if isinstance(lit, _Equal):
            value = self.expr(lit.term)
            if value is None:
                return False
            self.where.append(f"{lit.ref} = {value}")
            return True
        if isinstance(lit, ast.Negation):
            return self.negation(lit.atom)
        if isinstance(lit, ast.Comparison):
            return self.comparison(lit)
        return self.builtin(lit)

    def comparison(self, lit: ast.Comparison) -> bool:
        left, right = self.expr(lit.left), self.expr(lit.right)
        if lit.op == "=" and (left is None) != (right is None):
            var, value = (lit.left, right) if left is None else (lit.right, left)
            if isinstance(var, ast.Var) and value is not None:
                self.env[var.name] = value
                if _nullable(lit.right if left is None else lit.left):
                    self.where.append(f"{value} IS NOT NULL")
                return True
            return False
        if left is None or right is None:
            return False
        op = "<>" if lit.op == "!=" else lit.op
        self.where.append(f"{left} {op} {right}")
        return True

    def negation(self, atom: ast.Atom) -> bool:
        if atom.rel not in self.ctx.builtins and self.ctx.empty(atom.rel):
            return True  # nothing to be absent from
        needed = {t.name for t in atom.args if isinstance(t, ast.Var)}
        for t in atom.args:
            if isinstance(t, ast.BinOp):
                needed |= term_vars(t, set())
        if any(v not in self.env for v in needed):
            return False
        inner = Body(self.ctx, self.env, self.repo)
        inner.add([atom])
        if self.closed and self.ctx.anti_joins and atom.rel not in self.ctx.builtins and len(inner.froms) == 1:
            self.froms.append(f"ANTI JOIN {inner.froms[0]} ON {' AND '.join(inner.where)}")
        else:
            self.where.append(f"NOT EXISTS (SELECT 1 {inner.from_where()})")
        return True

    def builtin(self, atom: ast.Atom) -> bool:
        spec = self.ctx.builtins[atom.rel]
        values = [None if isinstance(t, ast.Wildcard) else self.expr(t) for t in atom.args]
        modes = [m for m in spec.modes if all(c == "f" or v is not None for c, v in zip(m, values))]
        if not modes:
            return False
        if atom.rel in GRAPH_HELPERS:
            return self.graph(atom, values)
        for mode in sorted(modes, key=lambda m: -m.count("b")):
            if mode in SCALARS.get(atom.rel, {}):
                made = SCALARS[atom.rel][mode](values[:len(mode)])
                if made[0] == "test":
                    self.where.append(made[1])
                    return True
                self.unify(atom, values, made[1], made[2], atom.rel in TOTAL)
                return True
            if mode in GENERATORS.get(atom.rel, {}):
                source, outs = GENERATORS[atom.rel][mode](values)
                alias = self.ctx.alias("g")
                self.froms.append(f"LATERAL {source} AS {alias}")
                self.multiplies = True
                self.unify(atom, values, {pos: f"{alias}.{col}" for pos, col in outs.items()}, False)
                return True
        raise EngineError(f"builtin {atom.rel} in mode {modes[0]} has no SQL translation", atom.span,
                          code=UNCOMPILABLE)

    def unify(self, atom: ast.Atom, values, outputs: Dict[int, str], udf: bool, total: bool = False) -> None:
        """Bind or compare the builtin's computed ``outputs`` (position -> SQL); ``total``:
        they are never NULL (:data:`TOTAL`)."""
        if udf and self.ctx.lateral:
            # a Python function is called once per input row, in a lateral subquery
            alias = self.ctx.alias("f")
            names = {pos: f"o{pos}" for pos in outputs}
            select = ", ".join(f"{sql} AS {names[pos]}" for pos, sql in outputs.items())
            self.froms.append(f"LATERAL (SELECT {select}) AS {alias}")
            outputs = {pos: f"{alias}.{names[pos]}" for pos in outputs}
        if udf:
            for sql in outputs.values():
                self.where.append(f"{sql} IS NOT NULL")
        for pos, sql in outputs.items():
            term = atom.args[pos]
            if isinstance(term, ast.Wildcard):
                if not udf and not total:
                    self.where.append(f"{sql} IS NOT NULL")
            elif isinstance(term, ast.Var) and term.name not in self.env:
                self.env[term.name] = sql
                if not udf and not total:
                    self.where.append(f"{sql} IS NOT NULL")
            else:
                self.where.append(f"{values[pos]} = {sql}")

    def graph(self, atom: ast.Atom, values) -> bool:
        rel_term = atom.args[0]
        if not isinstance(rel_term, ast.Const) or not isinstance(rel_term.value, str):
            raise EngineError(f"{atom.rel} needs a relation name constant for SQL", atom.span, code=UNCOMPILABLE)
        kind, cols = GRAPH_HELPERS[atom.rel]
        self.ctx.helpers.add((kind, rel_term.value))
        self.multiplies = True
        table = quote(helper_table(kind, rel_term.value))
        later = self.scan(ast.Atom(atom.rel, tuple(atom.args[1:]), atom.span), table, cols)
        for lit in later:
            self.where.append(f"{lit.ref} = {self.expr(lit.term)}")
        return True

    # -- output ------------------------------------------------------------------------
    def from_where(self) -> str:
        """``FROM ... WHERE ...`` of this body (a body of filters alone reads ``(SELECT 1)``)."""
        froms = self.froms or ["(SELECT 1) AS one"]
        if froms[0].startswith(("LATERAL ",) + _JOINS):
            froms = ["(SELECT 1) AS one"] + froms
        if any(f.startswith(_JOINS) for f in froms):
            # one chain of explicit joins: a LEFT or ANTI JOIN's condition reads the tables
            # before it (after a comma it would join only the item it follows)
            sql = "FROM " + froms[0] + "".join(f" {f}" if f.startswith(_JOINS) else f" CROSS JOIN {f}"
                                               for f in froms[1:])
        else:
            sql = "FROM " + ", ".join(froms)
        if self.where:
            sql += " WHERE " + " AND ".join(self.where)
        return sql


#: the joins of a body's FROM list that are not cross joins (:meth:`Body.from_where`)
_JOINS = ("LEFT JOIN ", "ANTI JOIN ")


@dataclass(frozen=True)
class _Equal:
    """An atom argument computed from variables bound later (``p(X + 1)``)."""

    ref: str
    term: object


def _aggregate_value(node: ast.Aggregate, inner: Body) -> str:
    """The SQL aggregate of ``node`` over ``inner`` (0 for an empty sum)."""
    if node.func == "count":
        return "count(*)"
    target = inner.expr(node.target)
    if target is None:
        raise EngineError("aggregate target not bound by its body", node.span, code=UNCOMPILABLE)
    return {"sum": f"CAST(coalesce(sum({target}), 0) AS BIGINT)"}.get(node.func, f"{node.func}({target})")


def _divides(literals) -> bool:
    """Whether a ``/`` or ``%`` appears in ``literals`` (an aggregate's body: the checker
    refuses an aggregate inside it, so no body nests below)."""
    return any(isinstance(sub, ast.BinOp) and sub.op in "/%"
               for lit in literals for term in literal_args(lit) for sub in subterms(term))


def _nullable(term) -> bool:
    return isinstance(term, ast.Aggregate) and term.func in ("min", "max")


def rule_select(ctx: Context, rule: ast.Rule) -> str:
    """``SELECT DISTINCT repo, head...`` for ``rule`` (a fact holds in every repository);
    ``SELECT`` alone where no two rows can be equal (:func:`_rows_distinct`)."""
    body = Body(ctx)
    body.add(list(rule.body))
    heads = []
    for term in rule.head.args:
        value = body.expr(term)
        if value is None:
            raise EngineError("a head variable is not bound by the body", rule.span, code=UNCOMPILABLE)
        heads.append(value)
    distinct = "" if _rows_distinct(ctx, rule, body) else "DISTINCT "
    return f"SELECT {distinct}{', '.join([body.repo] + heads)} {body.from_where()}"


def _rows_distinct(ctx: Context, rule: ast.Rule, body: Body) -> bool:
    """Whether ``rule``'s rows are without duplicates as they are: every argument of every
    relation atom of its body is a constant or a variable the head keeps as it is, and no
    generator or graph helper adds rows. Tables are sets, so two rows of the atoms' join
    differ in some atom's column, and so in the head (an aggregate's grouped table joins at
    most one row, a Python function's lateral subquery exactly one, a negation none):
    DuckDB's hash aggregate over every row would remove nothing (`owner`, `sem_entry`)."""
    if body.multiplies:
        return False
    kept = {t.name for t in rule.head.args if isinstance(t, ast.Var)}
    return all(isinstance(t, ast.Const) or (isinstance(t, ast.Var) and t.name in kept)
               for lit in rule.body if isinstance(lit, ast.Atom) and lit.rel not in ctx.builtins
               for t in lit.args)
