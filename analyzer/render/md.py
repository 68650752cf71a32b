"""Markdown pieces of the CI reports: escaping, file:line links, the status summary and the
findings grouped by family (both from a check result), and the size limit of a GitHub step
summary with a visible truncation note.

The report they make up, with the routing matrix, optional modules and the reachability
graph, is analyzer/render/report_markdown.py (``analyze report`` and ``analyze check
--format markdown`` alike).
"""

from __future__ import annotations

import os
import re
from typing import Dict, List

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Location
from analyzer.project import vocab
from analyzer.render import findings as common

LIMIT = 1024 * 1024  # GitHub: a step summary holds at most 1 MiB
LEVEL_COLUMNS = (("error", "errors"), ("warning", "warnings"), ("note", "notes"))
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#])")
# nothing to escape or to fold (no markup character, no whitespace): most entry IDs and paths
_PLAIN = re.compile(r"[^\\`*_{}\[\]<>|#\s]*\Z")


def escape(text: str) -> str:
    """Text shown as is in Markdown (one line; markup characters backslash-escaped)."""
    if _PLAIN.match(text):  # the common case, tested first: a report escapes every entry ID
        return text
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def link_base(env=None) -> str:
    """``https://github.com/OWNER/REPO/blob/SHA/`` inside a GitHub Actions run (links then work
    in the step summary), else ``""`` (links relative to the repository root)."""
    env = os.environ if env is None else env
    server, repo, sha = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA")
    return f"{server}/{repo}/blob/{sha}/" if server and repo and sha else ""


def link(location: Location, prefix: str, base: str) -> str:
    """``[path:line](base/path#Lline)``, the path relative to the repository root."""
    path = common.repo_path(location, prefix)
    if location.line <= 0:  # the file itself
        return f"[{escape(path)}]({base}{path})"
    return f"[{escape(path)}:{location.line}]({base}{path}#L{location.line})"


def status_section(result: CheckResult) -> List[str]:
    """One row per family: status, findings per level, exit status; then the overall row. A
    filtered run's rows give the status and exit of what they show, as the text does."""
    levels = vocab.level_ranks()  # error, warning, note (rules/vocab/levels.dl)
    counts: Dict[str, Dict[str, int]] = {f.name: dict.fromkeys(levels, 0) for f in result.families}
    for finding in common.all_findings(result):
        counts.setdefault(finding.family, dict.fromkeys(levels, 0))[common.level(finding)] += 1
    lines = ["## Status", "", "| family | status | errors | warnings | notes | exit |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for family in result.families:
        c = counts[family.name]
        exit_code = family.exit_code if family.shown_exit is None else family.shown_exit
        lines.append(f"| {family.name} | {family.shown_status or family.status} | {c['error']} | {c['warning']} "
                     f"| {c['note']} | {exit_code} |")
    total = {level: sum(c[level] for c in counts.values()) for level, _ in LEVEL_COLUMNS}
    lines.append(f"| **overall** | **{result.shown_status or result.status}** | {total['error']} | {total['warning']} "
                 f"| {total['note']} | **{result.exit_code}** |")
    if result.gate is not None:
        lines += ["", f"{result.gate['hidden']} finding(s) hidden by --select/--ignore/--baseline; the exit status is "
                      f"--fail-on {result.gate['fail_on']}'s."]
    for note in result.notes:
        lines += ["", escape(note)]
    return lines


def findings_section(result: CheckResult, prefix: str, base: str) -> List[str]:
    """``## Findings``: a sub-section per family with findings, one item per finding."""
    grouped: Dict[str, list] = {}
    for finding in common.all_findings(result):
        grouped.setdefault(finding.family, []).append(finding)
    lines = ["## Findings", ""]
    if not grouped:
        return lines + ["No findings."]
    for family, items in grouped.items():
        lines += [f"### {family} ({len(items)})", ""]
        for f in items:
            where = ", ".join(_noted(link(l, prefix, base), common.revision_note(f, n))
                              for n, l in enumerate(f.locations)) or "(no location)"
            started = f" ({escape(f.introduced.words())})" if getattr(f, "introduced", None) is not None else ""
            lines.append(f"- **{f.code}** {common.word(f)}: {escape(f.message)} — {where}{started}")
        lines.append("")
    return lines[:-1]


def _noted(text: str, note: str) -> str:
    return f"{text} ({escape(note)})" if note else text


def error_section(result: CheckResult, prefix: str) -> List[str]:
    """What stopped the check, when it could not run."""
    where = f" at {escape(prefix + result.failure.where.path)}:{result.failure.where.line}:{result.failure.where.col}" if result.failure.where.path else ""
    return ["## Status", "", f"No check ran (exit {result.exit_code}): {escape(result.failure.message or '')} "
            f"(`{result.failure.code}`{where})"]


def fit(lines: List[str], limit: int = LIMIT) -> str:
    """The lines as one text of at most ``limit`` UTF-8 bytes: past it, the text is cut at a
    line (an open code block closed) and a visible note says how much was left out."""
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) <= limit:
        return text
    budget, kept, fenced = limit - 600, [], False  # room for the note
    for line in lines:
        size = len(line.encode("utf-8")) + 1
        if size > budget:
            break
        budget -= size
        kept.append(line)
        if line.startswith("```"):
            fenced = not fenced
    left = len(lines) - len(kept)
    if fenced:
        kept.append("```")
    kept += ["", f"> **Truncated:** {left} more line(s) are not shown: the report is over "
             f"{limit // 1024} KiB, the size of a GitHub step summary. `--format json` has everything."]
    return "\n".join(kept) + "\n"
