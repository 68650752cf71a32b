"""Text and JSON of an autonomy check (the ``check.autonomy`` shape)."""

from __future__ import annotations

from typing import List

from analyzer.contract.results import Finding
from analyzer.query.autonomy import AutonomyResult, unit_of
from analyzer.render.diff_json import diff_payload


def render_autonomy_text(result: AutonomyResult) -> str:
    """The level, the status, one line per finding, blind spots and the change counts."""
    diff = result.diff
    head = diff.head_ref or "worktree"
    lines: List[str] = [f"Autonomy check: {result.effective} (requested {result.requested}), "
                        f"changes {diff.base_ref} -> {head}"]
    lines += [judged_line(result)] if result.merge_base else []
    lines.append(f"Autonomy status: {result.status}")
    for f in result.findings:
        where = f" ({f.primary.path}:{f.primary.line})" if f.primary else ""
        lines.append(f"- {f.code} {f.status} {unit_of(f)[1]}: {f.message}{where}")
    for spot in diff.blindspots:
        lines.append(f"- BLINDSPOT {spot.path}:{spot.line} ({spot.revision}): {spot.message}")
    lines.append("Changes: " + ", ".join(f"{cls} {n}" for cls, n in diff.counts().items()))
    return "\n".join(lines) + "\n"


def judged_line(result: AutonomyResult) -> str:
    """Which commit the changes were judged from, when it is not the base's own."""
    return (f"Judged from the merge base {result.merge_base[:12]} of {result.diff.base_ref} and "
            f"{result.diff.head_ref or 'HEAD'}")


def autonomy_payload(result: AutonomyResult) -> dict:
    """The autonomy check as plain JSON data (its diff as in ``diff.result``; ``merge_base``
    null when the base is an ancestor of the head, so that the diff's base is the base's)."""
    diff = diff_payload(result.diff)
    merge_base = ({"commit": result.merge_base, "base_commit": result.base_commit,
                   "head_commit": result.head_commit} if result.merge_base else None)
    return {"status": result.status, "exit_code": result.exit_code, "requested": result.requested,
            "effective": result.effective, "merge_base": merge_base, "missing_readings": list(result.missing),
            "findings": [finding_payload(f) for f in result.findings],
            "diff": {k: v for k, v in diff.items() if k != "status"} | {"diff_status": diff["status"]}}


def finding_payload(finding: Finding) -> dict:
    """One autonomy finding as the JSON document shows it (``path``/``line`` null: no place)."""
    kind, ident = unit_of(finding)
    where = finding.primary
    return {"code": finding.code, "status": finding.status, "kind": kind, "id": ident, "message": finding.message,
            "path": where.path if where else None, "line": (where.line or None) if where else None}

