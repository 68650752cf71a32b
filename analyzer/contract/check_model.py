"""The result model of ``analyze check``: plain dataclasses selected from derived relations.

Nothing here decides anything: :mod:`analyzer.query.check_families` fills these from the
relations rules/check/*.dl derive, and :mod:`analyzer.render.check_text` and
:mod:`analyzer.render.check_json` print them.

A result's findings in one list (:func:`all_findings`) and each finding's stable fingerprint
(:func:`fingerprints`: what a finding is, without where its lines are) are here too: the CI
renderers (SARIF ``partialFingerprints``, GitLab, the gate's baseline) and ``check
--introduced`` (analyzer/query/introduced.py, which follows a finding back through history)
must agree on them, so they sit below both.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

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
    # word of what is left and the exit status the gate gives what is left (text, Markdown and
    # the github summary show them; JSON, SARIF and JUnit keep the rules' words and the gate summary)
    hidden: int = 0
    shown_status: Optional[str] = None
    shown_exit: Optional[int] = None


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
    # a filtered run's overall status of what it shows (the worst family ``shown_status``); None unfiltered
    shown_status: Optional[str] = None
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


def all_findings(result: CheckResult) -> List[Finding]:
    """Every finding of the result in display order, the merge review's (``--merge-base``)
    after its family's, as :class:`Finding` with family ``merge``."""
    out: List[Finding] = []
    for family in result.families:
        out.extend(family.findings)
        if family.block == "merge" and result.merge is not None:
            out.extend(result.merge.findings)
    return out


def identity(finding: Finding) -> str:
    """What a finding is, without where its lines are: code, family, normalized message,
    Subject, Facet, scopes and what it is about: the entry or record it is at when it has one
    (never every ID of its file, so adding an unrelated entry there reopens nothing), else its
    entries and the files it points into. No line numbers: moving lines keeps it."""
    message = " ".join(finding.message.split())
    if finding.at:
        about = [finding.at]
    else:
        about = [",".join(finding.entries), ",".join(sorted({l.path for l in finding.locations}))]
    parts = [finding.code, finding.family, message, finding.subject, finding.facet, ",".join(finding.scopes), *about]
    return "\x00".join(parts)


def fingerprints(findings: Iterable[Finding]) -> List[str]:
    """One stable fingerprint per finding (same order): a hash of :func:`identity`, with
    ``:N`` added to the N-th repeat of an identity so that two equal findings stay apart."""
    seen: Dict[str, int] = {}
    out = []
    for finding in findings:
        digest = hashlib.sha256(identity(finding).encode("utf-8")).hexdigest()[:32]
        count = seen.get(digest, 0)
        seen[digest] = count + 1
        out.append(digest if count == 0 else f"{digest}:{count}")
    return out
