"""The JSON payload of ``analyze report`` (shape ``report.result`` in analyzer/contract/registry.py):
the ``check.result`` content plus the routing matrix, optional modules, the repository
listing and the reachability graph, as data."""

from __future__ import annotations

from typing import Any, Dict

from analyzer.query.report import Report
from analyzer.render.check_json import check_payload


def report_payload(report: Report) -> Dict[str, Any]:
    """Everything the Markdown report shows, without any size limit."""
    out = check_payload(report.check)
    out.pop("merge", None)
    source, complete, count = report.listing or ("none", False, 0)
    out.update({
        "tasks": list(report.tasks),
        "routes": [{"task": t, "module": m, "state": cells[t]}
                   for m, cells in report.matrix.items() for t in report.tasks if t in cells],
        "modules": [{"module": m.module, "folder": m.folder, "activation": m.activation, "exists": m.exists,
                     "globs": [{"glob": g.glob, "files": g.files, "matched": g.matched} for g in m.globs],
                     "matched": m.matched or None} for m in report.modules],
        "repository_files": {"source": source, "complete": complete, "files": count},
        "edges": [{"from": s, "to": m} for s, m in report.edges],
        "entries": [{"entry": e, "module": m, "mark": mark} for e, m, mark in report.entries],
    })
    return out
