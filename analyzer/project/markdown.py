"""The Markdown lexical layer shared by every memory-file parser (spec §3, §3.1, §1).

:func:`lex` computes, for each source line, whether it is *visible* (outside fences and
HTML comments) and whether it is *indented code*, finds ATX headings, and records lexical
errors with their line. :func:`split_units` cuts a document into the semantic units of
§3.1. :func:`estimate_tokens` is the protocol's token estimate.

This is a plain per-line pass on purpose: a grammar with one token per line costs ~15x more
on large projects (docs/performance.md); the structured line syntax lives in grammar/*.lark.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import List, Optional, Tuple

TOKEN_RE = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")
FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
COMMENT_OPEN_RE = re.compile(r"^ {0,3}<!--")
ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$")
ATX_CLOSE_RE = re.compile(r"[ \t]+#+[ \t]*$")
_H2_UNIT = r" {0,3}##(?:[ \t]+|$)"
H2_UNIT_RE = re.compile("^" + _H2_UNIT)
FORMAL_H2_RE = re.compile(r"^ {0,3}##[ \t]+MC-(?:DEC|CON|DNU|PREF|AREA|INBOX|TOMB)-", re.IGNORECASE)
FIELD_LINE_RE = re.compile(r"^([A-Za-z][A-Za-z-]*):")
LIST_FIELDS = frozenset({"Aliases", "Entries", "Evidence", "Merged-From"})
BULLET_PREFIXES = ("- ", "* ", "+ ")
# the lines that can change unit_starts' state: an h2 line or a bullet (one of BULLET_PREFIXES)
_STATE_LINE_RE = re.compile(_H2_UNIT + "|[-*+] ")
_STATE_FIRST = frozenset(" #-*+")  # the first characters of the lines _STATE_LINE_RE matches
_BULLET_FIRST = frozenset("-*+")
_CANDIDATE_FIRST = frozenset(" \t`~<#")  # first characters of lines lex must look at

# Lexical error messages, worded as the reference implementation words them (§3).
ERR_FENCE_INFO = "Backtick fence info strings must not contain backticks"
ERR_UNCLOSED_FENCE = "Unclosed fenced code block"
ERR_INLINE_COMMENT = "HTML comments must occupy complete lines"
ERR_COMMENT_CLOSE = "HTML comment closing lines must contain no other content"
ERR_UNCLOSED_COMMENT = "Unclosed HTML comment"


def estimate_tokens(text: str) -> int:
    """The protocol's token estimate (§1): regex matches of ``[A-Za-z0-9_]+|[^\\s...]``."""
    return sum(1 for _ in TOKEN_RE.finditer(text))


@dataclass(frozen=True)
class Heading:
    """An ATX heading: 0-based line index, level (1-6), casefolded title, raw title."""

    index: int
    level: int
    title: str
    raw_title: str


class Lexed:
    """The lexical view of one document: lines with visibility flags, headings, errors.

    :attr:`headings` is built on first use: only the manifest reads it, and building one
    :class:`Heading` per entry heading was a large part of lexing an entry file.
    """

    def __init__(self, lines: List[str], visible: List[bool], indented: List[bool], heading_lines: List[int],
                 errors: List[Tuple[int, str]], plain: bool) -> None:
        self.lines = lines
        self.visible = visible
        self.indented = indented
        self.heading_lines = heading_lines  # visible, unindented lines starting with `#` after spaces
        self.errors = errors  # (0-based line, message)
        # True when every line is visible and none is indented code (most memory files): then
        # every line may carry structure. lex knows it as it goes (a lazy property cost more
        # than lexing a history snippet's dozen lines).
        self.plain = plain

    @cached_property
    def headings(self) -> List[Heading]:
        """The ATX headings, in line order."""
        out: List[Heading] = []
        for i in self.heading_lines:
            m = ATX_RE.match(self.lines[i])
            if m:
                raw = heading_title(m.group(2))
                out.append(Heading(i, len(m.group(1)), raw.casefold(), raw))
        return out

    def structural(self, i: int) -> bool:
        """True when line ``i`` may carry structure: visible and not indented code."""
        return self.visible[i] and not self.indented[i]

    def section_end(self, h: int) -> int:
        """End (exclusive line index) of the section of heading number ``h`` in :attr:`headings`."""
        level = self.headings[h].level
        for other in self.headings[h + 1:]:
            if other.level <= level:
                return other.index
        return len(self.lines)


