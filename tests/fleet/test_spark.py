"""Spark local mode gives what DuckDB gives: every derived relation of rules/check/check.dl
per repository over a small generated fleet (planted problems included), and ``fleet
check --engine spark`` prints DuckDB's documents. Skips without pyspark (the [spark] extra)
or without Java; slow (Spark plans every statement: minutes, whatever the fleet's size)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")
pytest.importorskip("sqlglot")
pytest.importorskip("pyspark")

import shutil
import sys
from pathlib import Path

from analyzer.commands.fleet_check import fleet_check, prepare, result_document
from analyzer.query.check_families import ORDER

REPO = Path(__file__).resolve().parents[2]
GEN = REPO.parent / "shared" / "bench" / "gen_project.py"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java"),
              pytest.mark.skipif(not GEN.exists(), reason="../shared/bench/gen_project.py is absent")]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Five repositories of 40 entries (the benchmark's generator: repo0003 cites a missing
    source file, every repository other IDs and texts)."""
    sys.path.insert(0, str(REPO / "bench"))
    import fleet_bench

    root = tmp_path_factory.mktemp("spark-fleet")
    fleet_bench.generate(root, 5, 40, str(GEN))
    return sorted(str(p) for p in root.iterdir())


def test_spark_local_agrees_with_duckdb_on_every_derived_relation(generated, check_inputs):
    from analyzer.engine.sql.duck import DuckRun
    from analyzer.engine.sql.spark import SparkRun, session

    prepared = [p for p in (prepare(path, ORDER, use_cache=False) for path in generated) if p.result is None]
    engine, only, facts = check_inputs(prepared)
    duck = DuckRun(engine)
    duck.load(facts)
    duck.evaluate(only)
    spark = SparkRun(engine, session("local[2]"))
    spark.load(facts)
    spark.evaluate(only)
    derived = sorted(rel for rel in engine.needed(only) if any(r.head.rel == rel for r in engine.rules))
    assert len(prepared) == 5 and len(derived) > 200
    differ = [(i, rel) for i in range(len(facts)) for rel in derived
              if duck.database(i).relation(rel) != spark.database(i).relation(rel)]
    assert differ == []
    assert sum(len(duck.database(i).relation(rel)) for i in range(5) for rel in derived) > 1000


def test_fleet_check_on_spark_prints_duckdb_documents(generated):
    paths = generated[2:4]  # repo0003 has the planted freshness findings
    on_duck = [result_document(p, r) for p, r in fleet_check(paths, "duckdb", use_cache=False)]
    on_spark = [result_document(p, r) for p, r in fleet_check(paths, "spark", use_cache=False,
                                                              spark_master="local[2]")]
    assert on_spark == on_duck
    assert {d["result"]["status"] for d in on_duck} != {"CLEAN"}


def test_spark_sql_is_spark_dialect():
    from analyzer.engine.sql.spark import spark_sql

    out = spark_sql("SELECT (CASE WHEN b = 0 THEN error('DL905 division by zero') ELSE a // b END) FROM \"t\" AS t1")
    assert "RAISE_ERROR('DL905" in out.upper() and "`t`" in out and "ERROR(" not in out.upper().replace("RAISE_ERROR(", "")


def test_every_rule_template_on_spark_equals_the_native_engine():
    """The generated-program templates (recursion, negation, aggregates, graph helpers,
    Python UDFs, concat splitting, division) in one program over three repositories."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_generated_programs import DECLS, TEMPLATES

    from analyzer.engine.check import check_program
    from analyzer.engine.evaluate import Engine
    from analyzer.engine.sql.spark import SparkRun, session
    from analyzer.engine.syntax import parse_program

    program = parse_program(DECLS + "\n".join(TEMPLATES), "<templates>")
    assert not check_program(program)
    engine = Engine(program)
    fleet = [{"e": {("a", "b"), ("b", "a"), ("ab", "B"), ("ß", "SS")}, "v": {("a", 3), ("b", -2), ("ab", 0)}},
             {"e": {(" b ", "ba"), ("ba", "k")}, "v": {("k", 5)}},
             {"e": set(), "v": {("", 1)}}]
    run = SparkRun(engine, session("local[2]"))
    run.load(fleet)
    run.evaluate()
    derived = 0
    for index, facts in enumerate(fleet):
        native = engine.evaluate(facts)
        for rel in sorted(program.decls):
            assert run.database(index).relation(rel) == native.relation(rel), (rel, index)
            derived += len(native.relation(rel))
    assert derived > 30


def test_chained_aggregates_on_spark_equal_the_native_engine():
    """An aggregate reading an earlier aggregate's variable (rules/agents' first mention):
    nested scalar subqueries were refused by Spark's analyzer (UNRESOLVED_COLUMN, DL941), so
    every `fleet check --engine spark` failed once the agents family was in the check."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_lateral_aggregates import FLEET, chained_engine, differences

    from analyzer.engine.sql.spark import SparkRun, session

    engine = chained_engine()
    run = SparkRun(engine, session("local[2]"))
    run.load(FLEET)
    run.evaluate()
    assert differences(run, engine, FLEET) == []
    assert run.database(0).relation("first") == [("x", "a.md", 2, 5), ("y", "c.md", 1, 1)]
