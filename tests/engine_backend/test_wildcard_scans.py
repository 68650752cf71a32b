"""Scans with wildcards visit each distinct binding once (and an atom that binds nothing is
one existence test); the results must equal those of the same program with every ``_``
renamed to a fresh variable, which the engine evaluates tuple by tuple."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

DECLS = """
.decl a(x: number, y: number, z: number)
.decl b(x: number, y: number, z: number)
.decl h(x: number, y: number)
.decl n(x: number, c: number)
"""
VARS = ("X", "Y", "Z")


@st.composite
def rules(draw):
    body = []
    for _ in range(draw(st.integers(1, 3))):
        rel = draw(st.sampled_from(("a", "b")))
        args = [draw(st.sampled_from(VARS + ("_", "_", "1"))) for _ in range(3)]
        body.append((rel, args))
    used = sorted({v for _, args in body for v in args if v in VARS})
    if not used:
        body[0][1][0] = "X"
        used = ["X"]
    hx, hy = draw(st.sampled_from(used)), draw(st.sampled_from(used))
    agg = draw(st.booleans())
    return body, (hx, hy), agg


def _text(body, head, agg, fresh: bool) -> str:
    counter = itertools.count()

    def arg(v):
        return f"W{next(counter)}" if fresh and v == "_" else v

    atoms = ", ".join(f"{rel}({', '.join(arg(v) for v in args)})" for rel, args in body)
    out = DECLS + f"h({head[0]}, {head[1]}) :- {atoms}.\n"
    if agg:
        out += f"n({head[0]}, C) :- h({head[0]}, _), C = count : {{ a({head[0]}, _, _) }}.\n"
        out = out.replace("a(" + head[0] + ", _, _) }", "a(" + head[0] + f", {arg('_')}, {arg('_')}) }}")
    return out


facts_st = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), max_size=25)


@settings(max_examples=150, deadline=None)
@given(rules(), facts_st, facts_st)
def test_wildcards_equal_fresh_variables(rule, a, b):
    body, head, agg = rule
    facts = {"a": a, "b": b}
    results = []
    for fresh in (False, True):
        db = Engine(parse_program(_text(body, head, agg, fresh), "w.dl"), builtins={}).evaluate(facts)
        results.append((db.relation("h"), db.relation("n")))
    assert results[0] == results[1]
