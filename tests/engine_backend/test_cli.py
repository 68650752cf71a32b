"""``analyze query`` end to end, as a user runs it (``python -m analyzer query ...``)."""

import csv
import io
import json
import os
from pathlib import Path

import pytest

import inprocess

ROOT = Path(__file__).resolve().parents[2]
CASE = Path(__file__).parent / "cases" / "tc_cycle"


def analyze(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return inprocess.run(["query", *map(str, args)],
                         capture_output=True, text=True, env=env, cwd=ROOT)


def test_table_output_with_declared_column_names():
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(1, _)")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["src", "dst"]
    assert [l.split() for l in lines[2:5]] == [["1", "2"], ["1", "3"], ["1", "4"]]
    assert lines[-1] == "(3 tuples)"


def test_json_output_and_proofs():
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(X, X)", "--format", "json",
                  "--why", "--stats")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ok"] is True and doc["status"] == "MATCH"
    assert doc["schema"] == {"name": "query.result", "version": 2}
    # columns are the goal's variables: X once, though it fills both columns of path
    assert doc["relation"] == "path" and doc["columns"] == ["X"] and doc["tuples"] == [[2], [3]]
    assert doc["rows"] == [{"X": 2}, {"X": 3}]
    # one proof per answer: the goal's atom path(X, X) with its derivation
    assert [p["children"][0]["tuple"] for p in doc["proofs"]] == [[2, 2], [3, 3]]
    assert doc["proofs"][0]["children"][0]["rule"].startswith("path(X, Y) :-")
    assert {row["rule"] for row in doc["profile"]} >= {"path(X, Y) :- edge(X, Y)."}


def test_json_no_match():
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(4, _)", "--format", "json")
    doc = json.loads(res.stdout)
    assert res.returncode == 0 and doc["status"] == "NO_MATCH" and doc["tuples"] == []


def test_csv_output():
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(_, 4)", "--format", "csv")
    assert res.returncode == 0, res.stderr
    assert list(csv.reader(io.StringIO(res.stdout))) == [["src", "dst"], ["1", "4"], ["2", "4"], ["3", "4"]]


def test_why_text_proof():
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(1, 4)", "--why")
    assert res.returncode == 0, res.stderr
    assert "edge.facts:4:1" in res.stdout and "<- rule path(X, Y) :- path(X, Z), edge(Z, Y)." in res.stdout


@pytest.mark.parametrize("args, code, text", [
    (["path(X)"], "DL103", "takes 2 argument"),
    (["nope(X)"], "DL915", "unknown relation 'nope'"),
    (["path(X"], "DL0", ""),
    (["path(X, Y)", "--max-tuples", "3"], "DL902", "max_tuples=3"),
    (["path(X, Y)", "--facts", "/nonexistent-dir"], "DL903", "not a directory"),
])
def test_errors_exit_2_with_diagnostics(args, code, text):
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", *args)
    assert res.returncode == 2
    assert code in res.stderr and text in res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


def test_bad_facts_file_and_bad_program(tmp_path):
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "edge.facts").write_text("1\t2\n1\tx\n")
    res = analyze(CASE / "program.dl", "--facts", facts, "path(X, Y)")
    assert res.returncode == 2 and "edge.facts:2:3: DL903" in res.stderr
    prog = tmp_path / "bad.dl"
    prog.write_text(".decl p(x: number)\np(X) :- q(X).\n")
    res = analyze(prog, "p(X)")
    assert res.returncode == 2 and "bad.dl:2:" in res.stderr and "Traceback" not in res.stderr


def test_error_in_json_format_is_an_error_document(tmp_path):
    res = analyze(CASE / "program.dl", "--facts", CASE / "facts", "path(X, Y)", "--max-tuples", "3",
                  "--format", "json")
    assert res.returncode == 2
    doc = json.loads(res.stdout)
    assert doc["ok"] is False and doc["status"] == "LIMIT"
    assert doc["diagnostics"][0]["code"] == "DL902"
