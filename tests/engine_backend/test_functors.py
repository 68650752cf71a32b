"""Soufflé functor syntax (`cat`, `strlen`, `substr`, `to_number`, `to_string`) means what the
builtins it stands for mean (issue 25 item 2; analyzer/engine/functors.py)."""

import pytest

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine.check import load_program

from .conftest import run_program

WORDS = {"w": [("tea",), ("kettle",), ("42",)]}
DECL = ".decl w(s: symbol)\n"


def _rows(text, rel="r"):
    return sorted(run_program(DECL + text, WORDS).relation(rel))


def test_functors_in_comparisons_equal_their_builtins():
    functor = _rows('.decl r(s: symbol, c: symbol, n: number, p: symbol)\n'
                    'r(S, C, N, P) :- w(S), C = cat(S, "-", S), N = strlen(S), P = substr(S, 0, 2).')
    builtin = _rows('.decl r(s: symbol, c: symbol, n: number, p: symbol)\n'
                    'r(S, C, N, P) :- w(S), concat3(S, "-", S, C), strlen(S, N), substr(S, 0, 2, P).')
    assert functor == builtin == [("42", "42-42", 2, "42"), ("kettle", "kettle-kettle", 6, "ke"),
                                  ("tea", "tea-tea", 3, "te")]


def test_functors_nest_and_appear_in_heads_atoms_and_aggregates():
    assert _rows('.decl r(s: symbol)\nr(cat(S, to_string(strlen(S) + 1))) :- w(S).') == \
        [("423",), ("kettle7",), ("tea4",)]
    assert _rows('.decl r(n: number)\nr(N) :- N = sum strlen(S) : { w(S) }.') == [(11,)]
    assert _rows('.decl r(n: number)\nr(N) :- w(S), N = to_number(S).') == [(42,)]  # no result for "tea"
    assert _rows('.decl r(s: symbol)\nr(S) :- w(S), !w(cat(S, "x")), strlen(S) > 3.') == [("kettle",)]


@pytest.mark.parametrize("goal, words", [
    ('r(X) :- w(S), X = lower(S).', "unknown functor lower"),
    ('r(X) :- w(S), X = cat(S).', "cat takes two or more arguments"),
    ('r(X) :- w(S), X = substr(S, 1).', "substr takes 3 arguments, not 2"),
])
def test_other_functors_are_dl021_at_the_name(goal, words):
    with pytest.raises(DiagnosticError) as err:
        load_program(text=DECL + ".decl r(s: symbol)\n" + goal, name="t.dl")
    diag = err.value.diagnostics[0]
    assert diag.code == "DL021" and words in diag.message and diag.span.line == 3
    assert diag.span.col == goal.index(goal.split("= ")[1][:3]) + 1
