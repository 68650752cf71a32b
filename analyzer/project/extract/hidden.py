"""Text a reviewer cannot see (issue 31 item 3, beyond the reference): the characters that make a
memory or agent instruction file say something else to a model than to the person reviewing
the diff.

Three kinds, each a run of consecutive characters of one kind on one line:

* ``bidi-control``: bidirectional overrides and isolates, U+202A-U+202E and U+2066-U+2069
  (they reorder what is displayed: "Trojan Source");
* ``tag-character``: Unicode tag characters U+E0000-U+E007F (invisible ASCII, used to hide
  instructions to a model in plain sight);
* ``invisible-format``: every other character of category Cf (format): zero-width space and
  joiners, LRM/RLM, word joiner and invisible operators (U+200B-U+200F, U+2060-U+2064), soft
  hyphen, U+FEFF other than at the very start of the file. A zero-width joiner between two
  symbols (an emoji sequence such as a family) is what it looks like and is left alone.

Whether a run is a finding, and how severe, is for rules/check/hidden.dl. :func:`escape`
shows a line with such characters made visible (``\\u202e``) for `read`'s pack.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterator, List, Optional, Tuple

_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_ZWJ = 0x200D
_BOM = 0xFEFF

#: Every character of Unicode category Cf (format) as of Unicode 15, the version of Python
#: 3.11/3.12's unicodedata (tests/extract/test_hidden.py checks it against unicodedata), plus
#: the whole tag block: the characters this scan can report. Lines without one are dismissed
#: by one C-level search.
_FORMAT_RANGES = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
                  (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
                  (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
                  (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                  (0xE0000, 0xE007F))
_CANDIDATE = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _FORMAT_RANGES) + "]")
#: The same characters as a set: whether a whole text holds one is a set lookup per
#: non-ASCII character (:func:`_may_hide`).
_CANDIDATES = frozenset(chr(code) for a, b in _FORMAT_RANGES for code in range(a, b + 1))
_ASCII = bytes(range(128))


def kind_of(char: str) -> str:
    """The hidden kind of one character, or "" when it is visible (or a plain control)."""
    code = ord(char)
    if code in _BIDI:
        return "bidi-control"
    if 0xE0000 <= code <= 0xE007F:
        return "tag-character"
    if unicodedata.category(char) == "Cf":
        return "invisible-format"
    return ""


def _emoji_joiner(line: str, i: int) -> bool:
    """A zero-width joiner between two symbols (after an optional variation selector)."""
    before = line[i - 1] if i > 0 else ""
    if before == "\ufe0f" and i > 1:
        before = line[i - 2]
    after = line[i + 1] if i + 1 < len(line) else ""
    return bool(before and after) and unicodedata.category(before) == "So" and unicodedata.category(after) == "So"


def scan_line(line: str, first_line: bool = False) -> Iterator[Tuple[int, str, int, str]]:
    """``(col, kind, count, codes)`` of every run of hidden characters on a line (col 1-based,
    codes the run's distinct code points as ``U+XXXX``, comma-separated). ``first_line``: a
    byte order mark at column 1 is the file's encoding signature, not hidden text."""
    run: List[int] = []
    run_kind = ""
    for match in _CANDIDATE.finditer(line):
        i = match.start()
        char = line[i]
        kind = kind_of(char)
        if kind and (ord(char) == _ZWJ and _emoji_joiner(line, i) or ord(char) == _BOM and first_line and i == 0):
            kind = ""
        if run and (kind != run_kind or i != run[-1] + 1):
            yield _run(line, run, run_kind)
            run = []
        if kind:
            run.append(i)
            run_kind = kind
    if run:
        yield _run(line, run, run_kind)


def _run(line: str, run: List[int], kind: str) -> Tuple[int, str, int, str]:
    codes: List[str] = []
    for i in run:
        code = f"U+{ord(line[i]):04X}"
        if code not in codes:
            codes.append(code)
    return run[0] + 1, kind, len(run), ", ".join(codes)


def scan_text(text: str, data: Optional[bytes] = None) -> Iterator[Tuple[int, int, str, int, str]]:
    """``(line, col, kind, count, codes)`` of every hidden run of a text, in order (lines as
    Python ``splitlines`` gives them, numbered from 1). ``data``: the text as UTF-8 (with
    surrogates), when the caller has it."""
    if not _may_hide(text, data):
        return
    for number, line in enumerate(text.splitlines(), 1):
        for col, kind, count, codes in scan_line(line, number == 1):
            yield number, col, kind, count, codes


def _may_hide(text: str, data: Optional[bytes] = None) -> bool:
    """Whether ``text`` holds a character of :data:`_CANDIDATES` (none is ASCII). Only its
    non-ASCII characters are looked at: its UTF-8 bytes less the ASCII ones are still UTF-8
    (no byte of a multi-byte sequence is ASCII), decoded back they are those characters, in
    C; a set lookup per character of the whole text was 4 ms of a 1,000-entry repository's
    scan, whose memory files have a non-ASCII dash in every heading (now 0.5 ms)."""
    if text.isascii():
        return False
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    rest = data.translate(None, _ASCII).decode("utf-8", "surrogatepass")
    return not _CANDIDATES.isdisjoint(rest)


def escape(text: str) -> str:
    """``text`` with every hidden character shown as a Python-style escape (``\\u202e``,
    ``\\U000e0041``), so that what a model reads is what a person sees."""
    def shown(match: "re.Match[str]") -> str:
        char, i = match.group(), match.start()
        if not kind_of(char) or ord(char) == _ZWJ and _emoji_joiner(text, i) or ord(char) == _BOM and i == 0:
            return char
        code = ord(char)
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

    return _CANDIDATE.sub(shown, text)
