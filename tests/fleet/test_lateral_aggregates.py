"""Aggregates as lateral subqueries (``emit.Context.lateral_aggregates``, what Spark runs):
an aggregate whose body reads an earlier aggregate's variable (rules/agents: the first file,
then the first line in it, then the first column on it) is a scalar subquery inside another
one, which Spark refuses when the inner one refers to the outermost query. Bound as lateral
subqueries of their own, the same program gives what the native engine gives (checked here on
DuckDB, which runs both forms; tests/fleet/test_spark.py runs it on Spark)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from analyzer.engine.check import check_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

#: the shape of rules/agents/findings.dl's agent_mention_first: each aggregate reads the last one's variable
CHAINED = """
.decl m(a: symbol, f: symbol, line: number, col: number)
.decl first(a: symbol, f: symbol, line: number, col: number)
.decl counted(a: symbol, n: number)
first(A, F, L, C) :- m(A, _, _, _), F = min F2 : { m(A, F2, _, _) }, L = min L2 : { m(A, F, L2, _) },
    C = min C2 : { m(A, F, L, C2) }.
counted(A, N) :- m(A, F, _, _), F = max F2 : { m(A, F2, _, _) }, N = count : { m(A, F, _, _) }.
"""
FLEET = [{"m": {("x", "b.md", 3, 1), ("x", "a.md", 9, 4), ("x", "a.md", 2, 7), ("x", "a.md", 2, 5), ("y", "c.md", 1, 1)}},
         {"m": {("z", "q.md", 4, 2), ("z", "q.md", 4, 1)}},
         {"m": set()}]


def chained_engine() -> Engine:
    """The chained aggregates' program (checked)."""
    program = parse_program(CHAINED, "<chained>")
    assert not check_program(program)
    return Engine(program)


def differences(run, engine: Engine, fleet) -> list:
    """``(repository, relation)`` where ``run`` (evaluated) and the native engine differ."""
    return [(i, rel) for i, facts in enumerate(fleet) for rel in sorted(engine.program.decls)
            if run.database(i).relation(rel) != engine.evaluate(facts).relation(rel)]


def test_chained_aggregates_as_lateral_subqueries_equal_the_native_engine():
    from analyzer.engine.sql.duck import DuckRun

    class Lateral(DuckRun):
        LATERAL_AGGREGATES = True

    engine = chained_engine()
    run = Lateral(engine)
    run.load(FLEET)
    run.evaluate()
    assert differences(run, engine, FLEET) == []
    assert run.database(0).relation("first") == [("x", "a.md", 2, 5), ("y", "c.md", 1, 1)]
    assert run.database(0).relation("counted") == [("x", 1), ("y", 1)]


def test_lateral_aggregates_are_never_nested_scalar_subqueries():
    from analyzer.engine.sql import emit

    engine = chained_engine()
    rule = next(r for r in engine.rules if r.head.rel == "first")
    nested = emit.rule_select(emit.Context(engine.program.decls, engine.builtins, lambda a: a.rel), rule)
    lateral = emit.rule_select(emit.Context(engine.program.decls, engine.builtins, lambda a: a.rel,
                                            lateral_aggregates=True), rule)
    # DuckDB's form: each aggregate a grouped table joined once (test_grouped_aggregates.py)
    assert nested.count("(SELECT min(") == 0 and nested.count("LEFT JOIN (SELECT") == 3
    assert lateral.count("(SELECT min(") == 3 and lateral.count("LATERAL (SELECT min(") == 3
