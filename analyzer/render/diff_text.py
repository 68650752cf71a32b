"""Text output of ``analyze diff``: a header, one line per change, blind spots, counts."""

from __future__ import annotations

from typing import List, Optional

from analyzer.query.diff import DiffResult, Place


def _place(place: Optional[Place]) -> str:
    return f"{place.path}:{place.line}" if place else "-"


def _rev(label: str, sha: str) -> str:
    return f"{label} ({sha[:12]})" if sha else label


def render_diff_text(result: DiffResult) -> str:
    """The diff as text: every change as ``CLASS/subkind ID before -> after [commits]``."""
    lines: List[str] = [f"Memory diff: {_rev(result.base_ref, result.base)} -> "
                        f"{_rev(result.head_ref or 'worktree', result.head)}",
                        f"Status: {result.status}"]
    for change in result.changes:
        commits = ", ".join(sha if sha == "worktree" else sha[:12] for sha in change.commits) or "-"
        lines.append(f"- {change.cls}/{change.subkind} {change.kind} {change.ident}: "
                     f"{_place(change.before)} -> {_place(change.after)} (commits: {commits})")
    for spot in result.blindspots:
        what = f" {spot.ident}" if spot.ident else ""
        lines.append(f"- BLINDSPOT{what} {spot.path}:{spot.line} ({_rev(spot.revision, spot.commit)}): {spot.message}")
    counts = result.counts()
    lines.append("Counts: " + ", ".join(f"{cls} {n}" for cls, n in counts.items()))
    if result.blindspots:
        lines.append("Some units could not be read; their changes are not classified.")
    return "\n".join(lines) + "\n"
