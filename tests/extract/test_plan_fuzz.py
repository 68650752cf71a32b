"""docs/memory/plan.md under Hypothesis: a plan written from a model reads back as that model
(steps, allowed classes, named IDs, each with its line), and any text at all either reads or
fails with :class:`PlanError` at one of its own lines, never with another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.project.extract.plan import PlanError, parse_plan

CLASSES = "ABCDE"
IDENT = st.builds(lambda kind, date, tail: f"MC-{kind}-{date}-{tail}",
                  st.sampled_from(["DEC", "CON", "SUBJ", "REC"]),
                  st.integers(20200101, 20291231).map(str),
                  st.text("0123456789abcdef", min_size=8, max_size=8))
TITLE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                max_size=20).map(str.strip).filter(bool)
PROSE = st.sampled_from(["", "Some notes about this step.", "  ", "# Memory plan", "Why: the payment rules."])
STEP = st.tuples(TITLE, st.lists(st.sampled_from(CLASSES), min_size=1, max_size=5, unique=True),
                 st.lists(IDENT, max_size=3), PROSE, st.sampled_from([", ", ","]))


def render(steps) -> tuple:
    """The plan text of ``steps`` and the facts it must give."""
    lines = ["# Memory plan", ""]
    facts = {"plan_step": [], "plan_allows": [], "plan_names": []}
    for number, (title, classes, ids, prose, sep) in enumerate(steps, 1):
        lines.append(f"## Step {number} \u2014 {title}")
        facts["plan_step"].append((number, title, len(lines)))
        if prose:
            lines.append(prose)
        lines.append("Allow: " + sep.join(classes))
        facts["plan_allows"] += [(number, c) for c in classes]
        if ids:
            lines.append("Entries:")
            for ident in ids:
                lines.append(f"- {ident}")
                facts["plan_names"].append((number, ident.casefold(), len(lines)))
        lines.append("")
    return "\n".join(lines) + "\n", facts


@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, max_size=5))
def test_a_plan_reads_back_as_written(steps):
    text, facts = render(steps)
    assert parse_plan(text) == facts


def _fails_in_place(text: str) -> None:
    try:
        parse_plan(text)
    except PlanError as exc:
        assert 1 <= exc.line <= max(1, len(text.splitlines())), (exc.line, text)
        assert exc.message


@settings(max_examples=300, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=3), st.data())
def test_a_damaged_plan_reads_or_fails_at_one_of_its_lines(steps, data):
    text, _ = render(steps)
    lines = text.split("\n")
    at = data.draw(st.integers(0, len(lines) - 1))
    where = data.draw(st.integers(0, len(lines[at])))
    inserted = data.draw(st.text(max_size=4))
    lines[at] = lines[at][:where] + inserted + lines[at][where + data.draw(st.integers(0, 3)):]
    _fails_in_place("\n".join(lines))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_reads_or_fails_at_one_of_its_lines(text):
    _fails_in_place(text)
