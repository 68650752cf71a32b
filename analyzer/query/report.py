"""The ``report`` request: every check family and the report's own relations
(rules/check/report.dl) in one evaluation, selected into a :class:`Report`.

``analyze check`` builds the same :class:`Report` when a Markdown output is requested: it
runs its families with the ``report`` family in the same evaluation and splits it out with
:func:`report_of`, so both commands print the one report from one renderer.

The routing matrix, the glob matches and the entry marks are derived relations; this module
only orders them for display (tasks in the reference's table order, §4.3) and groups them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from analyzer.contract.check_model import CheckResult
from analyzer.project import vocab
from analyzer.query.agents import tool_reports
# a report answered from the result cache imports no evaluation (run_check imports it on a miss)
from analyzer.query.check_request import ORDER, CheckRequest, run_check
from analyzer.history.repofiles import repo_prefix


@dataclass
class Glob:
    """A ``paths:`` glob of a declared module: how many repository files match, and whether
    any does ("yes", "no", or "unknown" when the listing was cut short or missing)."""

    glob: str
    files: int
    matched: str


@dataclass
class OptionalModule:
    """A declaration of the optional module index."""

    module: str
    folder: str
    activation: str
    exists: bool
    globs: List[Glob] = field(default_factory=list)
    matched: str = ""  # any glob matched a repository file: "yes", "no", "unknown"; "" without globs


@dataclass
class Report:
    """One ``analyze report``: the check result (every family) and what the report adds."""

    check: CheckResult
    tasks: List[str] = field(default_factory=list)
    matrix: Dict[str, Dict[str, str]] = field(default_factory=dict)  # module -> task -> state
    modules: List[OptionalModule] = field(default_factory=list)
    listing: Optional[Tuple[str, bool, int]] = None  # source, complete, files
    edges: List[Tuple[str, str]] = field(default_factory=list)  # (task or input, module)
    entries: List[Tuple[str, str, str]] = field(default_factory=list)  # (entry, module, mark)
    #: agent tools: reachable or not, path patterns -> instruction files (analyzer/query/agents.py)
    agents: List[object] = field(default_factory=list)
    #: whether the report's relations were selected (False for a result that is not a
    #: project check, such as diff's: only the status and the findings are shown)
    full: bool = False

    def repo_prefix(self, project_root: str) -> str:
        """The project root's path in its Git work tree (analyzer.history.repofiles.repo_prefix),
        ``""`` without asking Git again when the files were walked: ``git ls-files`` failed,
        so the project is in no work tree."""
        if self.listing is not None and self.listing[0] == "walk":
            return ""
        return repo_prefix(project_root)


def run_report(project_root: Path, memory_dir: str = "docs/memory", use_cache: bool = True,
               max_file_bytes: Optional[int] = None) -> Report:
    """Check every family and select the report's relations, in one evaluation."""
    return report_of(run_check(CheckRequest([*ORDER, "report"], project_root, memory_dir, use_cache,
                                            max_file_bytes=max_file_bytes)))


def report_of(result: CheckResult) -> Report:
    """The :class:`Report` of a check result that ran the ``report`` family: the result
    without that family and the report's relations, ordered for display. The status and
    exit status stay the result's: the report's family takes no part in them
    (rules/check/run.dl's run_not_a_check), so a report read from the result cache evaluates
    nothing. A result without it (an error, a check run without the family) is a report of
    its status and findings only."""
    part = next((f for f in result.families if f.name == "report"), None)
    if result.failure is not None or part is None:
        return Report(result)
    rel = part.relations
    check = CheckResult([f for f in result.families if f is not part], result.status, result.exit_code,
                        merge=result.merge)
    # the canonical tasks in the order of the reference's table (§4.3): display order only
    order = vocab.tasks()
    tasks = sorted({t for (t,) in rel["canonical_task_name"]},
                   key=lambda t: (order.index(t) if t in order else len(order), t))
    matrix: Dict[str, Dict[str, str]] = {}
    for task, module, state in rel["report_route"]:
        matrix.setdefault(module, {})[task] = state
    globs: Dict[str, List[Tuple[int, Glob]]] = {}
    matched = {(m, g): x for m, g, x in rel["report_glob_match"]}
    for module, glob, order, count in rel["report_glob"]:
        globs.setdefault(module, []).append((order, Glob(glob, count, matched.get((module, glob), "unknown"))))
    any_match = dict(rel["report_module_match"])
    modules = [OptionalModule(m, folder, activation, bool(exists),
                              [g for _, g in sorted(globs.get(m, []), key=lambda x: x[0])], any_match.get(m, ""))
               for m, folder, activation, exists in rel["report_module"]]
    for module in modules:
        matrix.setdefault(module.module, {})
    listing = next(((s, bool(c), n) for s, c, n in rel["report_listing"]), None)
    agents = next((tool_reports(f.relations) for f in result.families if f.name == "agents"), [])
    return Report(check, tasks, dict(sorted(matrix.items())), modules, listing,
                  list(rel["report_edge"]), list(rel["report_entry"]), agents, full=True)
