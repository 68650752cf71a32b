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

from analyzer.project.extract import canonical as c
from analyzer.project.extract.blocks import Block
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.entry_rules import classify_evidence
from analyzer.project.extract.subjects import KINDS, bad_evidence, emit_block, emit_subject, normalize_alias, normalize_ref, reader


@lru_cache(maxsize=None)
def subject_unit():
    """The compiled pattern of a whole canonical Subject section."""
    gap = "\n*"
    return c.compiled(
        c.embed(terminal("subjects", "SUBJECT_HEADING").pattern, {"id": "id", "title": "title"}) + "\n" + gap
        + c.field("Status", "status") + gap + c.field("Kind", "kind") + gap
        + f"(?:{c.field('Canonical-Ref', 'ref')}{gap})?"
        + c.field("Evidence", "evv") + c.items("subjects", "ev") + gap
        + c.field("Aliases", "alv") + c.items("subjects", "al") + gap)


def _clean(sink: Sink, m, line: int, ordinal: int, first_item: int) -> bool:
    """Write the facts of a matched Subject that :func:`emit_subject` would accept without
    a problem, as it would write them; False (nothing written) otherwise. ``first_item``:
    the 1-based line of its first Evidence item."""
    shown, title, status, kind, ref, evv, ev, alv, al = m.group(
        "id", "title", "status", "kind", "ref", "evv", "ev", "alv", "al")
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
    if any(source[0] in bad for source in sources):
        return False
    sid = intern(shown.casefold())
    at = line + 1
    add = sink.row
    add("subject", (sid, intern(status), intern(kind), title), at, 1)
    add("subject_unit", (sid, ordinal), at, 1)
    add("subject_display", (sid, shown), at, 1)
    add("subject_alias", (sid, normalize_alias(title)), at, 1)
    for alias in aliases:
        add("subject_alias", (sid, normalize_alias(alias)), at, 1)
    if ref is not None:
        add("subject_ref_written", (sid, ref), at, 1)
        add("subject_canonical_ref", (sid, normalized), at, 1)
    for k, (item, source) in enumerate(zip(evidence, sources), 1):
        add("subject_evidence", (sid, item, k), first_item + k - 1, 3)
        add("subject_evidence_source", (sid, k) + source, first_item + k - 1, 3)
    return True


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
    for ordinal, (start, end, line) in enumerate(found, 1):
        m = pattern.fullmatch(text, start, end)
        if m is not None:
            first_item = line + count("\n", start, m.start("ev")) + 1
            if (_clean(sink, m, line, ordinal, first_item)
                    or _matched(sink, m, line, ordinal, first_item, line + count("\n", start, m.start("al")) + 1)):
                units.append((line, line + count("\n", start, end) - 1))
                continue
        stop = found[ordinal][2] if ordinal < len(found) else None
        unit = general.section_units(line, stop)[0]
        units.append((unit.start, unit.end))
        block = reader().unit(general.lexed, unit.start, unit.end, ordinal, sink)
        if block is not None:
            emit_block(sink, block)
    sink.units = units
    return True
