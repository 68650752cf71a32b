"""`## Always load` and `## Load by task` of manifest.md -> ``route`` facts (spec §4.3)."""

from __future__ import annotations

from typing import Dict, List, Tuple

from analyzer.project import vocab
from analyzer.project.extract.paths import safe_memory_path, strip_code_span
from analyzer.project.extract.sink import Sink
from analyzer.project.markdown import Lexed

ROUTE_HEADINGS = {
    "planning / architecture / refactoring": "planning",
    "implementation / execution / debugging": "implementation",
    "user-facing artifact / output": "artifact",
    "preferences": "preferences",
    "change history / recap": "history",
    "memory maintenance": "maintenance",
}
ROUTES = 4  # the routes' stage in the contract's order (rules/manifest/contract.dl)
MODES = {"load:": "required", "also load:": "required", "load if present:": "optional"}


def _route_body(lexed: Lexed, head: int, task: str, sink: Sink, facts) -> List[Tuple[str, int]]:
    """Read one route body; emits ``route`` facts and returns (name, 0-based line) pairs."""
    heading = lexed.headings[head]
    mode = "required"
    names: List[Tuple[str, int]] = []
    ordinal = 0
    for i in range(heading.index + 1, lexed.section_end(head)):
        if not lexed.structural(i):
            continue
        stripped = lexed.lines[i].strip()
        if stripped.casefold() in MODES:
            mode = MODES[stripped.casefold()]
            continue
        if not stripped.startswith("- "):
            continue
        name = strip_code_span(stripped[2:].strip())
        if name.endswith("/"):
            continue
        if not safe_memory_path(name):
            facts.report(ROUTES, f"unsafe or malformed memory path {name!r}", i, lexed.lines[i].find("-") + 1)
            continue
        ordinal += 1
        sink.fact("route", task, name, mode, ordinal, line=i + 1, col=lexed.lines[i].find("-") + 1)
        names.append((name, i))
    return names


def _expected_at(lexed: Lexed, label: str, other: List[int]) -> int:
    """The 0-based line where a missing route section was expected: 'Always load' just before
    the (first) 'Load by task' heading, 'Load by task' just after the 'Always load' section;
    line 1 when the other section is missing too."""
    if not other:
        return 0
    if label == "Always load":
        return lexed.headings[other[0]].index
    return min(lexed.section_end(other[0]), max(len(lexed.lines) - 1, 0))


def extract_routes(lexed: Lexed, sink: Sink, facts) -> None:
    """Check the route topology and emit one ``route`` fact per routed name."""
    h2 = [(k, h) for k, h in enumerate(lexed.headings) if h.level == 2]
    always = [k for k, h in h2 if h.title == "always load"]
    by_task = [k for k, h in h2 if h.title == "load by task"]
    for found, label, other in ((always, "Always load", by_task), (by_task, "Load by task", always)):
        if len(found) != 1:
            where = lexed.headings[found[1]].index if len(found) > 1 else _expected_at(lexed, label, other)
            facts.report(ROUTES, f"expected exactly one '{label}' section, found {len(found)}", where)
    parent = (lexed.headings[by_task[0]].index, lexed.section_end(by_task[0])) if len(by_task) == 1 else None
    candidates: Dict[str, List[int]] = {title: [] for title in ROUTE_HEADINGS}
    unknown: List[str] = []
    first_unknown = 0
    for k, h in enumerate(lexed.headings):
        inside = parent is not None and parent[0] < h.index < parent[1]
        if h.title in ROUTE_HEADINGS and h.level == 3:
            candidates[h.title].append(k)
            if not inside:
                facts.report(ROUTES, f"canonical heading appears outside the unique 'Load by task' section: {h.raw_title}",
                           h.index)
        elif h.level == 3 and inside:
            if not unknown:
                first_unknown = h.index
            unknown.append(h.raw_title)
    if unknown:
        facts.report(ROUTES, "unknown H3 route heading(s): " + ", ".join(unknown), first_unknown)
    effective: Dict[str, List[Tuple[str, int]]] = {}
    base: List[Tuple[str, int]] = []
    if len(always) == 1:
        base = _route_body(lexed, always[0], "always", sink, facts)
    for title, task in ROUTE_HEADINGS.items():
        found = candidates[title]
        if len(found) != 1:
            lines = ", ".join(str(lexed.headings[k].index + 1) for k in found) or "none"
            where = lexed.headings[found[1]].index if len(found) > 1 else 0
            facts.report(ROUTES, f"expected one canonical heading '{title}'; candidates: {lines}", where)
            continue
        effective[task] = _route_body(lexed, found[0], task, sink, facts)
    for task in vocab.tasks():  # the protocol's order (rules/vocab/tasks.dl)
        if task not in effective:
            continue
        seen: Dict[str, int] = {}
        dups: List[Tuple[str, int]] = []
        for name, line in base + effective[task]:
            if name in seen and name not in [d for d, _ in dups]:
                dups.append((name, line))
            seen.setdefault(name, line)
        if dups:
            facts.report(ROUTES, f"{task} route has duplicate paths: " + ", ".join(d for d, _ in dups), dups[0][1])
