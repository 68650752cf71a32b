"""No check output prints a secret (issue 31): every text a check result carries — finding
messages of every family (the reference's own lines quote memory lines with ``repr()``),
family lines, proof trees, the merge review's findings, notes and the error — has the matches
of the secret patterns (analyzer/project/extract/secrets.py ``SECRET_KINDS``) replaced by
``[redacted]`` once, before the result is cached or rendered. The scans' own findings carry
redacted previews already; this covers every other line that happens to hold a secret.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Any

from analyzer.project.extract.secrets import hide_secrets


def _walk(value: Any) -> Any:
    """``value`` (JSON-like data, or dataclasses of it) with every string hidden."""
    if isinstance(value, str):
        return hide_secrets(value)
    if is_dataclass(value) and not isinstance(value, type):
        return replace(value, **{f.name: _walk(getattr(value, f.name)) for f in fields(value) if f.init})
    if isinstance(value, list):
        return [_walk(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v) for v in value)
    if isinstance(value, dict):
        return {k: _walk(v) for k, v in value.items()}
    return value


def redact_result(result) -> None:
    """Hide the secrets of a :class:`~analyzer.contract.check_model.CheckResult` in place."""
    for family in result.families:
        for finding in family.findings:
            finding.message = hide_secrets(finding.message)
            if finding.proofs:
                finding.proofs = _walk(finding.proofs)
        family.lines = [hide_secrets(line) for line in family.lines]
    merge = getattr(result, "merge", None)
    if getattr(merge, "findings", None):
        merge.findings = [replace(f, message=hide_secrets(f.message)) for f in merge.findings]
    result.notes = [hide_secrets(note) for note in result.notes]
    if result.failure is not None:
        result.failure = replace(result.failure, message=hide_secrets(result.failure.message))


def redacted(value: Any) -> Any:
    """A copy of ``value`` (a result dataclass such as read's ReadResult) with the secrets of
    every string it holds hidden."""
    return _walk(value)
