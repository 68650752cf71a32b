"""The result model of ``analyze check``: plain dataclasses selected from derived relations.

Nothing here decides anything: :mod:`analyzer.query.check_families` fills these from the
relations rules/check/*.dl derive, and :mod:`analyzer.render.check_text` and
:mod:`analyzer.render.check_json` print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from analyzer.contract.results import Failure, Finding
from analyzer.core.span import Span

@dataclass
class FamilyResult:
    """The outcome of one check family: its status word, exit status and findings (in
    display order). ``block`` names the text block renderer (analyzer/render/check_text.py)."""

    name: str
    block: str
    status: str
    exit_code: int
    findings: List[Finding] = field(default_factory=list)
    lines: List[str] = field(default_factory=list)  # extra block lines a family may carry
    # the codes a rule-pack family declares: code -> (title, explanation, severity, @help URL or "")
    codes: Dict[str, Tuple[str, str, str, str]] = field(default_factory=dict)
    # derived tuples a renderer shows as they are, by relation (the report's matrix and graph)
    relations: Dict[str, list] = field(default_factory=dict)
    # after --select/--ignore/--baseline hid some of its findings: how many, and the status
    # word of what is left (text shows it; JSON keeps the rules' status and the gate summary)
    hidden: int = 0
    shown_status: Optional[str] = None


@dataclass
class CheckResult:
    """Everything one ``analyze check`` run reports: each family in run order, the overall
    status (the worst family's word) and exit status (the worst family's), or why it could not run."""

    families: List[FamilyResult]
    status: str
    exit_code: int
    failure: Optional[Failure] = None
    merge: Optional[object] = None  # the MergeResult of --merge-base (analyzer/query/merge.py)
    # what --select/--ignore/--baseline/--fail-on did (analyzer/commands/gating.py); None without them
    gate: Optional[dict] = None
    # lines the summary of the CI formats prints below the status (the autonomy check's merge base)
    notes: List[str] = field(default_factory=list)


def one_family(name: str, status: str, exit_code: int, findings: List[Finding], notes: List[str] = ()) -> CheckResult:
    """A command's findings as check's result of one family, ``name`` (``diff``, ``autonomy``),
    so that check's CI renderers print them: the family's status and exit status are the run's."""
    return CheckResult([FamilyResult(name, name, status, exit_code, list(findings))], status, exit_code,
                       notes=list(notes))


def failed_run(message: str, code: str, path: str = "", line: int = 1, col: int = 1) -> CheckResult:
    """A run that could not happen, as check's error result (exit 2), for the commands that
    print check's formats (``diff``, ``check --autonomy``): ``path`` is the file at fault, ""
    when no file is (a Git failure), and the renderers then name no location."""
    return CheckResult([], "INVALID", 2, failure=Failure(code, message, Span(path, line, col) if path else None))

