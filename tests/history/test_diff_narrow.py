"""`analyze diff` between commits extracts and compares only what differs
(analyzer/history/diff_narrow.py); it must answer exactly as the comparison of whole revisions:
every class, place, commit list and blind spot, and the same failure for a file that
cannot be read."""

import pytest

from classes import agreeing_history
from histrepo import MEM, entry

from analyzer.history.git import GitError
from analyzer.history.head_places import anchor_deleted
from analyzer.query.diff import DiffResult, diff_facts, run_diff, select
from analyzer.query.failures import git_failure
from analyzer.query.program import diff_program
from analyzer.render.diff_text import render_diff_text

WEB = "MC-AREA-20260909-b5c6d7e8"


def whole(root, base, head):
    """The comparison of the two whole revisions (every file extracted, every unit given)."""
    program = diff_program(False)
    result = DiffResult(base, head)
    try:
        facts, order, _ = diff_facts(root, MEM, result, program, False, narrow=False)
    except GitError as exc:
        result.failure = git_failure(exc)
        return result
    select(facts.evaluate(program), result, MEM, order)
    anchor_deleted(root, result)  # as run_diff does: where annotations of deleted units go
    return result


def same_answer(root, base, head="HEAD"):
    narrow = run_diff(root, MEM, base, head, use_cache=False)
    full = whole(root, base, head)
    assert narrow.failure is None and full.failure is None
    assert render_diff_text(narrow) == render_diff_text(full)
    assert (narrow.status, narrow.exit_code, narrow.changes, narrow.blindspots) == \
           (full.status, full.exit_code, full.changes, full.blindspots)
    return narrow


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return agreeing_history(tmp_path_factory.mktemp("narrow") / "p")


def test_every_commit_and_the_whole_range(history):
    repo, shas = history
    for step, sha in shas.items():
        if step != "init":
            assert same_answer(repo.root, f"{sha}~1", sha).changes, step
    assert len(same_answer(repo.root, shas["init"]).changes) > 10


def test_an_id_also_held_by_an_unchanged_file_is_a_blindspot(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    twin = entry(WEB, "Cart state lives in two stores", "A second unit with the same ID.")
    repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n" + twin)
    repo.commit("hold an ID twice")
    result = same_answer(repo.root, base)
    assert result.status == "BLINDSPOT"
    assert {b.path for b in result.blindspots} == {f"{MEM}/decisions.md", f"{MEM}/areas/web.md"}


def test_a_markdown_problem_outside_the_changed_units_of_a_changed_file(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n<!-- an unclosed comment\n")
    base = repo.commit("a Markdown problem at the end of the file")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    repo.commit("more evidence elsewhere in the file")
    assert same_answer(repo.root, base).status == "BLINDSPOT"


def test_a_fence_opened_by_a_change_hides_the_units_after_it(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("constraints.md", "Our API only ever sees the provider's token.\n",
              "Our API only ever sees the provider's token.\n\n```\nunclosed fence\n")
    repo.commit("open a fence")
    same_answer(repo.root, base)


def test_an_unreadable_unchanged_file_fails_as_for_whole_revisions(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.path("notes.md").write_bytes(b"# Notes\n\n\xff\xfe not UTF-8\n")
    base = repo.commit("an unreadable file")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#45\n")
    repo.commit("a change elsewhere")
    narrow = run_diff(repo.root, MEM, base, "HEAD", use_cache=False)
    full = whole(repo.root, base, "HEAD")
    assert narrow.failure and narrow.failure == full.failure and narrow.exit_code == full.exit_code == 2


def test_the_work_tree_as_head(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#46\n")
    twin = entry(WEB, "Cart state lives in two stores", "A second unit with the same ID.")
    repo.write("preferences.md", repo.read("preferences.md").rstrip("\n") + "\n\n" + twin)
    narrow = run_diff(repo.root, MEM, base, None, use_cache=False)
    full = whole(repo.root, base, "")
    assert render_diff_text(narrow) == render_diff_text(full)
    assert narrow.status == "BLINDSPOT" and narrow.changes


def test_an_id_held_by_the_same_text_in_two_files_that_both_change_elsewhere(tmp_path):
    """Two identical units of one ID in two files, neither touched by a commit that changes
    other units of both files: nothing about that ID changed. Whole revisions (autonomy,
    restore) once read it as "moved" from each file to the other and reported a blind spot
    the narrowed diff and the window never saw; all four now give the same two E changes."""
    from histrepo import Repo

    from analyzer.history.git import Repo as GitRepo
    from analyzer.history.window import window_facts
    from analyzer.query.autonomy import run_autonomy
    from analyzer.query.program import readiness_program

    repo = Repo(tmp_path / "p")
    twin = entry("MC-DEC-20261005-cccc0005", "Prices are rounded half to even", "Rounding is half to even.")
    for module in ("decisions.md", "constraints.md"):
        repo.write(module, repo.read(module).rstrip("\n") + "\n\n" + twin)
    base = repo.commit("hold an ID twice with the same text")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
    head = repo.commit("change other units of both files")
    expected = [("E", "evidence", "MC-DEC-20260910-1b2c3d4e"), ("E", "text", "MC-CON-20260903-4e5f6071")]
    result = same_answer(repo.root, base, head)  # the narrowed diff and whole revisions
    assert (result.status, result.blindspots) == ("CHANGES", [])
    assert sorted((c.cls, c.subkind, c.ident) for c in result.changes) == expected
    worktree = run_diff(repo.root, MEM, base, None, use_cache=False)
    assert (worktree.status, worktree.changes) == (result.status, result.changes)
    program = readiness_program(False)
    window = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", 0, 2**40, False, program)
    db = window.facts.evaluate(program)
    assert sorted((c, s, i) for p, _k, i, c, s in db.relation("change") if p == head) == \
        sorted((c, s, i.casefold()) for c, s, i in expected)
    assert [b for b in db.relation("blindspot") if b[0] == head] == []
    checked = run_autonomy(repo.root, MEM, "confirm", base, head, [], [], use_cache=False)
    assert checked.diff.status == "CHANGES" and checked.diff.blindspots == []
    assert sorted((c.cls, c.subkind, c.ident) for c in checked.diff.changes) == expected
