"""DuckDB's SQL for aggregates, negations and heads (analyzer/engine/sql/emit.py): an
aggregate is its body grouped once and ``LEFT JOIN``ed on its grouping variables (an empty
group counts 0, has no min), a correlated subquery where its body cannot be grouped alone; a
negated relation atom is an ``ANTI JOIN`` after the body's tables; a rule whose rows cannot
repeat is a ``SELECT`` without ``DISTINCT``. All held to the native engine per repository,
and every table to hold no tuple twice."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from analyzer.engine.check import check_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

PROGRAM = """
.decl m(a: symbol, b: symbol, n: number)
.decl k(a: symbol)
.decl lim(a: symbol, n: number)
.decl counted(a: symbol, n: number)
.decl summed(a: symbol, n: number)
.decl low(a: symbol, n: number)
.decl over(a: symbol, n: number)
.decl named(a: symbol, n: number)
.decl chained(a: symbol, b: symbol, n: number)
.decl once(a: symbol)
.decl pair(a: symbol, b: symbol, n: number)
.decl first(a: symbol)
.decl total(n: number)
.decl lonely(a: symbol)
.decl unmatched(a: symbol, b: symbol)
counted(A, N) :- k(A), N = count : { m(A, _, _) }.
summed(A, S) :- k(A), S = sum X : { m(A, _, X) }.
low(A, L) :- k(A), L = min X : { m(A, _, X) }.
over(A, N) :- lim(A, L), N = count : { m(_, _, X), X > L }.
named(A, N) :- k(A), N = count : { m(B, _, _), B = A }.
chained(A, F, N) :- k(A), F = min B : { m(A, B, _) }, N = count : { m(A, F, _) }.
once(A) :- k(A), 1 = count : { m(A, _, _) }.
pair(A, B, N) :- m(A, B, N), k(A).
first(A) :- m(A, _, _).
total(N) :- N = count : { m(_, _, _) }.
lonely(A) :- k(A), !m(A, _, _), !contains(A, "q").
unmatched(A, B) :- m(A, B, N), !lim(A, N), upper(B, U), !k(U), !m(A, B, N + 1).
"""

FLEET = [{"k": {("x",), ("y",), ("z",), ("B",)}, "lim": {("x", 2), ("y", 9), ("y", 5)},
          "m": {("x", "b", 3), ("x", "a", 1), ("x", "c", 3), ("y", "a", 5), ("x", "c", 4)}},
         {"k": {("x",)}, "lim": set(), "m": {("w", "a", 2)}},
         {"k": set(), "lim": set(), "m": set()}]


def engine(text: str = PROGRAM) -> Engine:
    """The program ``text`` (checked: no diagnostic at all)."""
    program = parse_program(text, "<grouped>")
    assert not check_program(program)
    return Engine(program)


def evaluated(eng: Engine, fleet):
    """A DuckDB run of ``eng`` over ``fleet``, evaluated."""
    from analyzer.engine.sql.duck import DuckRun

    run = DuckRun(eng)
    run.load(fleet)
    run.evaluate()
    return run


def selects(eng: Engine) -> dict:
    """Each rule's SQL as DuckDB runs it, by head relation."""
    from analyzer.engine.sql import emit

    return {r.head.rel: emit.rule_select(emit.Context(eng.program.decls, eng.builtins, lambda a: a.rel,
                                                      anti_joins=True), r)
            for r in eng.rules}


def test_aggregates_and_heads_equal_the_native_engine_without_duplicate_tuples():
    eng = engine()
    run = evaluated(eng, FLEET)
    for i, facts in enumerate(FLEET):
        native = eng.evaluate(facts)
        assert {rel: run.database(i).relation(rel) for rel in eng.program.decls} == \
            {rel: native.relation(rel) for rel in eng.program.decls}, i
    for rel in eng.program.decls:  # a table holds each tuple once (aggregates read them)
        assert run._fetch(f'SELECT count(*) FROM "{rel}"')[0][0] == \
            sum(len(eng.evaluate(facts).relation(rel)) for facts in FLEET), rel
    assert run.database(0).relation("counted") == [("B", 0), ("x", 4), ("y", 1), ("z", 0)]
    assert run.database(0).relation("lonely") == [("B",), ("z",)]
    assert run.database(0).relation("unmatched") == [("x", "a"), ("x", "c")]
    assert run.database(0).relation("low") == [("x", 1), ("y", 5)]
    assert run.database(1).relation("lonely") == [("x",)]
    assert run.database(0).relation("chained") == [("x", "a", 1), ("y", "a", 1)]


def test_an_aggregate_is_grouped_once_and_joined_unless_its_body_needs_the_rule():
    sql = selects(engine())
    for rel in ("counted", "summed", "low", "named", "once", "total"):
        assert "LEFT JOIN (SELECT" in sql[rel] and "(SELECT count(*)" not in sql[rel], rel
    # the second joined on the first's value
    assert sql["chained"].count("LEFT JOIN (SELECT") == 2 and "a5.g1 = a3.v" in sql["chained"]
    # X > L needs the rule's L: a correlated subquery, as before
    assert "LEFT JOIN" not in sql["over"] and "(SELECT count(*)" in sql["over"]


def test_distinct_only_where_rows_can_repeat():
    sql = selects(engine())
    assert sql["pair"].startswith("SELECT t") and sql["counted"].startswith("SELECT t")
    assert sql["first"].startswith("SELECT DISTINCT")  # m(A, _, _): one A from several tuples
    assert sql["over"].startswith("SELECT DISTINCT")  # lim's L is not kept


def test_a_negated_relation_is_an_anti_join_after_the_tables_it_reads():
    sql = selects(engine())
    # after the lateral upper(): the chain of joins keeps the order the variables are bound in
    assert sql["unmatched"].count("ANTI JOIN") == 3 and "NOT EXISTS" not in sql["unmatched"]
    assert sql["unmatched"].index("LATERAL") < sql["unmatched"].index('ANTI JOIN k ')
    # a builtin's negation stays a condition
    assert sql["lonely"].count("ANTI JOIN") == 1 and "NOT EXISTS (SELECT 1 FROM (SELECT 1) AS one WHERE contains(" \
        in sql["lonely"]


DIVIDING = """
.decl m(a: symbol, b: symbol, n: number)
.decl k(a: symbol)
.decl share(a: symbol, n: number)
share(A, N) :- k(A), N = sum Y : { m(A, _, X), Y = 10 / X }.
"""


def test_an_aggregate_whose_body_divides_is_computed_only_for_the_rule_s_groups():
    """A zero divisor in a group no rule asks about (here in a repository without ``k``) is never
    computed natively: the grouped form would compute it for every group and stop with DL905."""
    eng = engine(DIVIDING)
    fleet = [{"k": {("x",)}, "m": {("x", "a", 2), ("x", "b", 5)}}, {"k": set(), "m": {("w", "a", 0)}}]
    run = evaluated(eng, fleet)
    for i, facts in enumerate(fleet):
        assert run.database(i).relation("share") == eng.evaluate(facts).relation("share"), i
    assert run.database(0).relation("share") == [("x", 7)]
    sql = selects(eng)["share"]
    assert "LEFT JOIN" not in sql and "(SELECT CAST(coalesce(sum(" in sql
