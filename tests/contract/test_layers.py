"""The layers of analyzer/ hold: every import goes down the declared order, none climbs.

``analyzer.LAYERS`` names the packages of analyzer/, lowest first. A module may import its own
package and any package below it, never one above it. Every import counts, also one written
inside a function: an import deferred into a function is still a dependency, and hiding a
climb there is how the old layout grew 12 import circles. Packages must form no cycle.

Imports inside functions stay only where they buy start-up time, and are counted here:

* ``lark`` / ``networkx``: the target loads a parser generator or the graph library that the
  importing module does not load already (``analyze read`` on a warm cache needs neither);
* ``dispatch``: the importer is a command module: the CLI imports every command module to
  build its parser, so a command's own work (query, render) loads only when it runs;
* anything else is counted per package against :data:`DEFERRED_CEILING`, which may only
  shrink; a deferred import of a module the importer already loads (directly or through its
  own imports) buys nothing: counted against :data:`REDUNDANT_CEILING`, which may only shrink.

No climb is allowed (:data:`ALLOWED_CLIMBS` is empty). The ceilings may only shrink: a count
below its ceiling fails the test too, so the ceiling is lowered when an import is fixed.
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, FrozenSet, List, NamedTuple, Set, Tuple

import networkx as nx
import pytest

import analyzer
from analyzer import LAYERS

PACKAGE = Path(analyzer.__file__).resolve().parent

# Imports against the declared order: (importer, imported). Empty since issue 26 moved the last
# ones down; a new climb is fixed by moving code to its layer, never listed here.
ALLOWED_CLIMBS: FrozenSet[Tuple[str, str]] = frozenset()

# Deferred imports that are neither lark, networkx nor dispatch, per layer. May only shrink.
DEFERRED_CEILING: Dict[str, int] = {
    "contract": 2, "core": 3, "dev": 19, "engine": 17, "history": 52, "project": 28, "query": 131, "render": 6}

# Deferred imports of a module the importer loads anyway (they buy nothing), per layer: none
# since issue 26 moved the last ones (analyzer/history) to the top of their modules.
REDUNDANT_CEILING: Dict[str, int] = {}

# Where the reasons above do not apply by rule but the deferral does buy start-up time.
DEFERRED_REASONS: Dict[Tuple[str, str], str] = {
    ("analyzer.project.vocab", "analyzer.engine.cache"):
        "the configuration imports the vocabularies on every command; the engine loads only when one is asked",
    ("analyzer.project.vocab", "analyzer.engine.shipped"): "as analyzer.engine.cache, for the wheel's shipped program",
}


class Import(NamedTuple):
    """One import statement's target, resolved to a module of analyzer/ or a top-level name."""

    importer: str
    target: str
    line: int
    deferred: bool


def modules(root: Path = PACKAGE) -> Dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if "__pycache__" in parts or "_data" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(name: str, known: Dict[str, Path]) -> str:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name


