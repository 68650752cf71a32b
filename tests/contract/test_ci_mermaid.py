"""CI installs the official Mermaid parser outside the repository (.ci/mermaid-modules), so
tests/ci/test_report.py's parser check runs there; without node or npm it skips cleanly."""

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_ci_run_installs_mermaid_into_a_cache_outside_the_repository():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'MERMAID_NODE_MODULES="$(bash .ci/mermaid-modules || true)"' in ci and "export MERMAID_NODE_MODULES" in ci
    script = (REPO / ".ci" / "mermaid-modules").read_text(encoding="utf-8")
    assert "npm install --prefix \"$dir\"" in script and "$HOME/.cache}/memory-analyzer-ci/" in script


def test_without_npm_it_prints_nothing_and_says_why(tmp_path):
    run = subprocess.run(["/bin/bash", str(REPO / ".ci" / "mermaid-modules")], capture_output=True, text=True,
                         env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert run.returncode == 1 and run.stdout == ""
    assert "node or npm not found" in run.stderr and not (tmp_path / ".cache").exists()
