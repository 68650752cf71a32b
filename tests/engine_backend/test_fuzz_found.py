"""Rule-language failures the grammar fuzzer found (bench/fuzz_grammars.py), kept as tests."""

from __future__ import annotations

import pytest

from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine


@pytest.mark.parametrize("constant", ['"b\\n"', '"x\\ny\\nz"', '"tab\\there"'])
def test_string_constants_with_line_breaks_compile_and_match(constant):
    # found: a rule whose text held a line break in a string made the generated source's
    # comment line end early: SyntaxError "unterminated string literal", exit 3
    program = load_program(text=f".decl p(c0: symbol)\n.decl q(c0: symbol)\np({constant}).\np(\"other\").\n"
                                f"q(X) :- p(X), X = {constant}.\n")
    db = Engine(program).evaluate({})
    value = db.relation("p")
    assert len(db.relation("q")) == 1 and db.relation("q")[0] in value
