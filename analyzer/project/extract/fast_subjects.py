"""The canonical Subject unit of the fast path (analyzer/project/extract/canonical.py).

A Subject unit: heading, Status, Kind, an optional Canonical-Ref, an Evidence block and an
Aliases block, blank lines between. The pattern's match gives the same
:class:`~analyzer.project.extract.blocks.Block` the general path reads from those lines, and it goes
to the same emitter; a section the pattern does not match, or one whose values would make
the general path report a field problem, is read by the general path.
"""

from __future__ import annotations

from functools import lru_cache
from sys import intern
from typing import List

from analyzer.project.extract import canonical as c
from analyzer.project.extract.blocks import Block
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.entry_rules import classify_evidence
from analyzer.project.extract.subjects import KINDS, bad_evidence, emit_block, emit_subject, normalize_alias, normalize_ref, reader


#: the groups of :func:`subject_unit`, in order: :meth:`_Subjects.add` reads them by position
GROUPS = ("id", "title", "status", "kind", "ref", "evv", "ev", "alv", "al")


@lru_cache(maxsize=None)
def subject_unit():
    """The compiled pattern of a whole canonical Subject section (its groups are
    :data:`GROUPS`, checked: a grammar terminal that gained a group would shift them)."""
    gap = "\n*"
    return c.compiled(
        c.embed(terminal("subjects", "SUBJECT_HEADING").pattern, {"id": "id", "title": "title"}) + "\n" + gap
        + c.field("Status", "status") + gap + c.field("Kind", "kind") + gap
        + f"(?:{c.field('Canonical-Ref', 'ref')}{gap})?"
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + gap
        + c.field("Aliases", "alv") + c.items("subjects", "al") + gap, GROUPS)


