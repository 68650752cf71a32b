"""The canonical Subject unit of the fast path (analyzer/extract/canonical.py).

A Subject unit: heading, Status, Kind, an optional Canonical-Ref, an Evidence block and an
Aliases block, blank lines between. The pattern's match gives the same
:class:`~analyzer.extract.blocks.Block` the general path reads from those lines, and it goes
to the same emitter; a section the pattern does not match, or one whose values would make
the general path report a field problem, is read by the general path.
"""

from __future__ import annotations

from functools import lru_cache

from analyzer.extract import canonical as c
from analyzer.extract.blocks import Block, common_problems
from analyzer.extract.grammars import terminal
from analyzer.extract.sink import Sink
from analyzer.extract.subjects import emit_subject, reader


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


def subjects(text: str, module: str, sink: Sink) -> bool:
    """subjects.md by the fast path; False (nothing emitted) when the file is not plain or
    has no h2 line."""
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
            status, kind, ref, evv, ev, alv, al = m.group("status", "kind", "ref", "evv", "ev", "alv", "al")
            scalars = {"Status": [status.strip()], "Kind": [kind.strip()]}
            if ref is not None:
                scalars["Canonical-Ref"] = [ref.strip()]
            evidence, aliases = c.item_values(ev), c.item_values(al)
            # the general path would report these: let it
            if (all(v[0] for v in scalars.values()) and not evv.strip() and not alv.strip()
                    and all(evidence) and all(aliases)):
                at = line + count("\n", start, m.start("ev")) + 1
                ev_items = [(v, k) for k, v in enumerate(evidence, at)]
                at = line + count("\n", start, m.start("al")) + 1
                al_items = [(v, k) for k, v in enumerate(aliases, at)]
                block = Block(m, line + 1, ordinal, scalars, {"Evidence": ev_items, "Aliases": al_items},
                              {"Evidence": 1, "Aliases": 1})
                units.append((line, line + count("\n", start, end) - 1))
                emit_subject(sink, block, [])
                continue
        stop = found[ordinal][2] if ordinal < len(found) else None
        unit = general.section_units(line, stop)[0]
        units.append((unit.start, unit.end))
        block = reader().unit(general.lexed, unit.start, unit.end, ordinal, sink)
        if block is not None:
            emit_subject(sink, block, common_problems(block, ("Status", "Kind"), ("Evidence", "Aliases")))
    sink.units = units
    return True
