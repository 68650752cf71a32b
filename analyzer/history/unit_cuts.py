"""A text cut by the unit model once, for the history code that reads the same text twice.

A readiness window reads each commit's unit snippets twice with the unit model
(analyzer/project/markdown.py): once for the units whose text is the same on both sides (a reorder
candidate, analyzer/history/window_order.py) and once for the free-form units of each changed entry
file (analyzer/history/freeform.py). On a first reading of the 1,000-commit bench history those were
40,000 cuts of 20,000 texts. Within :func:`shared` each distinct text is cut once and both
readings are made from that cut; outside it nothing is kept. What is kept per text is only
the two readings (tuples of strings and numbers) and whether the lexer found every line
visible and none indented code, never the lexed document: a unit's parts
(analyzer/history/unit_parts.py) then read such a text's lines without lexing it again
(:func:`plain_lines`). Nothing is decided here.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Tuple
from analyzer.history.git import UNIT_ID_HEADING
from analyzer.project.markdown import parse_document

IdUnits = Optional[Tuple[Tuple[str, str], ...]]  # (casefolded ID, unit text); None: a Markdown problem
FreeUnits = Tuple[Tuple[int, str, int], ...]  # (ordinal among all units, text, 1-based first line)

_memo: Optional[Dict[str, Tuple[IdUnits, FreeUnits, bool]]] = None


@contextmanager
def shared() -> Iterator[None]:
    """Keep each text's cut until the block ends (nested blocks share the outer one)."""
    global _memo
    if _memo is not None:
        yield
        return
    _memo = {}
    try:
        yield
    finally:
        _memo = None


def cut(text: str) -> Tuple[IdUnits, FreeUnits]:
    """The units of ``text`` whose h2 heading names an ID (casefolded ID, unit text), or None
    when the lexer reports a Markdown problem, and its free-form units (every other unit:
    ordinal among all units, text, first line with text), in order."""
    if _memo is not None:
        found = _memo.get(text)
        if found is None:
            found = _memo[text] = _cut(text)
        return found[:2]
    return _cut(text)[:2]


class PlainLines:
    """The lexed view :func:`analyzer.project.extract.fields.parse_fields` reads of a text
    whose lines are all visible and none indented code: its lines, and that it is plain."""

    __slots__ = ("lines",)
    plain = True

    def __init__(self, lines: List[str]) -> None:
        self.lines = lines


def plain_lines(text: str) -> Optional[PlainLines]:
    """``text``'s lines when a cut of this block lexed it and found it plain (every line
    visible, none indented code: what the lexer would say again), else None. The parts of
    20,000 snippet texts were read by lexing each a second time."""
    found = _memo.get(text) if _memo is not None else None
    return PlainLines(text.splitlines()) if found is not None and found[2] else None


def _cut(text: str) -> Tuple[IdUnits, FreeUnits, bool]:

    doc = parse_document(text)
    lines = doc.lexed.lines
    ids: List[Tuple[str, str]] = []
    free: List[Tuple[int, str, int]] = []
    for n, unit in enumerate(doc.units, 1):
        m = UNIT_ID_HEADING.match(lines[unit.start]) if unit.kind == "h2" else None
        if m:
            ids.append((m.group(1).casefold(), unit.text))
        if unit.kind == "h2" and (unit.formal or m):
            continue
        first = unit.start  # the unit's first line with text (a preamble starts with blank lines)
        while first < unit.end and not lines[first].strip():
            first += 1
        free.append((n, unit.text, first + 1))
    return (None if doc.lexed.errors else tuple(ids)), tuple(free), doc.lexed.plain
