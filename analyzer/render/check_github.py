"""``analyze check --format github``: one GitHub Actions workflow command per finding, which
the runner turns into an annotation on the file and line::

    ::error file=docs/memory/decisions.md,line=12,col=1,title=MC-CONFLICT-001::message

Levels: ``error``, ``warning``, ``notice`` (the SARIF level ``note``). Escaping is GitHub's:
in the message ``%``, CR and LF become ``%25``, ``%0D``, ``%0A``; in property values ``:`` and
``,`` become ``%3A`` and ``%2C`` as well. Paths are relative to the repository root. When
``$GITHUB_STEP_SUMMARY`` names a file, the Markdown report is appended to it too.
"""

from __future__ import annotations

from typing import List

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding
from analyzer.project import vocab
from analyzer.render import findings as common


def escape_data(text: str) -> str:
    """A workflow command's message, escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding, prefix: str) -> str:
    """The workflow command of one finding (its first location; the others in the message)."""
    props: List[str] = []
    where = common.shown_locations(finding)
    if where:
        first = where[0]
        props.append(f"file={escape_property(common.repo_path(first, prefix))}")
        if first.line > 0:  # line 0: the file itself (a deleted unit's file the head no longer has)
            props += [f"line={first.line}", f"col={first.col}"]
    props.append(f"title={escape_property(finding.code)}")
    # a merge review's lines are in Git revisions: say which
    notes = [common.revision_note(finding, n) for n in range(len(where))]
    side = f"; {notes[0]}" if notes and notes[0] else ""
    message = f"{finding.message} ({finding.family}, {common.word(finding)}{side})"
    others = [common.repo_path(l, prefix) + (f":{l.line}" if l.line > 0 else "") + (f" ({note})" if note else "")
              for l, note in zip(where[1:], notes[1:])]
    if others:
        message += "\nAlso: " + ", ".join(others)
    return f"::{vocab.mapping('level_github')[common.level(finding)]} {','.join(props)}::{escape_data(message)}"


def render_github(result: CheckResult, prefix: str = "") -> str:
    """Every finding's command, then a ``::notice`` with the overall status (or the error); a
    filtered run's notice gives the status of what it shows and how many findings were hidden."""
    if result.failure is not None:
        where = (f"file={escape_property(prefix + result.failure.where.path)},line={result.failure.where.line},col={result.failure.where.col},"
                 if result.failure.where.path else "")  # a Git failure: no file is at fault
        return f"::error {where}title={escape_property(result.failure.code)}::{escape_data(result.failure.message)}\n"
    lines = [command(f, prefix) for f in common.all_findings(result)]
    # a filtered run: the status of what is shown (as the text), and how much the gate hid
    families = ", ".join(f"{f.name} {f.shown_status or f.status}" for f in result.families)
    summary = f"check {result.shown_status or result.status} (exit {result.exit_code}): {families}"
    if result.gate is not None and result.gate["hidden"]:
        summary += f"; {result.gate['hidden']} finding(s) hidden by --select/--ignore/--baseline"
    lines.append(f"::notice title=memory-analyzer::{escape_data(summary)}")
    return "\n".join(lines) + "\n"
