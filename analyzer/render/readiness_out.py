"""Text and JSON of ``analyze readiness`` (the ``readiness.result`` shape)."""

from __future__ import annotations

from datetime import datetime, timezone

from analyzer.query.readiness import ReadinessResult


def _when(seconds: int) -> str:
    try:
        return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):  # past year 9999 (a commit may say so): no ISO form
        return f"@{seconds}"


def render_readiness_text(result: ReadinessResult) -> str:
    """The readings as text, one block per reading, then what full autonomy lacks."""
    lines = [f"Readiness as of {_when(result.as_of)} over {result.tip} ({result.commit[:12]}), "
             f"{result.commits} memory commits in 30 days", f"Status: {result.status}"]
    for reading in result.readings:
        lines.append(f"- {reading.name} {reading.state.upper()}")
        lines += [f"  {detail}" for detail in reading.details]
    if result.missing():
        lines.append("Full autonomy is not available: " + ", ".join(result.missing()) + " not met.")
    return "\n".join(lines) + "\n"


def readiness_payload(result: ReadinessResult) -> dict:
    """The readings as plain JSON data."""
    return {"status": result.status, "exit_code": result.exit_code, "as_of": _when(result.as_of),
            "as_of_seconds": result.as_of, "head": {"ref": result.tip, "commit": result.commit},
            "commits": result.commits,
            "readings": [{"name": r.name, "state": r.state, "details": list(r.details)} for r in result.readings],
            "missing": result.missing()}
