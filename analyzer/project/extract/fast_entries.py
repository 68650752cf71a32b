"""The canonical formal entry unit of the fast path (analyzer/project/extract/canonical.py).

An entry unit: heading, Status, Scope, optional Subject and Facet, Evidence items, one
typed body, an optional Reason body, blank lines between the fields. A matched entry writes
the facts and the note for the rules that :func:`~analyzer.project.extract.entry_rules.emit_entry`
writes for the :class:`~analyzer.project.extract.fields.ParsedEntry` the general path would read
from its lines (:meth:`_Entries.add`, straight from the match): this path only saves the
lexing, and judges nothing itself (the per-entry rules are rules/entries/*.dl, run by
analyzer/project/extract/judge.py). A section the pattern does not match is read by the
general path.
"""

from __future__ import annotations

from functools import lru_cache
from sys import intern
from typing import List

from analyzer.project.extract import canonical as c
from analyzer.project.extract.entries import UnitEmitter, emit_units_of, unit_tokens
from analyzer.project.extract.entry_rules import classify_evidence, typed_bodies
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.judge import note, valued_fields
from analyzer.project.extract.sink import Sink


#: the groups of :func:`entry_unit`, in order: :meth:`_Entries.add` reads them by position
GROUPS = ("id", "code", "title", "g0", "status", "g1", "scope", "g2", "subject", "g3", "facet", "g4", "evv", "ev", "g5",
          "bname", "bv", "bl", "rv", "rl")


@lru_cache(maxsize=None)
def entry_unit():
    """The compiled pattern of a whole canonical formal entry section (its groups are
    :data:`GROUPS`, checked: a grammar terminal that gained a group would shift them)."""
    body = c.body_lines()
    pattern = c.compiled(
        c.embed(terminal("entries", "ENTRY_HEADING").pattern, {"id": "id", "code": "code", "title": "title"})
        + "\n(?P<g0>\n*)"
        + c.field("Status", "status") + "(?P<g1>\n*)" + c.field("Scope", "scope") + "(?P<g2>\n*)"
        + f"(?:{c.field('Subject', 'subject')}(?P<g3>\n*))?" + f"(?:{c.field('Facet', 'facet')}(?P<g4>\n*))?"
        # entry Evidence items are the lines starting with "- " (fields.py): the ITEM lines
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + "(?P<g5>\n*)"
        + c.field(typed_bodies(), "bv", "bname") + f"(?P<bl>{body})"
        + f"(?:{c.field('Reason', 'rv')}(?P<rl>{body}))?")
    if tuple(sorted(pattern.groupindex, key=pattern.groupindex.get)) != GROUPS or pattern.groups != len(GROUPS):
        raise RuntimeError(f"the entry pattern's groups changed: {pattern.groupindex}")
    return pattern


