"""`analyze diff`: one fixture commit per change class, golden class lists; blind spots;
errors; read-only."""

import json
import subprocess
import sys

import pytest

import inprocess
from classes import CENTS, GOLDEN, NEW_DEC, build
from histrepo import MEM, Repo, tree_state

from analyzer.query.diff import run_diff


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("classes") / "project")
    return repo, build(repo)


def classes(result):
    return sorted((f"{c.cls}/{c.subkind}", c.ident) for c in result.changes)


@pytest.mark.parametrize("step", sorted(GOLDEN))
def test_one_commit_per_class(history, step):
    repo, shas = history
    result = run_diff(repo.root, MEM, f"{shas[step]}~1", shas[step], use_cache=False)
    assert result.failure is None and result.status == "CHANGES" and result.exit_code == 0
    assert classes(result) == sorted(GOLDEN[step])
    for change in result.changes:
        assert change.commits == [shas[step]], change


def test_whole_range_keeps_one_class_per_unit(history):
    repo, shas = history
    result = run_diff(repo.root, MEM, shas["init"], "HEAD", use_cache=False)
    ids = [(c.kind, c.ident) for c in result.changes]
    assert len(ids) == len(set(ids))
    got = dict(((c.ident, f"{c.cls}/{c.subkind}") for c in result.changes))
    # NEW_DEC was added, reworded and superseded in the range: against init it is simply
    # new (already superseded); a supersession replaces only an entry the base holds
    assert got[NEW_DEC] == "A/superseded"
    assert got[CENTS] == "E/evidence"
    new_dec = next(c for c in result.changes if c.ident == NEW_DEC)
    assert new_dec.commits == [shas["add-active"], shas["rewrite-inplace"], shas["rewrite-supersede"]]


def test_places_on_both_sides(history):
    repo, shas = history
    result = run_diff(repo.root, MEM, f"{shas['delete-soft']}~1", shas["delete-soft"], use_cache=False)
    [change] = result.changes
    assert change.before.path == f"{MEM}/areas/api.md" and change.after.path == f"{MEM}/archive/api-2026.md"
    assert change.before.line == 5 and change.after.line == 3
    result = run_diff(repo.root, MEM, f"{shas['delete-hard']}~1", shas["delete-hard"], use_cache=False)
    assert result.changes[0].after is None and result.changes[0].before.path == f"{MEM}/do-not-use.md"


def test_unchanged_and_worktree(history):
    repo, shas = history
    result = run_diff(repo.root, MEM, "HEAD", use_cache=False)
    assert (result.status, result.exit_code, result.changes) == ("UNCHANGED", 0, [])


def test_worktree_changes_are_attributed_to_the_worktree(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    result = run_diff(repo.root, MEM, "HEAD", use_cache=False)
    assert classes(result) == [("C/inplace", CENTS)]
    assert result.changes[0].commits == ["worktree"]


def test_unreadable_unit_is_a_blindspot_not_a_delete(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", f"## {CENTS} \u2014 Totals", f"## {CENTS} -- Totals")
    sha = repo.commit("break a heading")
    result = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False)
    assert result.status == "BLINDSPOT" and result.exit_code == 2
    assert all(c.ident != CENTS for c in result.changes)
    spot = result.blindspots[0]
    assert spot.path == f"{MEM}/decisions.md" and spot.line == 5 and "malformed Entry heading" in spot.message


def test_invalid_unit_is_a_blindspot(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Facet: data-model\nEvidence:\n- repo:api/orders.py",
              "Facet: data-model\nFacet: other\nEvidence:\n- repo:api/orders.py")
    sha = repo.commit("duplicate field")
    result = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False)
    assert result.status == "BLINDSPOT" and [s.ident for s in result.blindspots] == [CENTS.casefold()]
    assert result.changes == []


@pytest.mark.parametrize("ref", ["does-not-exist", "--output=/tmp/x", ""])
def test_bad_revision_is_an_error(history, ref):
    repo, _ = history
    result = run_diff(repo.root, MEM, ref, use_cache=False)
    assert result.failure and result.exit_code == 2


def test_not_a_repository(tmp_path):
    # the analyzer passes no GIT_* variable to Git; where tmp_path is on a file system of its
    # own (a tmpfs), Git's last line is a note on the boundary and the reason comes before it
    root = tmp_path / "plain"
    root.mkdir()
    assert "not a git repository" in run_diff(root, MEM, "HEAD", use_cache=False).failure.message


