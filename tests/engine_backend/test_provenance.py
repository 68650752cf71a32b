"""Proof trees (why), profile statistics, limits and builtins through the registry contract."""

import json

import pytest

from analyzer.engine.builtins import Builtin
from analyzer.engine.errors import EngineError, EvaluationLimitError, StratificationError
from analyzer.engine.evaluate import Engine
from analyzer.engine.limits import Limits
from analyzer.engine.syntax import parse_program
from analyzer.core.span import Span

PROGRAM = """
.decl edge(a: symbol, b: symbol)
.decl blocked(n: symbol)
.decl path(a: symbol, b: symbol)
.decl open(a: symbol, b: symbol)
path(X, Y) :- edge(X, Y).
path(X, Y) :- path(X, Z), edge(Z, Y).
open(X, Y) :- path(X, Y), !blocked(Y).
blocked("c").
"""
EDGES = [("a", "b"), ("b", "c"), ("c", "d")]


def test_why_tree_goes_down_to_base_facts_with_spans(evaluate):
    spans = {("edge", e): Span("edges.facts", i + 1, 1) for i, e in enumerate(EDGES)}
    db = evaluate(PROGRAM, {"edge": EDGES}, spans=spans, provenance=True)
    proof = db.why("open", ("a", "d"))
    assert proof.rule is not None and proof.absent == ['blocked("d")']
    assert proof.bindings == {"X": "a", "Y": "d"}
    (path,) = proof.children
    assert path.relation == "path" and path.tuple == ("a", "d")
    leaves, todo = [], [proof]
    while todo:
        node = todo.pop()
        todo.extend(node.children)
        if not node.children and node.rule is None:
            leaves.append((node.tuple, node.span))
    assert sorted(leaves) == [(e, spans[("edge", e)]) for e in EDGES]
    text = proof.render()
    assert "absent: !blocked(\"d\")" in text and "edges.facts:3:1" in text
    json.dumps(proof.as_dict())
    assert db.why("open", ("a", "c")) is None


def test_program_fact_is_a_leaf_with_its_rule_span(evaluate):
    db = evaluate(PROGRAM, {"edge": EDGES}, provenance=True)
    leaf = db.why("blocked", ("c",))
    assert leaf.rule is None and leaf.span.line == 9


def test_why_heights_are_well_founded_on_a_long_chain(evaluate):
    # 1,100 steps: past the interpreter's 1,000 frames (a proof built or walked recursively,
    # one frame a step, raises RecursionError), with a closure of 0.6 million paths (1,500
    # steps: 1.1 million, 1.7 s more CPU)
    chain = [(f"n{i:04d}", f"n{i + 1:04d}") for i in range(1100)]
    db = evaluate(PROGRAM, {"edge": chain}, provenance=True)
    proof = db.why("path", ("n0000", "n1100"))
    depth, node = 0, proof
    while node.children:
        node, depth = node.children[0], depth + 1
    assert depth == 1100
    assert len(proof.render().splitlines()) > 3000


def test_why_needs_provenance(evaluate):
    db = evaluate(PROGRAM, {"edge": EDGES})
    with pytest.raises(EngineError, match="provenance"):
        db.why("path", ("a", "b"))


def test_provenance_does_not_change_results(evaluate):
    plain = evaluate(PROGRAM, {"edge": EDGES})
    prov = evaluate(PROGRAM, {"edge": EDGES}, provenance=True)
    assert plain.relation("open") == prov.relation("open")


def test_profile_counts_rules(evaluate):
    db = evaluate(PROGRAM, {"edge": EDGES}, profile=True)
    by_text = {s.text: s for s in db.stats}
    rec = by_text["path(X, Y) :- path(X, Z), edge(Z, Y)."]
    assert rec.derived == 3 and rec.iterations >= 2 and rec.seconds >= 0
    assert by_text["path(X, Y) :- edge(X, Y)."].derived == 3
    from analyzer.engine.database import render_profile

    assert "iters" in render_profile(db.stats).splitlines()[0]


def test_max_tuples_limit_names_limit_and_relation(evaluate):
    chain = [(i, i + 1) for i in range(300)]
    text = PROGRAM.replace("symbol", "number").replace('blocked("c").', "")
    with pytest.raises(EvaluationLimitError, match=r"max_tuples=1000.*'path'"):
        evaluate(text, {"edge": chain}, limits=Limits(max_tuples=1000))


def test_timeout_limit(evaluate):
    chain = [(i, i + 1) for i in range(2000)]
    text = PROGRAM.replace("symbol", "number").replace('blocked("c").', "")
    with pytest.raises(EvaluationLimitError, match="timeout"):
        evaluate(text, {"edge": chain}, limits=Limits(timeout_s=0.0))


def test_negation_cycle_is_refused_with_the_cycle_named():
    program = parse_program(".decl p(x: number)\n.decl q(x: number)\n"
                            "p(X) :- q(X), !r(X).\n.decl r(x: number)\nr(X) :- p(X).\n", "c.dl")
    with pytest.raises(StratificationError, match="r -> p -> r|p -> r -> p"):
        Engine(program, builtins={})


def _plus(ctx, args):
    x, y = args
    if x is not None:
        yield (x, x + 100)
    elif y is not None:
        yield (y - 100, y)


def _edges_of(ctx, args):
    rel, a, b = args
    for u, v in sorted(ctx.graph(rel).edges()):
        if a in (None, u):
            yield (rel, u, v)


FAKE = {
    "plus100": Builtin("plus100", ("number", "number"), ("bf", "fb"), _plus, "test"),
    "graph_edge": Builtin("graph_edge", ("symbol", "number", "number"), ("bff",), _edges_of, "test", 0),
}


def test_builtins_through_the_registry_contract():
    text = """
    .decl n(x: number)
    .decl up(x: number, y: number)
    .decl down(x: number, y: number)
    .decl e(a: number, b: number)
    .decl copy(a: number, b: number)
    up(X, Y) :- n(X), plus100(X, Y).
    down(X, Y) :- n(Y), plus100(X, Y).
    e(1, 2). e(2, 3).
    copy(A, B) :- graph_edge("e", A, B), A > 1.
    """
    engine = Engine(parse_program(text, "b.dl"), builtins=FAKE)
    # graph_edge's relation argument makes e a lower stratum than copy
    assert [s.relations for s in engine.strata].index(("e",)) < \
        [s.relations for s in engine.strata].index(("copy",))
    db = engine.evaluate({"n": [(1,), (205,)]}, provenance=True)
    assert db.relation("up") == [(1, 101), (205, 305)]
    assert db.relation("down") == [(-99, 1), (105, 205)]
    assert db.relation("copy") == [(2, 3)]
    assert db.why("up", (1, 101)).builtins == ["plus100(1, 101)"]


def test_real_builtin_registry(evaluate):
    text = """
    .decl file(p: symbol)
    .decl md(p: symbol)
    md(P) :- file(P), glob_match("docs/**/*.md", P).
    """
    db = evaluate(text, {"file": [("docs/a/b.md",), ("src/x.py",)]})
    assert db.relation("md") == [("docs/a/b.md",)]
