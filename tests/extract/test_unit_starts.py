"""The shared per-text parsers' fast readings equal their line-by-line definitions.

``lex`` records whether a text is plain (no hidden or indented line) as it lexes.

:func:`analyzer.project.markdown.unit_starts` visits only h2 and bullet lines; the reference
below reads every line, as §3.1 describes the unit model (it is the implementation the
fast one replaced). :func:`analyzer.project.extract.fields._parse_plain` must give what
``_parse_general`` gives on a unit whose lines are all visible. Both are checked under
Hypothesis on documents built from the pieces every unit and field rule looks at (fences,
comments and indented code included, so hidden lines are exercised too).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from hypothesis import given, settings, strategies as st

from analyzer.project.extract import fields
from analyzer.project.markdown import (BULLET_PREFIXES, FIELD_LINE_RE, FORMAL_H2_RE, H2_UNIT_RE, LIST_FIELDS,
                                       _later_field_before_h2, lex, parse_document, unit_starts)


def reference_unit_starts(lexed, lo: int, hi: int) -> List[Tuple[int, str, bool]]:
    """unit_starts read line by line (the definition)."""
    lines = lexed.lines
    starts: List[Tuple[int, str, bool]] = []
    kind = None
    formal = False
    current_field: Optional[str] = None
    for i in range(lo, hi):
        line = lines[i]
        if not lexed.visible[i] or not line or lexed.indented[i]:
            continue
        if H2_UNIT_RE.match(line):
            formal = bool(FORMAL_H2_RE.match(line))
            kind, current_field = "h2", None
            starts.append((i, kind, formal))
            continue
        if kind == "h2":
            fm = FIELD_LINE_RE.match(line)
            if fm:
                current_field = fm.group(1)
                continue
        if line[:2] in BULLET_PREFIXES:
            # a list item of a list field, or of a field that a later line of a formal unit
            # continues, stays in the unit; any other bullet starts one
            if kind == "h2" and (current_field in LIST_FIELDS or formal and _later_field_before_h2(lexed)[i]):
                continue
            kind = "ambiguous-bullet" if kind == "h2" and formal else "bullet"
            starts.append((i, kind, False))
            formal = False
            continue
        if kind in ("bullet", "ambiguous-bullet") and not line[0].isspace() and line.strip():
            kind = "body"
            starts.append((i, kind, False))
    return starts


_PREFIX = st.sampled_from(["", "", "", " ", "   ", "    ", "\t", "\u00a0"])
_CORE = st.sampled_from([
    "", "", "## MC-DEC-20260101-0123abcd \u2014 T", "## mc-con-20260101-0123abcd", "## Notes", "##", "##\tx",
    "### Deeper", "# Title", "#x", "Status: active", "Evidence:", "Aliases:", "Entries:", "Merged-From:",
    "Decision:", "Constraint: x", "Note-x:", "\u00e9t\u00e9: x", "- item", "* item", "+ item", "-", "-x", "- ",
    "text", "More text.", "```", "```memory-custodian-body-v1", "~~~", "<!--", "-->", "<!-- c -->", "x -->",
])
_SUFFIX = st.sampled_from(["", "", " ", "\t", "x", ":", " #"])
_LINE = st.tuples(_PREFIX, _CORE, _SUFFIX).map("".join)
_DOC = st.lists(_LINE, max_size=24).map("\n".join)


@settings(max_examples=600, deadline=None)
@given(_DOC, st.data())
def test_unit_starts_equal_the_line_by_line_reading(text, data):
    lexed = lex(text)
    # lex tracks plainness as it hides or indents lines
    assert lexed.plain == (False not in lexed.visible and True not in lexed.indented)
    n = len(lexed.lines)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    assert unit_starts(lexed, lo, hi) == reference_unit_starts(lexed, lo, hi)
    assert unit_starts(lexed, 0, n) == reference_unit_starts(lexed, 0, n)


def _fields(parsed):
    return ({name: [(o.value, o.line, o.body, o.visible_body) for o in occ] for name, occ in parsed.fields.items()},
            parsed.evidence, parsed.fences)


@settings(max_examples=600, deadline=None)
@given(_DOC, st.sampled_from([1, 2]))
def test_plain_units_read_as_the_general_reader_reads_them(text, schema):
    doc = parse_document("## MC-DEC-20260101-0123abcd \u2014 T\n" + text)
    lexed = doc.lexed
    for unit in doc.units:
        start, stop = unit.start + 1, unit.end + 1
        if False in lexed.visible[start:stop] or True in lexed.indented[start:stop]:
            continue
        assert _fields(fields._parse_plain(lexed.lines, start, stop)) == _fields(fields._parse_general(lexed, unit, schema))


def test_the_reference_sees_what_the_fast_reading_skips():
    # a bullet after a list field, a body after a bullet, a hidden h2 and a field line before a bullet
    text = "## Notes\nEvidence:\n- a\nNote: x\n- b\nbody\n```\n## hidden\n```\n- c\n   text\nmore\n"
    lexed = lex(text)
    expected = [(0, "h2", False), (4, "bullet", False), (5, "body", False), (9, "bullet", False),
                (11, "body", False)]
    assert reference_unit_starts(lexed, 0, len(lexed.lines)) == expected
    assert unit_starts(lexed, 0, len(lexed.lines)) == expected
