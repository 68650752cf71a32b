"""Read-only with a stale index: a work-tree file whose stat data no longer matches the
index (touched, content unchanged) must not make a history command rewrite .git/index.
Porcelain `git diff` refreshes and writes the index even under GIT_OPTIONAL_LOCKS=0."""

import os

import pytest

import inprocess
from classes import CENTS
from histrepo import Repo, tree_state

COMMANDS = {
    "diff": ["diff", "--base", "HEAD"],
    "restore": ["restore", "--preview", CENTS, "--base", "HEAD"],
    "autonomy": ["check", "--autonomy", "confirm", "--base", "HEAD"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_stale_index_is_not_rewritten(tmp_path, name):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    stale = repo.path("constraints.md")
    later = stale.stat().st_mtime + 100  # the index's stat data for it is now out of date
    os.utime(stale, (later, later))
    before = tree_state(repo.root)
    run = inprocess.run([*COMMANDS[name], "--no-cache",
                         "--project-root", str(repo.root)], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    assert tree_state(repo.root) == before, f"{name} changed .git or the work tree"
