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
    """Compile a (valid) glob into a regex to be used with ``fullmatch``."""
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


def glob_match(glob: str, path: str) -> bool:
    """True when ``path`` fully matches the valid glob ``glob``; invalid globs match nothing."""
    if glob_valid(glob) is not None:
        return False
    return glob_regex(glob).fullmatch(path) is not None
