"""An aggregate costs time linear in its input: its body runs once per distinct group key,
not once per tuple that mentions the key (n^2 for n tuples of one group).

Cost is counted, never timed: a ``tick`` builtin in the aggregate body counts how often
the body reaches it, and the count must equal the aggregated relation's size, on data with
one group and on data with many groups.
"""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.engine.builtins import NUMBER, Builtin
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program

PROGRAM = """
.decl r(k: number, v: number)
.decl size(k: number, n: number)
.decl total(k: number, n: number)
.decl largest(k: number, n: number)
size(K, N) :- r(K, _), N = count : { r(K, V), tick(V) }.
total(K, N) :- r(K, _), N = sum V : { r(K, V), tick(V) }.
largest(K, N) :- r(K, _), N = max V : { r(K, V), tick(V) }.
"""


def _engine(calls: list) -> Engine:
    def tick(_ctx, args):
        calls.append(args[0])
        yield args

    builtins = {"tick": Builtin("tick", (NUMBER,), ("b",), tick, "counts its calls")}
    return Engine(parse_program(PROGRAM, "cost.dl"), builtins=builtins)


def _check(rows):
    calls: list = []
    db = _engine(calls).evaluate({"r": rows})
    facts = set(rows)
    # three aggregates, each reading every r tuple exactly once over all its groups
    assert len(calls) == 3 * len(facts)
    groups = Counter(k for k, _ in facts)
    assert db.relation("size") == sorted(groups.items())
    assert db.relation("total") == sorted((k, sum(v for kk, v in facts if kk == k)) for k in groups)
    assert db.relation("largest") == sorted((k, max(v for kk, v in facts if kk == k)) for k in groups)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 400))
def test_one_group_costs_linear(n):
    _check([(7, v) for v in range(n)])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(-50, 50)), min_size=1, max_size=300))
def test_many_groups_cost_linear(rows):
    _check(rows)


def test_aggregate_without_group_runs_once():
    calls: list = []
    text = """
    .decl r(k: number, v: number)
    .decl n(k: number, c: number)
    n(K, C) :- r(K, _), C = count : { r(_, V), tick(V) }.
    """
    def tick(_ctx, args):
        calls.append(args[0])
        yield args

    builtins = {"tick": Builtin("tick", (NUMBER,), ("b",), tick, "counts its calls")}
    rows = [(k, v) for k in range(50) for v in range(4)]
    db = Engine(parse_program(text, "cost.dl"), builtins=builtins).evaluate({"r": rows})
    assert len(calls) == len(rows)
    assert db.relation("n") == [(k, len(rows)) for k in range(50)]
