"""The file-level fast path of extraction: whole canonical units matched by one regex each.

The general path (analyzer/project/markdown.py, then one extractor per unit and line) is the
reference. This path reads a *plain* file (:func:`plain`: only ``\\n`` line breaks, and no
line that could open a fence or a comment or be indented code, so every line is visible
and structural and lexing finds no error) section by section: a section runs from one h2
line to the next, and the units of §3.1 never cross an h2 line (``unit_starts`` restarts
there), so each section can be read on its own. A section that one compiled pattern
matches whole is one canonical unit (a Subject or a formal entry in its usual shape) and
its facts come straight from the match; any other section, and the text before the first
h2 line, goes through the general path's own functions on the same lines. A file that is
not plain, or has no h2 line, is left to the general path altogether.

The patterns are built from the grammar terminals (grammar/*.lark) by :func:`embed`, so the
grammar stays the one definition of the line syntax; tests/extract/test_canonical.py checks
that both paths give identical sinks, on the corpus, the scenarios, generated projects and
hypothesis-made near-canonical files.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import List, Optional, Tuple

from analyzer.project.extract.grammars import terminal
from analyzer.project.markdown import BULLET_PREFIXES, TOKEN_RE, assemble_units, lex, unit_starts

# every line break str.splitlines knows besides "\n" (then lines would not be "\n"-separated)
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# the first characters with which lex may hide a line or make it indented code: a space or a
# tab (indentation, indented fences and comments), a backtick or tilde fence, a comment
_ODD_FIRST = " \t`~<"
_ODD_START = re.compile("\n[" + _ODD_FIRST + "]")  # a literal first character: a fast scan
# the line break before an h2 line (markdown.H2_UNIT_RE on a line not starting with a space)
_H2_LINE = re.compile("\n##(?=[ \t\n]|\\Z)")

Section = Tuple[int, int, int]  # start offset, end offset, 0-based line of its h2 line
# the name group of the grammar's FIELD_LINE terminal (its pattern, up to the group's end)
_FIELD_NAME = re.compile(r"\(\?P<name>((?:[^()]|\[[^\]]*\])*)\)")


def plain(text: str) -> bool:
    """Whether every line of ``text`` is visible and structural, with ``\\n`` breaks only."""
    # one substring search per character: much faster than a character class over the text
    return ((not text or text[0] not in _ODD_FIRST) and not any(ch in text for ch in _ODD_BREAKS)
            and _ODD_START.search(text) is None)


def sections(text: str) -> List[Section]:
    """The h2 sections of a plain text, in order."""
    starts = [m.start() + 1 for m in _H2_LINE.finditer(text)]
    if text.startswith("##") and text[2:3] in (" ", "\t", "\n", ""):
        starts.insert(0, 0)
    out: List[Section] = []
    line, last = 0, 0
    ends = starts[1:] + [len(text)]
    count = text.count
    for start, end in zip(starts, ends):
        line += count("\n", last, start)
        out.append((start, end, line))
        last = start
    return out


def line_ended(text: str) -> str:
    """``text`` with a final ``\\n`` when its last line has none, else ``text`` itself.

    Both read the same: the general path splits lines (``str.splitlines``), which gives the
    same lines either way, and the fast path's patterns end every line with ``\\n``, so the
    last section of a text without one (a history snippet: Git's widened hunks joined by
    ``\\n``, analyzer/history/unit_hunks.py) always missed its pattern and was read by the general
    path. ``plain`` and ``sections`` give the same answers for both (a trailing ``\\n``
    opens no line)."""
    return text + "\n" if text and text[-1] != "\n" else text


def plain_sections(text: str) -> List[Section]:
    """The h2 sections of ``text`` when it is plain; [] when it is not, or has no h2 line
    (then the fast path leaves the file to the general path)."""
    return sections(text) if plain(text) else []


def embed(pattern: str, keep: Optional[dict] = None) -> str:
    """A one-line terminal pattern made safe inside a multi-line pattern (compiled with
    ``re.M``, so ``$`` still means the end of the line): a ``\\s`` outside a character class
    becomes ``[^\\S\\n]`` so it cannot cross into the next line, and a named group becomes
    non-capturing unless ``keep`` maps its name to a new one (names must be unique)."""
    keep = keep or {}
    out: List[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            pair = pattern[i:i + 2]
            out.append("[^\\S\\n]" if pair == "\\s" and not in_class else pair)
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            if pattern[j:j + 1] == "]":  # a literal "]" first in the class
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        if pattern.startswith("(?P<", i):
            close = pattern.index(">", i)
            name = pattern[i + 4:close]
            out.append(f"(?P<{keep[name]}>" if name in keep else "(?:")
            i = close + 1
            continue
        if pattern.startswith("(?P=", i):
            raise ValueError(f"back reference in a terminal pattern: {pattern!r}")
        out.append(c)
        i += 1
    return "".join(out)


def field(name, value_group: str, name_group: str = "") -> str:
    """One field line ``Name:`` (grammar FIELD_LINE with its name fixed; ``name`` may be a
    tuple of names, then ``name_group`` captures the one found) and its line break; the
    value, untrimmed, goes to group ``value_group``."""
    listed = (name,) if isinstance(name, str) else tuple(name)
    names = "|".join(re.escape(n) for n in listed)
    names = f"(?P<{name_group}>{names})" if name_group else f"(?:{names})"
    line = embed(terminal("entries", "FIELD_LINE").pattern, {"value": value_group})
    # the terminal's name part matched after a lookahead for the names can only match the
    # name the lookahead found (its run of name characters stops at the ":"): when every name
    # is one the part matches, the names themselves take its place (one regex step fewer a
    # field: ~15% of matching a 1,000-entry repository's entries)
    found = _FIELD_NAME.match(terminal("entries", "FIELD_LINE").pattern)
    part = embed(found.group(1)) if found else None
    if part and line.startswith(f"(?:{part}):") and all(re.fullmatch(part, n) for n in listed):
        return names + line[len(part) + 4:] + "\n"
    return f"(?={names}:)" + line + "\n"


def items(grammar: str, group: str) -> str:
    """One or more item lines (grammar ITEM) in group ``group``."""
    return f"(?P<{group}>(?:{embed(terminal(grammar, 'ITEM').pattern)}\n)+)"


def item_values(block: str) -> List[str]:
    """The trimmed values of the item lines of a matched :func:`items` group."""
    if block.count("\n") == 1:  # one item (most blocks)
        return [block[2:].strip()]
    return [line[2:].strip() for line in block.split("\n")[:-1]]


def body_lines() -> str:
    """Zero or more lines of a body: blank, or neither a field line nor a bullet."""
    not_field = embed(terminal("entries", "FIELD_LINE").pattern)
    bullets = "|".join(re.escape(p) for p in BULLET_PREFIXES)
    return f"(?:(?!{not_field})(?!{bullets})[^\n]+\n|\n)*"


# Each ASCII character as its token class: b"a" a word character ([A-Za-z0-9_] of TOKEN_RE),
# b" " a character ``\s`` matches (str.isspace: the same Py_UNICODE_ISSPACE), b"." any other
# character (a token of its own).
_CLASSES = bytes(ord("a") if chr(i).isascii() and (chr(i).isalnum() or chr(i) == "_")
                 else ord(" ") if chr(i).isspace() else ord(".") for i in range(256))
_WORD = ord("a")
# the characters beyond ASCII that ``\s`` matches (tests/extract/test_tokens.py checks the
# list against str.isspace over all of Unicode); any other one is a token of its own
UNICODE_SPACES = ("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                  "\u2028\u2029\u202f\u205f\u3000")


class Tokens:
    """The token estimate (markdown.estimate_tokens) of ranges of one text, without a match
    object per token. TOKEN_RE's matches are the runs of word characters and every other
    character that is not a space, so a range's count is the number of word runs starting
    in it plus its other characters. The text's classes mark each of those with ``A`` (a
    word character that starts a run, or any other character that is not a space), so a
    range's count is one ``bytes.count`` (and a run begun before the range counts once).
    Each character beyond ASCII becomes ``?`` (one byte, so offsets stay the same), a token
    of its own like every such character, unless the text holds a Unicode space: that text
    is counted by TOKEN_RE itself."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.classes = None
        if text.isascii() or not any(space in text for space in UNICODE_SPACES):
            # a run starts after a space or another character (or at the text's start, left
            # ``a``: the range's first character is looked at by itself)
            self.classes = (text.encode("ascii", "replace").translate(_CLASSES)
                            .replace(b" a", b" A").replace(b".a", b".A").replace(b".", b"A"))

    def count(self, start: int, end: int) -> int:
        """The token estimate of ``text[start:end]`` (as ``TOKEN_RE.findall(text, start, end)``)."""
        classes = self.classes
        if classes is None:
            return len(TOKEN_RE.findall(self.text, start, end))
        if start >= end:
            return 0
        return classes.count(b"A", start, end) + (classes[start] == _WORD)


