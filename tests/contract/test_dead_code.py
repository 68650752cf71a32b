"""No dead code in analyzer/: every top-level function, class, method and module constant is
referred to somewhere else (issue 26 item 7).

A name counts as used when any module of analyzer/, tests/ or bench/ (or the packaging
files, for entry points) names it outside its own definition: as a name, an attribute, an
imported name, or a word of a short string (``getattr(self, "gen_" + kind)`` and the command
registry's dotted module names are strings). Names only tests use stay: they are how the
tests reach a unit. Hooks that Python or a library calls by name are listed in
:data:`CALLED_BY_NAME`, each with who calls it.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

import analyzer

PACKAGE = Path(analyzer.__file__).resolve().parent
REPO = PACKAGE.parent

#: (module path, name) -> who calls it, for names no code of ours spells out
CALLED_BY_NAME: Dict[Tuple[str, str], str] = {
    ("analyzer/commands/cli.py", "_check_value"): "argparse, for every value of an option with choices",
    ("analyzer/engine/shipped.py", "persistent_id"): "pickle.Pickler",
    ("analyzer/engine/shipped.py", "persistent_load"): "pickle.Unpickler",
    ("analyzer/engine/compile.py", "gen_scan"): "RuleCompiler, as getattr(self, 'gen_' + step.kind)",
    ("analyzer/engine/compile.py", "gen_neg"): "RuleCompiler, as getattr(self, 'gen_' + step.kind)",
    ("analyzer/engine/compile.py", "gen_cmp"): "RuleCompiler, as getattr(self, 'gen_' + step.kind)",
    ("analyzer/engine/compile.py", "gen_call"): "RuleCompiler, as getattr(self, 'gen_' + step.kind)",
    ("analyzer/commands/fleet_check.py", "_get_sentinels"): "multiprocessing.pool.Pool.__init__ (overridden)",
}

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _python_files(*folders: str) -> List[Path]:
    return [p for folder in folders if (REPO / folder).is_dir() for p in sorted((REPO / folder).rglob("*.py"))
            if "__pycache__" not in p.parts and "_data" not in p.parts]


def references(paths: List[Path]) -> Dict[str, List[Tuple[Path, int]]]:
    """Every name each file refers to, with where: names read, attributes, imported names and
    the words of short strings (docstrings are long and left out)."""
    found: Dict[str, List[Tuple[Path, int]]] = defaultdict(list)
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names: List[str] = []
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                names = [node.id]
            elif isinstance(node, ast.Attribute):
                names = [node.attr]
            elif isinstance(node, ast.ImportFrom):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 300:
                names = _WORD.findall(node.value)
            for name in names:
                found[name].append((path, getattr(node, "lineno", 0)))
    return found


def definitions(path: Path) -> List[Tuple[str, ast.AST]]:
    """The top-level functions, classes and constants of a module, and the methods of its
    classes (dunder names aside: Python calls those)."""
    out: List[Tuple[str, ast.AST]] = []
    for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.name, node))
            if isinstance(node, ast.ClassDef):
                out += [(sub.name, sub) for sub in node.body
                        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and not sub.name.startswith("__")]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += [(t.id, node) for t in targets if isinstance(t, ast.Name) and not t.id.startswith("__")]
    return [(name, node) for name, node in out if not name.startswith("__")]


def unused() -> List[str]:
    """``path:line name`` of every definition nothing refers to outside itself."""
    sources = _python_files("analyzer")
    refs = references(sources + _python_files("tests", "bench") + [REPO / "setup.py"])
    packaging = "".join((REPO / name).read_text(encoding="utf-8") for name in ("pyproject.toml", "setup.py")
                        if (REPO / name).is_file())
    out = []
    for path in sources:
        rel = path.relative_to(REPO).as_posix()
        for name, node in definitions(path):
            outside = [(p, line) for p, line in refs.get(name, ())
                       if not (p == path and node.lineno <= line <= node.end_lineno)]
            if not outside and name not in packaging and (rel, name) not in CALLED_BY_NAME:
                out.append(f"{rel}:{node.lineno} {name}")
    return out


def test_every_name_is_used():
    dead = unused()
    assert not dead, "defined but never referred to (remove it, or name its caller in CALLED_BY_NAME):\n  " + \
        "\n  ".join(dead)


def test_hooks_called_by_name_still_exist():
    """An entry of CALLED_BY_NAME whose name is gone is stale."""
    stale = [f"{path} {name}" for path, name in CALLED_BY_NAME
             if name not in {n for n, _ in definitions(REPO / path)}]
    assert not stale, f"remove from CALLED_BY_NAME: {stale}"
