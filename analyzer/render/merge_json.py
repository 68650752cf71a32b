"""JSON of the merge review block (``check --conflicts --merge-base REF``, spec §9.5).

:data:`MERGE_BLOCK` is the block's declared type (the check result's shape embeds it);
:func:`merge_payload` builds the value. An unavailable review has status "UNAVAILABLE",
the Git error, no findings and exit code 1: it never reads as CLEAR.
"""

from __future__ import annotations

from analyzer.contract import Enum, Obj, list_of
from analyzer.query.merge import MergeResult

MERGE_LOCATION = Obj({"path": "str", "line": "int", "col": "int", "revision": "str", "commit": "str"})
MERGE_FINDING = Obj({"code": "str", "family": "str", "status": Enum("CONFLICT", "REVIEW"), "message": "str",
                     "text": "str", "locations": list_of(MERGE_LOCATION)})
MERGE_BLOCK = Obj({
    "ref": "str",
    "status": Enum("CLEAR", "REVIEW", "CONFLICT", "UNAVAILABLE"),
    "exit_code": "int",
    "base": "str|null",
    "head": "str|null",
    "target": "str|null",
    "error": "str|null",
    "findings": list_of(MERGE_FINDING),
})


def merge_payload(result: MergeResult) -> dict:
    """The merge review block as plain JSON data."""
    return {
        "ref": result.ref,
        "status": result.status or "UNAVAILABLE",
        "exit_code": result.exit_code,
        "base": result.base or None,
        "head": result.head or None,
        "target": result.target or None,
        "error": result.error or None,
        "findings": [
            {
                "code": f.code,
                "family": "merge",
                "status": f.status,
                "message": f.message,
                "text": f.line(),
                "locations": [{"path": loc.path, "line": loc.line, "col": loc.col, "revision": loc.revision,
                               "commit": loc.commit} for loc in f.locations],
            }
            for f in result.findings
        ],
    }
