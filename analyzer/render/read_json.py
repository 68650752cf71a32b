"""JSON payload of ``analyze read`` (the shape is declared in the contract registry)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict

from analyzer.query.read_model import ReadResult
from analyzer.render.read_text import render_read_text


def read_payload(result: ReadResult, *, explain: bool, names_only: bool) -> dict:
    """The read result as plain JSON data, including the text pack and its sha256."""
    text = render_read_text(result, explain=explain, names_only=names_only)
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
        "conflict_findings": [asdict(f) for f in result.conflict_findings],
        "local_overlay_status": result.local_status,
        "local_warnings": list(result.local_warnings),
        "local_loaded": list(result.local_loaded),
        "strict": result.strict,
        "approved": result.approved,
        "exit_code": result.exit_code,
        "error": result.error,
        "context_pack": {"text": text, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
    }
