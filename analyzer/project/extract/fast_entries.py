"""The canonical formal entry unit of the fast path (analyzer/project/extract/canonical.py).

An entry unit: heading, Status, Scope, optional Subject and Facet, Evidence items, one
typed body, an optional Reason body, blank lines between the fields. A matched entry writes
the facts and the note for the rules that :func:`~analyzer.project.extract.entry_rules.emit_entry`
writes for the :class:`~analyzer.project.extract.fields.ParsedEntry` the general path would read
from its lines (:meth:`_Entry.emit`, straight from the match): this path only saves the
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


@lru_cache(maxsize=None)
def entry_unit():
    """The compiled pattern of a whole canonical formal entry section."""
    body = c.body_lines()
    return c.compiled(
        c.embed(terminal("entries", "ENTRY_HEADING").pattern, {"id": "id", "code": "code", "title": "title"})
        + "\n(?P<g0>\n*)"
        + c.field("Status", "status") + "(?P<g1>\n*)" + c.field("Scope", "scope") + "(?P<g2>\n*)"
        + f"(?:{c.field('Subject', 'subject')}(?P<g3>\n*))?" + f"(?:{c.field('Facet', 'facet')}(?P<g4>\n*))?"
        # entry Evidence items are the lines starting with "- " (fields.py): the ITEM lines
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + "(?P<g5>\n*)"
        + c.field(typed_bodies(), "bv", "bname") + f"(?P<bl>{body})"
        + f"(?:{c.field('Reason', 'rv')}(?P<rl>{body}))?")


class _Entry:
    """What a matched entry section holds (its groups), with the 0-based line of each field."""

    __slots__ = ("g", "lines", "items")

    def __init__(self, m, line: int) -> None:
        self.g = g = m.groupdict()
        at = {}
        i = line + 1 + len(g["g0"])
        for name, value, gap in (("Status", "status", "g1"), ("Scope", "scope", "g2"),
                                 ("Subject", "subject", "g3"), ("Facet", "facet", "g4")):
            if g[value] is not None:
                at[name] = i
                i += 1 + len(g[gap])
        at["Evidence"] = i
        self.items = c.item_values(g["ev"])
        i += 1 + len(self.items) + len(g["g5"])
        at["body"] = i
        self.lines = at

    def emit(self, sink: Sink, module: str, ordinal: int, line_no: int) -> None:
        """Write the facts :func:`~analyzer.project.extract.entry_rules.emit_entry` writes for
        the :class:`~analyzer.project.extract.fields.ParsedEntry` of these lines (and its note
        for the rules), straight from the groups: no field
        objects are built (tests/extract/test_canonical.py holds the two to one sink)."""
        g, at = self.g, self.lines
        shown, code = g["id"], g["code"].upper()
        status, scope, subject, facet = g["status"].strip(), g["scope"].strip(), g["subject"], g["facet"]
        if subject is not None:
            subject = subject.strip()
        if facet is not None:
            facet = facet.strip()
        eid = shown.casefold()
        add = sink.row
        add("entry", (eid, module, intern(code), intern(status), intern(scope)), line_no, 1)
        add("entry_unit", (eid, module, ordinal), line_no, 1)
        add("entry_title", (eid, g["title"]), line_no, 1)
        add("entry_display", (eid, shown), line_no, 1)
        if subject:
            add("entry_subject", (eid, intern(subject.casefold())), at["Subject"] + 1, 1)
            add("entry_field", (eid, "Subject", subject), at["Subject"] + 1, 1)
        if facet:
            add("entry_facet", (eid, intern(facet)), at["Facet"] + 1, 1)
        bname, bv, bl = g["bname"], g["bv"].strip(), g["bl"]
        body_seen = bool(bl.strip())  # a visible non-blank body line (every matched line is visible)
        if bv or body_seen:
            add("entry_body", (eid, intern(bname)), at["body"] + 1, 1)
        items = self.items
        kinds = []
        for k, item in enumerate(items, 1):
            source = classify_evidence(item)
            kinds.append((source[0], not item))
            ln = at["Evidence"] + 1 + k
            add("entry_evidence", (eid, item, k), ln, 3)
            add("evidence_source", (eid, k) + source, ln, 3)
        valued = valued_fields()
        # one entry after another: no generator or comprehension per entry (3,000 on p3k)
        fields = [("Status", 1, status if "Status" in valued else None, not status, False, False),
                  ("Scope", 1, scope if "Scope" in valued else None, not scope, False, False)]
        if subject is not None:
            fields.append(("Subject", 1, subject if "Subject" in valued else None, not subject, False, False))
        if facet is not None:
            fields.append(("Facet", 1, facet if "Facet" in valued else None, not facet, False, False))
        fields.append(("Evidence", 1, None, not g["evv"].strip(), False, False))
        fields.append((bname, 1, bv if bname in valued else None, not bv, body_seen, bool(bv) or body_seen))
        if g["rv"] is not None:
            rv, reason_seen = g["rv"].strip(), bool(g["rl"].strip())
            fields.append(("Reason", 1, rv if "Reason" in valued else None, not rv, reason_seen,
                           bool(rv) or reason_seen))
        note(sink, line_no, shown, code, tuple(fields), tuple(kinds))


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
    for ordinal, (unit, m, tokens, lexed) in enumerate(plan, 1):
        if m is None:
            emitter.unit(lexed, ordinal, unit, tokens)
        else:
            entry = _Entry(m, unit[0])
            entry.emit(sink, module, ordinal, unit[0] + 1)
            if not entry.g["bv"].strip() and entry.g["bname"] == "Decision":  # as UnitEmitter.entry
                sink.fact("unit_decision_line", module, ordinal, f"{entry.g['id']} — {entry.g['title']}",
                          line=unit[0] + 1)
            emitter.formal_unit(ordinal, entry.g["id"], unit[0] + 1, tokens)
    return True
