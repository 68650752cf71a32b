"""The CI reachability report in Markdown (docs/ci.md): ``analyze report --format markdown``,
``analyze check --format markdown`` and the step summary of ``check --format github`` all
print it from this one renderer.

Sections, in this order so that a report cut at GitHub's 1 MiB step-summary limit loses the
longest list first: status per family, the routing matrix (canonical tasks x modules), the
optional module index with glob matches, the reachability graph (Mermaid), the findings by
family, and the full table of entries with their marks.
"""

from __future__ import annotations

from typing import List

from analyzer.query.report import Report
from analyzer.render import md
from analyzer.render.mermaid import BUDGET, flowchart
from analyzer.render.agents_text import report_section

CELL = {"loaded": "loaded", "optional": "optional", "missing": "**missing**", "absent": "absent"}
MARK = {"reachable": "reachable", "unreachable": "**unreachable**", "outside": "**outside canonical storage**",
        "unchecked": "unchecked (manifest contract broken)"}


def matrix_section(report: Report) -> List[str]:
    """Modules as rows, the canonical tasks as columns; the declaration's activation last."""
    activation = {m.module: m.activation for m in report.modules}
    lines = ["## Routing matrix", "",
             "How each canonical task's route treats each module: loaded (required and present), optional "
             "(`Load if present:` or a task-routed rule), missing (required but no file), absent (optional, no "
             "file). The last column is the optional module index's activation.", "",
             "| module | " + " | ".join(report.tasks) + " | activation |",
             "| --- | " + " | ".join("---" for _ in report.tasks) + " | --- |"]
    for module, cells in report.matrix.items():
        row = [CELL.get(cells.get(task, ""), "") for task in report.tasks]
        lines.append(f"| {md.escape(module)} | " + " | ".join(row) + f" | {activation.get(module, '')} |")
    return lines


def modules_section(report: Report) -> List[str]:
    """Every declared optional module: activation, globs with the number of repository files
    each matches, and whether any file matches."""
    lines = ["## Optional modules", ""]
    if report.listing is not None:
        source, complete, count = report.listing
        how = "git ls-files" if source == "git" else "a walk of the project root (not a Git work tree)"
        lines += [f"Repository files: {count} from {how}" + ("" if complete else ", stopped at its cap") + ".", ""]
    if not report.modules:
        return lines + ["The manifest declares no optional modules."]
    lines += ["| module | folder | activation | file | globs | any file matches |", "| --- | --- | --- | --- | --- | --- |"]
    for m in report.modules:
        globs = ", ".join(f"`{g.glob}` ({g.files})" for g in m.globs) or "—"
        verdict = {"": "—", "no": "**no**"}.get(m.matched, m.matched)
        lines.append(f"| {md.escape(m.module)} | {m.folder} | {m.activation} | {'present' if m.exists else '**missing**'} "
                     f"| {globs} | {verdict} |")
    return lines


def graph(report: Report, **limits) -> tuple:
    """The report's Mermaid flowchart lines and how they were drawn (mermaid.flowchart's
    ``budget``, ``max_edges``, ``max_text`` as ``limits``)."""
    missing = sorted({m for m, cells in report.matrix.items() if any(s in ("missing", "absent") for s in cells.values())}
                     | {m.module for m in report.modules if not m.exists})
    sources = list(report.tasks) + ["path", "explicit"]
    return flowchart(sources, report.edges, report.entries, missing, **limits)


def full_graph(report: Report) -> str:
    """The whole graph, every module and entry, for a file (``analyze report --output
    mermaid:FILE``): no budget, so it may be past what GitHub renders inline."""
    big = 1 << 62
    return "\n".join(graph(report, budget=big, max_edges=big, max_text=big)[0]) + "\n"


def graph_section(report: Report) -> List[str]:
    """The Mermaid flowchart and a line on how it was drawn."""
    chart, mode = graph(report)
    marked = sum(1 for e in report.entries if e[2] != "reachable")
    lines = ["## Reachability", "",
             f"{len(report.entries)} active entries, {marked} marked (unreachable, outside canonical storage or "
             "unchecked). Red: unreachable; amber: outside canonical storage; dashed: module file missing."]
    if mode != "entries":
        lines.append(f"The graph would be over {BUDGET} nodes or mermaid's limits (500 edges, 50,000 characters): "
                     f"entries are drawn as {mode}; the table below lists every entry, and "
                     "`analyze report --output mermaid:FILE` writes the full graph as a file.")
    return lines + ["", "```mermaid", *chart, "```"]


def entries_section(report: Report) -> List[str]:
    """Every active entry of the graph, with its module and mark."""
    lines = ["## All entries", "", "| entry | module | mark |", "| --- | --- | --- |"]
    modules = {m: md.escape(m) for m in {m for _, m, _ in report.entries}}  # a few modules, many entries
    lines += [f"| {md.escape(e)} | {modules[m]} | {MARK.get(mark, mark)} |" for e, m, mark in report.entries]
    return lines


def render_report_markdown(report: Report, prefix: str = "", base: str = "", limit: int = md.LIMIT,
                           command: str = "report") -> str:
    """The whole report, at most ``limit`` bytes, titled by the command that made it. A
    report without the report's relations (``report.full`` false: a diff or autonomy result
    in check's formats) has the status and the findings only."""
    result = report.check
    lines = [f"# memory-analyzer {command}: {result.shown_status or result.status}", ""]
    if result.failure is not None:
        return md.fit(lines + md.error_section(result, prefix), limit)
    parts = [md.status_section(result)]
    if report.full:
        parts += [matrix_section(report), modules_section(report), graph_section(report), report_section(report)]
    parts.append(md.findings_section(result, prefix, base))
    if report.full:
        parts.append(entries_section(report))
    for part in parts:
        lines += part + [""]
    return md.fit(lines[:-1], limit)
