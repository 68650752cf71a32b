"""Readiness and `analyze diff` classify a change by the same rules (issue 12: "each class is
a rule"). Readiness's window reads only the units each commit changed; `analyze diff`
reads the files that differ (analyzer/diff_narrow.py). Over one fixture history, every commit must get the same classes
from both, including supersessions whose predecessor the commit did not touch (the window
reads that predecessor at the parent, analyzer/held_units.py)."""

import json
import subprocess
import sys

from classes import GOLDEN, MORE, agreeing_history
from histrepo import DAY, MEM

from analyzer.git import Repo as GitRepo
from analyzer.history import window_facts
from analyzer.query.diff import run_diff
from analyzer.query.program import readiness_program

HUMAN = r"Human <human@example\.org>"


def diff_classes(repo, sha):
    return sorted((f"{c.cls}/{c.subkind}", c.ident.casefold())
                  for c in run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False).changes)


def test_every_commit_gets_the_same_classes_in_the_window_and_in_diff(tmp_path):
    repo, shas = agreeing_history(tmp_path / "p")
    program = readiness_program(False)
    window = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", 0, 2**40, False, program)
    db = window.facts.evaluate(program)
    by_commit = {}
    for pair, _kind, ident, cls, sub in db.relation("change"):
        by_commit.setdefault(pair, []).append((f"{cls}/{sub}", ident))
    golden = {**GOLDEN, **MORE}
    for step, sha in shas.items():
        if step == "init":
            continue
        expected = diff_classes(repo, sha)
        assert expected == sorted((c, i.casefold()) for c, i in golden[step]), step
        assert sorted(by_commit.get(sha, [])) == expected, step


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "analyzer", *args, "--no-cache"], cwd=cwd, capture_output=True,
                          text=True)


def test_the_readiness_and_diff_commands_count_the_same_classes(tmp_path):
    """R1's class counts (every commit an agent's here) equal the sum of `analyze diff`'s
    counts over the window's commits, one `diff sha~1 sha` per commit."""
    repo, shas = agreeing_history(tmp_path / "p")
    init_time = int(repo.git("log", "-1", "--format=%ct", shas["init"]).strip())
    as_of = init_time + 30 * DAY + 1  # the 30-day window starts just after the root commit
    ready = cli("readiness", "--as-of", f"@{as_of}", "--agent-author", HUMAN, "--format", "json", cwd=repo.root)
    assert ready.returncode in (0, 1), ready.stderr
    payload = json.loads(ready.stdout)
    assert payload["commits"] == len(shas) - 1
    [r1] = [r for r in payload["readings"] if r["name"] == "R1"]
    totals = dict.fromkeys("ABCDE", 0)
    for step, sha in shas.items():
        if step == "init":
            continue
        diff = cli("diff", "--base", f"{sha}~1", "--head", sha, "--format", "json", cwd=repo.root)
        assert diff.returncode == 0, (step, diff.stderr)
        for cls, n in json.loads(diff.stdout)["counts"].items():
            totals[cls] += n
    assert totals["C"] >= 4 and totals["B"] >= 3  # the supersessions and the merge are counted
    counts = ", ".join(f"{c} {n}" for c, n in totals.items())
    assert r1["details"][0] == f"{sum(totals.values())} agent changes in 30 days: {counts}"
