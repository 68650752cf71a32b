"""History snippets take the file-level fast path and give the general path's sink.

A readiness reading extracts the units each commit changed (analyzer/history/unit_hunks.py): Git's
hunks widened to whole units and joined by ``\\n``, with an empty line between two hunks,
no title, and no ``\\n`` after the last line. The general path splits lines, so the missing
last ``\\n`` changes nothing there; the fast path's section patterns end every line with
one, and used to miss the last section of every snippet (most snippets hold one unit, so
nearly every snippet went to the general path). The fast path now reads such a text as if
it had the ``\\n`` (canonical.line_ended). These tests check that it gives exactly the
general path's sink on snippet-shaped texts, and that a canonical snippet is matched whole
(each of its entries written straight from the match) rather than left to the general path.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analyzer.project.extract import canonical, fast_entries, fast_subjects
from analyzer.history.unit_hunks import _snippets

from .test_canonical import ENTRY_MODULES, VALID, assert_same, entry_unit, subject_unit


def _hunk_lines(units):
    """One hunk's lines as Git's function context ends it: its trailing blank lines dropped."""
    lines = [line for unit in units for line in unit]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


@st.composite
def snippet(draw, unit):
    """A snippet: hunks of whole units (a non-blank line or two above the first heading at
    times, as Git's context reaches up over non-blank lines), an empty line between two
    hunks, no title and, mostly, no ``\\n`` at the end."""
    lines = []
    for n in range(draw(st.integers(1, 3))):
        if n:
            lines.append("")
        lines += draw(st.lists(st.sampled_from(["Intro text.", "- a bullet", "Status: active"]), max_size=2))
        lines += _hunk_lines(draw(st.lists(unit, min_size=1, max_size=3)))
    text = "\n".join(lines)
    return text + "\n" if draw(st.integers(0, 5)) == 0 else text


@st.composite
def entry_snippet(draw):
    module = draw(st.sampled_from(ENTRY_MODULES))
    return draw(snippet(entry_unit(module))), module


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry_snippet(), st.sampled_from([1, 2]))
def test_entry_snippets_give_the_same_sinks(file, schema):
    text, module = file
    assert_same(text, module, schema)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippet(subject_unit()))
def test_subject_snippets_give_the_same_sinks(text):
    assert_same(text, "subjects.md")


@given(st.lists(st.sampled_from(["## ", "a", "\n", " ", "\r", "#", "-", ":", "\u2028"]), max_size=20).map("".join))
def test_a_missing_last_line_break_reads_as_one(text):
    """line_ended adds at most one ``\\n``; on a plain text (the only kind the fast path reads)
    the general path's line split gives the same lines with it, and plainness never changes."""
    ended = canonical.line_ended(text)
    assert ended == text or ended == text + "\n"
    assert ended.endswith("\n") or not text
    assert canonical.plain(ended) == canonical.plain(text)
    if canonical.plain(text):
        assert ended.splitlines() == text.splitlines()
        assert canonical.sections(ended) == [(s, e + (e == len(text) < len(ended)), line)
                                             for s, e, line in canonical.sections(text)]


def _entry(module: str, n: int, body: str) -> list:
    code, scope, field = VALID[module]
    return [f"## MC-{code}-20260101-{n:08x} \u2014 Entry {n}", "", "Status: active", f"Scope: {scope}",
            f"Subject: MC-SUBJ-20260101-{n:08x}", "Facet: behavior", "Evidence:", "- user-confirmed", "",
            f"{field}:", body, ""]


def _clean_results(monkeypatch):
    """The entries the fast path matched, recorded (True: read from the match, not by the
    general path; whether they are valid is the rules' question on both paths)."""
    seen = []
    original = fast_entries._Entries.add  # called once for each matched entry
    monkeypatch.setattr(fast_entries._Entries, "add", lambda self, *a: seen.append(True) or original(self, *a))
    return seen


@pytest.mark.parametrize("module", ["decisions.md", "areas/web.md", "rules/style.md"])
def test_canonical_snippets_are_matched_whole(module, monkeypatch):
    """Snippets made by unit_hunks from a file of canonical entries (two bodies rewritten: two
    hunks; the last entry rewritten: a hunk at the file's end): every entry of both sides is
    matched and written from the match, none read by the general path."""
    # a file's lines without their "\n" (as unit_hunks holds them): the last one is the body
    old = ["# Title", ""] + [line for n in range(6) for line in _entry(module, n, f"Body {n}.")][:-1]
    width = len(_entry(module, 0, ""))
    changes = []
    for n in (1, 3, 5):
        at = 2 + n * width + 10  # the body line of entry n
        changes.append((at, 1, at, 1, [old[at]], [f"Body {n}, rewritten."]))
    before, after = _snippets(old, changes)
    assert not before.endswith("\n") and before.count("\n## ") == 2  # three hunks, as Git joins them
    seen = _clean_results(monkeypatch)
    monkeypatch.setattr(canonical.General, "section_units", lambda *a: pytest.fail("a section missed the pattern"))
    for text in (before, after):
        for schema in (1, 2):
            assert_same(text, module, schema)
    assert seen and len(seen) == 3 * 2 * 2 and all(seen)


def test_a_canonical_subject_snippet_is_matched_whole(monkeypatch):
    lines = []
    for n in range(3):
        if n:
            lines.append("")
        lines += [f"## MC-SUBJ-20260101-{n:08x} \u2014 Thing {n}", "", "Status: active", "Kind: concept",
                  "Evidence:", "- user-confirmed", "", "Aliases:", f"- thing {n}"]
    text = "\n".join(lines)
    matched = []
    original = fast_subjects._Subjects.add  # called once for each matched Subject
    monkeypatch.setattr(fast_subjects._Subjects, "add", lambda self, *a: matched.append(original(self, *a)) or matched[-1])
    monkeypatch.setattr(canonical.General, "section_units", lambda *a: pytest.fail("a section missed the pattern"))
    assert_same(text, "subjects.md")
    # both() ran the fast path once: each of the three Subjects was matched and written whole
    assert matched == [True, True, True]
