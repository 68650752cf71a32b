"""``analyze check --format gitlab``: the check result as a GitLab Code Quality report (the
JSON array ``artifacts:reports:codequality`` reads for the merge-request widget), as ruff and
other linters write it.

One object per finding: ``description`` (code and message), ``check_name`` (the code),
``fingerprint`` (the SARIF fingerprint: stable across moved lines, unique per finding),
``severity`` (GitLab's words: ``critical`` for error, ``major`` for warning, ``info`` for a
note), ``location.path`` relative to the repository and ``location.lines.begin``. GitLab
needs a location: a finding that names no line is placed on the memory dir's ``manifest.md``,
as in SARIF. A check that could not run is one ``blocker`` issue naming the error, so the
widget shows why. The same result gives the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Location
from analyzer.project import vocab
from analyzer.render import findings as common


def _issue(description: str, check: str, fingerprint: str, severity: str, location: Location,
           prefix: str) -> Dict[str, Any]:
    return {"description": description, "check_name": check, "fingerprint": fingerprint, "severity": severity,
            # line 0 is a file itself (a deleted unit's file at the head): GitLab needs a line, its first
            "location": {"path": common.repo_path(location, prefix), "lines": {"begin": max(location.line, 1)}}}


def gitlab_issues(result: CheckResult, prefix: str = "", memory_dir: str = "docs/memory") -> List[Dict[str, Any]]:
    """The Code Quality issues of ``result``."""
    fallback = Location(f"{memory_dir}/manifest.md")
    if result.failure is not None:
        where = Location(result.failure.where.path, result.failure.where.line) if result.failure.where.path else fallback
        return [_issue(f"{result.failure.code}: no check ran: {result.failure.message}", result.failure.code,
                       common.error_fingerprint(result), "blocker", where, prefix)]
    findings = common.all_findings(result)
    severity = vocab.mapping("level_gitlab")  # rules/vocab/levels.dl
    return [_issue(f"{f.code}: {f.message}", f.code, fingerprint, severity[common.level(f)],
                   (common.shown_locations(f) or [fallback])[0], prefix)
            for f, fingerprint in zip(findings, common.fingerprints(findings))]


def render_gitlab(result: CheckResult, prefix: str = "", memory_dir: str = "docs/memory") -> str:
    """The report text: a JSON array, one issue per line, final newline."""
    issues = gitlab_issues(result, prefix, memory_dir)
    if not issues:
        return "[]\n"
    return "[\n" + ",\n".join("  " + json.dumps(i, ensure_ascii=False, sort_keys=True) for i in issues) + "\n]\n"