class General:
    """The general path's view of a plain file, built on the first section that needs it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lexed = None

    @property
    def lexed(self):
        """The whole file lexed (the general path's :class:`~analyzer.project.markdown.Lexed`)."""
        if self._lexed is None:
            self._lexed = lex(self.text)
        return self._lexed

    def section_units(self, line: int, stop: Optional[int]):
        """The units of the section whose h2 line is ``line`` (``stop``: the next one's)."""
        lexed = self.lexed
        stop = len(lexed.lines) if stop is None else stop
        return assemble_units(lexed.lines, line, stop, unit_starts(lexed, line, stop), True)


def head_units(text: str, first_section: Section):
    """The title line (or None), the units before the first h2 line as the general path
    cuts them (nothing there depends on the rest), and the lexed view they belong to."""
    head = lex(text[:first_section[0]])
    lines = head.lines
    title, first = (lines[0], 1) if lines and lines[0].startswith("# ") else (None, 0)
    return title, assemble_units(lines, first, len(lines), unit_starts(head, first, len(lines)), True), head


@lru_cache(maxsize=None)
def compiled(pattern: str, groups: Optional[Tuple[str, ...]] = None):
    """A multi-line pattern compiled once; with ``groups``, checked to have exactly those
    groups in that order (a fast path reads them by position, and a grammar terminal that
    gained a group would shift them)."""
    found = re.compile(pattern, re.M)
    if groups is not None and (tuple(sorted(found.groupindex, key=found.groupindex.get)) != groups
                               or found.groups != len(groups)):
        raise RuntimeError(f"a fast path's pattern groups changed: {found.groupindex}")
    return found
