"""Hypothesis generates programs (rule templates over three strata: recursion, negation,
aggregates, arithmetic, string and graph builtins) and fleets of facts; the SQL back end
must derive, per repository, exactly what the native engine derives from that repository."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.engine.check import check_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

DECLS = """
.decl e(a: symbol, b: symbol)
.decl v(a: symbol, n: number)
.decl p(a: symbol, b: symbol)
.decl q(a: symbol)
.decl c(a: symbol, n: number)
.decl s(a: symbol, b: symbol)
.decl r(a: symbol)
"""

TEMPLATES = (
    # stratum 1: positive, recursive
    'p(X, Y) :- e(X, Y).',
    'p(X, Z) :- p(X, Y), e(Y, Z).',
    'p(X, X) :- v(X, _).',
    'p(X, Y) :- e(Y, X), X != Y.',
    'p("k", "k").',
    # stratum 2: negation, aggregates, builtins over p and the base relations
    'q(X) :- v(X, _), !p(X, X).',
    'q(X) :- e(X, _), !e(_, X).',
    'q(X) :- v(X, N), N > 2.',
    'q(Y) :- v(X, N), to_string(N, S), concat(X, S, Y).',
    'q(X) :- e(X, Y), starts_with(Y, X).',
    'q(X) :- reaches("e", X, X).',
    'q(X) :- on_cycle("p", X).',
    'q(C) :- e(A, B), concat(A, B, C), !contains(C, "a").',
    'q(F) :- e(S, _), casefold(S, F), F != S.',
    'q(A) :- e(_, C), concat(A, B, C), strlen(B, 1).',
    'q(T) :- e(S, _), upper(S, U), trim(U, T), !ends_with(T, "B").',
    'c(X, N) :- v(X, _), N = count : { p(X, _) }.',
    'c(X, N) :- e(X, _), N = sum M : { v(Y, M), p(X, Y) }.',
    'c(X, M) :- e(X, _), M = min N : { v(Y, N), e(X, Y) }.',
    'c(X, M) :- v(X, _), M = max N : { v(X, N) }.',
    'c(X, N) :- v(X, M), N = M * 2 - 1.',
    'c(X, N) :- v(X, M), M != 0, N = 7 / M.',
    'c(X, N) :- v(X, M), M != 0, N = 7 % M.',
    'c(X, N) :- e(X, Y), strlen(Y, N), N < 3.',
    's(X, C) :- scc_of("e", X, C).',
    's(X, Y) :- reaches("p", X, Y), !e(X, Y).',
    's(A, B) :- e(_, C), concat(A, B, C).',
    # stratum 3: over the second
    'r(X) :- q(X), !c(X, _).',
    'r(X) :- c(X, N), N >= 1, !q(X).',
    'r(X) :- s(X, X), N = count : { q(_) }, N > 0.',
)

SYMBOLS = st.sampled_from(["a", "b", "ab", "ba", "B", "k", "ß", "SS", " b ", ""])
FACTS = st.fixed_dictionaries({
    "e": st.sets(st.tuples(SYMBOLS, SYMBOLS), max_size=8),
    "v": st.sets(st.tuples(SYMBOLS, st.integers(-5, 5)), max_size=5),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sets(st.sampled_from(TEMPLATES), min_size=1), fleet=st.lists(FACTS, min_size=1, max_size=3))
def test_sql_back_end_derives_what_the_native_engine_derives(rules, fleet):
    from analyzer.engine.sql.duck import DuckRun

    program = parse_program(DECLS + "\n".join(sorted(rules)), "<generated>")
    assert not check_program(program)
    engine = Engine(program)
    run = DuckRun(engine)
    run.load(fleet)
    run.evaluate()
    for index, facts in enumerate(fleet):
        native = engine.evaluate(facts)
        sql = run.database(index)
        for rel in sorted(program.decls):
            assert sql.relation(rel) == native.relation(rel), (rel, index)


def test_the_emitted_sql_transpiles_to_other_dialects():
    """DuckDB's SQL of the check program read by sqlglot and written for Spark, Trino,
    BigQuery and Postgres (transpiling only: those engines are not run here)."""
    import sqlglot

    from analyzer.query.check import check_program as shipped
    from analyzer.engine.sql import emit
    from analyzer.engine.sql.tables import quote

    engine = shipped(False)
    ctx = emit.Context(engine.program.decls, engine.builtins, lambda atom: quote(atom.rel))
    selects = [emit.rule_select(ctx, rule) for rule in engine.rules if not rule.is_fact]
    assert len(selects) > 300
    for sql in selects:
        # sqlglot.transpile(sql, read=, write=) is parse, then sql(dialect=) per statement:
        # parsed once here for the four dialects (generating copies the tree)
        [tree] = sqlglot.parse(sql, read="duckdb")
        for dialect in ("spark", "trino", "bigquery", "postgres"):
            assert tree.sql(dialect=dialect).upper().startswith("SELECT"), (dialect, sql)
