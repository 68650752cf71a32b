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
    pattern = c.compiled(
        c.embed(terminal("subjects", "SUBJECT_HEADING").pattern, {"id": "id", "title": "title"}) + "\n" + gap
        + c.field("Status", "status") + gap + c.field("Kind", "kind") + gap
        + f"(?:{c.field('Canonical-Ref', 'ref')}{gap})?"
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + gap
        + c.field("Aliases", "alv") + c.items("subjects", "al") + gap)
    if tuple(sorted(pattern.groupindex, key=pattern.groupindex.get)) != GROUPS or pattern.groups != len(GROUPS):
        raise RuntimeError(f"the Subject pattern's groups changed: {pattern.groupindex}")
    return pattern


class _Subjects:
    """The rows of a run of clean matched Subjects (one after another in subjects.md), kept
    by relation and written into the sink in one ``extend`` per column when the run ends
    (:meth:`write`), as fast_entries._Entries does for entries: rows keep their order
    within each relation, and a run ends before a Subject is written any other way."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.heads: List[int] = []  # each Subject's heading line: subject, subject_unit, subject_display
        self.subject: List[tuple] = []
        self.unit: List[tuple] = []
        self.display: List[tuple] = []
        self.alias: List[tuple] = []
        self.alias_lines: List[int] = []
        self.ref: List[tuple] = []  # subject_ref_written, and subject_canonical_ref at the same lines
        self.canonical: List[tuple] = []
        self.ref_lines: List[int] = []
        self.evidence: List[tuple] = []  # subject_evidence, and subject_evidence_source at the same lines
        self.source: List[tuple] = []
        self.evidence_lines: List[int] = []

    def add(self, m, line: int, ordinal: int, first_item: int) -> bool:
        """The rows of a matched Subject that :func:`emit_subject` would accept without a
        problem, as it would write them; False (nothing kept) otherwise. ``first_item``:
        the 1-based line of its first Evidence item."""
        shown, title, status, kind, ref, evv, ev, alv, al = m.groups()
        status, kind = status.strip(), kind.strip().casefold()
        if status != "active" or kind not in KINDS or evv.strip() or alv.strip():
            return False
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
        sid = intern(shown.casefold())
        at = line + 1
        self.heads.append(at)
        self.subject.append((sid, intern(status), intern(kind), title))
        self.unit.append((sid, ordinal))
        self.display.append((sid, shown))
        self.alias.append((sid, normalize_alias(title)))
        for alias in aliases:
            self.alias.append((sid, normalize_alias(alias)))
        self.alias_lines.extend([at] * (1 + len(aliases)))
        if ref is not None:
            self.ref.append((sid, ref))
            self.canonical.append((sid, normalized))
            self.ref_lines.append(at)
        k = 0
        for item, source in zip(evidence, sources):
            self.evidence_lines.append(first_item + k)
            k += 1
            self.evidence.append((sid, item, k))
            self.source.append((sid, k) + source)
        return True

    def write(self) -> None:
        """Write the run's rows into the sink."""
        heads = self.heads
        for relation, values, lines, col in (
                ("subject", self.subject, heads, 1), ("subject_unit", self.unit, heads, 1),
                ("subject_display", self.display, heads, 1), ("subject_alias", self.alias, self.alias_lines, 1),
                ("subject_ref_written", self.ref, self.ref_lines, 1),
                ("subject_canonical_ref", self.canonical, self.ref_lines, 1),
                ("subject_evidence", self.evidence, self.evidence_lines, 3),
                ("subject_evidence_source", self.source, self.evidence_lines, 3)):
            self.sink.extend(relation, values, lines, col)


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
            if run.heads:  # the clean Subjects before this one are written first
                run.write()
                run = _Subjects(sink)
            if _matched(sink, m, line, ordinal, first_item, line + count("\n", start, m.start("al")) + 1):
                units.append((line, line + count("\n", start, end) - 1))
                continue
        elif run.heads:
            run.write()
            run = _Subjects(sink)
        stop = found[ordinal][2] if ordinal < len(found) else None
        unit = general.section_units(line, stop)[0]
        units.append((unit.start, unit.end))
        block = reader().unit(general.lexed, unit.start, unit.end, ordinal, sink)
        if block is not None:
            emit_block(sink, block)
    run.write()
    sink.units = units
    return True
