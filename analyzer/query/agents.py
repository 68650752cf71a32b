"""Agent instruction files: the `read --tool` request and the `check --agents` family.

Mechanics only: gather the facts (analyzer/project/extract/agent_files.py, the repository listing,
the request), evaluate rules/agents/*.dl, and select the derived relations into plain
dataclasses. Whether a file loads, in which order, why not, and what is a finding are the
rules' (``agent_load``, ``agent_not_loaded``, ``agent_near_miss``, ``agent_finding``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple
from analyzer.query.agent_facts import gather
from analyzer.query.program import shipped_program
from analyzer.contract.check_model import FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.query.scans import redact_result
from analyzer.project import vocab

#: The tools the rules know, in the order `--tool all` shows them.
TOOLS: Tuple[str, ...] = ("claude", "codex", "cursor", "copilot", "gemini", "windsurf")

#: What `read --tool` selects from the program.
READ_RELATIONS = ("agent_tool", "agent_load", "agent_not_loaded", "agent_near_miss", "instruction_file",
                  "agent_reachable", "agent_in_use", "agent_leads")
#: What `analyze report` shows per tool (selected with the check family's findings).
REPORT_RELATIONS = ("agent_tool", "agent_in_use", "agent_reachable", "agent_report_row")
#: What the check family selects (rules/check/check.dl includes rules/agents/agents.dl).
CHECK_RELATIONS = ("agent_finding", "agents_status", "agents_none") + REPORT_RELATIONS


@dataclass
class ToolReport:
    """One tool in `analyze report`: in use or not, memory reachable or not, and its table of
    path patterns -> instruction files."""

    tool: str
    name: str
    in_use: str
    reachable: bool
    rows: List[Tuple[str, str, str]] = field(default_factory=list)  # (pattern, file, mode)


def tool_reports(relations: Dict[str, list]) -> List[ToolReport]:
    """Every tool in use or with instruction files, in :data:`TOOLS` order."""
    names = dict(relations.get("agent_tool", ()))
    reachable = {t for (t,) in relations.get("agent_reachable", ())}
    in_use: Dict[str, str] = {}
    for tool, how in sorted(relations.get("agent_in_use", ())):
        in_use.setdefault(tool, how)
    rows: Dict[str, List[Tuple[str, str, str]]] = {}
    for tool, pattern, file, mode in relations.get("agent_report_row", ()):
        rows.setdefault(tool, []).append((pattern, file, mode))
    return [ToolReport(t, names.get(t, t), in_use.get(t, ""), t in reachable, sorted(rows.get(t, [])))
            for t in TOOLS if t in in_use or t in rows]


@dataclass
class Load:
    """One file that loads for the path, in order, and why."""

    file: str
    step: str
    detail: str
    line: int
    hop: int = 0
    root: str = ""


@dataclass
class Skip:
    """A file of the tool that does not load for the path, and why."""

    file: str
    reason: str
    line: int


@dataclass
class ToolAnswer:
    """What one tool loads for one path."""

    tool: str
    name: str
    path: str
    loads: List[Load] = field(default_factory=list)
    skipped: List[Skip] = field(default_factory=list)
    near_misses: List[Skip] = field(default_factory=list)
    reachable: bool = False
    in_use: str = ""


@dataclass
class AgentsReadResult:
    """The answer of `read --tool`: one :class:`ToolAnswer` per tool and path."""

    answers: List[ToolAnswer]
    cwd: str = ""
    memory_manifest: str = ""
    files: int = 0
    listing: Tuple[str, bool] = ("walk", True)


def normalize_path(raw: str) -> Optional[str]:
    """A --path or --cwd value as a project-relative path, or None when it escapes the root."""
    text = raw.replace("\\", "/").strip()
    if text.startswith("/"):
        return None
    norm = posixpath.normpath(text) if text else "."
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../"):
        return None
    return norm


def read_tools(root: str, tools: Sequence[str], paths: Sequence[str], cwd: str = "",
               memory_dir: str = "docs/memory", use_cache: bool = True) -> AgentsReadResult:
    """Evaluate the agent rules for ``paths`` and select each tool's answer."""
    engine = shipped_program("agents/read.dl", use_cache)
    facts = gather(root, memory_dir, paths, cwd)
    db = engine.evaluate(facts, only=list(READ_RELATIONS))
    names = dict(db.relation("agent_tool"))
    reachable = {t for (t,) in db.relation("agent_reachable")}
    in_use: Dict[str, str] = {}
    for tool, how in sorted(db.relation("agent_in_use")):
        in_use.setdefault(tool, how)
    loads: Dict[Tuple[str, str], List[tuple]] = {}
    for tool, path, file, tier, depth, root_file, hop, step, detail, line in db.relation("agent_load"):
        loads.setdefault((tool, path), []).append((tier, depth, root_file, hop, file, step, detail, line))
    skipped: Dict[Tuple[str, str], List[Skip]] = {}
    for tool, path, file, reason, line in db.relation("agent_not_loaded"):
        skipped.setdefault((tool, path), []).append(Skip(file, reason, line))
    near: Dict[Tuple[str, str], List[Skip]] = {}
    for tool, path, file, message, line in db.relation("agent_near_miss"):
        near.setdefault((tool, path), []).append(Skip(file, message, line))
    answers = []
    for path in paths:
        for tool in tools:
            rows = sorted(loads.get((tool, path), []))
            shown, seen = [], set()
            for tier, depth, root_file, hop, file, step, detail, line in rows:
                if file in seen:  # a file reached twice (loaded and imported) is in the context once
                    continue
                seen.add(file)
                shown.append(Load(file, step, detail, line, hop, root_file))
            answers.append(ToolAnswer(tool, names.get(tool, tool), path, shown,
                                      sorted(skipped.get((tool, path), []), key=lambda s: (s.file, s.line, s.reason)),
                                      sorted(near.get((tool, path), []), key=lambda s: (s.file, s.line, s.reason)),
                                      tool in reachable, in_use.get(tool, "")))
    count = len(facts["instruction_source"])
    return AgentsReadResult(answers, cwd, posixpath.join(memory_dir, "manifest.md"), count)


