"""Text rendering of ``analyze read`` in the reference layout (spec §8.8)."""

from __future__ import annotations

from typing import List, Optional

from analyzer.contract.read_model import ModuleView, ReadResult
from analyzer.contract.results import Failure

GROUPS = (
    ("Loaded:", "loaded"),
    ("Skipped optional:", "skipped"),
    ("Missing required:", "missing-required"),
    ("Missing optional:", "missing-optional"),
    ("Invalid:", "invalid"),
)
LOCAL_PRECEDENCE = "  Precedence: below shared constraints, tombstones, decisions, and rules"
INVALID_PREFIX = "Error: Routing input or manifest is invalid: "  # the reference's stderr line (§8.3)


def error_line(failure: Optional[Failure]) -> Optional[str]:
    """The reference's stderr line of an INVALID read (§8.3; JSON's ``error``), None when the
    read did not fail: ``Error: Routing input or manifest is invalid: <error>``."""
    return None if failure is None else INVALID_PREFIX + failure.message


def overlay_dir_text(local_dir) -> str:
    """Where the local overlay was looked for, in words (``analyze read --explain``)."""
    if local_dir is None:
        return "not consulted (--no-local)"
    path, state = local_dir
    return {"disabled": "none (the shared manifest is not an exact, valid Protocol 0.7 contract)",
            "absent": f"{path} (does not exist)", "present": f"{path}",
            "unsafe": f"{path} (unsafe: not a private directory of this user)"}.get(state, f"{path} ({state})")


def render_read_text(result: ReadResult, *, explain: bool, names_only: bool) -> str:
    """Render the context pack report; module contents follow unless ``names_only``."""
    return "\n".join(read_text_lines(result, explain=explain, names_only=names_only)) + "\n"


def read_text_lines(result: ReadResult, *, explain: bool, names_only: bool) -> List[str]:
    """The lines of :func:`render_read_text`, without their newlines. The console writes
    them one by one: a report whose findings list every ID of a large file is tens of
    megabytes, and joining it whole cost three more copies of it in memory."""
    out: List[str] = ["# Memory Context Pack", f"Task: {result.task}"]
    out.append(f"Canonical task: {result.canonical_task or '<invalid>'}")
    out.append("Paths:")
    if result.paths:
        out += [f"- {p}{' (missing-on-disk)' if missing else ''}" for p, missing in result.paths]
    else:
        out.append("- none supplied")
    out.append("Explicit scope:")
    out += [f"- {e}" for e in result.explicit] or ["- none supplied"]
    out.append(f"Routing completeness: {result.completeness}")
    if result.shared_completeness != result.completeness:
        out.append(f"Shared routing completeness: {result.shared_completeness}")
    out.append(f"Local overlay status: {result.local_status}")
    out += [f"- {w}" for w in result.local_warnings]
    if result.local_loaded:
        out.append("Local loaded:")
        for name in result.local_loaded:
            out.append(f"- {name}")
            if explain:
                out.append(LOCAL_PRECEDENCE)
    for heading, disposition in GROUPS:
        out.append(heading)
        mods = result.modules_with(disposition)
        if not mods:
            out.append("- none")
        for mod in mods:
            out += _module_lines(mod, explain)
    if explain:
        out += [
            "Policy exclusions:",
            "- inbox.md: candidate/maintenance-only; excluded from normal task context",
            "- archive/: explicit maintenance only; archive files were not enumerated",
            "Incomplete dimensions:",
        ]
        out += [f"- {d}" for d in result.incomplete_dimensions] or ["- none"]
    out.append("Budget omissions:")
    if not result.omissions:
        out.append("- none")
    for om in result.omissions:
        out.append(f"- {om.unit}")
        if explain:
            out += [f"  Module: {om.module}", "  Disposition: omitted-by-budget", "  Reason: MC-OMIT-BUDGET"]
    if result.oversized:
        out.append("Oversized atomic entries:")
        out += [
            f"- {m}: one atomic entry exceeds the {b}-token budget and was included whole"
            for m, b in result.oversized
        ]
    out.append(f"Conflict status: {result.conflict_status}")
    out += [f"- {f.conflict_text()}" for f in result.conflict_findings]
    if result.warnings:
        out.append("Warnings:")
        out += [f"- {w}" for w in result.warnings]
    out += [f"Warning: {w}" for w in result.local_scope_warnings]
    if result.notice:
        out.append(result.notice)
    if not names_only:
        for section in result.sections + result.local_sections:
            out += ["", f"## {section.title}", "", section.text]
    return out


def _module_lines(mod: ModuleView, explain: bool) -> List[str]:
    lines = [f"- {mod.path}"]
    if not explain:
        return lines
    lines.append(f"  Disposition: {mod.disposition}")
    detail = f" ({'; '.join(mod.details)})" if mod.details else ""
    lines.append(f"  Reason: {mod.primary_reason}{detail}")
    if mod.matching_input:
        lines.append(f"  Matching input: {mod.matching_input}")
    return lines
