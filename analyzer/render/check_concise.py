"""``analyze check --format concise``: one line per finding, ``path:line:col: CODE message``,
the convention of compilers, ruff and flake8 that editors and terminals turn into links.

Paths are relative to the project root; a finding with no location prints ``CODE message``
alone. With ``--introduced`` the parenthesis also says where the finding started. A last line
gives the count and the overall status (of what a filtered run shows). Only the order and the
words of the result are used: nothing is decided here.
"""

from __future__ import annotations

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding
from analyzer.render import findings as common


def line(finding: Finding) -> str:
    """One finding as ``path:line:col: CODE message (WORD)``; merge-review lines say their
    revision, and ``check --introduced`` where the finding started, as the text's block does."""
    where = ""
    if finding.locations:
        first = finding.locations[0]
        where = f"{first.path}:{first.line}:{first.col}: "
    intro = getattr(finding, "introduced", None)
    notes = [common.word(finding), common.revision_note(finding, 0), intro.words() if intro is not None else ""]
    tail = f" ({'; '.join(n for n in notes if n)})" if any(notes) else ""
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
