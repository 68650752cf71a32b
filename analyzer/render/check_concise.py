"""``analyze check --format concise``: one line per finding, ``path:line:col: CODE message``,
the convention of compilers, ruff and flake8 that editors and terminals turn into links.

Paths are relative to the project root; a finding with no location prints ``CODE message``
alone. A last line gives the count and the overall status (of what a filtered run shows). Only the order and the words of the
result are used: nothing is decided here.
"""

from __future__ import annotations

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding
from analyzer.render import findings as common


def line(finding: Finding) -> str:
    """One finding as ``path:line:col: CODE message (WORD)``; merge-review lines say their revision."""
    where = ""
    if finding.locations:
        first = finding.locations[0]
        where = f"{first.path}:{first.line}:{first.col}: "
    note = common.revision_note(finding, 0)
    tail = f" ({common.word(finding)}{'; ' + note if note else ''})" if common.word(finding) or note else ""
    return f"{where}{finding.code} {' '.join(finding.message.split())}{tail}"


def render_concise(result: CheckResult) -> str:
    """Every finding's line, then ``Found N finding(s): STATUS (exit E)``; an error is its own
    ``path:line:col: CODE message`` line."""
    if result.failure is not None:
        where = f"{result.failure.where.path}:{result.failure.where.line}:{result.failure.where.col}: " if result.failure.where.path else ""
        return f"{where}{result.failure.code} {result.failure.message}\n"
    found = common.all_findings(result)
    lines = [line(f) for f in found]
    noun = "finding" if len(found) == 1 else "findings"
    lines.append(f"Found {len(found)} {noun}: {result.shown_status or result.status} (exit {result.exit_code})")
    return "\n".join(lines) + "\n"
