"""Rules of any size (docs/reliability.md): code generation never reaches CPython's limits
(20 nested blocks per function, 100 indentation levels, 200 nested parentheses), whatever
the number of atoms and comparisons in a body."""

import random

import pytest

from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine
from analyzer.engine.compile import PLAIN, PROV
from analyzer.engine.limits import MAX_EXPRESSION_DEPTH

CHAIN = {"e": [(i, i + 1) for i in range(300)]}


def chain_rule(atoms: int, comparisons: int, rng: random.Random) -> str:
    """``p(X0, Xn) :- e(X0, X1), ..., e(Xn-1, Xn), <comparisons>.`` with comparisons spread
    over the bound variables (every one true on the chain e(i, i+1))."""
    body = [f"e(X{i}, X{i + 1})" for i in range(atoms)]
    for k in range(comparisons):
        i = rng.randrange(atoms + 1)
        j = rng.randrange(atoms + 1)
        lo, hi = min(i, j), max(i, j)
        body.insert(rng.randrange(len(body) + 1), rng.choice([
            f"X{hi} >= X{lo}", f"X{hi} - X{lo} = {hi - lo}", f"X{lo} != X{hi} + 1", f"X{lo} < {10_000 + k}"]))
    return f".decl e(x: number, y: number)\n.decl p(x: number, y: number)\np(X0, X{atoms}) :- {', '.join(body)}.\n"


@pytest.mark.parametrize("atoms,comparisons", [
    (1, 1), (19, 0), (20, 0), (21, 3), (40, 120), (1, 500), (80, 250), (200, 1), (200, 500)])
def test_wide_bodies_compile_and_evaluate(atoms, comparisons):
    rng = random.Random(atoms * 1000 + comparisons)
    engine = Engine(load_program(text=chain_rule(atoms, comparisons, rng), name="t.dl"))
    db = engine.evaluate(CHAIN)
    assert db.relation("p") == [(i, i + atoms) for i in range(301 - atoms)]
    # the proof flavour is generated from the same plan and must compile too
    proved = engine.evaluate(CHAIN, provenance=True)
    proof = proved.why("p", (0, atoms))
    assert proof is not None and len(proof.children) == atoms


def test_random_shapes():
    rng = random.Random(7)
    for _ in range(3):
        atoms, comparisons = rng.randint(1, 200), rng.randint(1, 500)
        engine = Engine(load_program(text=chain_rule(atoms, comparisons, rng), name="t.dl"))
        assert engine.evaluate(CHAIN).count("p") == 301 - atoms
        assert engine.source()  # every variant compiled


def test_deepest_arithmetic_in_a_wide_rule():
    expr = "X0"
    for i in range(MAX_EXPRESSION_DEPTH):
        expr = f"({expr} {'+-*'[i % 3]} 1)"
    atoms = [f"e(X{i}, X{i + 1})" for i in range(30)]
    text = (".decl e(x: number, y: number)\n.decl p(x: number, y: number)\n"
            f"p(X0, Y) :- {', '.join(atoms)}, Y = {expr}, Y >= {expr}.\n")
    db = Engine(load_program(text=text, name="t.dl")).evaluate(CHAIN)
    assert db.count("p") == 301 - 30


def test_aggregates_in_a_wide_rule():
    atoms = [f"e(X{i}, X{i + 1})" for i in range(25)]
    agg = "N = count : { e(X24, A), e(A, B), e(B, C), A < C }"
    text = (".decl e(x: number, y: number)\n.decl p(x: number, n: number)\n"
            f"p(X0, N) :- {', '.join(atoms)}, {agg}.\n")
    engine = Engine(load_program(text=text, name="t.dl"))
    rows = engine.evaluate(CHAIN).relation("p")
    assert rows[0] == (0, 1) and rows[-1] == (300 - 25, 0)
    assert "def _rest" in engine.source()  # the body was split