def _statements(node: ast.AST):
    """The statements (and except handlers, match cases) directly inside ``node``: an import is
    a statement, so the walk need not visit expressions, nine tenths of a module's nodes (the
    walk of every node was about two thirds of this module's time)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        children = getattr(node, field, None)
        if isinstance(children, list):
            yield from children


def imports(known: Dict[str, Path]) -> List[Import]:
    """Every import of every module, with whether it sits inside a function; imports under
    ``if TYPE_CHECKING:`` are skipped (they never run)."""
    found: List[Import] = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

        def walk(node: ast.AST, deferred: bool) -> None:
            for child in _statements(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                targets: List[str] = []
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                    targets = [f"{child.module}.{alias.name}" if f"{child.module}.{alias.name}" in known
                               else child.module for alias in child.names]
                for target in targets:
                    target = _resolve(target, known) if target.split(".")[0] == "analyzer" else target.split(".")[0]
                    found.append(Import(name, target, child.lineno, inner))
                walk(child, inner)

        walk(tree, False)
    return found


def layer(module: str) -> int:
    """The index of a module's package in :data:`analyzer.LAYERS` (the root package and
    ``__main__`` sit at the bottom and the top)."""
    parts = module.split(".")
    if len(parts) == 1:
        return 0
    if parts[1] == "__main__":
        return len(LAYERS)
    return LAYERS.index(parts[1])


def climbs(found: List[Import]) -> Set[Tuple[str, str]]:
    """Every (importer, imported) pair that goes up the declared order."""
    return {(i.importer, i.target) for i in found
            if i.target.startswith("analyzer") and layer(i.importer) < layer(i.target)}


def closures(found: List[Import], known: Dict[str, Path]) -> Dict[str, Set[str]]:
    """What importing each module loads: its module-level imports, transitively, with the
    packages above each module (importing a.b.c runs a/__init__ and a/b/__init__)."""
    top: Dict[str, Set[str]] = defaultdict(set)
    for i in found:
        if not i.deferred:
            top[i.importer].add(i.target)
    memo: Dict[str, Set[str]] = {}
    for start in known:
        seen: Set[str] = set()
        stack = [start]
        while stack:
            m = stack.pop()
            if m in seen:
                continue
            seen.add(m)
            parts = m.split(".")
            stack.extend(".".join(parts[:k]) for k in range(1, len(parts)))
            stack.extend(top.get(m, ()))
        memo[start] = seen
    return memo


def deferred_reason(i: Import, loaded: Dict[str, Set[str]]) -> str:
    """Why a deferred import buys start-up time: lark, networkx, dispatch, redundant or other."""
    if not i.target.startswith("analyzer"):
        return "external"
    mine = loaded[i.importer]
    if i.target in mine:
        return "redundant"
    brought = loaded.get(i.target, {i.target}) - mine
    for heavy in ("lark", "networkx"):
        if heavy in brought:
            return heavy
    if i.importer.startswith("analyzer.commands."):
        return "dispatch"
    return DEFERRED_REASONS.get((i.importer, i.target), "other")


@pytest.fixture(scope="module")
def graph():
    known = modules()
    return known, imports(known)


def test_every_package_has_a_layer(graph):
    known, _ = graph
    packages = {name.split(".")[1] for name in known if name.count(".") >= 1} - {"__main__"}
    assert packages <= set(LAYERS), f"packages without a layer in analyzer.LAYERS: {sorted(packages - set(LAYERS))}"


def test_top_level_is_small():
    """`ls analyzer/` shows the layers, __init__.py and __main__.py, and nothing else."""
    entries = {p.name for p in PACKAGE.iterdir()} - {"__pycache__", "_data"}
    assert entries == set(LAYERS) | {"__init__.py", "__main__.py"}, sorted(entries)
    assert len(entries) + 1 <= 12  # + __pycache__


def test_no_import_climbs_the_layers(graph):
    _, found = graph
    now = climbs(found)
    new = sorted(now - ALLOWED_CLIMBS)
    assert not new, "imports against the declared order (analyzer.LAYERS):\n" + "\n".join(
        f"  {a} -> {b} ({', '.join(str(i.line) for i in found if (i.importer, i.target) == (a, b))})" for a, b in new)
    fixed = sorted(ALLOWED_CLIMBS - now)
    assert not fixed, f"no longer imported, remove from ALLOWED_CLIMBS: {fixed}"


def test_no_cycle_between_packages(graph):
    _, found = graph
    g = nx.DiGraph()
    for i in found:
        if i.target.startswith("analyzer.") and (i.importer, i.target) not in ALLOWED_CLIMBS:
            a, b = i.importer.split(".")[1], i.target.split(".")[1]
            if a != b:
                g.add_edge(a, b)
    cycles = sorted(sorted(c) for c in nx.simple_cycles(g))
    assert not cycles, f"import cycles between packages: {cycles}"


def test_deferred_imports_buy_start_up_time(graph):
    known, found = graph
    loaded = closures(found, known)
    reasons = [(i, deferred_reason(i, loaded)) for i in found if i.deferred]
    redundant = Counter(layer_name(i.importer) for i in {i for i, why in reasons if why == "redundant"})
    over = {k: (n, REDUNDANT_CEILING.get(k, 0)) for k, n in redundant.items() if n > REDUNDANT_CEILING.get(k, 0)}
    assert not over, "deferred imports of modules the importer loads anyway (move them up; count, ceiling): " + \
        f"{over}\n  " + "\n  ".join(sorted(f"{i.importer}:{i.line} {i.target}" for i, why in reasons
                                        if why == "redundant" and layer_name(i.importer) in over))
    under = {k: (redundant.get(k, 0), n) for k, n in REDUNDANT_CEILING.items() if redundant.get(k, 0) < n}
    assert not under, f"fewer redundant deferred imports than REDUNDANT_CEILING: lower it to the count: {under}"
    counted = Counter(layer_name(i.importer) for i, why in reasons if why == "other")
    over = {k: (n, DEFERRED_CEILING.get(k, 0)) for k, n in counted.items() if n > DEFERRED_CEILING.get(k, 0)}
    assert not over, f"more deferred imports than DEFERRED_CEILING allows (count, ceiling): {over}"
    under = {k: (counted.get(k, 0), n) for k, n in DEFERRED_CEILING.items() if counted.get(k, 0) < n}
    assert not under, f"fewer deferred imports than DEFERRED_CEILING: lower it to the count: {under}"
    stale = sorted(k for k in DEFERRED_REASONS if not any((i.importer, i.target) == k for i, _ in reasons))
    assert not stale, f"no longer deferred, remove from DEFERRED_REASONS: {stale}"


def layer_name(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "analyzer"
