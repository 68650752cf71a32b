"""JSON payload of ``analyze read`` (the shape is declared in the contract registry)."""

from __future__ import annotations

import hashlib
import os

from analyzer.contract.read_model import ReadResult
from analyzer.contract.results import Finding
from analyzer.render.read_text import error_line, render_read_text


def read_payload(result: ReadResult, *, explain: bool, names_only: bool, root=None) -> dict:
    """The read result as plain JSON data, including the text pack and its sha256; ``root`` is
    the :class:`analyzer.project.root.Root` the command read (its path and how it was chosen)."""
    text = render_read_text(result, explain=explain, names_only=names_only)
    location = None if result.failure is None else result.failure.span
    return {
        "status": result.completeness,
        "task": result.task,
        "canonical_task": result.canonical_task,
        "paths": [{"path": p, "missing_on_disk": m} for p, m in result.paths],
        "explicit": list(result.explicit),
        "routing_completeness": result.completeness,
        "shared_routing_completeness": result.shared_completeness,
        "incomplete_dimensions": list(result.incomplete_dimensions),
        "modules": [
            {
                "path": m.path,
                "disposition": m.disposition,
                "reasons": list(m.reasons),
                "primary_reason": m.primary_reason,
                "details": list(m.details),
                "required": m.required,
                "matching_input": m.matching_input,
            }
            for m in result.modules
        ],
        "budget_omissions": [{"module": o.module, "unit": o.unit} for o in result.omissions],
        "oversized": [{"module": m, "budget": b} for m, b in result.oversized],
        "warnings": list(result.warnings),
        "conflict_status": result.conflict_status,
        "conflict_findings": [conflict_payload(f) for f in result.conflict_findings],
        "local_overlay_status": result.local_status,
        "local_overlay_dir": None if result.local_dir is None else
        {"path": result.local_dir[0] or None, "state": result.local_dir[1]},
        "local_warnings": list(result.local_warnings),
        "local_loaded": list(result.local_loaded),
        "strict": result.strict,
        "approved": result.approved,
        "exit_code": result.exit_code,
        "error": error_line(result.failure),
        "error_location": None if location is None else {"path": location.path, "line": location.line,
                                                          "col": location.col},
        "project_root": {"path": os.path.abspath(root.path), "how": root.how} if root else None,
        "context_pack": {"text": text, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
    }


def conflict_payload(finding: Finding) -> dict:
    """A conflict finding as read's JSON shows it (the keys and order of protocol 0.7 §9.4)."""
    return {"code": finding.code, "status": finding.status, "message": finding.message,
            "entries": list(finding.entries), "subject": finding.subject, "facet": finding.facet,
            "scopes": list(finding.scopes)}
