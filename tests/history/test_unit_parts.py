"""A unit's parts (analyzer/history/unit_parts.py) are the fields as the extractor's field
reader reads them, and a comparison keeps exactly the parts that differ.

``unit_parts`` reads a unit whose lines are all visible and none indented code without
building the field reader's objects; the reference below builds the parts from
:func:`analyzer.project.extract.fields.parse_fields` (how they were built before). Both are
checked under Hypothesis on documents built from the pieces the unit and field rules look at.
"""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from analyzer.history import unit_parts
from analyzer.project.extract.fields import parse_fields
from analyzer.project.markdown import parse_document

_PREFIX = st.sampled_from(["", "", "", " ", "    ", "\t", "\u00a0"])
_CORE = st.sampled_from([
    "", "", "## MC-DEC-20260101-0123abcd \u2014 T", "## mc-con-20260101-0123abcd", "## Notes \u2014 a \u2014 b",
    "Status: active", "Status:", "Status:  x ", "Evidence:", "Evidence: inline", "Decision:", "Constraint: x",
    "title: t", "Note-x:", "- item", "-  item ", "* item", "-", "- ", "text", "More text.", "```",
    "```memory-custodian-body-v1", "~~~", "<!--", "-->",
])
_SUFFIX = st.sampled_from(["", "", " ", "\t", "x", ":"])
_LINE = st.tuples(_PREFIX, _CORE, _SUFFIX).map("".join)
_DOC = st.lists(_LINE, max_size=20).map("\n".join)


def reference_parts(lexed, start: int, end: int, schema: int):
    """The parts as built from the field reader's objects (the definition)."""

    class Span:
        def __init__(self) -> None:
            self.start, self.end = start, end

    parsed = parse_fields(lexed, Span(), schema)
    parts = [("title", lexed.lines[start].split("\u2014", 1)[-1].strip())]
    for name, occurrences in parsed.fields.items():
        if len(occurrences) == 1 and not occurrences[0].body:
            parts.append((name, occurrences[0].value.strip("\n")))
        else:
            parts.append((name, "\n\0".join("\n".join([occ.value, *occ.body]).strip("\n") for occ in occurrences)))
    if parsed.evidence:
        parts.append(("Evidence", "\n".join(i for i, _ in parsed.evidence)))
    return parts


@settings(max_examples=600, deadline=None)
@given(_DOC, st.sampled_from([1, 2]))
def test_parts_are_the_field_readers_fields(text, schema):
    doc = parse_document("## MC-DEC-20260101-0123abcd \u2014 T\n" + text)
    for unit in doc.units:
        assert unit_parts.unit_parts(doc.lexed, unit.start, unit.end, schema) == \
            reference_parts(doc.lexed, unit.start, unit.end, schema)


def test_a_field_named_title_and_an_evidence_field_stay_parts_of_their_own():
    doc = parse_document("## MC-DEC-20260101-0123abcd \u2014 T\ntitle: x\nEvidence: note\n- a\n- b\nStatus: y\n"
                         "title: z\n")
    assert doc.lexed.plain
    assert unit_parts.unit_parts(doc.lexed, 0, len(doc.lexed.lines) - 1, 2) == [
        ("title", "T"), ("title", "x\n\0z"), ("Evidence", "note"), ("Status", "y"), ("Evidence", "a\nb")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["Status", "Scope", "title"]),
                          st.sampled_from(["x", "y", "z"])), max_size=8),
       st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["Status", "Scope", "title"]),
                          st.sampled_from(["x", "y", "z"])), max_size=8))
def test_a_comparison_keeps_the_parts_the_other_side_lacks(old, new):
    """differing_parts keeps a revision's part row exactly when the other revision holds no
    part of that unit with the same name and value (what rules/diff/ read of parts)."""
    sides = ({}, {})
    for side, rows in zip(sides, (old, new)):
        for unit, name, value in rows:
            side.setdefault(("entry", unit), []).append((name, value))
    found = unit_parts.differing_parts("B", "A", sides[0], sides[1], digested=False)
    expected = []
    for rev, rows, other in (("B", old, new), ("A", new, old)):
        theirs = {(unit, name, value) for unit, name, value in other}
        expected += [(rev, "entry", unit, name, unit_parts.digest(value))
                     for unit, name, value in rows if (unit, name, value) not in theirs]
    assert sorted(found) == sorted(expected)


_UNIT_LINE = st.sampled_from([
    "Status: active", "Status: draft", "Scope: a", "Scope:", "title: t", "title:", "Evidence:", "Evidence: e",
    "Decision:", "Decision: d", "Note-x: y", "text", "other text", "T", "item", "d", "", " ", "- item", "- other",
    "* b", "```", "<!--", "-->", "    code", "## MC-DEC-20260101-0123abce \u2014 U",
])


@st.composite
def _unit_pair(draw):
    """Two versions of one unit: mostly the same lines with a few replaced, sometimes lines
    added or removed or the heading changed."""
    lines = draw(st.lists(_UNIT_LINE, max_size=10))
    other = list(lines)
    for _ in range(draw(st.integers(0, 3))):
        if other and draw(st.booleans()):
            other[draw(st.integers(0, len(other) - 1))] = draw(_UNIT_LINE)
        elif draw(st.integers(0, 3)) == 0:
            other.insert(draw(st.integers(0, len(other))), draw(_UNIT_LINE))
    heading = "## MC-DEC-20260101-0123abcd \u2014 T"
    other_heading = heading if draw(st.integers(0, 4)) else heading + "!"
    return "\n".join([heading, *lines]), "\n".join([other_heading, *other])


_H = "## MC-DEC-20260101-0123abcd \u2014 T\n"


@settings(max_examples=800, deadline=None)
@given(_unit_pair(), st.sampled_from([1, 2]))
# a field named title whose new text is the heading's title, an Evidence field whose new text
# is its items (the other side holds that part already), two fields changed,
@example((_H + "title:\nx", _H + "title:\nT"), 2)
@example((_H + "Evidence:\n- item\nx", _H + "Evidence:\n- item\nitem"), 2)
@example((_H + "Scope: a\ntext\nDecision: d\ntext", _H + "Scope: a\nother\nDecision: d\nother"), 2)
# a blank line moved inside a field: the lines differ, the field's text does not
@example((_H + "Decision:\n\nd\nStatus: x", _H + "Decision:\nd\n\nStatus: x"), 2)
def test_a_pair_reads_the_parts_that_differ_as_a_whole_reading_finds_them(texts, schema):
    """pair_part_rows (which reads only the fields holding the changed lines of a unit that
    kept its field lines) gives the rows differing_parts gives from both units read whole."""
    unit = ("entry", "mc-dec-20260101-0123abcd")
    places = []
    for text in texts:
        doc = parse_document(text)
        first = doc.units[0]
        places.append({unit: [(doc.lexed, first.start, first.end, schema)]})
    whole = [{unit: [part for place in side[unit] for part in unit_parts.unit_parts(*place)]} for side in places]
    expected = unit_parts.differing_parts("B", "A", *whole, digested=False)
    assert sorted(unit_parts.pair_part_rows("B", "A", *places)) == sorted(expected)