class _Entries:
    """The rows of a run of matched entry sections (one after another in a file), kept by
    relation and written into the sink in one ``extend`` per column when the run ends
    (:meth:`write`): appending a row to a sink costs a call and three appends, and a
    1,000-entry repository writes ~12,000 rows. Every row of a relation here has one
    column (1, or 3 for the Evidence items), and the relations written at the heading's
    line share one list of lines. Rows keep their order within each relation, and a run
    ends before any section of the general path is written, so each relation gets its
    rows in the order the per-row path wrote them."""

    def __init__(self, sink: Sink, module: str) -> None:
        self.sink, self.module = sink, module
        self.heads: List[int] = []  # the heading's line of each entry: entry, entry_unit, ..., unit
        self.entry: List[tuple] = []
        self.entry_unit: List[tuple] = []
        self.entry_title: List[tuple] = []
        self.entry_display: List[tuple] = []
        self.unit: List[tuple] = []
        self.subject: List[tuple] = []  # entry_subject, and entry_field at the same lines
        self.subject_field: List[tuple] = []
        self.subject_lines: List[int] = []
        self.facet: List[tuple] = []
        self.facet_lines: List[int] = []
        self.body: List[tuple] = []
        self.body_lines: List[int] = []
        self.evidence: List[tuple] = []  # entry_evidence, and evidence_source at the same lines
        self.source: List[tuple] = []
        self.evidence_lines: List[int] = []
        self.decision: List[tuple] = []
        self.decision_lines: List[int] = []

    def add(self, m, line: int, ordinal: int, tokens: int) -> None:
        """The rows of the entry matched by ``m`` whose heading is 0-based ``line`` (the
        facts and note :func:`~analyzer.project.extract.entry_rules.emit_entry` writes for
        the :class:`~analyzer.project.extract.fields.ParsedEntry` of these lines, straight
        from the groups: tests/extract/test_canonical.py holds the two to one sink)."""
        (shown, code, title, g0, status, g1, scope, g2, subject, g3, facet, g4, evv, ev, g5, bname, bv, bl,
         rv, rl) = m.groups()
        module = self.module
        code, status, scope = intern(code.upper()), intern(status.strip()), intern(scope.strip())
        eid = shown.casefold()
        line_no = line + 1
        self.heads.append(line_no)
        self.entry.append((eid, module, code, status, scope))
        self.entry_unit.append((eid, module, ordinal))
        self.entry_title.append((eid, title))
        self.entry_display.append((eid, shown))
        self.unit.append((module, ordinal, "h2", shown, tokens))
        # the 1-based line of each field: after the heading, each field line and the blank
        # lines (a gap group's newlines) that follow it
        at = line_no + 1 + len(g0) + 1 + len(g1) + 1 + len(g2)  # the field after Scope
        if subject is not None:
            subject = subject.strip()
            if subject:
                self.subject.append((eid, intern(subject.casefold())))
                self.subject_field.append((eid, "Subject", subject))
                self.subject_lines.append(at)
            at += 1 + len(g3)
        if facet is not None:
            facet = facet.strip()
            if facet:
                self.facet.append((eid, intern(facet)))
                self.facet_lines.append(at)
            at += 1 + len(g4)
        items = c.item_values(ev)  # the Evidence field is at ``at``, its items below
        kinds = []
        for k, item in enumerate(items, 1):
            source = classify_evidence(item)
            kinds.append((source[0], not item))
            self.evidence.append((eid, item, k))
            self.source.append((eid, k) + source)
            self.evidence_lines.append(at + k)
        bv = bv.strip()
        body_seen = bool(bl.strip())  # a visible non-blank body line (every matched line is visible)
        if bv or body_seen:
            self.body.append((eid, intern(bname)))
            self.body_lines.append(at + 1 + len(items) + len(g5))
        if not bv and bname == "Decision":  # as UnitEmitter.entry: a Decision field without a value
            self.decision.append((module, ordinal, f"{shown} — {title}"))
            self.decision_lines.append(line_no)
        valued = valued_fields()
        # one entry after another: no generator or comprehension per entry
        fields = [("Status", 1, status if "Status" in valued else None, not status, False, False),
                  ("Scope", 1, scope if "Scope" in valued else None, not scope, False, False)]
        if subject is not None:
            fields.append(("Subject", 1, subject if "Subject" in valued else None, not subject, False, False))
        if facet is not None:
            fields.append(("Facet", 1, facet if "Facet" in valued else None, not facet, False, False))
        fields.append(("Evidence", 1, None, not evv.strip(), False, False))
        fields.append((bname, 1, bv if bname in valued else None, not bv, body_seen, bool(bv) or body_seen))
        if rv is not None:
            rv, reason_seen = rv.strip(), bool(rl.strip())
            fields.append(("Reason", 1, rv if "Reason" in valued else None, not rv, reason_seen,
                           bool(rv) or reason_seen))
        note(self.sink, line_no, shown, code, tuple(fields), tuple(kinds))

    def write(self, emitter: UnitEmitter) -> None:
        """Write the run's rows into the sink (each formal entry's unit counted as
        :meth:`UnitEmitter.formal_unit` counts it)."""
        heads = self.heads
        for relation, values, lines, col in (
                ("entry", self.entry, heads, 1), ("entry_unit", self.entry_unit, heads, 1),
                ("entry_title", self.entry_title, heads, 1), ("entry_display", self.entry_display, heads, 1),
                ("entry_subject", self.subject, self.subject_lines, 1),
                ("entry_field", self.subject_field, self.subject_lines, 1),
                ("entry_facet", self.facet, self.facet_lines, 1), ("entry_body", self.body, self.body_lines, 1),
                ("entry_evidence", self.evidence, self.evidence_lines, 3),
                ("evidence_source", self.source, self.evidence_lines, 3),
                ("unit_decision_line", self.decision, self.decision_lines, 1), ("unit", self.unit, heads, 1)):
            self.sink.extend(relation, values, lines, col)
        emitter.list_n += len(heads)


def entries(text: str, module: str, schema: int, sink: Sink) -> bool:
    """A shared entry file by the fast path; False (nothing emitted) when it is not plain
    or has no h2 line."""
    text = c.line_ended(text)
    found = c.plain_sections(text)
    if not found:
        return False
    pattern = entry_unit()
    general = c.General(text)
    tokens_of = c.Tokens(text).count
    title, head, head_lexed = c.head_units(text, found[0])
    # (unit or line range, match or None, tokens, lexed view of a unit of the general path)
    plan: List[tuple] = [(unit, None, unit_tokens(unit), head_lexed) for unit in head]
    for k, (start, end, line) in enumerate(found):
        m = pattern.fullmatch(text, start, end)
        if m is not None:
            plan.append(((line, line + text.count("\n", start, end) - 1), m, tokens_of(start, end), None))
            continue
        stop = found[k + 1][2] if k + 1 < len(found) else None
        plan.extend((unit, None, unit_tokens(unit), general.lexed) for unit in general.section_units(line, stop))
    emit_units_of(sink, module, title, [(u.start, u.end) if m is None else u for u, m, _, _ in plan],
                  [tokens for _, _, tokens, _ in plan])
    emitter = UnitEmitter(sink, module, schema, "")
    run = _Entries(sink, module)
    for ordinal, (unit, m, tokens, lexed) in enumerate(plan, 1):
        if m is None:
            if run.heads:  # the matched entries before this unit are written first
                run.write(emitter)
                run = _Entries(sink, module)
            emitter.unit(lexed, ordinal, unit, tokens)
        else:
            run.add(m, unit[0], ordinal, tokens)
    run.write(emitter)
    return True
