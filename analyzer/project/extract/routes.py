"""`## Always load` and `## Load by task` of manifest.md -> neutral ``man_route_*`` facts (spec §4.3).

What the route sections say: where each section and level-3 heading is, and each list item
and other line of their bodies. Which headings count, which names are routed (the ``route``
facts) and every message are derived by rules/manifest/routes.dl (analyzer/project/extract/manifest.py
judges them).
"""

from __future__ import annotations

from analyzer.project.extract.paths import strip_code_span
from analyzer.project.markdown import Lexed

SECTIONS = {"always load": "always", "load by task": "by_task"}


def route_facts(lexed: Lexed, facts) -> None:
    """Note the route sections, every level-3 heading, and the lines of their bodies."""
    facts.add("man_last_line", max(len(lexed.lines) - 1, 0) + 1)
    for k, h in enumerate(lexed.headings):
        if h.level == 2 and h.title in SECTIONS:
            facts.add("man_route_section", h.index + 1, SECTIONS[h.title], lexed.section_end(k) + 1)
        elif h.level == 3:
            facts.add("man_h3", h.index + 1, h.title, h.raw_title)
        else:
            continue
        _body(lexed, k, facts)


def _body(lexed: Lexed, head: int, facts) -> None:
    """Note the list items (names, code span stripped) and the other lines of a section's body."""
    at = lexed.headings[head].index + 1
    for i in range(at, lexed.section_end(head)):
        if not lexed.structural(i):
            continue
        stripped = lexed.lines[i].strip()
        if stripped.startswith("- "):
            name = strip_code_span(stripped[2:].strip())
            facts.add("man_route_item", at, i + 1, lexed.lines[i].find("-") + 1, name)
            facts.quote(name)
        elif stripped:
            facts.add("man_route_text", at, i + 1, stripped.casefold())
