"""canonical.Tokens counts exactly what the protocol's token regex (markdown.TOKEN_RE) finds
in any range of any text: ASCII by its class counts, other text by the regex itself."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

import sys

from analyzer.project.extract.canonical import UNICODE_SPACES, Tokens
from analyzer.project.markdown import TOKEN_RE

# every ASCII character (whitespace that \s knows, word characters, punctuation, controls),
# plus a few others that switch a text to the regex
_ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=60)
_ANY = st.text(alphabet=st.sampled_from(list("ab_9 \t\n\x0b\x0c\r\x1c\x1f.-#:`\x7f\x00") + ["é", "\u00a0", "\u2028", "字", "—", "\U0001f600", "?"]),
               max_size=60)


def _check(text: str, data) -> None:
    tokens = Tokens(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert tokens.count(start, end) == len(TOKEN_RE.findall(text, start, end))
    assert tokens.count(0, len(text)) == len(TOKEN_RE.findall(text))


@settings(max_examples=400, deadline=None)
@given(_ASCII, st.data())
def test_ascii_ranges_count_as_the_regex(text, data):
    _check(text, data)


@settings(max_examples=300, deadline=None)
@given(_ANY, st.data())
def test_any_text_counts_as_the_regex(text, data):
    _check(text, data)


def test_every_ascii_character_alone_and_in_runs():
    for i in range(128):
        ch = chr(i)
        for text in (ch, ch * 3, f"a{ch}b", f"{ch}ab{ch}", f"_{ch}_", f" {ch} "):
            tokens = Tokens(text)
            for start in range(len(text) + 1):
                for end in range(start, len(text) + 1):
                    assert tokens.count(start, end) == len(TOKEN_RE.findall(text, start, end)), (text, start, end)


def test_the_unicode_spaces_are_every_space_beyond_ascii():
    assert UNICODE_SPACES == "".join(chr(i) for i in range(128, sys.maxunicode + 1) if chr(i).isspace())
    assert all(TOKEN_RE.findall(f"a{space}b") == ["a", "b"] for space in UNICODE_SPACES)
