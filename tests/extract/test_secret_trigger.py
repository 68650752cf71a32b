"""The fast pre-check of hide_secrets answers exactly as the case-insensitive trigger regex it
replaces for ASCII text (non-ASCII text still goes through the regex)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from analyzer.project.extract.secrets import _may_hold_secret, _secret_trigger

WORDS = ["PRIVATE KEY", "ghp_", "GHO_", "ghu_", "Ghs_", "ghr_", "ghx_", "github_pat_", "AKIA", "asia", "sk-", "s k-",
         "Bearer", "password", "Secret", "api_key", "TOKEN", "kEy", "://", ":/", "gh", "task-or-explicit", "k\u212ay"]
pieces = st.one_of(st.sampled_from(WORDS), st.text(alphabet=st.characters(max_codepoint=127), max_size=8),
                   st.text(max_size=4))


@settings(max_examples=600, deadline=None)
@given(st.lists(pieces, max_size=6).map("".join))
def test_same_answer_as_the_trigger_regex(text):
    assert _may_hold_secret(text) == (_secret_trigger().search(text) is not None)


def test_each_alternative_in_any_case():
    for word in WORDS:
        for text in (word, word.upper(), word.lower(), f"x {word} y"):
            assert _may_hold_secret(text) == (_secret_trigger().search(text) is not None), text
