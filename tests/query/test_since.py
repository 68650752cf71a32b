"""`analyze query --since REV`: since_changed holds the paths that differ between REV and HEAD,
relative to the project root; no --since is DL918, a bad revision or no Git exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOAL = "entry_display(I, Entry), evidence_source(I, _, _, Path, _), since_changed(Path)"


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture()
def history(tmp_path):
    """A repository whose project lives in shop/: one commit, then api/orders.py changes."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = tmp_path / "repo"
    root = top / "shop"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    _git(top, "init", "-q")
    _git(top, "add", "-A")
    _git(top, "commit", "-q", "-m", "first")
    first = _git(top, "rev-parse", "HEAD")
    (root / "api" / "orders.py").write_text("# changed\n", encoding="utf-8")
    (top / "outside.txt").write_text("not in the project\n", encoding="utf-8")
    _git(top, "add", "-A")
    _git(top, "commit", "-q", "-m", "second")
    return root, first


def test_entries_whose_evidence_changed_since(history, analyze):
    root, first = history
    proc = analyze("query", "--project-root", str(root), "--since", first, GOAL, "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["I,Entry,Path",
                                        "MC-CON-20260909-c6d7e8f9,MC-CON-20260909-c6d7e8f9,api/orders.py",
                                        "MC-DEC-20260910-1b2c3d4e,MC-DEC-20260910-1b2c3d4e,api/orders.py"]
    # paths outside the project root are left out; HEAD against itself changes nothing
    proc = analyze("query", "--project-root", str(root), "--since", first, "since_changed(P)", "--format", "csv")
    assert proc.stdout.splitlines() == ["P", "api/orders.py"]
    proc = analyze("query", "--project-root", str(root), "--since", "HEAD", "since_changed(P)")
    assert proc.returncode == 0 and proc.stdout.endswith("(0 tuples)\n")


def test_without_since_or_git(history, analyze, tmp_path):
    root, _ = history
    proc = analyze("query", "--project-root", str(root), "since_changed(P)")
    assert proc.returncode == 2 and " DL918 " in proc.stderr and "--since REV" in proc.stderr
    proc = analyze("query", "--project-root", str(root), "--since", "no-such-rev", "since_changed(P)")
    assert proc.returncode == 2 and "Git cannot answer" in proc.stderr and "Traceback" not in proc.stderr
    plain = tmp_path / "plain"
    shutil.copytree(REPO / "examples" / "acme-shop", plain)
    proc = analyze("query", "--project-root", str(plain), "--since", "HEAD", "since_changed(P)")
    assert proc.returncode == 2 and "Git cannot answer" in proc.stderr
