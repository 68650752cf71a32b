"""The parts of a unit at a revision, digested, and what kept units from being read.

``git_unit_part`` splits a unit into its fields (every occurrence of a field together, the
Evidence items, the heading title) with a digest each, so that rules can tell which fields a
change touched (rules/diff/). The fields are read by the extractor's own field reader
(:func:`analyzer.extract.fields.parse_fields`) on the revision's file, for the units asked
for only. ``git_parse_issue`` relabels a revision's parse problems (Markdown, malformed
headings, per-unit issues) with their lines; rules decide which of them hide a change.
Nothing is decided here.
"""

from __future__ import annotations

import hashlib
from typing import Dict, List, Set, Tuple

from analyzer.revisions import UNIT_SOURCES, Revision

# relation of a revision's fact base -> (column of the ID, or None; column of the module, or
# the fixed module) for the problems that keep a unit from being read
ISSUES = {
    "entry_issue": (1, 0),
    "markdown_error": (None, 0),
    "registry_issue": (0, "subjects.md"),
    "rec_issue": (0, "reconciliations.md"),
}


class _Span:
    """The line range of one unit, as :func:`parse_fields` reads it."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def part_facts(revision: Revision, wanted: Set[Tuple[str, str]]) -> List[tuple]:
    """``git_unit_part`` rows for the ``(kind, id)`` units of ``wanted`` the revision holds."""
    from analyzer.extract.fields import parse_fields
    from analyzer.markdown import lex

    project = revision.project
    rel = project.facts.relation_sets()
    schema = max((v for (v,) in rel.get("entry_schema", ())), default=2)
    lexed_cache: Dict[str, object] = {}
    rows: List[tuple] = []
    for kind, (placed, _shown, fixed) in UNIT_SOURCES.items():
        for fact in rel.get(placed, ()):
            ident, module, ordinal = (fact[0], fixed, fact[1]) if fixed else fact
            if (kind, ident) not in wanted:
                continue
            ranges = project.unit_ranges.get(module, [])
            if not 1 <= ordinal <= len(ranges):
                continue
            lexed = lexed_cache.get(module)
            if lexed is None:
                lexed = lexed_cache[module] = lex(project.texts[module])
            start, end = ranges[ordinal - 1]
            parsed = parse_fields(lexed, _Span(start, end), schema)
            head = lexed.lines[start]
            rows.append((revision.rev, kind, ident, "title", _digest(head.split("\u2014", 1)[-1].strip())))
            for name, occurrences in parsed.fields.items():
                text = "\n\0".join("\n".join([occ.value, *occ.body]).strip("\n") for occ in occurrences)
                rows.append((revision.rev, kind, ident, name, _digest(text)))
            if parsed.evidence:
                rows.append((revision.rev, kind, ident, "Evidence", _digest("\n".join(i for i, _ in parsed.evidence))))
    return rows


def issue_facts(revision: Revision) -> List[tuple]:
    """``git_parse_issue`` rows: every parse problem of the revision with its line."""
    facts = revision.project.facts
    rows = []
    for relation, (id_col, module_col) in ISSUES.items():
        spans = facts.spans_of(relation)
        for fact in facts.relation_sets().get(relation, ()):
            module = fact[module_col] if isinstance(module_col, int) else module_col
            ident = fact[id_col] if id_col is not None else ""
            span = spans.get(fact)
            rows.append((revision.rev, module, span.line if span else 1, ident, fact[-1]))
    return rows
