"""The field layer of one formal entry unit (spec §5.4, §5.5): field occurrences and bodies.

Shared by entry files and the local overlay. The result is plain data; validation lives in
:mod:`analyzer.project.extract.entry_rules`.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress, islice
from typing import Dict, FrozenSet, List, Optional, Tuple

from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.judge import entry_vocabulary


@lru_cache(maxsize=None)
def body_fields() -> FrozenSet[str]:
    """The multi-line body fields (§5.4): the typed bodies and the others of
    rules/entries/fields.dl (``typed_body``, ``other_body``)."""
    return frozenset(entry_vocabulary("typed_body") + entry_vocabulary("other_body"))


class Occurrence:
    """One occurrence of a field: inline value, 0-based line, and its raw body lines.

    A plain slotted class: a 10,000-entry project has 60,000 of them, and a dataclass with
    a default factory cost several times as much to build.
    """

    __slots__ = ("value", "line", "body", "visible_body")

    def __init__(self, value: str, line: int, body: Optional[List[str]] = None, visible_body: bool = False) -> None:
        self.value = value
        self.line = line
        self.body = [] if body is None else body
        self.visible_body = visible_body  # a visible non-blank line followed (scalar continuation)


class ParsedEntry:
    """The fields of one entry unit (a plain slotted class, one per entry)."""

    __slots__ = ("fields", "evidence", "fences")

    def __init__(self) -> None:
        self.fields: Dict[str, List[Occurrence]] = {}
        self.evidence: List[Tuple[str, int]] = []  # (item, 0-based line)
        self.fences: List[int] = []  # 0-based lines of schema-2 body wrapper fences

    def one(self, name: str) -> str:
        """The single value of ``name``; "" when absent or repeated."""
        occ = self.fields.get(name)
        return occ[0].value if occ is not None and len(occ) == 1 else ""

    def body_text(self, name: str) -> str:
        """A body field's text: every occurrence's lines, outer blank lines removed."""
        lines: List[str] = []
        for occ in self.fields.get(name, []):
            if occ.value:
                lines.append(occ.value)
            lines.extend(occ.body)
        return "\n".join(lines).strip("\n")


def _closes(line: str, char: str, length: int) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(char * length):
        return False
    return stripped.lstrip(char).strip(" \t") == ""


def parse_fields(lexed, unit, schema: int) -> ParsedEntry:
    """Read the field lines of a formal entry unit (its first line is the heading)."""
    start, stop = unit.start + 1, unit.end + 1
    if lexed.plain or plain_unit(lexed, start, stop):
        return _parse_plain(lexed.lines, start, stop)
    return _parse_general(lexed, unit, schema)


def plain_unit(lexed, start: int, stop: int) -> bool:
    """Whether lines ``start..stop-1`` of ``lexed`` are all visible and none indented code
    (then :func:`_parse_plain` reads them)."""
    return False not in lexed.visible[start:stop] and True not in lexed.indented[start:stop]


def _parse_plain(lines: List[str], start: int, stop: int) -> ParsedEntry:
    """:func:`_parse_general` for a unit whose lines are all visible and none indented code
    (nearly every unit): the field lines are found by one ``map`` of the grammar's pattern,
    and each field's body is the slice up to the next field line. No line of such a unit
    can open a body wrapper fence (lexing would have hidden it), and every body line is
    visible, so a field has a visible body exactly when a body line is not blank."""
    entry = ParsedEntry()
    matches = list(map(field_line_re().fullmatch, lines[start:stop]))
    at = list(compress(range(start, stop), matches))
    if not at:
        return entry
    at.append(stop)
    fields = entry.fields
    i = at[0]
    # a history reading parses 20,000 small units: most fields are one inline line (no
    # body to slice or test), and the matches are paired with their lines in C
    for m, end in zip(filter(None, matches), islice(at, 1, None)):
        name, value = m.groups()  # (name, value): field_line_re checks the terminal's groups
        value = value.strip() if value else ""
        if end == i + 1:
            occ = Occurrence(value, i, [], False)
        else:
            body = lines[i + 1:end]
            if name == "Evidence":
                items = [(line[2:].strip(), k) for k, line in enumerate(body, i + 1) if line.startswith("- ")]
                if items:
                    entry.evidence.extend(items)
                    body = [line for line in body if not line.startswith("- ")]
            occ = Occurrence(value, i, body, bool("".join(body).strip()))
        if name in fields:
            fields[name].append(occ)
        else:
            fields[name] = [occ]
        i = end
    return entry


_FIELD_RE = None


def field_line_re():
    """The grammar's ``FIELD_LINE`` pattern (grammar/entries.lark), whose groups are read by
    position: (name, value)."""
    global _FIELD_RE
    if _FIELD_RE is None:
        found = terminal("entries", "FIELD_LINE")
        # _parse_plain reads a match's groups by position
        if found.groupindex != {"name": 1, "value": 2} or found.groups != 2:
            raise RuntimeError("grammar/entries.lark: FIELD_LINE must have exactly the groups name and value")
        _FIELD_RE = found
    return _FIELD_RE


def _parse_general(lexed, unit, schema: int) -> ParsedEntry:
    """Read the field lines of any formal entry unit, line by line."""
    field_re = terminal("entries", "FIELD_LINE")
    fence_re = terminal("entries", "BODY_FENCE")
    lines = lexed.lines
    entry = ParsedEntry()
    current = None
    name = ""
    i = unit.start + 1
    while i <= unit.end:
        line = lines[i]
        if lexed.visible[i] and not lexed.indented[i]:
            m = field_re.fullmatch(line)
            if m:
                name = m.group("name")
                current = Occurrence((m.group("value") or "").strip(), i)
                entry.fields.setdefault(name, []).append(current)
                if schema == 2 and not current.value and i + 1 <= unit.end:
                    opened = fence_re.fullmatch(lines[i + 1])
                    # the field names are asked at a wrapper's fence only: a unit without one
                    # (a history comparison's) loads no rule program for them
                    if opened and name in body_fields():  # schema 2 wrapper: verbatim body, fence lines dropped
                        fence = opened.group("fence")
                        entry.fences.append(i + 1)
                        j = i + 2
                        while j <= unit.end and not _closes(lines[j], fence[0], len(fence)):
                            current.body.append(lines[j])
                            j += 1
                        if j <= unit.end:
                            entry.fences.append(j)
                        i = j + 1
                        continue
                i += 1
                continue
            if name == "Evidence" and line.startswith("- "):
                entry.evidence.append((line[2:].strip(), i))
                i += 1
                continue
        if current is not None:
            current.body.append(line)
            if lexed.visible[i] and line.strip():
                current.visible_body = True
        i += 1
    return entry
