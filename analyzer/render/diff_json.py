"""JSON of ``analyze diff`` (the ``diff.result`` shape in analyzer/contract/registry.py)."""

from __future__ import annotations

from typing import Optional

from analyzer.query.diff import DiffResult, Place


def _place(place: Optional[Place]):
    return {"path": place.path, "line": place.line} if place else None


def diff_payload(result: DiffResult) -> dict:
    """The diff as plain JSON data."""
    return {
        "status": result.status,
        "exit_code": result.exit_code,
        "base": {"ref": result.base_ref, "commit": result.base},
        "head": {"ref": result.head_ref or "worktree", "commit": result.head or None},
        "counts": result.counts(),
        "changes": [{"id": c.ident, "kind": c.kind, "class": c.cls, "subkind": c.subkind,
                     "before": _place(c.before), "after": _place(c.after), "commits": list(c.commits)}
                    for c in result.changes],
        "blindspots": [{"revision": s.revision, "commit": s.commit or None, "path": s.path, "line": s.line,
                        "id": s.ident or None, "message": s.message} for s in result.blindspots],
    }

