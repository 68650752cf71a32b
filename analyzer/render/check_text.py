"""The text output of ``analyze check`` (spec §9): one block per family in the reference's
format, blocks separated by a blank line when several families run (``--all``).

A family's ``block`` names its renderer in :data:`BLOCKS`; a new kind of block (such as the
merge review) adds one function here.
"""

from __future__ import annotations

from typing import Callable, Dict, List

from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Finding
from analyzer.query.scans import scan_lines

MAX_PROOF_FACTS = 5  # project facts listed under a finding's proof in text (JSON has the tree)


def proof_lines(finding: Finding) -> List[str]:
    """With ``--with-proofs``: under a finding, per proof the rule that derived it and the
    project lines it rests on (the first few; ``--format json`` carries the whole tree)."""
    from analyzer.query.proofs import fact_locations

    lines: List[str] = []
    for proof in finding.proofs or ():
        facts = fact_locations(proof)
        lines.append(f"  proof: {proof['relation']} by {proof.get('location') or 'a fact'}"
                     + (", resting on:" if facts else ""))
        lines += [f"    - {text} at {path}:{line}:{col}" for text, path, line, col in facts[:MAX_PROOF_FACTS]]
        if len(facts) > MAX_PROOF_FACTS:
            lines.append(f"    - and {len(facts) - MAX_PROOF_FACTS} more (--format json has the whole proof)")
    return lines


def quality_block(family: FamilyResult) -> List[str]:
    """``MemoryCustodian <name> check: <OK|FAILED>`` then ``- <CODE> <SEVERITY>: <message>``
    per finding, or ``- no findings``. The legacy check has no name in its header."""
    name = family.lines[0] if family.lines else family.name
    status = family.shown_status or family.status
    head = f"MemoryCustodian {name} check: {status}" if name else f"MemoryCustodian check: {status}"
    lines = [head]
    for f in family.findings:
        lines.append(f"- {f.code} {f.severity}: {f.message}")
        lines += proof_lines(f)
    return lines if family.findings else lines + ["- no findings"]


def legacy_block(family: FamilyResult) -> List[str]:
    """Plain `check` (§9.8.1): ``MemoryCustodian check: OK|FAILED``, ``- <issue>`` lines,
    ``Warnings:`` and ``- <warning>`` lines when there are warnings, then the scans' totals."""
    lines = [f"MemoryCustodian check: {family.shown_status or family.status}"]
    lines += [f"- {f.message}" for f in family.findings if f.severity == "ERROR"]
    warnings = [f"- {f.message}" for f in family.findings if f.severity != "ERROR"]
    if warnings:
        lines += ["Warnings:"] + warnings
    return lines + list(family.lines)


def conflicts_block(family: FamilyResult) -> List[str]:
    """``Conflict status: <STATUS>`` then one ``- `` line per finding (§9.4)."""
    lines = [f"Conflict status: {family.shown_status or family.status}"]
    for f in family.findings:
        lines.append(f"- {f.conflict_text()}")
        lines += proof_lines(f)
    return lines


def merge_block(family: FamilyResult) -> List[str]:
    """The merge review block (§9.5): status, merge base and findings, or unavailable."""
    return list(family.lines)


BLOCKS: Dict[str, Callable[[FamilyResult], List[str]]] = {
    "quality": quality_block,
    "conflicts": conflicts_block,
    "legacy": legacy_block,
    "merge": merge_block,
    "scan": scan_lines,
    "agents": lambda family: __import__("analyzer.render.agents_text", fromlist=["agents_block"]).agents_block(family),
}


def render_check_text(result: CheckResult) -> str:
    """The whole stdout of a check run (empty for an error result, which goes to stderr)."""
    if result.failure is not None:
        return ""
    out = ""
    for f in result.families:
        # the merge review prints right below the conflict block it follows (no blank line)
        out += ("" if not out else "\n" if f.block == "merge" else "\n\n") + "\n".join(BLOCKS[f.block](f))
    if any(f.introduced is not None for family in result.families for f in family.findings):
        from analyzer.query.introduced import lines  # `check --introduced` (it loads the Git layer)

        out += "\n\nIntroduced (first-parent history of HEAD):\n" + "\n".join(lines(result))
    gate = result.gate
    if gate is not None and gate["hidden"]:
        # the text says what it leaves out, not only stderr: a filtered FAILED with no line is a puzzle
        out += (f"\n\n{gate['hidden']} finding(s) hidden by --select/--ignore/--baseline; "
                f"exit {result.exit_code} by --fail-on {gate['fail_on']}")
    return out + "\n"
