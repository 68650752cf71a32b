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
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

TOKEN_RE = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")
FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
COMMENT_OPEN_RE = re.compile(r"^ {0,3}<!--")
ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$")
ATX_CLOSE_RE = re.compile(r"[ \t]+#+[ \t]*$")
H2_UNIT_RE = re.compile(r"^ {0,3}##(?:[ \t]+|$)")
FORMAL_H2_RE = re.compile(r"^ {0,3}##[ \t]+MC-(?:DEC|CON|DNU|PREF|AREA|INBOX|TOMB)-", re.IGNORECASE)
FIELD_LINE_RE = re.compile(r"^([A-Za-z][A-Za-z-]*):")
LIST_FIELDS = frozenset({"Aliases", "Entries", "Evidence", "Merged-From"})
BULLET_PREFIXES = ("- ", "* ", "+ ")
_H2_FIRST = frozenset(" #")
_SPECIAL_FIRST = frozenset(" \t`~<")  # first characters that need the full per-line checks

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


@dataclass
class Lexed:
    """The lexical view of one document: lines with visibility flags, headings, errors."""

    lines: List[str]
    visible: List[bool]
    indented: List[bool]
    headings: List[Heading] = field(default_factory=list)
    errors: List[Tuple[int, str]] = field(default_factory=list)  # (0-based line, message)

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


def lex(text: str) -> Lexed:
    """Split ``text`` into lines (Python ``splitlines``) and classify each one (§3)."""
    lines = text.splitlines()
    n = len(lines)
    visible = [True] * n
    indented = [False] * n
    errors: List[Tuple[int, str]] = []
    fence: Optional[Tuple[str, int, int]] = None  # (char, length, opening line)
    comment_start: Optional[int] = None
    for i, line in enumerate(lines):
        # fast path: most lines cannot open a fence or comment nor be indented code
        if fence is None and comment_start is None and line[:1] not in _SPECIAL_FIRST:
            continue
        if fence is not None:
            visible[i] = False
            char, length, _ = fence
            stripped = line.lstrip(" ")
            if len(line) - len(stripped) <= 3 and stripped.startswith(char * length):
                run = len(stripped) - len(stripped.lstrip(char))
                if stripped[run:].strip(" \t") == "":
                    fence = None
            continue
        if comment_start is not None:
            visible[i] = False
            pos = line.find("-->")
            if pos >= 0:
                comment_start = None
                if line[pos + 3:].strip():
                    errors.append((i, ERR_COMMENT_CLOSE))
            continue
        m = FENCE_OPEN_RE.match(line)
        if m:
            visible[i] = False
            run, info = m.group(1), m.group(2)
            if run[0] == "`" and "`" in info:
                errors.append((i, ERR_FENCE_INFO))
            fence = (run[0], len(run), i)
            continue
        if COMMENT_OPEN_RE.match(line):
            visible[i] = False
            rest = line[line.find("<!--") + 4:]
            pos = rest.find("-->")
            if pos < 0:
                comment_start = i
            elif rest[pos + 3:].strip():
                errors.append((i, ERR_INLINE_COMMENT))
            continue
        if line.startswith("    ") or line.startswith("\t"):
            indented[i] = True
    if fence is not None:
        errors.append((fence[2], ERR_UNCLOSED_FENCE))
    if comment_start is not None:
        errors.append((comment_start, ERR_UNCLOSED_COMMENT))
    lexed = Lexed(lines, visible, indented, errors=errors)
    for i, line in enumerate(lines):
        if visible[i] and not indented[i] and line.lstrip(" ").startswith("#"):
            m = ATX_RE.match(line)
            if m:
                raw = heading_title(m.group(2))
                lexed.headings.append(Heading(i, len(m.group(1)), raw.casefold(), raw))
    return lexed


@dataclass(frozen=True)
class Unit:
    """A semantic unit (§3.1): kind, first and last line (0-based, inclusive), text."""

    kind: str  # preamble | h2 | bullet | ambiguous-bullet | body
    start: int
    end: int
    text: str
    formal: bool = False  # h2 unit whose heading looks like a formal entry


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
    title = None
    first = 0
    if lines and lines[0].startswith("# "):
        title, first = lines[0], 1
    later_field = None
    starts: List[Tuple[int, str, bool]] = []  # (line, kind, formal)
    kind = None
    formal = False
    current_field: Optional[str] = None
    for i in range(first, len(lines)):
        if not (lexed.visible[i] and not lexed.indented[i]):
            continue
        line = lines[i]
        first_char = line[:1]
        if first_char in _H2_FIRST and H2_UNIT_RE.match(line):
            formal = bool(FORMAL_H2_RE.match(line))
            kind, current_field = "h2", None
            starts.append((i, kind, formal))
            continue
        if kind == "h2" and first_char.isalpha():
            fm = FIELD_LINE_RE.match(line)
            if fm:
                current_field = fm.group(1)
                continue
        if line[:2] in BULLET_PREFIXES:
            if kind == "h2":
                if current_field in LIST_FIELDS:
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
            continue
        if kind in ("bullet", "ambiguous-bullet") and line.strip() and not line[0].isspace():
            kind = "body"
            starts.append((i, kind, False))
    units: List[Unit] = []
    if not starts:
        text = "\n".join(lines[first:]).strip("\n")
        if text.strip():
            units.append(Unit("body", first, len(lines) - 1, text))
        return Document(lexed, title, units)
    if starts[0][0] > first:
        text = "\n".join(lines[first:starts[0][0]]).strip("\n")
        if text.strip():
            units.append(Unit("preamble", first, starts[0][0] - 1, text))
    for k, (start, ukind, uformal) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        units.append(Unit(ukind, start, end - 1, "\n".join(lines[start:end]).strip("\n"), uformal))
    return Document(lexed, title, units)


def parse_document(text: str) -> Document:
    """Lex ``text`` and split it into units in one call."""
    return split_units(lex(text))
