"""Readiness and `analyze diff` classify a change by the same rules (issue 12: "each class is
a rule"). Readiness's window reads only the units each commit changed; `analyze diff`
reads the files that differ (analyzer/history/diff_narrow.py). Over one fixture history, every commit must get the same classes
from both, including supersessions whose predecessor the commit did not touch (the window
reads that predecessor at the parent, analyzer/history/held_units.py)."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import inprocess
from classes import GOLDEN, MORE, TWICE_BLIND, agreeing_history, held_twice_history
from histrepo import DAY, MEM
from test_attribution import OPS, replay, six  # noqa: F401 (six is a fixture)

from analyzer.history.git import Repo as GitRepo
from analyzer.history.window import window_facts
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
    return inprocess.run([*args, "--no-cache"], cwd=cwd, capture_output=True,
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


def diff_blind(repo, sha):
    """(side, path, id) of each blind spot `analyze diff sha~1 sha` reports."""
    result = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False)
    return sorted({("after" if b.revision == sha else "before", b.path, b.ident) for b in result.blindspots})


def test_an_id_held_twice_is_a_blind_spot_in_the_window_as_in_diff(tmp_path):
    """A changed unit whose ID a unit the commit left as it is also holds (in the same file
    or another; at the parent, at the commit or at both) is a blind spot of that commit in
    the window, as in `analyze diff sha~1 sha`: neither classifies it."""
    repo, shas = held_twice_history(tmp_path / "p")
    program = readiness_program(False)
    window = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", 0, 2**40, False, program)
    db = window.facts.evaluate(program)
    classes, blind = {}, {}
    for pair, _kind, ident, cls, sub in db.relation("change"):
        classes.setdefault(pair, []).append((f"{cls}/{sub}", ident))
    for pair, rev, module, _line, ident, _message in db.relation("blindspot"):
        blind.setdefault(pair, set()).add(("before" if rev.startswith("~") else "after", f"{MEM}/{module}", ident))
    for step, sha in shas.items():
        if step == "init":
            continue
        expected = diff_blind(repo, sha)
        assert sorted({i for _s, _p, i in expected}) == [i.casefold() for i in TWICE_BLIND.get(step, [])], step
        assert sorted(blind.get(sha, ())) == expected, step
        assert sorted(classes.get(sha, [])) == diff_classes(repo, sha), step


def test_held_twice_needs_no_tree_read_per_commit(tmp_path, monkeypatch):
    """The window counts unit headings once (one `git grep` of the first compared commit's
    parent) and follows each commit's snippets from there; where a commit left out of the
    comparison changed the folder, it counts again, and the counts stay right."""
    from analyzer.history.git import History
    from analyzer.history.window import compare_commits, window_commits

    repo, shas = held_twice_history(tmp_path / "p")
    grepped = []
    real = History.heading_lines
    monkeypatch.setattr(History, "heading_lines", lambda self, commit: grepped.append(commit) or real(self, commit))
    program = readiness_program(False)
    git_repo = GitRepo(str(repo.root))
    history = History(git_repo, MEM)
    commits = window_commits(history, "HEAD", 0, 2**40)
    assert commits[0].sha == shas["init"]
    for compared, greps in ((commits, []), (commits[1:], [shas["init"]]),
                            (commits[1::2], [c.parents[0] for c in commits[1::2]])):
        grepped.clear()
        window = compare_commits(git_repo, history, MEM, "HEAD", commits, compared, False, program)
        assert grepped == greps
        db = window.facts.evaluate(program)
        for commit in compared:
            step = next(s for s, sha in shas.items() if sha == commit.sha)
            found = sorted({i for p, _r, _m, _l, i, _x in db.relation("blindspot") if p == commit.sha})
            assert found == [i.casefold() for i in TWICE_BLIND.get(step, [])], step


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(OPS, min_size=1, max_size=3))
def test_the_window_agrees_with_diff_on_random_histories(six, commits):
    """Random commits on a file of eight entries (rewordings, deletions, insertions, blank
    lines, units moved to either end, successors naming an entry the commit leaves as it
    is): the window gives every commit the classes `analyze diff sha~1 sha` gives it,
    supersessions and reorders included."""
    repo, start = six
    made = replay(repo, start, commits)
    program = readiness_program(False)
    since = int(repo.git("log", "-1", "--format=%ct", made[0]).strip())
    db = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", since, 2**40, False, program).facts.evaluate(program)
    seen = {}
    for pair, _kind, ident, cls, sub in db.relation("change"):
        seen.setdefault(pair, []).append((f"{cls}/{sub}", ident))
    for sha in made:
        assert sorted(seen.get(sha, [])) == diff_classes(repo, sha), (sha, commits)
