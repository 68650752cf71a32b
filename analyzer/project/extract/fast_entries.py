"""The canonical formal entry unit of the fast path (analyzer/project/extract/canonical.py).

An entry unit: heading, Status, Scope, optional Subject and Facet, Evidence items, one
typed body, an optional Reason body, blank lines between the fields. A matched entry writes
the facts and the note for the rules that :func:`~analyzer.project.extract.entry_rules.emit_entry`
writes for the :class:`~analyzer.project.extract.fields.ParsedEntry` the general path would read
from its lines (:meth:`_Entries.write`, straight from the match): this path only saves the
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


#: the groups of :func:`entry_unit`, in order: :meth:`_Entries.write` reads them by position
GROUPS = ("id", "code", "title", "g0", "status", "g1", "scope", "g2", "subject", "g3", "facet", "g4", "evv", "ev", "g5",
          "bname", "bv", "bl", "rv", "rl")


@lru_cache(maxsize=None)
def entry_unit():
    """The compiled pattern of a whole canonical formal entry section (its groups are
    :data:`GROUPS`, checked: a grammar terminal that gained a group would shift them)."""
    body = c.body_lines()
    return c.compiled(
        c.embed(terminal("entries", "ENTRY_HEADING").pattern, {"id": "id", "code": "code", "title": "title"})
        + "\n(?P<g0>\n*)"
        + c.field("Status", "status") + "(?P<g1>\n*)" + c.field("Scope", "scope") + "(?P<g2>\n*)"
        + f"(?:{c.field('Subject', 'subject')}(?P<g3>\n*))?" + f"(?:{c.field('Facet', 'facet')}(?P<g4>\n*))?"
        # entry Evidence items are the lines starting with "- " (fields.py): the ITEM lines
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + "(?P<g5>\n*)"
        + c.field(typed_bodies(), "bv", "bname") + f"(?P<bl>{body})"
        + f"(?:{c.field('Reason', 'rv')}(?P<rl>{body}))?", GROUPS)


class _Entries:
    """A run of matched entry sections (one after another in a file): noted as they are
    matched (:meth:`add`), their rows made and written into the sink when the run ends
    (:meth:`write`), kept by relation and written in one ``extend`` per column: appending a
    row to a sink costs a call and three appends, and a 1,000-entry repository writes
    ~12,000 rows. Every row of a relation here has one column (1, or 3 for the Evidence
    items), and the relations written at the heading's line share one list of lines. Rows
    keep their order within each relation, and a run ends before any section of the
    general path is written, so each relation gets its rows in the order the per-row path
    wrote them."""

    def __init__(self, sink: Sink, module: str) -> None:
        self.sink, self.module = sink, module
        self.matched: List[tuple] = []  # (match, 0-based heading line, ordinal, tokens)

    def add(self, m, line: int, ordinal: int, tokens: int) -> None:
        """Note the entry matched by ``m`` whose heading is 0-based ``line``."""
        self.matched.append((m, line, ordinal, tokens))

    def write(self, emitter: UnitEmitter) -> None:
        """Write the facts and notes :func:`~analyzer.project.extract.entry_rules.emit_entry`
        writes for the :class:`~analyzer.project.extract.fields.ParsedEntry` of each noted
        entry's lines, straight from the groups (tests/extract/test_canonical.py holds the
        two to one sink), and count each formal entry's unit as
        :meth:`UnitEmitter.formal_unit` does. One loop over the run with the lists in
        local names: most of the cost is per entry."""
        sink, module = self.sink, self.module
        heads: List[int] = []  # the heading's line of each entry: entry, entry_unit, ..., unit
        entry, entry_unit, entry_title, entry_display, unit = [], [], [], [], []
        subject_rows, subject_field, subject_lines = [], [], []  # entry_subject and entry_field
        facet_rows, facet_lines, body, body_lines = [], [], [], []
        evidence, source_rows, evidence_lines = [], [], []  # entry_evidence and evidence_source
        decision, decision_lines = [], []
        valued = valued_fields()
        status_valued, scope_valued = "Status" in valued, "Scope" in valued
        subject_valued, facet_valued, reason_valued = "Subject" in valued, "Facet" in valued, "Reason" in valued
        for m, line, ordinal, tokens in self.matched:
            (shown, code, title, g0, status, g1, scope, g2, subject, g3, facet, g4, evv, ev, g5, bname, bv, bl,
             rv, rl) = m.groups()
            code, status, scope = intern(code.upper()), intern(status.strip()), intern(scope.strip())
            eid = shown.casefold()
            line_no = line + 1
            heads.append(line_no)
            entry.append((eid, module, code, status, scope))
            entry_unit.append((eid, module, ordinal))
            entry_title.append((eid, title))
            entry_display.append((eid, shown))
            unit.append((module, ordinal, "h2", shown, tokens))
            fields = [("Status", 1, status if status_valued else None, not status, False, False),
                      ("Scope", 1, scope if scope_valued else None, not scope, False, False)]
            # the 1-based line of each field: after the heading, each field line and the blank
            # lines (a gap group's newlines) that follow it
            at = line_no + 1 + len(g0) + 1 + len(g1) + 1 + len(g2)  # the field after Scope
            if subject is not None:
                subject = subject.strip()
                if subject:
                    subject_rows.append((eid, intern(subject.casefold())))
                    subject_field.append((eid, "Subject", subject))
                    subject_lines.append(at)
                at += 1 + len(g3)
                fields.append(("Subject", 1, subject if subject_valued else None, not subject, False, False))
            if facet is not None:
                facet = facet.strip()
                if facet:
                    facet_rows.append((eid, intern(facet)))
                    facet_lines.append(at)
                at += 1 + len(g4)
                fields.append(("Facet", 1, facet if facet_valued else None, not facet, False, False))
            items = c.item_values(ev)  # the Evidence field is at ``at``, its items below
            kinds = []
            for k, item in enumerate(items, 1):
                source = classify_evidence(item)
                kinds.append((source[0], not item))
                evidence.append((eid, item, k))
                source_rows.append((eid, k) + source)
                evidence_lines.append(at + k)
            fields.append(("Evidence", 1, None, not evv.strip(), False, False))
            bv = bv.strip()
            body_seen = bool(bl.strip())  # a visible non-blank body line (every matched line is visible)
            if bv or body_seen:
                body.append((eid, intern(bname)))
                body_lines.append(at + 1 + len(items) + len(g5))
            if not bv and bname == "Decision":  # as UnitEmitter.entry: a Decision field without a value
                decision.append((module, ordinal, f"{shown} — {title}"))
                decision_lines.append(line_no)
            fields.append((bname, 1, bv if bname in valued else None, not bv, body_seen, bool(bv) or body_seen))
            if rv is not None:
                rv, reason_seen = rv.strip(), bool(rl.strip())
                fields.append(("Reason", 1, rv if reason_valued else None, not rv, reason_seen,
                               bool(rv) or reason_seen))
            note(sink, line_no, shown, code, tuple(fields), tuple(kinds))
        for relation, values, lines, col in (
                ("entry", entry, heads, 1), ("entry_unit", entry_unit, heads, 1),
                ("entry_title", entry_title, heads, 1), ("entry_display", entry_display, heads, 1),
                ("entry_subject", subject_rows, subject_lines, 1), ("entry_field", subject_field, subject_lines, 1),
                ("entry_facet", facet_rows, facet_lines, 1), ("entry_body", body, body_lines, 1),
                ("entry_evidence", evidence, evidence_lines, 3), ("evidence_source", source_rows, evidence_lines, 3),
                ("unit_decision_line", decision, decision_lines, 1), ("unit", unit, heads, 1)):
            sink.extend(relation, values, lines, col)
        emitter.list_n += len(heads)
        self.matched = []


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
            run.write(emitter)  # the matched entries before this unit are written first
            emitter.unit(lexed, ordinal, unit, tokens)
        else:
            run.add(m, unit[0], ordinal, tokens)
    run.write(emitter)
    return True
