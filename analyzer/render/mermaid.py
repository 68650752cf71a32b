"""The reachability graph of ``analyze report`` as a Mermaid flowchart GitHub renders:
canonical tasks (and the path / explicit inputs that open declared modules) -> modules ->
entries. Unreachable, outside-canonical and unchecked entries, missing modules and modules
no route reaches get a class (a colour and a word in the legend).

GitHub renders only diagrams of bounded size, so past :data:`BUDGET` nodes the entries of
each module collapse into one node per mark with a count ("12 reachable", "2 unreachable");
if that is still too many, the reachable counts go and only marked ones stay. Past mermaid's
limits (500 edges, 50,000 characters: 238 optional modules gave 502 edges) modules collapse
into counted groups per folder and mark ("230 modules in areas/ (missing)"), then per mark
alone, which always fits. The full list is the report's table either way, and the full graph
is ``analyze report --output mermaid:FILE``. Node ids are positional (t0, m3, e17) in sorted order, so
the same report gives the same text.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

BUDGET = 150  # nodes
MAX_EDGES = 490  # mermaid draws at most 500 edges (its maxEdges); kept under with room
MAX_TEXT = 45_000  # mermaid's maxTextSize is 50,000 characters ("Maximum text size ... exceeded")
INPUT_LABELS = {"path": "touched path", "explicit": "explicit request"}
CLASSES = (
    ("unreachable", "fill:#fde2e1,stroke:#c62828,color:#000"),
    ("outside", "fill:#fff4d6,stroke:#b26a00,color:#000"),
    ("unchecked", "fill:#eeeeee,stroke:#777,color:#000"),
    ("missing", "fill:#ffffff,stroke:#c62828,stroke-dasharray:4 3,color:#000"),
)
MARKED = ("unreachable", "outside", "unchecked")


def label(text: str) -> str:
    """A quoted node label; quotes, angle brackets and control characters (a module name can
    hold them) as Mermaid entity codes."""
    text = text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return '"' + "".join(f"#{ord(c)};" if ord(c) < 0x20 or ord(c) == 0x7f else c for c in text) + '"'


def _mark_of_modules(entries: List[Tuple[str, str, str]], modules: List[str], missing: List[str]) -> Dict[str, str]:
    """A module's mark: "missing" for no file, else the first of MARKED its entries have."""
    rank = {mark: n for n, mark in enumerate(MARKED)}
    out: Dict[str, str] = {}
    for _, m, mark in entries:
        if mark in rank and (m not in out or rank[mark] < rank[out[m]]):
            out[m] = mark
    for m in modules:
        if m in missing:
            out[m] = "missing"
    return out


def _group(module: str, mark: str, level: str) -> str:
    """The node a module is drawn in: itself, its folder's group of the same mark, or the group
    of every module of that mark."""
    if level == "modules":
        return module
    folder = module.rsplit("/", 1)[0] + "/" if "/" in module and level == "folders" else ""
    return f"{folder}\x00{mark}"


def _group_label(key: str, count: int) -> str:
    folder, _, mark = key.partition("\x00")
    where = f" in {folder}" if folder else ""
    return f"{count} module{'s' if count != 1 else ''}{where}" + (f" ({mark})" if mark else "")


def flowchart(sources: List[str], edges: List[Tuple[str, str]], entries: List[Tuple[str, str, str]],
              missing: List[str], budget: int = BUDGET, max_edges: int = MAX_EDGES,
              max_text: int = MAX_TEXT) -> Tuple[List[str], str]:
    """The flowchart's lines (without the code fence) and how it was drawn: "entries",
    "counts" or "marked counts", with ", modules grouped by folder" / ", modules grouped"
    when modules had to collapse into counted groups to stay within ``max_edges`` edges and
    ``max_text`` characters (mermaid's limits as GitHub renders it)."""
    for level in ("modules", "folders", "marks"):
        lines, mode, n_edges = _draw(sources, edges, entries, missing, budget, level)
        if n_edges <= max_edges and sum(len(line) + 1 for line in lines) <= max_text:
            break
    suffix = {"modules": "", "folders": ", modules grouped by folder", "marks": ", modules grouped"}[level]
    return lines, mode + suffix


def _draw(sources, edges, entries, missing, budget: int, level: str) -> Tuple[List[str], str, int]:
    used = [s for s in sources if any(e[0] == s for e in edges)]
    all_modules = sorted({m for _, m in edges} | {m for _, m, _ in entries})
    module_mark = _mark_of_modules(entries, all_modules, missing)
    node_of = {m: _group(m, module_mark.get(m, ""), level) for m in all_modules}
    sizes: Dict[str, int] = {}
    for m in all_modules:
        sizes[node_of[m]] = sizes.get(node_of[m], 0) + 1
    modules = sorted(sizes)
    entries = [(e, node_of[m], mark) for e, m, mark in entries]
    if level == "modules" and len(used) + len(modules) + len(entries) <= budget:
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
    names = {m: (m if level == "modules" else _group_label(m, sizes[m])) for m in modules}
    lines = ["flowchart LR"]
    lines += [f"  classDef {name} {style}" for name, style in CLASSES]
    lines += [f"  {ids[s]}([{label(INPUT_LABELS.get(s, s))}])" for s in used]
    lines += [f"  {mids[m]}[{label(names[m])}]" for m in modules]
    lines += [f"  {nid}[{label(text)}]" for nid, text, _, _ in entry_nodes]
    order = {s: n for n, s in enumerate(used)}
    arrows = sorted({(order[s], node_of[m]) for s, m in edges if s in ids})
    lines += [f"  t{n} --> {mids[m]}" for n, m in arrows]
    lines += [f"  {mids[m]} --> {nid}" for nid, _, m, _ in entry_nodes]
    marks: Dict[str, List[str]] = {}
    for nid, _, _, mark in entry_nodes:
        if mark in MARKED:
            marks.setdefault(mark, []).append(nid)
    # a module (or group) takes the mark of its entries (the rules' marks), or "missing" for
    # no file (the first of MARKED its entries have: unreachable before outside before unchecked)
    for m in all_modules:
        mark = module_mark.get(m)
        if mark and mids[node_of[m]] not in marks.get(mark, []):
            marks.setdefault(mark, []).append(mids[node_of[m]])
    lines += [f"  class {','.join(marks[name])} {name}" for name, _ in CLASSES if marks.get(name)]
    return lines, mode, len(arrows) + len(entry_nodes)
