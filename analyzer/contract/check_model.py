"""The result model of ``analyze check``: plain dataclasses selected from derived relations.

Nothing here decides anything: :mod:`analyzer.query.check_families` fills these from the
relations rules/check/*.dl derive, and :mod:`analyzer.render.check_text` and
:mod:`analyzer.render.check_json` print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from analyzer.contract.read_model import conflict_line
from analyzer.core.span import Span

#: A line a finding is about: path relative to the project root, 1-based line and column.
Location = Span


@dataclass
class CheckFinding:
    """One finding of one family. Quality checks carry a ``severity`` (ERROR/WARNING/INFO),
    conflict-style families a ``status`` (REVIEW/CONFLICT/INVALID, or ERROR for a contract
    failure shown in the conflict block)."""

    code: str
    family: str
    message: str
    severity: Optional[str] = None
    status: Optional[str] = None
    entries: List[str] = field(default_factory=list)
    subject: str = ""
    facet: str = ""
    scopes: List[str] = field(default_factory=list)
    locations: List[Location] = field(default_factory=list)
    #: per location, the Git revision its line is in: (label, commit), the label "merge base",
    #: "HEAD" or the ref as given; only a merge review finding has them (empty: the work tree)
    revisions: List[Tuple[str, str]] = field(default_factory=list)
    proofs: Optional[list] = None  # proof trees, with `check --with-proofs` (analyzer/query/proofs.py)
    introduced: Optional[object] = None  # where it started, with `check --introduced` (analyzer/query/introduced.py)
    #: the one entry or record the finding is at ("entry MC-CON-…", "record MC-REC-…"; rules'
    #: ``*_finding_at``): its heading is the first location, and the fingerprint names it
    at: str = ""
    #: how many leading locations the CI formats show (0: all): an entry issue lists every ID
    #: of its file (the reference's Entries, kept in JSON); SARIF, JUnit and annotations show the
    #: entry it is at, so their size stays linear in the findings
    shown: int = 0

    def conflict_text(self) -> str:
        """``<code> <STATUS>: <message>[ [Subject..; Facet..; Scope..]][ Entries: a, b.]`` (§9.4)."""
        return conflict_line(self.code, self.status or self.severity or "", self.message, self.subject, self.facet,
                             self.scopes, self.entries)


@dataclass
class FamilyResult:
    """The outcome of one check family: its status word, exit status and findings (in
    display order). ``block`` names the text block renderer (analyzer/render/check_text.py)."""

    name: str
    block: str
    status: str
    exit_code: int
    findings: List[CheckFinding] = field(default_factory=list)
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
    status (the worst family's word) and exit status (the worst family's), or an error."""

    families: List[FamilyResult]
    status: str
    exit_code: int
    error: Optional[str] = None
    error_code: str = "MA-MEMDIR"
    error_path: str = ""
    error_line: int = 1
    error_col: int = 1
    # every managed file the check needed but could not use (analyzer/query/needed.py), when that is the error
    error_diagnostics: List[object] = field(default_factory=list)
    merge: Optional[object] = None  # the MergeResult of --merge-base (analyzer/query/merge.py)
    # what --select/--ignore/--baseline/--fail-on did (analyzer/commands/gating.py); None without them
    gate: Optional[dict] = None
    # lines the summary of the CI formats prints below the status (the autonomy check's merge base)
    notes: List[str] = field(default_factory=list)


def failed_run(message: str, code: str, path: str = "", line: int = 1, col: int = 1) -> CheckResult:
    """A run that could not happen, as check's error result (exit 2), for the commands that
    print check's formats (``diff``, ``check --autonomy``): ``path`` is the file at fault, ""
    when no file is (a Git failure), and the renderers then name no location."""
    return CheckResult([], "INVALID", 2, error=message, error_code=code, error_path=path, error_line=line,
                       error_col=col)

