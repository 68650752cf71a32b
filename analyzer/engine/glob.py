"""The protocol's glob dialect for manifest ``paths:`` (MemoryCustodian 0.7, §8.1.3).

Segment-based, case-sensitive, full match against a normalized relative path:
``*`` is ``[^/]*``, ``?`` is ``[^/]``, ``**`` as a non-final segment is zero or more whole
segments, ``**`` as the final segment is anything (the ``/`` before it is still required),
every other character is literal. Validity is checked separately by :func:`glob_valid`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Pattern

_DRIVE = re.compile(r"^[A-Za-z]:")
_FORBIDDEN = "[]{}"


def _shape_problem(text: str, noun: str) -> Optional[str]:
    """Problems shared by globs and input paths: empty, backslash, absolute, drive, segments."""
    if not text:
        return f"empty {noun}"
    if "\\" in text:
        return f"backslash in {noun} (use '/')"
    if text.startswith("/"):
        return f"absolute {noun} (must be relative to the project root)"
    if _DRIVE.match(text):
        return f"drive prefix in {noun}"
    for seg in text.split("/"):
        if seg == "":
            return "empty path segment"
        if seg in (".", ".."):
            return f"'{seg}' segment"
    return None


@lru_cache(maxsize=4096)
def glob_valid(glob: str) -> Optional[str]:
    """Return why ``glob`` is not a valid protocol glob, or None when it is valid."""
    bad = sorted({c for c in glob if c in _FORBIDDEN})
    if bad:
        return "character classes and braces are not supported: " + " ".join(bad)
    if "***" in glob:
        return "'***' in glob"
    problem = _shape_problem(glob, "glob")
    if problem:
        return problem
    if any("**" in seg and seg != "**" for seg in glob.split("/")):
        return "'**' must be a whole segment"
    return None


def path_valid(path: str) -> Optional[str]:
    """Return why ``path`` is not a normalized relative input path, or None when it is."""
    return _shape_problem(path, "path")


def _segment_regex(seg: str) -> str:
    out = []
    for ch in seg:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


@lru_cache(maxsize=4096)
def glob_regex(glob: str) -> Pattern[str]:
    """The glob as a regex for ``fullmatch``: the dialect's reference definition.

    Not used for matching (a backtracking regex is exponential on globs such as
    ``*a*a*a*a*b``); kept as the executable definition :func:`glob_match` is tested against.
    """
    segments = glob.split("/")
    parts = []
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg == "**" and i == last:
            # final `**`: anything, but the `/` before it is still required (`web/**` !~ `web`)
            parts.append(".*")
        elif seg == "**":
            parts.append("(?:[^/]+/)*")
        else:
            parts.append(_segment_regex(seg) + ("/" if i < last else ""))
    return re.compile("".join(parts))


class _Segment:
    """One glob segment without ``**``: literal pieces (``?`` = any one character) between ``*``."""

    __slots__ = ("pieces", "exact", "fixed")

    def __init__(self, seg: str):
        self.pieces = seg.split("*")
        self.exact = "*" not in seg
        self.fixed = "?" not in seg  # pieces are plain strings: str.find and friends apply

    def match(self, text: str) -> bool:
        """Full match of one path segment, greedy leftmost: O(len(text) * len(segment))."""
        pieces = self.pieces
        if self.exact:
            return len(text) == len(pieces[0]) and _piece_at(pieces[0], text, 0, self.fixed)
        first, last = pieces[0], pieces[-1]
        end = len(text) - len(last)
        if end < len(first) or not _piece_at(first, text, 0, self.fixed) \
                or not _piece_at(last, text, end, self.fixed):
            return False
        pos = len(first)
        for piece in pieces[1:-1]:  # each middle piece at its leftmost place: never worse
            pos = _find(piece, text, pos, end, self.fixed)
            if pos < 0:
                return False
            pos += len(piece)
        return True


def _piece_at(piece: str, text: str, pos: int, fixed: bool) -> bool:
    if fixed:
        return text.startswith(piece, pos)
    if pos + len(piece) > len(text):
        return False
    return all(p == "?" or p == text[pos + i] for i, p in enumerate(piece))


def _find(piece: str, text: str, start: int, end: int, fixed: bool) -> int:
    """Leftmost index >= start where ``piece`` fits entirely before ``end``, or -1."""
    if fixed:
        return text.find(piece, start, end)
    for pos in range(start, end - len(piece) + 1):
        if _piece_at(piece, text, pos, False):
            return pos
    return -1


@lru_cache(maxsize=4096)
def _compiled(glob: str) -> tuple:
    """Per glob segment: None for ``**``, else a :class:`_Segment`."""
    return tuple(None if seg == "**" else _Segment(seg) for seg in glob.split("/"))


def glob_match(glob: str, path: str) -> bool:
    """True when ``path`` fully matches the valid glob ``glob``; invalid globs match nothing.

    No backtracking: the set of path-segment positions each glob segment can start at is
    carried forward (dynamic programming over segments), so the cost is at most
    O(len(glob) * len(path)) whatever the glob, where a backtracking regex is exponential.
    """
    if glob_valid(glob) is not None:
        return False
    segments = _compiled(glob)
    parts = path.split("/")
    last_part = len(parts) - 1
    reach = [True] + [False] * last_part  # reach[j]: the next glob segment may start at parts[j]
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg is None and i == last:
            return any(reach)  # final `**`: any rest, after the required `/`
        if i == last:
            return reach[last_part] and seg.match(parts[last_part])
        if seg is None:  # `**/`: zero or more whole non-empty segments
            for j in range(1, last_part + 1):
                if not reach[j] and reach[j - 1] and parts[j - 1]:
                    reach[j] = True
        else:  # one segment and its `/`
            reach = [False] + [reach[j] and seg.match(parts[j]) for j in range(last_part)]
        if not any(reach):
            return False
    return False


def glob_match_under(glob: str, directory: str) -> bool:
    """True when some path strictly under ``directory`` (``directory/…``, one segment or more)
    fully matches the valid glob ``glob``: a directory given as a touched path selects what a
    file under it would (``web`` selects ``web/**`` and ``**/*.ts``). Invalid globs match nothing.

    The glob's segments consume the directory's segments (``**`` zero or more of them); the
    directory is inside the glob's reach when a state consumes all of them with a glob segment
    still left, since any segment left can match some name below it. O(len(glob) * len(path)).
    """
    if glob_valid(glob) is not None or path_valid(directory) is not None:
        return False
    segments = _compiled(glob)
    parts = directory.split("/")
    last = len(segments) - 1
    # reach[j]: the next glob segment may start at parts[j] (j == len(parts): past the directory)
    reach = [True] + [False] * len(parts)
    for i, seg in enumerate(segments):
        if reach[len(parts)]:
            return True  # the directory is consumed and segments i.. remain for what lies below
        if seg is None and i == last:
            return True  # final `**` from any reached place matches every path below it
        if seg is None:
            for j in range(1, len(parts) + 1):
                if not reach[j] and reach[j - 1]:
                    reach[j] = True
        else:
            reach = [False] + [reach[j] and seg.match(parts[j]) for j in range(len(parts))]
        if not any(reach):
            return False
    return False
