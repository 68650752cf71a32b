"""A Soufflé program with a facts directory runs unchanged under ``analyze query PROGRAM.dl``."""

import json
import os
from pathlib import Path

import inprocess

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
.decl edge(x: number, y: number)
.input edge
.decl weight(x: number, w: number)
.input weight(IO=file, filename="weights.csv", delimiter=",")
.decl path(x: number, y: number)
.output path
.printsize path
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), edge(Y, Z).
heavy(X) :- weight(X, W), W > 5.
.decl heavy(x: number)
.output heavy
"""


def query(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return inprocess.run(["query", *map(str, args)],
                         capture_output=True, text=True, env=env, cwd=cwd)


def _program(tmp_path):
    prog = tmp_path / "tc.dl"
    prog.write_text(PROGRAM)
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "edge.facts").write_text("1\t2\n2\t3\n")
    (facts / "weights.csv").write_text("1,9\n2,1\n")
    (facts / "unrelated.facts").write_text("not read: no .input names it\n")
    return prog, facts


def test_without_a_goal_the_output_relations_and_sizes_are_printed(tmp_path):
    prog, facts = _program(tmp_path)
    res = query(prog, "--facts", facts)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "path:", "x  y", "-  -", "1  2", "1  3", "2  3", "(3 tuples)", "",
        "heavy:", "x", "-", "1", "(1 tuple)", "path\t3"]


def test_json_outputs_and_goal_over_the_same_program(tmp_path):
    prog, facts = _program(tmp_path)
    doc = json.loads(query(prog, "--facts", facts, "--format", "json").stdout)
    assert doc["schema"]["name"] == "query.outputs"
    assert doc["relations"][0] == {"name": "path", "columns": ["x", "y"], "tuples": [[1, 2], [1, 3], [2, 3]]}
    assert doc["sizes"] == [{"name": "path", "size": 3}]
    res = query(prog, "--facts", facts, "path(1, Y), !heavy(Y)")
    assert res.returncode == 0 and res.stdout.splitlines()[2:] == ["2", "3", "(2 tuples)"]


def test_missing_input_file_and_undeclared_directive_are_errors(tmp_path):
    prog, facts = _program(tmp_path)
    (facts / "edge.facts").unlink()
    res = query(prog, "--facts", facts, "path(X, Y)")
    assert res.returncode == 2 and "DL903" in res.stderr and "edge.facts" in res.stderr
    bad = tmp_path / "bad.dl"
    bad.write_text(".decl p(x: number)\n.output q\n")
    res = query(bad, "p(X)")
    assert res.returncode == 2 and "bad.dl:2:1: DL101" in res.stderr


def test_a_program_without_goal_or_output_asks_for_a_goal(tmp_path):
    prog = tmp_path / "p.dl"
    prog.write_text(".decl p(x: number)\np(1).\n")
    res = query(prog)
    assert res.returncode == 2 and "DL920" in res.stderr