def heading_title(rest: str) -> str:
    """A heading's raw title: the text with the closing ``#`` sequence removed, trimmed."""
    rest = ATX_CLOSE_RE.sub("", rest)
    if rest.strip().strip("#") == "":
        return ""
    return rest.strip()


def _fence_closes(line: str, char: str, length: int) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(char * length):
        return False
    return stripped[len(stripped) - len(stripped.lstrip(char)):].strip(" \t") == ""


def lex(text: str) -> Lexed:
    """Split ``text`` into lines (Python ``splitlines``) and classify each one (§3).

    Only *candidate* lines are looked at one by one: a line can open or close a fence, open
    a comment, be indented code or a heading only if it starts with one of
    :data:`_CANDIDATE_FIRST`, and most lines do not (a first-character test in one list
    comprehension instead of a loop body per line). Lines inside a fence are hidden by
    slice assignment up to the closing line, which is itself a candidate.
    """
    lines = text.splitlines()
    n = len(lines)
    visible = [True] * n
    indented = [False] * n
    errors: List[Tuple[int, str]] = []
    heading_lines: List[int] = []
    cands = [i for i, line in enumerate(lines) if line[:1] in _CANDIDATE_FIRST]
    k, count = 0, len(cands)
    plain = True  # no line hidden or indented so far
    while k < count:
        i = cands[k]
        k += 1
        line = lines[i]
        first = line[0]
        if first != "#":
            m = FENCE_OPEN_RE.match(line) if first in " `~" else None
            if m:
                run, info = m.group(1), m.group(2)
                if run[0] == "`" and "`" in info:
                    errors.append((i, ERR_FENCE_INFO))
                char, length, close = run[0], len(run), n - 1
                while k < count:
                    j = cands[k]
                    k += 1
                    if _fence_closes(lines[j], char, length):
                        close = j
                        break
                else:
                    errors.append((i, ERR_UNCLOSED_FENCE))
                visible[i:close + 1] = [False] * (close + 1 - i)
                plain = False
                continue
            if first in " <" and COMMENT_OPEN_RE.match(line):
                visible[i] = False
                plain = False
                rest = line[line.find("<!--") + 4:]
                pos = rest.find("-->")
                if pos >= 0:
                    if rest[pos + 3:].strip():
                        errors.append((i, ERR_INLINE_COMMENT))
                    continue
                close = _comment_close(lines, i + 1, errors)
                if close is None:
                    errors.append((i, ERR_UNCLOSED_COMMENT))
                    close = n - 1
                visible[i:close + 1] = [False] * (close + 1 - i)
                k = bisect_right(cands, close, k)
                continue
            if first == "\t" or line.startswith("    "):
                indented[i] = True
                plain = False
                continue
            if not line.lstrip(" ").startswith("#"):
                continue
        heading_lines.append(i)
    return Lexed(lines, visible, indented, heading_lines, errors, plain)


def _comment_close(lines: List[str], start: int, errors: List[Tuple[int, str]]) -> Optional[int]:
    """The line closing an HTML comment opened before ``start`` (None: unclosed)."""
    for j in range(start, len(lines)):
        pos = lines[j].find("-->")
        if pos >= 0:
            if lines[j][pos + 3:].strip():
                errors.append((j, ERR_COMMENT_CLOSE))
            return j
    return None


class Unit:
    """A semantic unit (§3.1): kind, first and last line (0-based, inclusive), text.

    A plain slotted class with a lazy :attr:`text`: a project has one unit per entry and
    most callers only need the line range.
    """

    __slots__ = ("kind", "start", "end", "formal", "_lines")

    def __init__(self, kind: str, start: int, end: int, lines: List[str], formal: bool = False) -> None:
        self.kind = kind  # preamble | h2 | bullet | ambiguous-bullet | body
        self.start = start
        self.end = end
        self.formal = formal  # h2 unit whose heading looks like a formal entry
        self._lines = lines

    @property
    def text(self) -> str:
        """The unit's lines joined, outer blank lines removed."""
        return "\n".join(self._lines[self.start:self.end + 1]).strip("\n")

    def __repr__(self) -> str:
        return f"Unit({self.kind!r}, {self.start}, {self.end}, formal={self.formal})"


@dataclass
class Document:
    """A document split into an optional title line and its units."""

    lexed: Lexed
    title: Optional[str]
    units: List[Unit]


def _later_field_before_h2(lexed: Lexed) -> List[bool]:
    """For each line: does a field line occur after it before the next H2 unit start?"""
    n = len(lexed.lines)
    out = [False] * n
    seen = False
    for i in range(n - 1, -1, -1):
        out[i] = seen
        if lexed.structural(i):
            line = lexed.lines[i]
            if H2_UNIT_RE.match(line):
                seen = False
            elif FIELD_LINE_RE.match(line):
                seen = True
    return out


