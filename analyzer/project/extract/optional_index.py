"""`## Optional module index` of manifest.md -> neutral ``man_index_*`` facts (spec §4.4, legacy §4.6).

What the index says, line by line: its headings, and per line its grammar kind, its form and
its parts (a module line's path, a key line's key and value, the items of ``tasks:`` and the
code spans of ``paths:``). Which subsections count, which declarations hold and every
message are derived by rules/manifest/index.dl (analyzer/project/extract/manifest.py judges them).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional

from analyzer.project.extract.grammars import parser, terminal
from analyzer.project.markdown import Lexed

INDEX_TITLE = "optional module index"
KEY_RE = re.compile(r"^  - ([a-z-]+):\s*(.*)$")
MODULE_RE = re.compile(r"^- `([^`]*)`(.*)$")


def _code_spans(value: str) -> Optional[List[str]]:
    """The tokens of ``paths_value`` (grammar/manifest.lark) when ``value`` lexes as code spans
    and separators, else None: the lexer of that rule, on the grammar's own terminals."""
    span, sep = terminal("manifest", "CODE_SPAN").match, terminal("manifest", "_PATH_SEP").match
    found = []
    m = span(value)
    while m is not None:
        found.append(m.group())
        if m.end() == len(value):
            return found
        m = sep(value, m.end())
        m = m and span(value, m.end())
    return None


def _parse_paths(value: str) -> Optional[List[str]]:
    """Parse a ``paths:`` value with grammar/manifest.lark; None when it is not code spans."""
    spans = _code_spans(value.strip())
    if spans is None:  # the parser decides what does not lex
        from lark.exceptions import LarkError

        try:
            tree = parser("manifest", ("start", "paths_value")).parse(value.strip(), start="paths_value")
        except LarkError:
            return None
        spans = [str(tok) for tok in tree.children]
    return [span[1:-1].strip() for span in spans]


def _form(line: str, kind: str) -> str:
    """The form of an index line: sentinel, module, key, dash (another list item) or text."""
    if kind == "sentinel":
        return "sentinel"
    if kind == "module_line":
        return "module"
    if KEY_RE.match(line):
        return "key"
    if line.startswith("- ") or line.startswith("  - "):
        return "dash"
    return "text"


def _line_facts(line: str, number: int, form: str, facts) -> None:
    """Note the parts of a module or key line (1-based line ``number``)."""
    if form == "module":
        m = MODULE_RE.match(line)
        path, rest = m.group(1).strip(), m.group(2).strip()
        facts.add("man_module_line", number, path, rest, rest[1:].strip() if rest.startswith(":") else rest)
        facts.quote(path)
    elif form == "key":
        m = KEY_RE.match(line)
        key, value = m.group(1), m.group(2).strip()
        facts.add("man_key_line", number, key, value)
        facts.quote(key)
        facts.quote(value)
        if key == "tasks":
            for k, token in enumerate((t.strip() for t in value.split(",")), 1):
                facts.add("man_task_token", number, k, token)
                facts.quote(token)
        elif key == "paths":
            globs = _parse_paths(value)
            if globs is None:
                facts.add("man_paths_unparsed", number)
            for k, glob in enumerate(dict.fromkeys(globs or ()), 1):
                facts.add("man_glob_token", number, k, glob)
                facts.quote(glob)


def index_facts(lexed: Lexed, kinds: Dict[int, str], facts) -> None:
    """Note the index sections, and the headings and lines of the first one."""
    indexes = [k for k, h in enumerate(lexed.headings) if h.level == 2 and h.title == INDEX_TITLE]
    for k in indexes:
        facts.add("man_index_section", lexed.headings[k].index + 1)
    if not indexes:
        return
    start, end = lexed.headings[indexes[0]].index, lexed.section_end(indexes[0])
    segment = start
    heads = {h.index: h for h in lexed.headings if start < h.index < end}
    for i in range(start + 1, end):
        h = heads.get(i)
        if h is not None:
            facts.add("man_index_heading", i + 1, h.level, h.title, h.raw_title)
            segment = i
            continue
        line, kind = lexed.lines[i], kinds.get(i, "")
        if not lexed.structural(i) or not (kind or line.strip()):
            continue
        form = _form(line, kind) if line.strip() else "blank"
        facts.add("man_index_line", i + 1, segment + 1, kind, form, line.strip())
        _line_facts(line, i + 1, form, facts)
