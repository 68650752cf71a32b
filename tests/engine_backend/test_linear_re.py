"""analyzer/engine/linear_re.py: user patterns answer as Python's `re` does, in time linear in
the text, and a pattern outside the language is refused, never read as something else."""

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.engine.linear_re import PatternError, compile_pattern, pattern_problem

ALPHABET = "ab.\n_1"


def _atoms():
    literal = st.sampled_from(["a", "b", "1", "_", r"\.", r"\n", ".", r"\d", r"\w", r"\s", r"\W", "[ab]", "[^a]",
                               "[a-c_]", "[]a]", "[.]", "^", "$"])
    return st.recursive(literal, lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?", "{,2}"])).map(
            lambda p: f"({p[0]}){p[1]}")), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_atoms(), st.text(alphabet=ALPHABET, max_size=8), st.booleans())
def test_answers_as_python_re(pattern, text, icase):
    pattern = ("(?i)" if icase else "") + pattern
    ours, theirs = compile_pattern(pattern), re.compile(pattern)
    assert ours.fullmatch(text) == bool(theirs.fullmatch(text))
    assert ours.search(text) == bool(theirs.search(text))


@pytest.mark.parametrize("pattern, text, found", [("(a+)+$", "a" * 34 + "!", False), ("(a|aa)*b", "a" * 50_000, False),
                                                  ("(.*a){20}", "a" * 5_000 + "b", True),
                                                  ("(x+x+)+y", "x" * 20_000, False)])
def test_backtracking_patterns_run_in_linear_time(pattern, text, found):
    """Each of these runs for minutes or more in Python's `re`."""
    start = time.monotonic()
    compiled = compile_pattern(pattern)
    assert compiled.fullmatch(text) is False and compiled.search(text) is found
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("pattern, what", [("(?=a)", "lookaround"), ("a(?!b)", "lookaround"), (r"(a)\1", "backreference"),
                                           (r"\bx", "word boundaries"), ("a*+", "possessive"), ("(a", "missing ')'"),
                                           ("a)", "unbalanced"), ("[a", "unterminated"), ("*a", "nothing to repeat"),
                                           ("x{1001}", "over 1000"), ("(?i:x)", "flags inside"), (r"\q", "bad escape"),
                                           ("((a{1000}){1000})", "too large"), ("[z-a]", "range")])
def test_patterns_outside_the_language_are_refused(pattern, what):
    with pytest.raises(PatternError, match=re.escape(what)):
        compile_pattern(pattern)
    assert pattern_problem(pattern).startswith("invalid regular expression: ")