def test_the_reason_is_gits_fatal_line_not_a_note_after_it():
    from analyzer.history.git import git_reason

    fatal = "fatal: not a git repository (or any parent up to mount point /tmp)"
    assert git_reason([fatal, "Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set)."]) == fatal
    assert git_reason(["fatal: ambiguous argument 'x': unknown revision or path not in the working tree.",
                       "Use '--' to separate paths from revisions, like this:",
                       "'git <command> [<revision>...] -- [<file>...]'"]).startswith("fatal: ambiguous argument")
    assert git_reason(["warning: x", "no reason given"]) == "no reason given"
    assert git_reason([]) == ""


def cli(*args, cwd):
    return inprocess.run([*args], cwd=cwd, capture_output=True, text=True)


def test_cli_text_json_and_read_only(history):
    repo, shas = history
    before = tree_state(repo.root)
    step = shas["merge-entries"]
    out = cli("diff", "--base", f"{step}~1", "--head", step, "--project-root", str(repo.root), cwd=repo.root)
    assert out.returncode == 0, out.stderr
    assert "- B/entries entry MC-CON-20260902-3d4e5f60: docs/memory/constraints.md:" in out.stdout
    assert "Counts: A 0, B 3, C 0, D 0, E 0" in out.stdout
    doc = json.loads(cli("diff", "--base", f"{step}~1", "--head", step, "--format", "json",
                         "--project-root", str(repo.root), cwd=repo.root).stdout)
    assert doc["schema"]["name"] == "diff.result" and doc["counts"]["B"] == 3
    assert {c["class"] for c in doc["changes"]} == {"B"} and doc["changes"][0]["commits"] == [step]
    bad = cli("diff", "--base", "nope", "--format", "json", "--project-root", str(repo.root), cwd=repo.root)
    assert bad.returncode == 2 and json.loads(bad.stdout)["status"] == "INVALID"
    cli("diff", "--base", shas["init"], "--project-root", str(repo.root), cwd=repo.root)
    assert tree_state(repo.root) == before


def test_ci_formats_reuse_the_check_renderers(history):
    repo, shas = history
    step = shas["delete-soft"]
    args = ("diff", "--base", f"{step}~1", "--head", step, "--project-root", str(repo.root))
    github = cli(*args, "--format", "github", cwd=repo.root)
    assert github.returncode == 0
    assert github.stdout.startswith("::notice file=docs/memory/archive/api-2026.md,line=3,col=1,title=MA-DIFF-D::D/soft")
    sarif = json.loads(cli(*args, "--format", "sarif", cwd=repo.root).stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "MA-DIFF-D" and result["level"] == "note"


def test_output_does_not_depend_on_the_hash_seed(history):
    import os

    repo, shas = history
    outs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        for argv in (["diff", "--base", shas["init"], "--head", "HEAD", "--format", "json"],
                     ["readiness", "--format", "json"],
                     ["check", "--autonomy", "full", "--base", shas["init"], "--head", "HEAD", "--format", "json"]):
            # a process of its own: PYTHONHASHSEED is read when Python starts
            run = subprocess.run([sys.executable, "-m", "analyzer", *argv, "--project-root", str(repo.root)],
                                 capture_output=True, text=True, env=env)
            outs.add((argv[0], argv[-1] if argv[0] != "check" else "check", run.stdout, run.returncode))
    assert len(outs) == 3, "the same request gave different output under another PYTHONHASHSEED"


def test_history_commands_find_the_project_root_from_a_subdirectory(history):
    repo, shas = history
    sub = repo.root / "docs" / "memory" / "areas"
    for argv in (["diff", "--base", shas["init"], "--head", "HEAD"], ["readiness"],
                 ["restore", "--preview", "MC-DNU-20260904-5f607182", "--base", shas["init"]]):
        here = inprocess.run([*argv], cwd=sub, capture_output=True, text=True)
        given = inprocess.run([*argv, "--project-root", str(repo.root)],
                              cwd=repo.root, capture_output=True, text=True)
        assert (here.returncode, here.stdout) == (given.returncode, given.stdout), argv
        assert here.returncode in (0, 1), here.stderr
