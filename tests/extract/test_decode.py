"""files.decode looks for CRLF and NUL in the bytes before the text: the same problems, at
the same line and column, as searching the decoded text, for any text (non-ASCII included)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from analyzer.project.files import decode


def _by_text(text: str):
    """CRLF and NUL as found by searching the decoded text (the reference)."""
    found = []
    crlf = text.find("\r\n")
    if crlf >= 0:
        found.append(("MA-FILE-CRLF", text.count("\n", 0, crlf) + 1, 1))
    nul = text.find("\x00")
    if nul >= 0:
        found.append(("MA-FILE-NUL", text.count("\n", 0, nul) + 1, nul - (text.rfind("\n", 0, nul) + 1) + 1))
    return found


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "\n", "\r", "\x00", "é", "—", "字", "\U0001f600", " "]), max_size=40))
def test_crlf_and_nul_are_found_where_the_text_has_them(text):
    decoded, problems = decode("x.md", text.encode("utf-8"))
    assert decoded == text
    assert [(p.code, p.line, p.col) for p in problems] == _by_text(text)
