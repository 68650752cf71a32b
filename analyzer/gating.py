"""CI gating of a check result, as linters do it: ``--select`` / ``--ignore`` codes or code
prefixes, ``--baseline FILE`` (a previous ``check.result`` / ``report.result`` JSON or SARIF
document: findings whose fingerprint it holds are not reported again), and ``--fail-on``.

The findings, their severities and statuses are the rules'; gating only hides some of them
and picks the exit status from what is left, by the threshold ``--fail-on`` names:

============  =====================================================================
``review``    fail on any REVIEW or WARNING finding or worse (the strictest)
``conflict``  fail on CONFLICT, INVALID or ERROR findings (the reference's rule)
``error``     fail on INVALID or ERROR findings only
``never``     never fail on findings
============  =====================================================================

Without any gating option the exit status stays the reference's, untouched. A family that
failed without a finding to show (a merge review Git could not answer: UNAVAILABLE) keeps
failing unless ``--fail-on never``: fail closed.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Set

from analyzer.query.check_model import CheckFinding, CheckResult, Location
from analyzer.render import findings as common

FAIL_ON = ("review", "conflict", "error", "never")
RANK = {"INFO": 0, "CLEAR": 0, "WARNING": 1, "REVIEW": 1, "CONFLICT": 2, "ERROR": 3, "INVALID": 3}
THRESHOLD = {"review": 1, "conflict": 2, "error": 3}


def unknown_patterns(patterns: Sequence[str], known: Set[str]) -> List[str]:
    """The ``--select`` / ``--ignore`` patterns that no known code starts with: a typo there
    would hide every finding and pass the gate, so it is an error, not an empty selection."""
    return [p for p in patterns if not any(code.startswith(p) for code in known)]


class BaselineError(Exception):
    """A baseline file that cannot be used (exit 2, code MA-BASELINE)."""


@dataclass
class Gate:
    """The gating options of one run (all empty: the reference's behaviour)."""

    fail_on: Optional[str] = None
    select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    baseline: Optional[str] = None
    known: Set[str] = field(default_factory=set)  # fingerprints of the baseline

    def active(self) -> bool:
        """Whether any option was given."""
        return bool(self.fail_on or self.select or self.ignore or self.baseline)

    def shown(self, finding: CheckFinding, fingerprint: str) -> bool:
        """Whether a finding is reported: selected, not ignored, not in the baseline."""
        if self.select and not any(finding.code.startswith(p) for p in self.select):
            return False
        if any(finding.code.startswith(p) for p in self.ignore):
            return False
        return fingerprint not in self.known


def load_baseline(path: str) -> Set[str]:
    """The fingerprints of a previous run's JSON (check.result, report.result) or SARIF."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc}") from None
    if isinstance(document, dict) and "runs" in document:  # SARIF
        try:
            return {r["partialFingerprints"][common.FINGERPRINT_KEY]
                    for run in document["runs"] for r in run.get("results", [])
                    if common.FINGERPRINT_KEY in r.get("partialFingerprints", {})}
        except (TypeError, KeyError, AttributeError):
            raise BaselineError(f"{path}: not a SARIF log of memory-analyzer") from None
    if not isinstance(document, dict) or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: neither SARIF nor a check.result / report.result JSON document")
    try:
        found = [_finding(f) for f in document["findings"]]
        found += [_finding(f) for f in (document.get("merge") or {}).get("findings", [])]
    except (TypeError, KeyError, AttributeError):
        raise BaselineError(f"{path}: a finding lacks code, family, message or locations") from None
    return set(common.fingerprints(found))


def _finding(data: dict) -> CheckFinding:
    return CheckFinding(data["code"], data["family"], data["message"], entries=list(data.get("entries", [])),
                        subject=data.get("subject", ""), facet=data.get("facet", ""),
                        scopes=list(data.get("scopes", [])), at=str(data.get("at", "")),
                        locations=[Location(l["path"], l["line"], l["col"]) for l in data["locations"]])


def apply(result: CheckResult, gate: Gate) -> CheckResult:
    """The result with only the findings the gate shows, and the gate's exit status. An error
    result, or a run without gating options, is returned as it is."""
    if result.error is not None or not gate.active():
        return result
    findings = common.all_findings(result)
    keep = [gate.shown(f, p) for f, p in zip(findings, common.fingerprints(findings))]
    families, merge, at = [], result.merge, 0
    for family in result.families:
        kept = [f for n, f in enumerate(family.findings) if keep[at + n]]
        at += len(family.findings)
        families.append(dataclasses.replace(family, findings=kept))
        if family.block == "merge" and result.merge is not None:
            count = len(result.merge.findings)
            merge = dataclasses.replace(result.merge, findings=[f for f, k in zip(result.merge.findings,
                                                                                  keep[at:at + count]) if k])
            at += count
    shown = [f for f, k in zip(findings, keep) if k]
    summary = {"fail_on": gate.fail_on or "conflict", "select": list(gate.select), "ignore": list(gate.ignore),
               "baseline": gate.baseline, "hidden": len(findings) - len(shown)}
    return dataclasses.replace(result, families=families, merge=merge, exit_code=_exit(result, shown, gate),
                               gate=summary)


def _exit(result: CheckResult, shown: List[CheckFinding], gate: Gate) -> int:
    fail_on = gate.fail_on or "conflict"
    if fail_on == "never":
        return 0
    # fail closed: a family that failed with nothing to show (an unavailable merge review)
    silent = any(f.exit_code and not f.findings and f.block != "merge" for f in result.families) or \
        (result.merge is not None and not result.merge.available and result.merge.exit_code)
    worst = max((RANK.get(common.word(f), 1) for f in shown), default=0)
    return 1 if silent or worst >= THRESHOLD[fail_on] else 0
