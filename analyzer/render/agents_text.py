"""Text and JSON of `analyze read --tool` (an :class:`~analyzer.query.agents.AgentsReadResult`)."""

from __future__ import annotations

from typing import Any, Dict, List

from analyzer.query.agents import AgentsReadResult, NONE_LINE, ToolAnswer
from analyzer.render.check_text import proof_lines


def _load_line(order: int, load) -> str:
    where = {"launch": "loaded at every start" + (f" (folder {load.detail}/)" if load.detail else ""),
             "nested": f"nested: the path is under {load.detail}/",
             "glob": f"glob `{load.detail}` (line {load.line})",
             "import": f"imported by {load.detail} line {load.line} (hop {load.hop})"}.get(load.step, load.step)
    return f"  {order}. {load.file} - {where}"


def render_answer(answer: ToolAnswer, explain: bool) -> List[str]:
    """The lines of one tool's answer for one path."""
    use = f", {answer.in_use}" if answer.in_use else ""
    reach = "memory reachable" if answer.reachable else "memory NOT reachable"
    out = [f"{answer.name} ({answer.tool}{use}) for {answer.path}: {reach}"]
    if answer.loads:
        out += [_load_line(i, load) for i, load in enumerate(answer.loads, 1)]
    else:
        out.append("  (no instruction file loads)")
    if explain:
        out += [f"  not loaded: {s.file}:{s.line} - {s.reason}" for s in answer.skipped]
        out += [f"  near miss: {s.file}:{s.line} - {s.reason}" for s in answer.near_misses]
    return out


def render_text(result: AgentsReadResult, explain: bool = False) -> str:
    """Every answer, a blank line between tools; one informational line when there are no files."""
    if result.files == 0:
        head = [NONE_LINE]
    else:
        head = [f"agent instruction files: {result.files}; memory manifest: {result.memory_manifest}"
                + (f"; started in {result.cwd}/" if result.cwd else "")]
    blocks = ["\n".join(render_answer(a, explain)) for a in result.answers]
    return "\n\n".join(["\n".join(head)] + blocks) + "\n"


def payload(result: AgentsReadResult) -> Dict[str, Any]:
    """The body of the ``read.agents`` document."""
    return {
        "status": "OK", "cwd": result.cwd, "memory_manifest": result.memory_manifest,
        "instruction_files": result.files,
        "answers": [{"tool": a.tool, "name": a.name, "path": a.path, "in_use": a.in_use,
                     "memory_reachable": a.reachable,
                     "loads": [{"order": i, "file": l.file, "step": l.step, "detail": l.detail, "line": l.line,
                                "hop": l.hop, "root": l.root} for i, l in enumerate(a.loads, 1)],
                     "not_loaded": [{"file": s.file, "reason": s.reason, "line": s.line} for s in a.skipped],
                     "near_misses": [{"file": s.file, "reason": s.reason, "line": s.line} for s in a.near_misses]}
                    for a in result.answers]}


def agents_block(family) -> List[str]:
    """The `check --agents` block: ``MemoryCustodian agents check: OK|FAILED`` then
    ``- <CODE> <SEVERITY>: <path>:<line>:<col>: <message>`` per finding (no place for a finding
    about the repository as a whole), or ``- no findings``."""
    lines = [f"MemoryCustodian agents check: {family.shown_status or family.status}"]
    for f in family.findings:
        where = "".join(f"{loc.path}:{loc.line}:{loc.col}: " for loc in f.locations[:1])
        lines.append(f"- {f.code} {f.severity}: {where}{f.message}")
        lines += proof_lines(f)
    return lines if family.findings else lines + [f"- {line}" for line in family.lines or ["no findings"]]


def report_section(report) -> List[str]:
    """The report's ``## Agent instruction files`` section: per tool, whether memory is
    reachable, and a table of path patterns -> instruction files."""
    lines = ["## Agent instruction files", ""]
    if not report.agents:
        return lines + [NONE_LINE[0].upper() + NONE_LINE[1:] + "."]
    for tool in report.agents:
        use = f", {tool.in_use}" if tool.in_use else ""
        reach = "memory reachable" if tool.reachable else "**memory not reachable**"
        lines += [f"### {tool.name} ({tool.tool}{use}): {reach}", ""]
        if not tool.rows:
            lines += ["No instruction file of this tool.", ""]
            continue
        lines += ["| path pattern | instruction file | mode |", "| --- | --- | --- |"]
        lines += [f"| `{pattern}` | {file} | {mode} |" for pattern, file, mode in tool.rows] + [""]
    return lines[:-1]