class _Subjects:
    """A run of clean matched Subjects (one after another in subjects.md): each checked as
    it is matched (:meth:`add`), their rows made when the run ends (:meth:`write`), kept by
    relation and written in one ``extend`` per column, as fast_entries._Entries does for
    entries: rows keep their order within each relation, and a run ends before a Subject
    is written any other way."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        # per clean Subject: (ID, shown ID, status, kind, title, ordinal, heading line,
        # aliases, Canonical-Ref and its normalized form, Evidence items, their sources,
        # the line of the first item)
        self.clean: List[tuple] = []

    def add(self, m, line: int, ordinal: int, first_item: int) -> bool:
        """Keep a matched Subject that :func:`emit_subject` would accept without a problem;
        False (nothing kept) otherwise. ``first_item``: the 1-based line of its first
        Evidence item."""
        shown, title, status, kind, ref, evv, ev, alv, al = m.groups()
        status, kind = status.strip(), kind.strip().casefold()
        if status != "active" or kind not in KINDS or evv.strip() or alv.strip():
            return False
        normalized = None
        if ref is not None:
            ref = ref.strip()
            normalized = normalize_ref(ref) if ref else None
            if normalized is None:
                return False
        evidence, aliases = c.item_values(ev), c.item_values(al)
        if not all(evidence) or not all(aliases):
            return False
        sources = [classify_evidence(item) for item in evidence]
        bad = bad_evidence()
        for source in sources:
            if source[0] in bad:
                return False
        self.clean.append((intern(shown.casefold()), shown, intern(status), intern(kind), title, ordinal, line + 1,
                           aliases, ref, normalized, evidence, sources, first_item))
        return True

    def write(self) -> None:
        """Write the rows of the run's Subjects into the sink, as :func:`emit_subject` writes
        them (tests/extract/test_canonical.py holds the two to one sink)."""
        heads: List[int] = []  # each Subject's heading line: subject, subject_unit, subject_display
        subject, unit, display, alias, alias_lines = [], [], [], [], []
        ref_rows, canonical, ref_lines = [], [], []  # subject_ref_written and subject_canonical_ref
        evidence_rows, source_rows, evidence_lines = [], [], []  # subject_evidence and its source
        for sid, shown, status, kind, title, ordinal, at, aliases, ref, normalized, evidence, sources, first in self.clean:
            heads.append(at)
            subject.append((sid, status, kind, title))
            unit.append((sid, ordinal))
            display.append((sid, shown))
            alias.append((sid, normalize_alias(title)))
            for name in aliases:
                alias.append((sid, normalize_alias(name)))
            alias_lines.extend([at] * (1 + len(aliases)))
            if ref is not None:
                ref_rows.append((sid, ref))
                canonical.append((sid, normalized))
                ref_lines.append(at)
            k = 0
            for item, source in zip(evidence, sources):
                evidence_lines.append(first + k)
                k += 1
                evidence_rows.append((sid, item, k))
                source_rows.append((sid, k) + source)
        sink = self.sink
        for relation, values, lines, col in (
                ("subject", subject, heads, 1), ("subject_unit", unit, heads, 1),
                ("subject_display", display, heads, 1), ("subject_alias", alias, alias_lines, 1),
                ("subject_ref_written", ref_rows, ref_lines, 1), ("subject_canonical_ref", canonical, ref_lines, 1),
                ("subject_evidence", evidence_rows, evidence_lines, 3),
                ("subject_evidence_source", source_rows, evidence_lines, 3)):
            sink.extend(relation, values, lines, col)
        self.clean = []


def _matched(sink: Sink, m, line: int, ordinal: int, first_item: int, first_alias: int) -> bool:
    """Emit a matched Subject through :func:`emit_subject` with the :class:`Block` the general
    path would read; False (nothing written) when that path would report a field problem."""
    status, kind, ref, evv, ev, alv, al = m.group("status", "kind", "ref", "evv", "ev", "alv", "al")
    scalars = {"Status": [status.strip()], "Kind": [kind.strip()]}
    if ref is not None:
        scalars["Canonical-Ref"] = [ref.strip()]
    evidence, aliases = c.item_values(ev), c.item_values(al)
    if (not all(v[0] for v in scalars.values()) or evv.strip() or alv.strip()
            or not all(evidence) or not all(aliases)):
        return False
    ev_items = [(v, k) for k, v in enumerate(evidence, first_item)]
    al_items = [(v, k) for k, v in enumerate(aliases, first_alias)]
    block = Block(m, line + 1, ordinal, scalars, {"Evidence": ev_items, "Aliases": al_items},
                  {"Evidence": 1, "Aliases": 1})
    emit_subject(sink, block, [])
    return True


def subjects(text: str, module: str, sink: Sink) -> bool:
    """subjects.md by the fast path; False (nothing emitted) when the file is not plain or
    has no h2 line."""
    text = c.line_ended(text)
    found = c.plain_sections(text)
    if not found:
        return False
    pattern = subject_unit()
    general = c.General(text)
    units = []
    count = text.count
    ev = pattern.groupindex["ev"]
    run = _Subjects(sink)
    for ordinal, (start, end, line) in enumerate(found, 1):
        m = pattern.fullmatch(text, start, end)
        if m is not None:
            first_item = line + count("\n", start, m.start(ev)) + 1
            if run.add(m, line, ordinal, first_item):
                units.append((line, line + count("\n", start, end) - 1))
                continue
            run.write()  # the clean Subjects before this one are written first
            if _matched(sink, m, line, ordinal, first_item, line + count("\n", start, m.start("al")) + 1):
                units.append((line, line + count("\n", start, end) - 1))
                continue
        else:
            run.write()
        stop = found[ordinal][2] if ordinal < len(found) else None
        unit = general.section_units(line, stop)[0]
        units.append((unit.start, unit.end))
        block = reader().unit(general.lexed, unit.start, unit.end, ordinal, sink)
        if block is not None:
            emit_block(sink, block)
    run.write()
    sink.units = units
    return True
