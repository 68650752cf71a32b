"""Relations without columns (``.decl z()``): a fact, a rule head, a positive and a
negated body atom. A body scan of one generated ``for  in chunk:`` (a SyntaxError reported
as an internal error) before the compiler gave it a target."""

import pytest

from tests.engine_backend.conftest import run_program

PROGRAM = """
.decl p(x: symbol)
.decl z()
.decl off()
.decl w(x: symbol)
.decl v(x: symbol)
.decl u(x: symbol)
z() :- p("b").
w(X) :- p(X), z().
v(X) :- p(X), !off().
u(X) :- p(X), off().
"""


@pytest.mark.parametrize("provenance", [False, True])
def test_nullary_relations_in_heads_and_bodies(provenance):
    db = run_program(PROGRAM, {"p": [("a",), ("b",)]}, provenance=provenance)
    assert db.relation("z") == [()]
    assert db.relation("w") == [("a",), ("b",)]
    assert db.relation("v") == [("a",), ("b",)]
    assert db.relation("u") == []


@pytest.mark.parametrize("provenance", [False, True])
def test_a_nullary_relation_that_does_not_hold_blocks_its_rule(provenance):
    db = run_program(PROGRAM + "off().\n", {"p": [("a",)]}, provenance=provenance)
    assert db.relation("z") == [] and db.relation("w") == []
    assert db.relation("v") == [] and db.relation("u") == [("a",)]