# ---- the check family -------------------------------------------------------------------------

def family_facts(request, project) -> Dict[str, list]:
    """The agent facts of the project's repository for `check --agents` (with the
    configuration's `agents` and `agents-exclude`, which the check command has validated):
    those open_request gathered (taken from the request, which keeps none after), else
    gathered now."""
    facts, request.agent_facts = request.agent_facts, None
    if facts is not None:
        return facts
    return gather(str(request.project_root), project.memory_dir, (), "", listed=request.repo_files)


def select_agents(db, locate):
    """The agents family: its findings with file:line, sorted by severity, code, place."""
    rank = vocab.ranks("severity_rank")  # most severe first; an unknown word last
    findings = []
    for code, severity, message, path, line, col in sorted(
            db.relation("agent_finding"), key=lambda f: (-rank.get(f[1], -1), f[0], f[3], f[4], f[5], f[2])):
        where = [Location(path, line, col)] if path else []
        findings.append(Finding(code, "agents", message, severity=severity, locations=where))
    (status, exit_code), = db.relation("agents_status")
    lines = [NONE_LINE] if db.relation("agents_none") else []
    return FamilyResult("agents", "agents", status, exit_code, findings, lines,
                        relations={rel: sorted(db.relation(rel)) for rel in REPORT_RELATIONS})


#: The one line of a repository without agent instruction files (rules: ``agents_none``).
NONE_LINE = ("no agent instruction files found (CLAUDE.md, AGENTS.md, GEMINI.md, .cursor/rules, "
             ".github/copilot-instructions.md, .windsurf/rules, ...): nothing to check")


def run_agents_check(request):
    """`check --agents` alone: the agent rules evaluated without loading the memory project
    (a repository without a memory directory can still have its instruction files checked;
    reachability is then not judged, rules/agents/findings.dl)."""
    from analyzer.query.check import combine

    engine = shipped_program("agents/read.dl", request.use_cache)
    facts = gather(str(request.project_root), request.memory_dir, listed=request.repo_files)
    db = engine.evaluate(facts, only=list(CHECK_RELATIONS))
    result = combine([select_agents(db, None)])
    redact_result(result)  # a frontmatter diagnostic quotes its line: no output prints a secret
    return result
