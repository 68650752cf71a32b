"""The field layer of one formal entry unit (spec §5.4, §5.5): field occurrences and bodies.

Shared by entry files and the local overlay. The result is plain data; validation lives in
:mod:`analyzer.extract.entry_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from analyzer.extract.grammars import terminal

BODY_FIELDS = ("Decision", "Constraint", "Rejected", "Preference", "Rule", "Profile", "Statement",
               "Reason", "Promotion-Requirement")


@dataclass
class Occurrence:
    """One occurrence of a field: inline value, 0-based line, and its raw body lines."""

    value: str
    line: int
    body: List[str] = field(default_factory=list)
    visible_body: bool = False  # a visible non-blank line followed (scalar continuation)


@dataclass
class ParsedEntry:
    """The fields of one entry unit."""

    fields: Dict[str, List[Occurrence]] = field(default_factory=dict)
    evidence: List[Tuple[str, int]] = field(default_factory=list)  # (item, 0-based line)
    fences: List[int] = field(default_factory=list)  # 0-based lines of schema-2 body wrapper fences

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
                if (schema == 2 and name in BODY_FIELDS and not current.value and i + 1 <= unit.end):
                    opened = fence_re.fullmatch(lines[i + 1])
                    if opened:  # schema 2 wrapper: verbatim body, fence lines dropped
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
