"""Limits that hold (docs/reliability.md): every limit is noticed inside a join of any
shape, inside a regular expression and while proofs are built, and the error names the
rule that was running and the relation sizes so far. Numbers and symbols have a range."""

import time

import pytest

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine.check import load_program
from analyzer.engine.errors import EngineError, EvaluationLimitError
from analyzer.engine.evaluate import Engine
from analyzer.engine.limits import MAX_NUMBER, Limits, Watchdog, default_max_memory, resident_bytes

CROSS = """.decl a(x: number)
.decl p(x: number, y: number, z: number)
p(X, Y, Z) :- a(X), a(Y), a(Z).
"""
A = {"a": [(i,) for i in range(1000)]}  # the cross product has 10^9 tuples


def engine(text, **limits):
    return Engine(load_program(text=text, name="t.dl"), limits=Limits(**limits))


def test_time_limit_is_noticed_inside_the_inner_loops():
    # the outer loop has 1,000 tuples: a check per 8,192 outer tuples never came
    with pytest.raises(EvaluationLimitError) as err:
        engine(CROSS, timeout_s=0.3).evaluate(A)
    message = err.value.message
    assert message.startswith("limit timeout=0.3s exceeded")
    assert "in the rule at t.dl:3, deriving relation 'p'" in message
    assert "largest relations so far: p " in message and "a 1,000" in message
    assert err.value.span.line == 3


def test_tuple_limit_is_noticed_inside_the_inner_loops():
    with pytest.raises(EvaluationLimitError, match=r"max_tuples=100000 exceeded.*t\.dl:3"):
        engine(CROSS, max_tuples=100_000).evaluate(A)


def test_memory_limit():
    with pytest.raises(EvaluationLimitError, match=r"limit max_memory=0 MiB exceeded \(resident"):
        engine(CROSS, max_memory=1).evaluate(A)


def test_default_memory_limit_is_a_fraction_of_the_machine():
    limit = default_max_memory()
    if limit is None:
        pytest.skip("machine memory not readable here")
    assert 0 < limit and (resident_bytes() or 0) < limit
    assert Limits().max_memory == limit


def test_a_backtracking_regex_runs_in_linear_time():
    """``(a+)+b`` against 40 letters and a mismatch backtracked for minutes in Python's `re`
    (then DL902 named it); the automaton of analyzer/engine/linear_re.py answers at once."""
    text = """.decl s(x: symbol)
.decl m(x: symbol)
m(X) :- s(X), re_match("(a+)+b", X).
"""
    start = time.monotonic()
    db = engine(text, timeout_s=5).evaluate({"s": [("a" * 40 + "c",), ("a" * 100_000 + "b",)]})
    assert sorted(len(x) for (x,) in db.relation("m")) == [100_001]
    assert time.monotonic() - start < 5


def test_proof_building_counts_against_the_same_limits():
    text = """.decl e(x: number, y: number)
.decl r(x: number, y: number)
r(X, Y) :- e(X, Y).
r(X, Z) :- r(X, Y), e(Y, Z).
"""
    dog = Watchdog(Limits(timeout_s=60))
    db = engine(text).evaluate({"e": [(i, i + 1) for i in range(50)]}, provenance=True, watchdog=dog)
    assert db.why("r", (0, 3)) is not None
    dog.deadline = time.monotonic() - 1  # the time ran out after evaluation
    with pytest.raises(EvaluationLimitError, match="limit timeout=60s exceeded .* while building proofs"):
        db.why("r", (0, 40))


def test_limits_are_lifted_after_evaluation():
    import signal

    before = signal.getsignal(signal.SIGALRM)
    engine(CROSS.replace("a(Z)", "a(Z), Z < 0"), timeout_s=30).evaluate({"a": [(1,), (2,)]})
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# ---- numbers and symbols have a range --------------------------------------------------

def answers_or_refuses(text, facts, expected):
    """``expected``: the tuples of p, or the code of the static diagnostic the text gets."""
    if isinstance(expected, list):
        assert engine(text).evaluate(facts).relation("p") == expected
        return
    with pytest.raises(DiagnosticError) as err:
        engine(text)
    assert err.value.diagnostics[0].code == expected


@pytest.mark.parametrize("literal,ok", [(str(MAX_NUMBER), True), (str(MAX_NUMBER + 1), False),
                                        ("9" * 5000, False), ("0" * 30 + "7", True)])
def test_number_literals(literal, ok):
    text = f".decl p(x: number)\np({literal}).\n"
    answers_or_refuses(text, {}, [(int(literal),)] if ok else "DL019")


def test_arithmetic_results_stay_in_range():
    text = ".decl n(x: number)\nn(2).\nn(X * X) :- n(X).\n"
    with pytest.raises(EngineError) as err:
        engine(text).evaluate({})
    assert err.value.code == "DL930" and "outside the number range" in err.value.message


@pytest.mark.parametrize("depth,ok", [(100, True), (101, False), (5000, False)])
def test_arithmetic_nesting_has_a_documented_maximum(depth, ok):
    expr = "X"
    for _ in range(depth):
        expr = f"({expr} + 1)"
    text = f".decl a(x: number)\n.decl p(x: number)\np(Y) :- a(X), Y = {expr}.\n"
    answers_or_refuses(text, {"a": [(0,)]}, [(depth,)] if ok else "DL020")


def test_to_number_out_of_range_has_no_result():
    text = '.decl s(x: symbol)\n.decl n(x: number)\nn(N) :- s(S), to_number(S, N).\n'
    facts = {"s": [("12",), (str(MAX_NUMBER + 1),), ("9" * 5000,)]}
    assert engine(text).evaluate(facts).relation("n") == [(12,)]


def test_symbols_built_by_builtins_have_a_maximum_length():
    text = '.decl s(x: symbol)\ns("ab").\ns(C) :- s(X), concat(X, X, C).\n'
    with pytest.raises(EngineError) as err:
        engine(text).evaluate({})
    assert err.value.code == "DL931"


def test_concat_with_only_the_result_bound_splits_lazily():
    text = '.decl s(x: symbol)\n.decl h(x: symbol)\nh(A) :- s(C), concat(A, "b", C).\n'
    assert engine(text).evaluate({"s": [("a" * 200_000 + "b",)]}).count("h") == 1
