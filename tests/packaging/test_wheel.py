"""A non-editable install from a built wheel works from any directory: grammar/, facts/ and
rules/ ship inside the package (issue 2, skeleton), and so does the compiled form of the
built-in rules and of the grammars: the installed wheel's first ``read`` compiles nothing and
imports no Lark (issue 9)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAM = """
.decl edge(a: symbol, b: symbol)
.decl reach(src: symbol, dst: symbol)
edge("a", "b"). edge("b", "c").
reach(X, Y) :- edge(X, Y).
reach(X, Z) :- reach(X, Y), edge(Y, Z).
"""


def _run(cmd, cwd, **kw):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)


@pytest.mark.slow
def test_wheel_builds_from_a_clean_tree_with_the_compiled_rules(wheel):
    """The wheel every packaging test installs was built from a copy of the tree without the
    checkout's compiled rules or build folder (conftest.py asserts it before building), so the
    build compiled what it ships itself."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    compiled = sorted(n.rsplit("/", 1)[1] for n in names
                      if n.startswith("analyzer/_data/compiled/") and n.endswith(".program"))
    assert "rules__read__read.program" in compiled and "facts__schema.program" in compiled, compiled
    assert any(n.startswith("analyzer/_data/rules/") for n in names)
    assert not any(n.startswith(("tests/", "docs/")) for n in names)


@pytest.mark.slow
def test_wheel_installs_into_fresh_venv_and_runs_outside_the_tree(installed, tmp_path):
    env_dir = installed
    py = env_dir / "bin" / "python"
    analyze = env_dir / "bin" / "analyze"
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    version = _run([str(analyze), "--version"], cwd=outside)
    assert version.returncode == 0 and version.stdout.startswith("memory-analyzer "), version

    (outside / "reach.dl").write_text(PROGRAM, encoding="utf-8")
    query = _run([str(analyze), "query", "reach.dl", 'reach("a", X)', "--format", "csv"], cwd=outside)
    assert query.returncode == 0, query.stderr
    # columns are named after the goal's variables
    assert query.stdout.splitlines() == ["X", "b", "c"]

    project = outside / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", project)
    read = _run([str(analyze), "read", "--project-root", str(project), "--task", "implementation",
                 "--path", "web/src/cart.ts", "--names-only"], cwd=outside,
                env={"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert "Routing completeness: COMPLETE" in read.stdout, read.stderr
    assert "- areas/web.md" in read.stdout
    assert not (project / ".cache").exists()
    conformance = _run([str(analyze), "conformance"], cwd=outside)
    assert conformance.returncode == 0, conformance.stdout + conformance.stderr
    lines = conformance.stdout.splitlines()
    assert lines[0].startswith("conformance: installed package, no source tree: ")
    assert not any(" skip " in line for line in lines)
    help_text = _run([str(analyze), "--help"], cwd=outside).stdout
    assert "docs/" not in help_text and "tests/" not in help_text  # the wheel ships neither
    installed_rules = _run([str(py), "-c", "from analyzer.core.resources import data_dir; print(data_dir('rules'))"],
                           cwd=outside)
    assert "site-packages" in installed_rules.stdout

    # the first read with an empty cache: the rule program comes compiled from the wheel, so
    # neither the rule parser nor the checker is imported and no program cache is written
    first_cache = tmp_path / "first-cache"
    probe = ("import sys\nfrom analyzer.commands.cli import main\n"
             f"rc = main(['read', '--project-root', {str(project)!r}, '--task', 'implementation', "
             "'--path', 'web/src/cart.ts', '--names-only'])\n"
             "print('parsed' if {'analyzer.engine.syntax', 'analyzer.engine.check'} & set(sys.modules) "
             "else 'compiled nothing', rc, 'lark' if 'lark' in sys.modules else 'no lark', "
             "'nodes' if 'analyzer.engine.ast_nodes' in sys.modules else 'no nodes', file=sys.stderr)\n")
    first = _run([str(py), "-c", probe], cwd=outside,
                 env={"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(first_cache)})
    assert first.stdout == read.stdout, first.stderr
    # and no Lark: the grammar terminals extraction matches are generated (analyzer/project/extract/grammar_terms.py);
    # nor the syntax-tree nodes a compiled program does not decode (analyzer/engine/ast_nodes.py)
    assert first.stderr.strip().splitlines()[-1] == f"compiled nothing {read.returncode} no lark no nodes", \
        first.stderr
    assert not (first_cache / "memory-analyzer" / "programs").exists()
    # nor are grammar tables built: they ship too (analyzer/core/larkcache.py, built by analyzer/dev/ship.py)
    assert not (first_cache / "memory-analyzer" / "lark").exists()
    compiled = Path(installed_rules.stdout.strip()).parent / "compiled"
    assert sorted(p.name for p in compiled.iterdir()) == [
        "facts__schema.program", "lark", "rules__agents__read.program", "rules__check__check.program",
        "rules__check__run.program", "rules__check__shown.program",
        "rules__entries__entries.program", "rules__index__index.program", "rules__query.program",
        "rules__read__read.program", "rules__vocab__vocab.program"]
    assert sorted(p.name.split("-")[0] for p in (compiled / "lark").iterdir()) == [
        "agent_body", "agent_frontmatter", "datalog", "entries", "local_manifest", "manifest", "plan",
        "reconciliations", "subjects"]
