"""The reachability graph of ``analyze report`` as a Mermaid flowchart GitHub renders:
canonical tasks (and the path / explicit inputs that open declared modules) -> modules ->
entries. Unreachable, outside-canonical and unchecked entries, missing modules and modules
no route reaches get a class (a colour and a word in the legend).

GitHub renders only diagrams of bounded size, so past :data:`BUDGET` nodes the entries of
each module collapse into one node per mark with a count ("12 reachable", "2 unreachable");
if that is still too many, the reachable counts go and only marked ones stay. The full list
is the report's table either way. Node ids are positional (t0, m3, e17) in sorted order, so
the same report gives the same text.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

BUDGET = 150  # nodes
INPUT_LABELS = {"path": "touched path", "explicit": "explicit request"}
CLASSES = (
    ("unreachable", "fill:#fde2e1,stroke:#c62828,color:#000"),
    ("outside", "fill:#fff4d6,stroke:#b26a00,color:#000"),
    ("unchecked", "fill:#eeeeee,stroke:#777,color:#000"),
    ("missing", "fill:#ffffff,stroke:#c62828,stroke-dasharray:4 3,color:#000"),
)
MARKED = ("unreachable", "outside", "unchecked")


def label(text: str) -> str:
    """A quoted node label; quotes and angle brackets as Mermaid entity codes."""
    return '"' + text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;") + '"'


def flowchart(sources: List[str], edges: List[Tuple[str, str]], entries: List[Tuple[str, str, str]],
              missing: List[str], budget: int = BUDGET) -> Tuple[List[str], str]:
    """The flowchart's lines (without the code fence) and how entries were drawn: "entries",
    "counts" or "marked counts"."""
    used = [s for s in sources if any(e[0] == s for e in edges)]
    modules = sorted({m for _, m in edges} | {m for _, m, _ in entries})
    if len(used) + len(modules) + len(entries) <= budget:
        mode, entry_nodes = "entries", [(f"e{n}", e, m, mark) for n, (e, m, mark) in enumerate(entries)]
    else:
        counts: Dict[Tuple[str, str], int] = {}
        for _, m, mark in entries:
            counts[(m, mark)] = counts.get((m, mark), 0) + 1
        mode, entry_nodes = "counts", [(f"c{n}", f"{c} {mark}", m, mark) for n, ((m, mark), c) in
                                       enumerate(sorted(counts.items()))]
        if len(used) + len(modules) + len(entry_nodes) > budget:
            mode, entry_nodes = "marked counts", [node for node in entry_nodes if node[3] in MARKED]
    ids = {s: f"t{n}" for n, s in enumerate(used)}
    mids = {m: f"m{n}" for n, m in enumerate(modules)}
    lines = ["flowchart LR"]
    lines += [f"  classDef {name} {style}" for name, style in CLASSES]
    lines += [f"  {ids[s]}([{label(INPUT_LABELS.get(s, s))}])" for s in used]
    lines += [f"  {mids[m]}[{label(m)}]" for m in modules]
    lines += [f"  {nid}[{label(text)}]" for nid, text, _, _ in entry_nodes]
    lines += [f"  {ids[s]} --> {mids[m]}" for s, m in sorted(edges, key=lambda e: (used.index(e[0]) if e[0] in ids
                                                                                   else len(used), e[1])) if s in ids]
    lines += [f"  {mids[m]} --> {nid}" for nid, _, m, _ in entry_nodes]
    marks: Dict[str, List[str]] = {}
    for nid, _, _, mark in entry_nodes:
        if mark in MARKED:
            marks.setdefault(mark, []).append(nid)
    # a module takes the mark of its entries (the rules' marks), or "missing" for no file
    # (the first of MARKED its entries have: unreachable before outside before unchecked)
    rank = {mark: n for n, mark in enumerate(MARKED)}
    module_mark: Dict[str, str] = {}
    for _, m, mark in entries:
        if mark in rank and (m not in module_mark or rank[mark] < rank[module_mark[m]]):
            module_mark[m] = mark
    for m in modules:
        mark = "missing" if m in missing else module_mark.get(m)
        if mark:
            marks.setdefault(mark, []).append(mids[m])
    lines += [f"  class {','.join(marks[name])} {name}" for name, _ in CLASSES if marks.get(name)]
    return lines, mode
