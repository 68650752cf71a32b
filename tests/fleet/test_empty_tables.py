"""Rules that join a table known to hold no tuples are not sent to the SQL engine
(``DuckRun._derives``): most of `check --all`'s inserts on a fleet insert nothing, and
planning each one was most of the evaluation's fixed cost. The answers stay the native
engine's: an empty relation in one stratum, a relation emptied by the fleet, an empty
relation read only under negation or in an aggregate (which still derive), and recursion
whose base is empty.

Each case runs on DuckDB and on Spark: ``SparkRun`` is a ``DuckRun`` with other table
primitives (views), so the skipping is the same code, fed by the same record of the tables
that may hold tuples (``filled``); the statements are observed at those primitives, which
both engines share. The Spark runs skip without pyspark (the [spark] extra) or Java."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from analyzer.engine.check import check_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

PROGRAM = """
.decl e(a: symbol, b: symbol)
.decl gone(a: symbol)
.decl joined(a: symbol, b: symbol)
.decl chained(a: symbol)
.decl missing(a: symbol)
.decl counted(a: symbol, n: number)
.decl path(a: symbol, b: symbol)
.decl from_gone(a: symbol, b: symbol)
joined(A, B) :- e(A, B), gone(A).
chained(A) :- joined(A, _).
chained(A) :- e(A, "z").
missing(A) :- e(A, _), !gone(A).
counted(A, N) :- e(A, _), N = count : { gone(A) }.
path(A, B) :- e(A, B).
path(A, C) :- path(A, B), e(B, C).
from_gone(A, B) :- gone(A), e(A, B).
from_gone(A, C) :- from_gone(A, B), e(B, C).
"""
FLEET = [{"e": {("a", "b"), ("b", "c"), ("c", "z")}}, {"e": {("x", "y")}}, {}]


def _engine() -> Engine:
    program = parse_program(PROGRAM, "<empty>")
    assert not check_program(program)
    return Engine(program)


@pytest.fixture(params=["duckdb", pytest.param("spark", marks=pytest.mark.slow)])
def sql_engine(request):
    """The run class of each SQL engine, and what it takes besides the program (a Spark session)."""
    if request.param == "duckdb":
        from analyzer.engine.sql.duck import DuckRun

        return DuckRun, ()
    pytest.importorskip("pyspark", reason="the [spark] extra (pyspark) is not installed")
    pytest.importorskip("sqlglot", reason="the [spark] extra (sqlglot) is not installed")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    from analyzer.engine.sql.spark import SparkRun, session

    return SparkRun, (session("local[2]"),)


def _run(sql_engine, engine, keep=None):
    """The program evaluated on ``sql_engine`` (its run class and arguments) over
    :data:`FLEET` (only ``keep``, kept, when given), and the statements of its table
    primitives, written as DuckDB's: the ``INSERT``s it ran (the ``CREATE``s with ``keep``)."""
    statements = []
    base, args = sql_engine

    class Logged(base):
        def _create(self, rel, name=None):
            if (name or rel) not in self.tables:
                statements.append(f'CREATE TABLE "{name or rel}"')
            return super()._create(rel, name)

        def _create_as(self, name, select):
            statements.append(f'CREATE TABLE "{name}" AS {select}')
            return super()._create_as(name, select)

        def _insert(self, name, select):
            statements.append(f'INSERT INTO "{name}" {select}')
            return super()._insert(name, select)

    run = Logged(engine, *args)
    run.load(FLEET)
    run.evaluate(keep, keep=keep)
    kind = "INSERT" if keep is None else "CREATE"
    return run, [s for s in statements if s.startswith(kind) and "__facts_in" not in s]


def test_rules_over_an_empty_table_are_not_run_and_the_answers_stay_native(sql_engine):
    engine = _engine()
    run, inserts = _run(sql_engine, engine)
    for i, facts in enumerate(FLEET):
        native = engine.evaluate(facts)
        for rel in sorted(engine.program.decls):
            assert run.database(i).relation(rel) == native.relation(rel), (i, rel)
    # gone holds nothing in any repository: joined and from_gone are never inserted into,
    # and chained's rule over joined is left out of its union
    assert not [s for s in inserts if s.startswith(('INSERT INTO "joined"', 'INSERT INTO "from_gone"'))]
    chained = [s for s in inserts if s.startswith('INSERT INTO "chained"')]
    assert len(chained) == 1 and '"joined"' not in chained[0]
    # a negation of the empty relation holds: no anti-join is planned for it
    missing = [s for s in inserts if s.startswith('INSERT INTO "missing"')]
    assert len(missing) == 1 and "NOT EXISTS" not in missing[0]
    # negation and aggregates over the empty relation still derive
    assert run.database(0).relation("missing") == [("a",), ("b",), ("c",)]
    assert run.database(0).relation("counted") == [("a", 0), ("b", 0), ("c", 0)]
    assert run.database(0).relation("chained") == [("c",)]
    assert ("a", "z") in run.database(0).relation("path")


def test_a_table_no_statement_reads_or_fills_is_never_made_when_only_kept_tables_are_asked(sql_engine):
    engine = _engine()
    keep = ["chained", "missing", "counted", "path", "from_gone"]
    run, creates = _run(sql_engine, engine, keep)
    made = {s.split('"')[1] for s in creates}
    # joined: only chained's skipped rule reads it; gone is read by an aggregate (made, empty)
    assert "joined" not in made and {"gone", *keep} <= made
    for i, facts in enumerate(FLEET):
        native = engine.evaluate(facts)
        assert all(run.database(i).relation(rel) == native.relation(rel) for rel in keep), i
