"""JSON of the merge review block (``check --conflicts --merge-base REF``, spec §9.5).

The block's type is ``MERGE_BLOCK`` in analyzer/contract/registry.py (part of ``check.result``).
An unavailable review has status "UNAVAILABLE", the Git error, no findings and exit code 1:
it never reads as CLEAR.
"""

from __future__ import annotations

from analyzer.query.merge import MergeResult, merge_line


def merge_payload(result: MergeResult) -> dict:
    """The merge review block as plain JSON data."""
    return {
        "ref": result.ref,
        "status": result.status or "UNAVAILABLE",
        "exit_code": result.exit_code,
        "base": result.base or None,
        "head": result.head or None,
        "target": result.target or None,
        "error": result.failure.message if result.failure else None,
        "findings": [
            {
                "code": f.code,
                "family": "merge",
                "status": f.status,
                "message": f.message,
                "text": merge_line(f),
                "locations": [{"path": loc.path, "line": loc.line, "col": loc.col, "revision": label,
                               "commit": commit} for loc, (label, commit) in zip(f.locations, f.revisions)],
            }
            for f in result.findings
        ],
    }
