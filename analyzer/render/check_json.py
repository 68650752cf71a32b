"""The JSON payload of ``analyze check`` (shapes ``check.result`` and ``check.error`` in
analyzer/contract/registry.py); analyzer.contract.output.emit_json validates and prints it."""

from __future__ import annotations

from typing import Any, Dict

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding


def finding_payload(finding: Finding) -> Dict[str, Any]:
    """One finding with its locations; ``status`` or ``severity``, whichever it carries."""
    out: Dict[str, Any] = {
        "code": finding.code, "family": finding.family, "message": finding.message,
        "entries": list(finding.entries), "subject": finding.subject, "facet": finding.facet,
        "scopes": list(finding.scopes),
        "locations": [{"path": l.path, "line": l.line, "col": l.col} for l in finding.locations],
    }
    if finding.status is not None:
        out["status"] = finding.status
    if finding.severity is not None:
        out["severity"] = finding.severity
    if finding.at:
        out["at"] = finding.at
    if getattr(finding, "proofs", None) is not None:  # --with-proofs
        out["proofs"] = list(finding.proofs)
    if getattr(finding, "introduced", None) is not None:  # --introduced
        out["introduced"] = finding.introduced.payload()
    return out


def check_payload(result: CheckResult) -> Dict[str, Any]:
    """The ``check.result`` payload: overall status and exit, each family, every finding."""
    out = {
        "status": result.status,
        "exit_code": result.exit_code,
        "families": {f.name: {"status": f.status, "exit_code": f.exit_code} for f in result.families},
        "findings": [finding_payload(x) for f in result.families for x in f.findings],
    }
    if result.gate is not None:
        out["gate"] = dict(result.gate)
    if result.merge is not None:
        from analyzer.render.merge_json import merge_payload

        out["merge"] = merge_payload(result.merge)
    return out


def error_payload(result: CheckResult) -> Dict[str, Any]:
    """The ``check.error`` payload: why no check ran, as one diagnostic (one per unusable file)."""
    if result.failure.diagnostics:  # unusable managed files: one diagnostic each, as read's error shape
        return {"status": "INVALID", "exit_code": result.exit_code,
                "diagnostics": [d.as_dict() for d in result.failure.diagnostics]}
    message = result.failure.message or ""
    code = result.failure.code
    return {
        "status": "INVALID",
        "exit_code": result.exit_code,
        "diagnostics": [{"code": code, "severity": "error", "message": message, "path": result.failure.where.path,
                         "line": result.failure.where.line, "col": result.failure.where.col}],
    }
