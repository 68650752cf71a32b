"""`analyze check --autonomy --base REV`: judged from the merge base of REV and the head, as
`git diff REV...HEAD` compares. A branch checked against a main that moved on since it was cut
must not have main's later memory changes judged, reversed, as its own."""

import json

import pytest

import inprocess
from classes import CENTS, DNU
from histrepo import MEM, Repo, entry, tree_state

from analyzer.query.autonomy import run_autonomy

MAIN_DEC = "MC-DEC-20261201-cccc0001"


def cli(root, *args):
    return inprocess.run(["check", *args, "--project-root", str(root)],
                         capture_output=True, text=True)


@pytest.fixture
def diverged(tmp_path):
    """init; branch `side` adds Evidence to CENTS (E, allowed under confirm); then main adds
    an entry (A), which a tree-to-tree comparison main -> side reads as a hard delete (D)."""
    repo = Repo(tmp_path / "p")
    init = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "-b", "side")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#45\n")
    side = repo.commit("side: more evidence")
    repo.git("checkout", "-q", "main")
    repo.edit("decisions.md", "Entries are newest first.\n",
              "Entries are newest first.\n\n" + entry(MAIN_DEC, "New on main", "Main's own.", facet="fmain"))
    main = repo.commit("main: a decision of its own")
    return repo, init, side, main


def test_moved_base_is_judged_from_the_merge_base(diverged):
    repo, init, side, main = diverged
    before = tree_state(repo.root)
    result = run_autonomy(repo.root, MEM, "confirm", "main", "side", [], [], False)
    assert result.failure is None
    # main's own entry is no change of side's: no D, no MA-AUTONOMY-001, only side's commit
    assert [(c.ident, c.cls, c.commits) for c in result.diff.changes] == [(CENTS, "E", [side])]
    assert (result.status, result.exit_code, result.findings) == ("CLEAR", 0, [])
    assert (result.merge_base, result.base_commit, result.head_commit) == (init, main, side)
    assert (result.diff.base_ref, result.diff.base) == ("main", init)

    text = cli(repo.root, "--autonomy", "confirm", "--base", "main", "--head", "side")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:3] == ["Autonomy check: confirm (requested confirm), changes main -> side",
                                            f"Judged from the merge base {init[:12]} of main and side",
                                            "Autonomy status: CLEAR"]
    doc = json.loads(cli(repo.root, "--base", "main", "--head", "side", "--format", "json").stdout)
    assert doc["merge_base"] == {"commit": init, "base_commit": main, "head_commit": side}
    assert doc["diff"]["base"] == {"ref": "main", "commit": init}
    assert [c["id"] for c in doc["diff"]["changes"]] == [CENTS]
    markdown = cli(repo.root, "--base", "main", "--head", "side", "--format", "markdown").stdout
    assert f"\nJudged from the merge base {init[:12]} of main and side\n" in markdown
    assert tree_state(repo.root) == before


def test_base_an_ancestor_of_the_head_is_compared_as_before(diverged):
    """The merge base is the base itself: merge_base is null, the text has no extra line and
    the judged diff is `analyze diff`'s tree-to-tree comparison of the same revisions."""
    repo, init, side, _ = diverged
    before = tree_state(repo.root)
    result = run_autonomy(repo.root, MEM, "confirm", init, "side", [], [], False)
    assert (result.merge_base, result.base_commit, result.head_commit) == ("", "", "")
    assert [(c.ident, c.cls, c.commits) for c in result.diff.changes] == [(CENTS, "E", [side])]
    doc = json.loads(cli(repo.root, "--base", init, "--head", "side", "--format", "json").stdout)
    assert doc["merge_base"] is None
    diff = json.loads(inprocess.run(["diff", "--base", init, "--head", "side",
                                     "--format", "json", "--project-root", str(repo.root)],
                                    capture_output=True, text=True).stdout)
    assert doc["diff"] == {k: v for k, v in diff.items() if k not in ("ok", "status", "schema", "analyzer")} | {
        "diff_status": diff["status"]}
    assert "Judged from" not in cli(repo.root, "--base", init, "--head", "side").stdout
    assert tree_state(repo.root) == before


