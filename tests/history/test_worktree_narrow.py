"""`analyze diff --base REV` with the work tree as head (the default) names the work tree's
managed files by blob id (analyzer/history/worktree_blobs.py) and extracts only what differs, as
between commits. It must answer exactly as the comparison of the base with the whole work
tree: uncommitted, untracked and deleted files, files that are not plain, and the same
failure (exit 2) for a work-tree file that cannot be read."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classes import agreeing_history
from histrepo import MEM, Repo, entry
from test_diff_narrow import whole
from test_narrow_files import cached_answer

from analyzer.history import narrow_files, worktree_blobs
from analyzer.query.diff import run_diff
from analyzer.render.diff_text import render_diff_text

NEW = "MC-DEC-20261101-ffff0001"


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """A cache of this module's own: the units it stores for the example's files would make
    other modules' diffs narrow where they count on reading whole files first."""
    from analyzer.core import cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    cache._forget()
    yield
    cache._forget()


@pytest.fixture
def named(monkeypatch):
    """Counts the work trees named by blob id and the comparisons narrowed within files."""
    seen = {"named": 0, "plain": 0, "within": 0}
    files, within = worktree_blobs.worktree_files, narrow_files.within_files

    def name(*args):
        out = files(*args)
        seen["named"] += 1
        seen["plain"] += out is not None
        return out

    def narrow(*args):
        out = within(*args)
        seen["within"] += out is not None
        return out

    monkeypatch.setattr(worktree_blobs, "worktree_files", name)
    monkeypatch.setattr(narrow_files, "within_files", narrow)
    return seen


def as_at(repo: Repo, sha: str) -> None:
    """The memory dir of the work tree as it is at ``sha``, uncommitted (HEAD and the index
    stay): changed files rewritten, files ``sha`` lacks deleted, files only it has untracked."""
    repo.git("restore", f"--source={sha}", "--worktree", "--", MEM)


def same_failure(root, base):
    narrow = run_diff(root, MEM, base, None, use_cache=True)
    full = whole(root, base, "")
    assert narrow.failure and narrow.failure == full.failure and narrow.exit_code == full.exit_code == 2
    failure = narrow.failure
    return failure.message if failure.span is None else f"{failure.span}: {failure.code} {failure.message}"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return agreeing_history(tmp_path_factory.mktemp("worktree") / "p")


def test_the_work_tree_as_each_commit_against_the_first_and_the_last(history, named):
    repo, shas = history
    tip = shas[list(shas)[-1]]
    try:
        for step, sha in shas.items():
            as_at(repo, sha)
            for base in (shas["init"], tip):
                result = cached_answer(repo.root, base, "")
                assert bool(result.changes) == (sha != base), (step, base)
    finally:
        as_at(repo, "HEAD")
    assert named["plain"] == named["named"] == 2 * 2 * len(shas)
    assert named["within"] >= len(shas), named


def test_untracked_deleted_and_moved_files(tmp_path, named):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("areas/new.md", "# New\n\n" + entry(NEW, "Refunds are in cents", "Refunds are integers."))
    repo.write("areas/catalogue.md", None)
    moved = repo.read("preferences.md")
    repo.write("preferences.md", None)
    repo.write("archive/preferences.md", moved)
    result = cached_answer(repo.root, base, "")
    assert {c.cls for c in result.changes} >= {"A", "D"}
    assert NEW in {c.ident for c in result.changes}
    assert named["plain"] == named["named"] == 2


@pytest.mark.parametrize("spoil", ["markdown", "crlf", "bom", "twice"])
def test_a_work_tree_file_that_is_not_plain(tmp_path, named, spoil):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    path = repo.path("decisions.md")
    data = path.read_bytes().replace(b"- issue:#42", b"- issue:#42\n- issue:#47", 1)
    if spoil == "markdown":
        data = data.rstrip(b"\n") + b"\n\n<!-- an unclosed comment\n"
    elif spoil == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif spoil == "bom":
        data = b"\xef\xbb\xbf" + data
    else:
        data += b"\n" + entry("MC-CON-20260903-4e5f6071", "Held twice", "A second holder.").encode()
    path.write_bytes(data)
    repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
    cached_answer(repo.root, base, "")
    assert named["plain"] == named["named"] == 2


