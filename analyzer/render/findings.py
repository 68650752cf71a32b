"""What the CI renderers (SARIF, JUnit, GitHub, Markdown) share about a check result: its
findings in one list (the merge review's too) and their stable fingerprints (both from
analyzer/contract/check_model.py), a finding's level, the repository-relative path of a
location, and the code catalogue's text for a code.

These renderers are generic over families and codes: a family or code added by a rule pack
renders without a change here (a code without a catalogue entry gets its code as title).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from analyzer.contract.check_model import CheckResult, all_findings, fingerprints  # noqa: F401  (the renderers' names)
from analyzer.contract.results import Finding, Location
from analyzer.history.repofiles import repo_prefix  # noqa: F401  (the renderers' name for it)
from analyzer.project import vocab

FINGERPRINT_KEY = "memoryAnalyzerFinding/v1"


def revision_note(finding: Finding, n: int) -> str:
    """Which revision the finding's ``n``-th location is in (``in HEAD (1a2b3c4d5e6f)``, ``in
    the merge base (...)``), or ``""`` for a line of the work tree: a merge review's lines are
    in Git revisions, and the same path and line may be on either side."""
    if n >= len(finding.revisions):
        return ""
    label, commit = finding.revisions[n]
    name = "the merge base" if label == "merge base" else label
    return f"in {name} ({commit[:12]})" if commit else f"in {name}"


def level(finding: Finding) -> str:
    """``error``, ``warning`` or ``note``: the rules' severity or status word, translated."""
    return word_level(finding.severity or finding.status or "")


def word_level(word: str) -> str:
    """The SARIF/GitHub level of a severity or status word (rules/vocab/levels.dl; any other
    word: warning)."""
    return vocab.word_levels().get(word, "warning")


def word(finding: Finding) -> str:
    """The finding's own severity or status word (ERROR, REVIEW, ...)."""
    return finding.severity or finding.status or ""


def shown_locations(finding: Finding) -> List[Location]:
    """The locations the CI formats show: the entry a file-wide entry issue is at alone (its
    JSON lists every ID of the file, as the reference does), else every location."""
    return finding.locations[:finding.shown] if finding.shown else finding.locations


def shown_entries(finding: Finding) -> List[str]:
    """The entries the CI formats name: the one the finding is at when the others are just
    the IDs of its file (:func:`shown_locations`), else all."""
    return [finding.at.split(" ", 1)[1]] if finding.shown and finding.at.startswith("entry ") else finding.entries


def error_fingerprint(result: CheckResult) -> str:
    """A stable fingerprint of a run's error (code, file and message): what it is, not when."""
    text = "\x00".join([result.failure.code, result.failure.where.path, " ".join((result.failure.message or "").split())])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def repo_path(location: Location, prefix: str) -> str:
    """A location's path relative to the repository root."""
    return prefix + location.path


@lru_cache(maxsize=1)
def _catalogue() -> Dict[str, Tuple[str, str, str]]:
    from analyzer.contract.catalog import load

    return {e.code: (e.title, e.explanation, e.severity) for e in load().entries if e.code.startswith(("MC-", "MA-"))}


def describe(code: str, result: Optional[CheckResult] = None) -> Tuple[str, str, Optional[str]]:
    """``(title, explanation, declared severity)`` of a code from its ``@code`` block: a
    shipped rule file's, else that of the rule pack in ``result`` declaring it; the code
    itself as title when neither does."""
    if code not in _catalogue() and result is not None:
        declared = pack_code(code, result)
        if declared is not None:
            return declared[0], declared[1], declared[2]
    title, explanation, severity = _catalogue().get(code, (code, "", None))
    return title, explanation, severity


def pack_code(code: str, result: CheckResult) -> Optional[Tuple[str, str, str, str]]:
    """``(title, explanation, severity, @help URL or "")`` of a rule pack's code in ``result``."""
    for family in result.families:
        if code in family.codes:
            return family.codes[code]
    return None


def anchor(code: str) -> str:
    """The code's heading anchor in docs/findings.md (GitHub's: lower case)."""
    return code.lower()
