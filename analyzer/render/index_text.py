"""Text output of the ID index commands (spec §9.7)."""

from __future__ import annotations

from typing import List, Sequence, Tuple


def render_list(rows: Sequence) -> str:
    """``Canonical memory entries:`` and one ``- <ID> [<status>; <scope>] <source>`` per row."""
    lines = ["Canonical memory entries:"]
    lines += [f"- {r.id} [{r.status}; {r.scope}] {r.source}" for r in rows] or ["- none"]
    return "\n".join(lines) + "\n"


def render_show(source: str, subjects: Sequence[Tuple[str, str]], unit: List[str]) -> str:
    """``Source:``, the Subject lines of an entry with a Subject, a blank line, the unit text."""
    lines = [f"Source: {source}"]
    for historical, current in subjects:
        lines += [f"Historical Subject ID: {historical}", f"Current canonical Subject ID: {current}"]
    return "\n".join(lines + [""] + unit) + "\n"