@pytest.mark.parametrize("head", ["", "HEAD"])
def test_a_file_whose_only_change_is_a_byte_order_mark(tmp_path, head):
    """The same text with a BOM: whole revisions see no change in it (the text is the same),
    so a Markdown problem in it is no blind spot; the blob ids differ all the same (between
    commits too: the narrowed diff once called that file changed)."""
    repo = Repo(tmp_path / "p")
    repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n<!-- an unclosed comment\n")
    base = repo.commit("a Markdown problem at the end of the file")
    path = repo.path("decisions.md")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
    if head:
        repo.commit("a BOM and a reworded constraint")
    result = cached_answer(repo.root, base, head)
    assert result.status == "CHANGES" and result.blindspots == []


@pytest.mark.parametrize("spoil", ["bom", "crlf", "markdown"])
def test_a_changed_file_plain_in_one_revision_only(tmp_path, spoil):
    """A file read whole in one revision and narrowed in the other once had its units left
    as they are (here the first of constraints.md) in one revision only: reported added or
    deleted (between commits too)."""
    repo = Repo(tmp_path / "p")
    path = repo.path("constraints.md")
    plain = path.read_bytes()
    spoiled = {"bom": b"\xef\xbb\xbf" + plain, "crlf": plain.replace(b"\n", b"\r\n"),
               "markdown": plain.rstrip(b"\n") + b"\n\n<!-- an unclosed comment\n"}[spoil]
    path.write_bytes(spoiled)
    base = repo.commit("constraints.md is not plain")
    path.write_bytes(plain.replace(b"ten seconds", b"nine seconds", 1))
    cached_answer(repo.root, base, "")
    head = repo.commit("plain again, and a reworded constraint")
    cached_answer(repo.root, base, head)
    path.write_bytes(spoiled.replace(b"ten seconds", b"eight seconds", 1))
    cached_answer(repo.root, head, "")
    repo.commit("not plain again")
    assert cached_answer(repo.root, head, "HEAD").status != "UNCHANGED"


@pytest.mark.parametrize("bad", ["undecodable", "symlink", "directory", "unreadable-readme", "missing-dir"])
def test_a_work_tree_that_cannot_be_read_fails_as_before(tmp_path, named, bad):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    if bad == "undecodable":
        repo.path("notes.md").write_bytes(b"# Notes\n\n\xff\xfe not UTF-8\n")
    elif bad == "symlink":
        os.symlink("decisions.md", repo.path("linked.md"))
    elif bad == "directory":
        repo.path("odd.md").mkdir()
    elif bad == "unreadable-readme":  # never extracted from the work tree: no failure at all
        repo.path("README.md").write_bytes(b"# Read me\n\n\xff not UTF-8\n")
        repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
        assert cached_answer(repo.root, base, "").changes
        assert named["plain"] == 0
        return
    else:
        import shutil

        shutil.rmtree(repo.root / MEM)
    error = same_failure(repo.root, base)
    # an unusable file is named as read and check name it: place, MA-FILE code, the work tree
    expected = {"undecodable": f"{MEM}/notes.md:3:1: MA-FILE-ENCODING ", "symlink": f"{MEM}/linked.md:1:1: MA-FILE-SYMLINK ",
                "directory": f"{MEM}/odd.md:1:1: MA-FILE-NOT-REGULAR ", "missing-dir": "worktree: memory dir is missing"}
    assert error.startswith(expected[bad]), error
    assert bad == "missing-dir" or error.endswith("(in the work tree)")
    assert named["plain"] == 0 or bad == "undecodable"  # a file that decodes nowhere is caught by decoding


EDITS = st.lists(st.sampled_from(["reword", "evidence", "add", "drop-file", "untracked", "bom", "crlf",
                                  "twice", "supersede", "markdown"]), min_size=1, max_size=4, unique=True)


