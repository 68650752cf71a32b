"""Soufflé-style folder tests: cases/<name>/{program.dl, facts/*.facts, expected/*.csv}.

Each expected file holds one relation's tuples, tab-separated as Soufflé writes them; the
test evaluates the program over the facts and compares every expected relation exactly.
"""

from pathlib import Path

import pytest

from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.factsio import read_facts_dir, write_facts_dir

CASES = Path(__file__).parent / "cases"


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_case(case, tmp_path):
    folder = CASES / case
    program = load_program(folder / "program.dl")
    facts, spans = read_facts_dir(folder / "facts", program.decls)
    db = Engine(program).evaluate(facts, spans=spans)
    expected = sorted((folder / "expected").glob("*.csv"))
    assert expected, "a case needs at least one expected relation"
    for path in expected:
        rel = path.stem
        # expected files are typed by the same declarations as input facts
        (tmp_path / (rel + ".facts")).write_text(path.read_text())
        want, _ = read_facts_dir(tmp_path, {rel: program.decls[rel]})
        (tmp_path / (rel + ".facts")).unlink()
        assert db.relation(rel) == sorted(want[rel]), rel


def test_facts_dir_round_trip(tmp_path):
    program = load_program(text=".decl r(s: symbol, n: number)\n", name="r.dl")
    tuples = [("b c", -3), ("a", 10), ("ü", 0)]
    write_facts_dir(tmp_path, program.decls, {"r": tuples})
    assert (tmp_path / "r.facts").read_text(encoding="utf-8") == "a\t10\nb c\t-3\nü\t0\n"
    facts, spans = read_facts_dir(tmp_path, program.decls)
    assert sorted(facts["r"]) == sorted(tuples)
    assert str(spans[("r", ("a", 10))]).endswith("r.facts:1:1")


@pytest.mark.parametrize("content, where, message", [
    ("a\t1\nb\tx\n", ":2:3", "is a number"),
    ("a\t1\t2\n", ":1:1", "3 tab-separated fields"),
])
def test_facts_file_errors_name_file_line_col(tmp_path, content, where, message):
    from analyzer.engine.errors import FactsError

    program = load_program(text=".decl r(s: symbol, n: number)\n", name="r.dl")
    (tmp_path / "r.facts").write_text(content)
    with pytest.raises(FactsError, match=message) as info:
        read_facts_dir(tmp_path, program.decls)
    assert str(info.value.span).endswith("r.facts" + where)


def test_undeclared_facts_file_and_escaped_symbols_round_trip(tmp_path):
    from analyzer.engine.errors import FactsError

    program = load_program(text=".decl r(s: symbol)\n", name="r.dl")
    (tmp_path / "q.facts").write_text("a\n")
    with pytest.raises(FactsError, match="no .decl"):
        read_facts_dir(tmp_path, program.decls)
    odd = [("a\tb",), ("line\nbreak",), ("back\\slash",), ("plain",)]
    write_facts_dir(tmp_path / "out", program.decls, {"r": odd})
    facts, _ = read_facts_dir(tmp_path / "out", program.decls)
    assert sorted(facts["r"]) == sorted(odd)