def test_diff_stays_tree_to_tree(diverged):
    """`analyze diff` answers how two revisions differ: main's own entry is a D from main to side."""
    repo, *_ = diverged
    out = inprocess.run(["diff", "--base", "main", "--head", "side", "--format",
                         "json", "--project-root", str(repo.root)], capture_output=True, text=True)
    assert ("D", MAIN_DEC) in {(c["class"], c["id"]) for c in json.loads(out.stdout)["changes"]}


def test_head_omitted_uses_HEAD_and_the_work_tree(diverged):
    repo, init, side, main = diverged
    repo.git("checkout", "-q", "side")
    repo.edit("decisions.md", "- issue:#45\n", "- issue:#45\n- issue:#46\n")  # uncommitted, judged too
    before = tree_state(repo.root)
    result = run_autonomy(repo.root, MEM, "confirm", "main", None, [], [], False)
    assert (result.merge_base, result.base_commit, result.head_commit) == (init, main, side)
    assert [(c.ident, c.cls, c.commits) for c in result.diff.changes] == [(CENTS, "E", [side, "worktree"])]
    assert result.status == "CLEAR"
    out = cli(repo.root, "--base", "main")
    assert out.returncode == 0, out.stderr
    assert f"Judged from the merge base {init[:12]} of main and HEAD" in out.stdout
    assert "changes main -> worktree" in out.stdout
    assert tree_state(repo.root) == before


def test_unrelated_histories_are_an_error(diverged):
    repo, *_ = diverged
    repo.git("checkout", "-q", "--orphan", "other")
    repo.commit("a history of its own")
    before = tree_state(repo.root)
    out = cli(repo.root, "--base", "main", "--head", "other")
    assert out.returncode == 2 and out.stdout == ""
    assert "no merge base between main and other" in out.stderr and "unrelated histories" in out.stderr
    assert "Traceback" not in out.stderr
    doc = json.loads(cli(repo.root, "--base", "main", "--head", "other", "--format", "json").stdout)
    assert doc["schema"]["name"] == "check.error" and doc["diagnostics"][0]["code"] == "MA-GIT"
    head_omitted = cli(repo.root, "--base", "main")  # HEAD is other's commit
    assert head_omitted.returncode == 2 and "no merge base between main and HEAD" in head_omitted.stderr
    assert tree_state(repo.root) == before


def test_criss_cross_takes_the_merge_base_git_prints(tmp_path):
    """Two merge bases: the one `git merge-base` prints (the first of `--all`), every run."""
    repo = Repo(tmp_path / "p")
    repo.git("checkout", "-q", "-b", "b")
    repo.git("checkout", "-q", "main")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#45\n")
    a1 = repo.commit("a1: evidence")
    repo.git("checkout", "-q", "b")
    text = repo.read("do-not-use.md")
    repo.write("do-not-use.md", text[:text.index(f"## {DNU}")].rstrip("\n") + "\n")
    b1 = repo.commit("b1: drop a do-not-use entry")
    repo.time += 3600
    repo.git("merge", "-q", "--no-ff", "-m", "b takes a1", a1)
    repo.git("checkout", "-q", "main")
    repo.time += 3600
    repo.git("merge", "-q", "--no-ff", "-m", "main takes b1", b1)
    bases = repo.git("merge-base", "--all", "main", "b").split()
    assert sorted(bases) == sorted([a1, b1])
    chosen = repo.git("merge-base", "main", "b").strip()
    assert chosen == bases[0]
    runs = [run_autonomy(repo.root, MEM, "confirm", "main", "b", [], [], False) for _ in range(2)]
    assert [r.merge_base for r in runs] == [chosen, chosen]
    assert runs[0].diff.changes == runs[1].diff.changes
    # from a1, b brought b1's delete; from b1, a1's evidence
    expected = {a1: [(DNU, "D")], b1: [(CENTS, "E")]}[chosen]
    assert [(c.ident, c.cls) for c in runs[0].diff.changes] == expected
