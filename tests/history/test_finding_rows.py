"""The findings of `analyze diff` and `check --autonomy` come from rule relations (issue 26
item 3): rules/diff/findings.dl and rules/autonomy/ derive every code, level and message the
CI formats show, and no Python module writes one of those codes."""

import ast
from pathlib import Path

from histrepo import MEM, Repo

from analyzer.query.diff import run_diff

ANALYZER = Path(__file__).resolve().parents[2] / "analyzer"
PREFIXES = ("MA-DIFF-", "MA-AUTONOMY-")


def _docstrings(tree: ast.AST) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def test_no_python_module_writes_a_diff_or_autonomy_code():
    found = []
    for path in sorted(ANALYZER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and node.value.startswith(PREFIXES)):
                found.append(f"{path.relative_to(ANALYZER.parent)}:{node.lineno}: {node.value!r}")
    assert found == []


def test_each_change_and_blind_spot_has_its_rule_finding(tmp_path):
    repo = Repo(tmp_path / "p")
    text = repo.read("decisions.md")
    first = text.index("\n## ", text.index("## "))  # drop everything after the first decision
    repo.write("decisions.md", text[:first + 1])
    repo.write("preferences.md", None)
    sha = repo.commit("drop decisions and the preferences file")
    result = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False)
    assert result.changes and len(result.findings) == len(result.changes) + len(result.blindspots)
    for change, finding in zip(result.changes, result.findings):
        assert finding.code == f"MA-DIFF-{change.cls}" and finding.severity == "INFO"
        assert finding.entries == [change.ident]
        assert finding.message.startswith(f"{change.cls}/{change.subkind} {change.kind} {change.ident}: ")
        assert finding.message.endswith(f"(commits: {sha[:12]})")
