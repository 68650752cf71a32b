"""Static checks: every DL1xx code fires on a minimal bad program and not on its good twin."""

import pytest

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine import check_program, load_program, parse_program
from analyzer.engine.check import CHECK_CODES

DECLS = """.decl p(x: symbol, n: number)
.decl q(x: symbol)
.decl r(x: symbol, n: number)
.decl e(a: symbol, b: symbol)
.decl en(a: number, b: number)
.decl mixed(a: symbol, b: number)
"""

# code -> (bad program, good program); DECLS is prepended to both.
CASES = {
    "DL101": ('q(X) :- nope(X).', 'q(X) :- p(X, _).'),
    "DL102": ('.decl q(y: number)', '.decl q(x: symbol)'),
    "DL103": ('q(X) :- p(X).', 'q(X) :- p(X, _).'),
    "DL104": ('p("a", "b").', 'p("a", 1).'),
    "DL105": ('q(X) :- p(X, _), r(_, X).', 'q(X) :- p(X, N), r(X, N).'),
    "DL106": ('r(X, N) :- p(X, _), N = X + 1.', 'r(X, N) :- p(X, M), N = M + 1.'),
    "DL107": ('q(X) :- p(X, N), N < "a".', 'q(X) :- p(X, N), N < 3, X > "a".'),
    "DL108": ('r(X, N) :- q(X).', 'r(X, N) :- q(X), p(X, N).'),
    "DL109": ('q(X) :- q(X), !e(X, Y).', 'q(X) :- q(X), !e(X, _).'),
    "DL110": ('q(X) :- q(X), Y > 3.', 'q(X) :- q(X), p(X, Y), Y > 3.'),
    "DL111": ('r(X, N) :- N = count : { p(X, _) }.',
              'r(X, N) :- q(X), N = count : { p(X, _) }.'),
    "DL112": ('q(Z) :- concat(X, Y, Z).', 'q(Z) :- q(X), q(Y), concat(X, Y, Z).'),
    "DL113": ('q(_) :- q(_).', 'q(X) :- q(X), p(_, _).'),
    "DL114": ('r(X, N) :- q(X), N = count : { p(X, M), M = max K : { p(X, K) } }.',
              'r(X, N) :- q(X), N = count : { p(X, M), M > 1 }.'),
    "DL115": ('q(X) :- p(X, _), !q(X).', 'q(X) :- p(X, _), !e(X, X).'),
    "DL116": ('r(X, N) :- q(X), N = count : { r(X, _) }.', 'r(X, N) :- q(X), N = count : { p(X, _) }.'),
    "DL117": ('q(X).', 'q("a").'),
    "DL118": ('q(X) :- q(X), on_cycle("mixed", X).', 'q(X) :- q(X), on_cycle("e", X).'),
    "DL119": ('concat("a", "b", "ab").', 'q("ab") :- concat("a", "b", "ab").'),
    "DL120": ('.decl strlen(s: symbol, n: number)', '.decl my_strlen(s: symbol, n: number)'),
    "DL121": ('.decl d(x: symbol, x: number)', '.decl d(x: symbol, y: number)'),
    "DL122": ('r(X, count : { q(_) }) :- q(X).', 'r(X, N) :- q(X), N = count : { q(_) }.'),
    "DL123": ('e(X, Y) :- e(X, Y), reaches("e", X, Y).', 'q(X) :- e(X, Y), reaches("e", X, Y).'),
    "DL124": ('q(X) :- q(X), glob_match("a/**b", X).', 'q(X) :- q(X), glob_match("a/**/b", X).'),
}


def codes(text: str):
    return [d.code for d in check_program(parse_program(DECLS + text))]


def test_every_check_code_has_a_case():
    assert sorted(CASES) == sorted(CHECK_CODES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_fires_on_bad_program(code):
    assert code in codes(CASES[code][0])


@pytest.mark.parametrize("code", sorted(CASES))
def test_good_twin_is_clean(code):
    assert codes(CASES[code][1]) == []


def test_binding_is_order_independent():
    text = ('r(X, N) :- N = L + 1, strlen(X, L), q(X).\n'
            'q(Z) :- concat(X, "b", Z), X = Y, q(Y).\n'
            'en(A, B) :- B = A * 2, A = C - 1, en(C, _).\n')
    assert codes(text) == []


def test_builtin_modes_bind_their_free_arguments():
    assert codes('q(P) :- q(S), split(S, "/", P, I), I = 0.') == []
    assert "DL112" in codes('q(S) :- q(P), split(S, "/", P, _).')


def test_negated_builtin_needs_every_argument_bound():
    assert codes('q(X) :- q(X), !starts_with(X, "a").') == []
    assert "DL109" in codes('q(X) :- q(X), !starts_with(Y, "a").')


def test_graph_builtin_node_type_comes_from_relation():
    assert codes('mixed("a", Y) :- en(X, _), reaches("en", X, Y).') == []
    assert "DL105" in codes('q(X) :- q(X), reaches("en", X, _).')


def test_min_max_work_on_symbols_sum_does_not():
    assert codes('q(M) :- p(_, _), M = min X : { p(X, _) }.') == []
    assert "DL106" in codes('r("a", M) :- q(_), M = sum X : { q(X) }.')


def test_recursion_message_names_the_cycle():
    text = 'e(X, Y) :- q(X), q(Y), !r(X, _).\nr(X, 1) :- e(X, _).\n'
    diags = check_program(parse_program(DECLS + text))
    assert [d.message for d in diags] == ["negation through recursion: e -> r -> e"]


def test_positive_recursion_is_fine():
    assert codes('e(X, Z) :- e(X, Y), e(Y, Z).') == []


def test_diagnostics_are_sorted_with_carets():
    diags = check_program(parse_program(DECLS + 'q(Y) :- nope(X).\nq(X) :- p(X).\n', "x.dl"))
    assert [(d.span.line, d.code) for d in diags] == [(7, "DL108"), (7, "DL101"), (8, "DL103")]
    assert diags[1].render().splitlines()[1:] == ["  q(Y) :- nope(X).", "          ^"]


def test_load_program_raises_on_errors_and_returns_clean_programs(tmp_path):
    good = tmp_path / "good.dl"
    good.write_text(DECLS + 'q("a").\n')
    assert "q" in load_program(good).decls
    with pytest.raises(DiagnosticError) as info:
        load_program(text=DECLS + 'q(X).', name="inline.dl")
    assert info.value.diagnostics[0].code == "DL117"
    with pytest.raises(DiagnosticError) as info:
        load_program(tmp_path / "missing.dl")
    assert info.value.diagnostics[0].code == "DL017"
