"""A unit's parts read a snippet's lines without lexing it again only where the cut's lexer
found the text plain (analyzer/history/unit_cuts.py ``plain_lines``)."""

from analyzer.history.unit_cuts import cut, plain_lines, shared
from analyzer.project.markdown import lex

PLAIN = "## E-1 \u2014 one\n- Status: active\n- Statement: a\n  more\n\n## E-2 \u2014 two\n- Status: active\n"
FENCED = "## E-1 \u2014 one\n- Status: active\n```\n- Statement: hidden\n```\n"


def test_lines_only_inside_a_block_and_after_a_cut():
    assert plain_lines(PLAIN) is None  # nothing is kept outside shared()
    with shared():
        assert plain_lines(PLAIN) is None  # not cut yet
        cut(PLAIN)
        found = plain_lines(PLAIN)
        assert found is not None and found.plain and found.lines == lex(PLAIN).lines
    assert plain_lines(PLAIN) is None


def test_a_text_the_lexer_hides_lines_of_is_lexed_again():
    assert not lex(FENCED).plain
    with shared():
        cut(FENCED)
        assert plain_lines(FENCED) is None