def split_units(lexed: Lexed) -> Document:
    """Cut a lexed document into its title and semantic units (§3.1)."""
    lines = lexed.lines
    n = len(lines)
    title = None
    first = 0
    if lines and lines[0].startswith("# "):
        title, first = lines[0], 1
    starts = unit_starts(lexed, first, n)
    return Document(lexed, title, assemble_units(lines, first, n, starts, False))


def unit_starts(lexed: Lexed, lo: int, hi: int) -> List[Tuple[int, str, bool]]:
    """The (line, kind, formal) of every unit starting in lines ``lo`` to ``hi`` - 1, read
    from ``lo`` on with no unit open. An h2 line resets the state, so the starts after one
    h2 line do not depend on anything before it (analyzer/project/extract/canonical.py relies on
    that to read a file section by section).

    Only h2 and bullet lines can change the state, so only they are visited (found by
    :data:`_STATE_LINE_RE` in one comprehension): a bullet inside an h2 unit reads the lines
    since the last state line for the field line it belongs to, and a bullet unit looks ahead, up to the next h2 or bullet
    line, for the line that starts its body. An entry file then costs a few steps per entry
    instead of one per line (tests/extract/test_unit_starts.py holds it to the line-by-line
    reading). An indented code line never matches the pattern (it starts with a tab or four
    spaces), so only hidden lines are dropped."""
    lines = lexed.lines
    visible = lexed.visible
    match = _STATE_LINE_RE.match
    # the first character first: most lines of a unit are field and body lines (no regex call)
    at = [i for i in range(lo, hi) if lines[i][:1] in _STATE_FIRST and match(lines[i])]
    if not at:
        return []
    if not lexed.plain:
        at = [i for i in at if visible[i]]
    at.append(hi)
    later_field = None
    starts: List[Tuple[int, str, bool]] = []  # (line, kind, formal)
    kind = None
    formal = False
    field = None  # the last visible field line's name in the h2 unit open, read up to line ``scanned``
    scanned = lo
    for n, i in enumerate(at, 1):
        if i == hi:
            break
        line = lines[i]
        if line[0] not in _BULLET_FIRST:  # an h2 line
            formal = bool(FORMAL_H2_RE.match(line))
            kind, field, scanned = "h2", None, i
            starts.append((i, kind, formal))
            continue
        if kind == "h2":
            # the field a bullet belongs to: the lines since the last one visited are read once
            # (h2 and bullet lines never match a field line), not every line back to the h2
            for j in range(scanned + 1, i):
                if visible[j]:
                    fm = FIELD_LINE_RE.match(lines[j])
                    if fm:
                        field = fm.group(1)
            scanned = i
            if field in LIST_FIELDS:
                continue
            if formal:
                if later_field is None:
                    later_field = _later_field_before_h2(lexed)
                if later_field[i]:
                    continue
                kind = "ambiguous-bullet"
            else:
                kind = "bullet"
        else:
            kind = "bullet"
        starts.append((i, kind, False))
        formal = False
        # the body of a bullet unit starts at its first visible line that starts with no
        # white space and is neither an h2 nor a bullet line (those are in ``at``)
        for j in range(i + 1, at[n]):
            first = lines[j][:1]
            if first and not first.isspace() and visible[j]:
                kind = "body"
                starts.append((j, kind, False))
                break
    return starts


def assemble_units(lines: List[str], first: int, stop: int, starts: List[Tuple[int, str, bool]],
                   more: bool) -> List[Unit]:
    """The units of lines ``first`` to ``stop`` - 1 from their :func:`unit_starts`; ``more``:
    another unit starts at ``stop`` (then text before the first start is a preamble, never
    the document's only body unit)."""
    units: List[Unit] = []
    if not starts:
        if "\n".join(lines[first:stop]).strip():
            units.append(Unit("preamble" if more else "body", first, stop - 1, lines))
        return units
    if starts[0][0] > first:
        if "\n".join(lines[first:starts[0][0]]).strip():
            units.append(Unit("preamble", first, starts[0][0] - 1, lines))
    ends = [start - 1 for start, _, _ in starts[1:]] + [stop - 1]
    units.extend(Unit(ukind, start, end, lines, uformal) for (start, ukind, uformal), end in zip(starts, ends))
    return units


def parse_document(text: str) -> Document:
    """Lex ``text`` and split it into units in one call."""
    return split_units(lex(text))
