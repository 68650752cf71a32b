"""Text output of the Subject commands (spec §9.6)."""

from __future__ import annotations

from typing import Sequence

from analyzer.query.merge_preview import APPLY, FUTURE, reference_line


def render_subject_list(rows: Sequence[tuple]) -> str:
    """``Active subjects:`` and ``- <ID>: <title> (<kind>)[ [<Canonical-Ref>]]`` per Subject."""
    lines = ["Active subjects:"]
    for _, shown, title, kind, ref in rows:
        lines.append(f"- {shown}: {title} ({kind})" + (f" [{ref}]" if ref else ""))
    if len(lines) == 1:
        lines.append("- none")
    return "\n".join(lines) + "\n"


def render_merge_preview(preview) -> str:
    """The `subject merge` preview block, ending with the Protocol 0.8 notice."""
    blockers = [f"- {m}" for m in preview.required] + [f"- {b.message}" for b in preview.blockers]
    lines = [
        "Subject merge preview:",
        f"Source: {preview.source.id} — {preview.source.title}",
        f"Target: {preview.target.id} — {preview.target.title}",
        "Source registry unit:", preview.source.unit,
        "Target registry unit:", preview.target.unit,
        "Current references planned for future mutation:",
        *([reference_line(r) for r in preview.current] or ["- none"]),
        "Historical references retained without mechanical rewrite:",
        *([reference_line(r) for r in preview.historical] or ["- none"]),
        "Alias/Canonical-Ref review:", *([f"- {m}" for m in preview.reviews] or ["- none"]),
        "Required reconciliation/blockers:", *(blockers or ["- none"]),
        f"Plan ID: {preview.plan_id}", FUTURE, APPLY,
    ]
    return "\n".join(lines) + "\n"
