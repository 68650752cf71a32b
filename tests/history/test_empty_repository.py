"""A repository without a commit says so (issue 25 item 6), instead of 'not a valid commit: HEAD'."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ACME = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.mark.parametrize("argv", [["diff", "--base", "HEAD"], ["readiness"], ["check", "--autonomy", "plan", "--base", "HEAD"]])
def test_no_commits_yet(tmp_path, argv):
    root = tmp_path / "repo"
    shutil.copytree(ACME, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    proc = subprocess.run([sys.executable, "-m", "analyzer", *argv, "--project-root", str(root)],
                          cwd=root, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "no commits yet: HEAD names no commit in this repository" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_mistyped_revision_is_still_not_a_commit(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(ACME, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    proc = subprocess.run([sys.executable, "-m", "analyzer", "diff", "--base", "nope", "--project-root", str(root)],
                          cwd=root, capture_output=True, text=True)
    assert proc.returncode == 2 and "not a valid commit: nope" in proc.stderr
