"""A check result's findings in one list and each finding's stable fingerprint.

The fingerprint is what a finding is, without where its lines are (:func:`identity`): the CI
renderers (SARIF ``partialFingerprints``, GitLab, the gate's baseline) and ``check
--introduced`` (analyzer/query/introduced.py, which follows a finding back through history)
must agree on it, so it lives here, below both.
"""

from __future__ import annotations

import hashlib
from typing import Dict, Iterable, List

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding


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
