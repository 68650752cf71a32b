"""The fleet report: status per repository, the most common findings, and the repositories
whose memory no route reaches (a reachability family that is not clean), from the
per-repository check results of :func:`analyzer.commands.fleet_check.fleet_check`."""

from __future__ import annotations

from collections import Counter
from typing import List, Tuple

from analyzer.contract.check_model import CheckResult
from analyzer.project import vocab

TOP = 10  # findings listed in "most common"


def summary(results: List[Tuple[str, CheckResult]]) -> dict:
    """The report as a JSON-ready mapping (sorted, deterministic)."""
    repos, codes, repos_per_code, unreached = [], Counter(), Counter(), []
    clean = vocab.names("clean_status")
    for path, result in results:
        found = [f for family in result.families for f in family.findings]
        repos.append({"path": path, "status": result.status, "exit_code": result.exit_code,
                      "findings": len(found), "error": result.failure.message if result.failure else None})
        codes.update(f.code for f in found)
        repos_per_code.update({f.code for f in found})
        reach = [fam for fam in result.families if fam.name == "reachability"]
        if reach and reach[0].status not in clean:
            unreached.append(path)
    common = sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    statuses = Counter(r["status"] for r in repos)
    return {"repositories": repos,
            "statuses": dict(sorted(statuses.items())),
            "most_common_findings": [{"code": c, "findings": n, "repositories": repos_per_code[c]} for c, n in common],
            "unreached": unreached}


def markdown(report: dict) -> str:
    """The report as Markdown."""
    lines = ["# Fleet report", "", f"{len(report['repositories'])} repositories: " +
             ", ".join(f"{n} {s}" for s, n in report["statuses"].items()), "", "## Repositories", "",
             "| repository | status | exit | findings |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['path']} | {r['status']} | {r['exit_code']} | {r['findings']} |" for r in report["repositories"]]
    lines += ["", "## Most common findings", "", "| code | findings | repositories |", "| --- | --- | --- |"]
    lines += [f"| {c['code']} | {c['findings']} | {c['repositories']} |" for c in report["most_common_findings"]]
    lines += ["", "## Memory no route reaches", ""]
    lines += [f"- {p}" for p in report["unreached"]] or ["(none)"]
    return "\n".join(lines) + "\n"
