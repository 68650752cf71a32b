"""The builtins DuckDB calls in Python (analyzer/engine/sql/functions.py) take a chunk of rows
at a time: the same answer as the builtin row by row (NULL in, NULL out), and one call per
distinct value where the other arguments are the same in every row."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from analyzer.engine.sql.functions import FUNCTIONS, _vectorized


@pytest.fixture()
def con():
    from analyzer.engine.sql.duck import connect

    con = connect(threads=1)
    con.execute("CREATE TABLE t (s VARCHAR, p VARCHAR, n BIGINT)")
    rows = [(f"Area:{i % 7} ß", "area:*" if i % 2 else "*", i % 5) for i in range(5000)] + [(None, "x", None)]
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    yield con
    con.close()


@pytest.mark.parametrize("sql, name, columns", [
    ("ma_casefold(s)", "ma_casefold", ("s",)),
    ("ma_glob_match('area:*', s)", "ma_glob_match", ("'area:*'", "s")),
    ("ma_glob_match(p, ma_casefold(s))", "ma_glob_match", ("p", "ma_casefold(s)")),  # two vary
    ("ma_substr(s, n, 3)", "ma_substr", ("s", "n", "3")),
    ("ma_split(s, ':')", "ma_split", ("s", "':'")),
])
def test_chunked_functions_answer_as_the_builtin_row_by_row(con, sql, name, columns):
    fn = FUNCTIONS[name][0]
    got = con.execute(f"SELECT {sql}, {', '.join(columns)} FROM t").fetchall()
    assert len(got) == 5001
    for answer, *args in got:
        assert answer == (None if None in args else fn(*args))


def test_one_call_per_distinct_value_of_the_one_varying_argument():
    import duckdb

    calls = []

    def starts(prefix, text):
        calls.append(text)
        return text.startswith(prefix)

    con = duckdb.connect()
    con.create_function("f", _vectorized(starts, 2, "BOOLEAN"), ["VARCHAR", "VARCHAR"], "BOOLEAN", type="arrow")
    con.execute("CREATE TABLE t AS SELECT 'v' || (range % 3) AS s FROM range(1000)")
    assert con.execute("SELECT count(*) FROM t WHERE f('v1', s)").fetchall() == [(333,)]
    assert sorted(set(calls)) == ["v0", "v1", "v2"] and len(calls) == 3  # one chunk: 1,000 rows


NO_RESULT = """
.decl k(a: symbol)
.decl bad_glob(a: symbol, why: symbol)
.decl bad_path(a: symbol, why: symbol)
.decl number(a: symbol, v: number)
.decl cut(a: symbol, s: symbol)
bad_glob(A, W) :- k(A), glob_invalid(A, W).
bad_path(A, W) :- k(A), path_invalid(A, W).
number(A, V) :- k(A), to_number(A, V).
cut(A, S) :- k(A), substr(A, 2, 3, S).
"""


def test_a_builtin_with_no_result_for_a_row_derives_nothing_there_as_natively():
    """None is a builtin's "no result" (a valid glob, a text that is no number, a cut past the
    end): DuckDB must take it as NULL for that row, not stop the evaluation."""
    from analyzer.engine.check import load_program
    from analyzer.engine.evaluate import Engine
    from analyzer.engine.sql.duck import DuckRun

    eng = Engine(load_program(text=NO_RESULT, name="<no-result>"))
    fleet = [{"k": {("src/*.py",), ("a/[",), ("12",), ("x",), ("../up",)}}]
    run = DuckRun(eng)
    run.load(fleet)
    run.evaluate()
    native = eng.evaluate(fleet[0])
    for rel in ("bad_glob", "bad_path", "number", "cut"):
        assert run.database(0).relation(rel) == native.relation(rel), rel
    assert run.database(0).relation("number") == [("12", 12)]
    assert len(run.database(0).relation("bad_glob")) < 5 and len(run.database(0).relation("cut")) < 5
