"""JSON of ``analyze diff`` (the ``diff.result`` shape in analyzer/contract/registry.py)."""

from __future__ import annotations

from typing import Optional

from analyzer.contract.results import Finding
from analyzer.core.span import Span
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


def as_check_result(result: DiffResult):
    """The diff as a ``check`` result of one family, ``diff``: one INFO finding per change
    (code MA-DIFF-<class>, at the unit's place in the head revision, or for a deleted unit
    where it was there) and one INVALID
    finding per blind spot, so that check's CI renderers print it unchanged."""
    from analyzer.contract.check_model import CheckResult, FamilyResult

    findings = []
    for c in result.changes:
        place = c.annotated  # in the head revision, a deleted unit's too (analyzer/history/head_places.py)
        commits = ", ".join(sha[:12] for sha in c.commits) or "-"
        message = (f"{c.cls}/{c.subkind} {c.kind} {c.ident}: {c.before.path + ':' + str(c.before.line) if c.before else '-'}"
                   f" -> {c.after.path + ':' + str(c.after.line) if c.after else '-'} (commits: {commits})")
        findings.append(Finding(f"MA-DIFF-{c.cls}", "diff", message, severity="INFO", entries=[c.ident],
                                     locations=[Span(place.path, place.line)] if place else []))
    findings += [Finding("MA-DIFF-BLINDSPOT", "diff", s.message, status="INVALID", locations=[Span(s.path, s.line)])
                 for s in result.blindspots]
    family = FamilyResult("diff", "diff", result.status, result.exit_code, findings)
    return CheckResult([family], result.status, result.exit_code)
