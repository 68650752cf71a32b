"""Rule text shown in proofs and profiles prints what was written."""

from analyzer.engine import load_program
from analyzer.engine.astfmt import rule_text


def test_rule_text_keeps_parentheses_of_nested_arithmetic():
    program = load_program(text=".decl n(x: number)\n.decl m(x: number)\nm(Y) :- n(X), Y = (X + 1) * 2.\n")
    assert "(X + 1) * 2" in rule_text(program.rules[0])
