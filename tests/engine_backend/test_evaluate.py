"""Evaluation semantics: recursion, negation, aggregates, arithmetic, comparisons, only=."""

import pytest

from analyzer.engine.errors import EngineError

EDGES = """
.decl edge(a: number, b: number)
.decl path(a: number, b: number)
path(X, Y) :- edge(X, Y).
path(X, Y) :- path(X, Z), edge(Z, Y).
"""


def test_transitive_closure_with_cycle(evaluate):
    db = evaluate(EDGES, {"edge": [(1, 2), (2, 3), (3, 1), (4, 5)]})
    assert db.relation("path") == sorted(
        [(a, b) for a in (1, 2, 3) for b in (1, 2, 3)] + [(4, 5)])


def test_nonlinear_recursion(evaluate):
    text = EDGES.replace("path(X, Z), edge(Z, Y)", "path(X, Z), path(Z, Y)")
    db = evaluate(text, {"edge": [(i, i + 1) for i in range(10)]})
    assert db.count("path") == 55


def test_mutual_recursion(evaluate):
    text = """
    .decl succ(a: number, b: number)
    .decl even(n: number)
    .decl odd(n: number)
    even(0).
    odd(Y) :- even(X), succ(X, Y).
    even(Y) :- odd(X), succ(X, Y).
    """
    db = evaluate(text, {"succ": [(i, i + 1) for i in range(9)]})
    assert db.relation("even") == [(0,), (2,), (4,), (6,), (8,)]
    assert db.relation("odd") == [(1,), (3,), (5,), (7,), (9,)]


def test_negation_reads_completed_lower_stratum(evaluate):
    text = EDGES + """
    .decl node(n: number)
    .decl unreachable(a: number, b: number)
    node(X) :- edge(X, _).
    node(X) :- edge(_, X).
    unreachable(X, Y) :- node(X), node(Y), !path(X, Y).
    """
    db = evaluate(text, {"edge": [(1, 2), (2, 3)]})
    assert db.relation("unreachable") == [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]


def test_negation_with_wildcard_and_constant(evaluate):
    text = """
    .decl p(a: symbol, b: symbol)
    .decl q(a: symbol)
    .decl r(a: symbol)
    r(X) :- q(X), !p(X, _).
    """
    db = evaluate(text, {"p": [("a", "x")], "q": [("a",), ("b",)]})
    assert db.relation("r") == [("b",)]


def test_aggregates_with_grouping(evaluate):
    text = """
    .decl owner(e: symbol, s: symbol, n: number)
    .decl subj(s: symbol)
    .decl n_owners(s: symbol, n: number)
    .decl total(s: symbol, n: number)
    .decl lo(s: symbol, n: number)
    .decl hi(s: symbol, n: number)
    .decl all(n: number)
    subj("a"). subj("b"). subj("c").
    n_owners(S, N) :- subj(S), N = count : { owner(_, S, _) }.
    total(S, N) :- subj(S), N = sum X : { owner(_, S, X) }.
    lo(S, N) :- subj(S), N = min X : { owner(_, S, X) }.
    hi(S, N) :- subj(S), N = max X : { owner(_, S, X) }.
    all(N) :- N = count : { owner(_, _, _) }.
    """
    owners = [("e1", "a", 3), ("e2", "a", 5), ("e3", "b", -2)]
    db = evaluate(text, {"owner": owners})
    assert db.relation("n_owners") == [("a", 2), ("b", 1), ("c", 0)]
    assert db.relation("total") == [("a", 8), ("b", -2), ("c", 0)]
    assert db.relation("lo") == [("a", 3), ("b", -2)]  # min over nothing yields nothing
    assert db.relation("hi") == [("a", 5), ("b", -2)]
    assert db.relation("all") == [(3,)]


def test_arithmetic_and_comparisons(evaluate):
    text = """
    .decl n(x: number)
    .decl calc(x: number, y: number, z: number)
    .decl name(s: symbol)
    .decl before(a: symbol, b: symbol)
    calc(X, Y, Z) :- n(X), Y = X * 2 + 1, Z = (0 - X) / 2, X >= 1, X != 3.
    before(A, B) :- name(A), name(B), A < B.
    """
    db = evaluate(text, {"n": [(0,), (1,), (3,), (5,)], "name": [("b",), ("a",), ("c",)]})
    # division truncates toward zero (Soufflé): -5 / 2 = -2
    assert db.relation("calc") == [(1, 3, 0), (5, 11, -2)]
    assert db.relation("before") == [("a", "b"), ("a", "c"), ("b", "c")]


def test_repeated_variable_in_atom(evaluate):
    text = EDGES + ".decl loop(a: number)\nloop(X) :- edge(X, X).\n"
    db = evaluate(text, {"edge": [(1, 1), (1, 2)]})
    assert db.relation("loop") == [(1,)]
    assert db.query("edge(X, X)") == [(1, 1)]


def test_query_patterns(evaluate):
    db = evaluate(EDGES, {"edge": [(1, 2), (2, 3)]})
    assert db.query("path(1, _)") == [(1, 2), (1, 3)]
    assert db.query("path(_, Y)") == [(1, 2), (1, 3), (2, 3)]
    assert db.query("path(3, _)") == []


def test_sorting_numbers_before_symbols():
    from analyzer.engine.database import sorted_tuples

    assert sorted_tuples([("b", 1), (2, "a"), (1, "z"), ("a", 0)]) == [
        (1, "z"), (2, "a"), ("a", 0), ("b", 1)]


def test_only_evaluates_needed_strata(evaluate):
    text = EDGES + ".decl other(a: number)\nother(X) :- edge(X, _).\n"
    db = evaluate(text, {"edge": [(1, 2)]}, only=["path"])
    assert db.relation("path") == [(1, 2)]
    with pytest.raises(EngineError, match="not evaluated"):
        db.relation("other")


def test_undeclared_and_ill_typed_facts(evaluate):
    with pytest.raises(EngineError, match="undeclared"):
        evaluate(EDGES, {"nope": [(1,)]})
    with pytest.raises(EngineError, match="number"):
        evaluate(EDGES, {"edge": [("a", 1)]})
    with pytest.raises(EngineError, match="columns"):
        evaluate(EDGES, {"edge": [(1, 2, 3)]})


def test_generated_source_is_inspectable():
    from analyzer.engine.check import load_program
    from analyzer.engine.evaluate import Engine

    engine = Engine(load_program(text=EDGES, name="t.dl"))
    source = engine.source()
    assert "def rule1_delta0(" in source and "# path(X, Y) :- path(X, Z), edge(Z, Y)." in source
    assert "P_path" not in source and "P_path" in engine.source(provenance=True)


def test_checked_relations_skip_the_fact_check_only_where_named():
    """``checked`` (facts an earlier evaluation of the same facts already checked) skips the
    declaration check for the named relations only; every other relation is still checked."""
    from analyzer.engine.check import load_program
    from analyzer.engine.errors import FactsError
    from analyzer.engine.evaluate import Engine

    engine = Engine(load_program(text=EDGES, name="edges.dl"))
    good = {(1, 2), (2, 3)}
    assert engine.evaluate({"edge": good}, checked=["edge"]).relation("path") == \
        engine.evaluate({"edge": good}).relation("path")
    bad = {(1, "x")}
    with pytest.raises(FactsError, match="column b is a number"):
        engine.evaluate({"edge": bad})
    with pytest.raises(FactsError, match="column b is a number"):
        engine.evaluate({"edge": bad}, checked=["path"])
    engine.evaluate({"edge": bad}, checked=["edge"], only=["edge"])  # trusted as given
