"""The extended glob dialect of the agent tools (``glob_match_ext``): the picomatch/minimatch
family that Claude Code, Cursor, VS Code (Copilot) and Windsurf match instruction globs with.

Full match against a normalized relative path, case-sensitive: ``*`` is ``[^/]*``, ``?`` is
``[^/]``, ``**`` as a whole segment is zero or more segments, ``[abc]``/``[!abc]``/``[^abc]``
are character classes, ``{a,b}`` are alternatives (nested allowed). A leading ``./`` is
ignored. Whether a glob with no ``/`` matches the file name at any depth is a tool's choice,
made in its rule file (rules/agents/*.dl), not here. An unbalanced ``[`` or ``{`` is literal.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Pattern


def _alternatives(text: str, start: int):
    """Parse ``{…}`` starting after the ``{`` at ``start``: (list of alternatives, end index
    after ``}``) or None when it is not closed."""
    depth, parts, buf, i = 0, [], "", start
    while i < len(text):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return parts + [buf], i + 1
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(buf)
            buf = ""
            i += 1
            continue
        buf += ch
        i += 1
    return None


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:[^/]*/)*")
            i += 3
        elif glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and i + 2 == len(glob):
            out.append(".*")
            i += 2
        elif ch == "*":
            while i < len(glob) and glob[i] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = glob.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
                i += 1
                continue
            body = glob[i + 1:end]
            if body[:1] in "!^":
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("/", "") + "]")
            i = end + 1
        elif ch == "{":
            parsed = _alternatives(glob, i + 1)
            if parsed is None:
                out.append(re.escape(ch))
                i += 1
                continue
            parts, i = parsed
            out.append("(?:" + "|".join(_translate(p) for p in parts) + ")")
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


@lru_cache(maxsize=4096)
def ext_regex(glob: str) -> Optional[Pattern[str]]:
    """The compiled regex of ``glob`` (None when it cannot be compiled)."""
    if glob.startswith("./"):
        glob = glob[2:]
    try:
        return re.compile(_translate(glob))
    except re.error:
        return None


def glob_match_ext(glob: str, path: str) -> bool:
    """Whether ``glob`` matches the whole of ``path`` in the extended dialect."""
    pattern = ext_regex(glob)
    return pattern is not None and pattern.fullmatch(path) is not None
