"""The text output of ``analyze check`` (spec §9): one block per family in the reference's
format, blocks separated by a blank line when several families run (``--all``).

A family's ``block`` names its renderer in :data:`BLOCKS`; a new kind of block (such as the
merge review) adds one function here.
"""

from __future__ import annotations

from typing import Callable, Dict, List

from analyzer.query.check_model import CheckResult, FamilyResult


def quality_block(family: FamilyResult) -> List[str]:
    """``MemoryCustodian <name> check: <OK|FAILED>`` then ``- <CODE> <SEVERITY>: <message>``
    per finding, or ``- no findings``. The legacy check has no name in its header."""
    name = family.lines[0] if family.lines else family.name
    head = f"MemoryCustodian {name} check: {family.status}" if name else f"MemoryCustodian check: {family.status}"
    lines = [head]
    lines += [f"- {f.code} {f.severity}: {f.message}" for f in family.findings] or ["- no findings"]
    return lines


def legacy_block(family: FamilyResult) -> List[str]:
    """Plain `check` (§9.8.1): ``MemoryCustodian check: OK|FAILED``, ``- <issue>`` lines,
    ``Warnings:`` and ``- <warning>`` lines when there are warnings, then the scans' totals."""
    lines = [f"MemoryCustodian check: {family.status}"]
    lines += [f"- {f.message}" for f in family.findings if f.severity == "ERROR"]
    warnings = [f"- {f.message}" for f in family.findings if f.severity != "ERROR"]
    if warnings:
        lines += ["Warnings:"] + warnings
    return lines + list(family.lines)


def conflicts_block(family: FamilyResult) -> List[str]:
    """``Conflict status: <STATUS>`` then one ``- `` line per finding (§9.4)."""
    return [f"Conflict status: {family.status}"] + [f"- {f.conflict_text()}" for f in family.findings]


def merge_block(family: FamilyResult) -> List[str]:
    """The merge review block (§9.5): status, merge base and findings, or unavailable."""
    return list(family.lines)


BLOCKS: Dict[str, Callable[[FamilyResult], List[str]]] = {
    "quality": quality_block,
    "conflicts": conflicts_block,
    "legacy": legacy_block,
    "merge": merge_block,
}


def render_check_text(result: CheckResult) -> str:
    """The whole stdout of a check run (empty for an error result, which goes to stderr)."""
    if result.error is not None:
        return ""
    out = ""
    for f in result.families:
        # the merge review prints right below the conflict block it follows (no blank line)
        out += ("" if not out else "\n" if f.block == "merge" else "\n\n") + "\n".join(BLOCKS[f.block](f))
    return out + "\n"