def _apply(repo: Repo, edit: str) -> None:
    if edit == "reword":
        repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
    elif edit == "evidence":
        repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#49\n")
    elif edit == "add":
        repo.write("preferences.md", repo.read("preferences.md").rstrip("\n") + "\n\n"
                   + entry(NEW, "Refunds are in cents", "Refunds are integers."))
    elif edit == "drop-file":
        repo.write("areas/catalogue.md", None)
    elif edit == "untracked":
        repo.write("areas/extra.md", "# Extra\n\n" + entry("MC-DEC-20261102-ffff0002", "Extra", "An extra unit."))
    elif edit in ("bom", "crlf"):
        path = repo.path("do-not-use.md")
        data = path.read_bytes()
        path.write_bytes(b"\xef\xbb\xbf" + data if edit == "bom" else data.replace(b"\n", b"\r\n"))
    elif edit == "twice":
        repo.write("inbox.md", repo.read("inbox.md").rstrip("\n") + "\n\n"
                   + entry("MC-CON-20260903-4e5f6071", "Held twice", "A second holder."))
    elif edit == "supersede":
        repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n" + entry(
            "MC-DEC-20261103-ffff0003", "Totals in cents", "Totals are cents.",
            extra=("Supersedes: MC-DEC-20260910-1b2c3d4e",)))
    else:
        repo.write("subjects.md", repo.read("subjects.md").rstrip("\n") + "\n\n```\nunclosed fence\n")


@pytest.fixture(scope="module")
def plain_repo(tmp_path_factory):
    return Repo(tmp_path_factory.mktemp("edits") / "p")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=EDITS)
def test_random_uncommitted_edits(plain_repo, edits):
    repo = plain_repo
    try:
        for edit in edits:
            _apply(repo, edit)
        full = whole(repo.root, "HEAD", "")
        for _run in range(2):  # the first run stores the changed files' units, the second narrows
            result = run_diff(repo.root, MEM, "HEAD", None, use_cache=True)
            assert render_diff_text(result) == render_diff_text(full), edits
            assert (result.status, result.exit_code, result.blindspots) == \
                   (full.status, full.exit_code, full.blindspots), edits
    finally:
        as_at(repo, "HEAD")
        repo.git("clean", "-qf", "--", MEM)


def test_work_tree_files_are_named_as_git_names_them(tmp_path):
    """Each managed file's id is the blob id Git gives it (``git hash-object``), and a clean
    work tree lists exactly HEAD's files under HEAD's ids."""
    from analyzer.history.git import Repo as GitRepo
    from analyzer.history.revisions import list_files

    repo = Repo(tmp_path / "p")
    repo.path("bom.md").write_bytes(b"\xef\xbb\xbf# Odd\r\n\x00")
    repo.commit("an odd file")
    listing, blobs = worktree_blobs.worktree_files(str(repo.root), MEM)
    assert listing == list_files(GitRepo(str(repo.root)), "HEAD", MEM, "HEAD")
    assert listing["bom.md"] == repo.git("hash-object", f"{MEM}/bom.md").strip()
    assert {blobs[oid] for oid in listing.values()} == {repo.path(m).read_bytes() for m in listing}
    assert worktree_blobs.text_id(listing["bom.md"], blobs[listing["bom.md"]]) == \
        worktree_blobs.blob_id(b"# Odd\r\n\x00")



def test_a_sha256_repository(tmp_path, named):
    """In a SHA-256 repository the work tree's files are named by SHA-256 blob ids, as Git
    names them there (a SHA-1 name would match no commit's file)."""
    import shutil
    import subprocess

    from histrepo import EXAMPLE, env

    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    made = subprocess.run(["git", "init", "-q", "--object-format=sha256", "-b", "main"], cwd=root, env=env(),
                          capture_output=True)
    if made.returncode:
        pytest.skip("this Git has no SHA-256 repositories")
    for args in (["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env(), check=True, capture_output=True)
    path = root / MEM / "constraints.md"
    path.write_text(path.read_text(encoding="utf-8").replace("ten seconds", "nine seconds"), encoding="utf-8")
    result = cached_answer(root, "HEAD", "")
    assert [(c.cls, c.ident) for c in result.changes] == [("E", "MC-CON-20260903-4e5f6071")]
    listing, _blobs = worktree_blobs.worktree_files(str(root), MEM, "sha256")
    tree = subprocess.run(["git", "ls-tree", "HEAD", f"{MEM}/manifest.md"], cwd=root, env=env(), check=True,
                          capture_output=True, text=True).stdout.split()
    assert listing["manifest.md"] == tree[2] and len(tree[2]) == 64
    assert named["within"] == 1  # the second run narrowed: SHA-256 ids matched the stored units
