"""An empty --head (an unset variable in `--head "$SHA"`) names no revision: diff, restore
and check --autonomy refuse it (exit 2) instead of reading it as the default work tree."""

import subprocess
import sys

import pytest

from classes import CENTS
from histrepo import Repo

COMMANDS = {
    "diff": ["diff", "--base", "HEAD~1"],
    "restore": ["restore", "--preview", CENTS, "--base", "HEAD~1"],
    "autonomy": ["check", "--autonomy", "confirm", "--base", "HEAD~1"],
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("empty") / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    repo.commit("reword")
    return repo


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("head", ["", " "])
def test_empty_head_is_refused(repo, name, head):
    run = subprocess.run([sys.executable, "-m", "analyzer", *COMMANDS[name], "--head", head, "--no-cache",
                          "--project-root", str(repo.root)], capture_output=True, text=True)
    assert run.returncode == 2, (run.returncode, run.stdout)
    assert run.stdout == "" and "invalid revision" in run.stderr and "Traceback" not in run.stderr
