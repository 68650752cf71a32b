"""The canonical formal entry unit of the fast path (analyzer/project/extract/canonical.py).

An entry unit: heading, Status, Scope, optional Subject and Facet, Evidence items, one
typed body, an optional Reason body, blank lines between the fields. A matched entry gets
the :class:`~analyzer.project.extract.fields.ParsedEntry` the general path would read from its lines
and goes through :func:`~analyzer.project.extract.entry_rules.emit_entry` like any other: this path
only saves the lexing, and judges nothing itself (the per-entry rules are
rules/entries/*.dl, run on the file by analyzer/project/extract/judge.py). A section the pattern
does not match is read by the general path.
"""

from __future__ import annotations

from functools import lru_cache
from typing import List

from analyzer.project.extract import canonical as c
from analyzer.project.extract.entries import UnitEmitter, emit_units_of, unit_tokens
from analyzer.project.extract.fields import Occurrence, ParsedEntry
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.entry_rules import TYPED


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
        + c.field(TYPED, "bv", "bname") + f"(?P<bl>{body})"
        + f"(?:{c.field('Reason', 'rv')}(?P<rl>{body}))?")


def _occurrence(value: str, line: int, blank: str) -> Occurrence:
    """A scalar field's occurrence whose body is ``blank`` (blank lines only)."""
    return Occurrence(value.strip(), line, [""] * len(blank), False)


def _body(value: str, line: int, lines: str) -> Occurrence:
    """A body field's occurrence with its matched ``lines``."""
    body = lines.split("\n")[:-1] if lines else []
    return Occurrence(value.strip(), line, body, bool("".join(body).strip()))


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

    def parsed(self) -> ParsedEntry:
        """The :class:`ParsedEntry` the general path reads from these lines."""
        g, at = self.g, self.lines
        entry = ParsedEntry()
        fields = entry.fields
        for name, value, gap in (("Status", "status", "g1"), ("Scope", "scope", "g2"),
                                 ("Subject", "subject", "g3"), ("Facet", "facet", "g4")):
            found = g[value]
            if found is not None:
                fields[name] = [_occurrence(found, at[name], g[gap])]
        fields["Evidence"] = [_occurrence(g["evv"], at["Evidence"], g["g5"])]
        entry.evidence = [(v, k) for k, v in enumerate(self.items, at["Evidence"] + 1)]
        fields[g["bname"]] = [_body(g["bv"], at["body"], g["bl"])]
        if g["rv"] is not None:
            fields["Reason"] = [_body(g["rv"], at["body"] + 1 + g["bl"].count("\n"), g["rl"])]
        return entry


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
            emitter.entry(ordinal, m, _Entry(m, unit[0]).parsed(), unit[0] + 1, tokens)
    return True
