"""Text and JSON of ``analyze restore --preview`` (the ``restore.result`` shape)."""

from __future__ import annotations

from typing import List

from analyzer.query.restore import RestoreResult, commit_of

WHY = {"UNKNOWN": "neither revision holds this ID", "UNCHANGED": "the unit did not change: nothing to restore",
       "BLINDSPOT": "the unit's change cannot be read (a blind spot): no restore is offered"}


def render_restore_text(result: RestoreResult) -> str:
    """Status, the change undone, warnings, the base unit and the patch."""
    lines: List[str] = [f"Restore preview: {result.ident} to {result.diff.base_ref} "
                        f"in {result.diff.head_ref or 'worktree'}", f"Status: {result.status}"]
    if result.status in WHY:
        lines.append(WHY[result.status])
        if result.status == "BLINDSPOT":  # where: the unit's own blind spots, or its file's
            spots = result.diff.blindspots
            mine = [s for s in spots if s.ident.casefold() in (result.ident.casefold(), "")] or spots
            lines += [f"{s.path}:{s.line}:1: BLINDSPOT ({s.revision}): {s.message}" for s in mine]
        return "\n".join(lines) + "\n"
    lines.append(f"Undoes: {result.cls}/{result.subkind} {result.kind}")
    lines += [f"- {f.code} {f.status}: {f.message}" for f in result.findings]
    lines.append("Unit at the base:" if result.base_text is not None else "Unit at the base: (none; the patch removes it)")
    if result.base_text is not None:
        lines += ["", result.base_text, ""]
    lines.append("Patch (check with `git apply --check`; nothing was applied):")
    return "\n".join(lines) + "\n" + result.patch


def restore_payload(result: RestoreResult) -> dict:
    """The preview as plain JSON data."""
    return {"status": result.status, "exit_code": result.exit_code, "id": result.ident,
            "base": {"ref": result.diff.base_ref, "commit": result.diff.base},
            "head": {"ref": result.diff.head_ref or "worktree", "commit": result.diff.head or None},
            "kind": result.kind or None, "class": result.cls or None, "subkind": result.subkind or None,
            "base_text": result.base_text, "patch": result.patch,
            "findings": [{"code": f.code, "status": f.status, "commit": commit_of(f), "message": f.message}
                         for f in result.findings]}
