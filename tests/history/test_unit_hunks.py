"""analyzer/history/unit_hunks.py widens `git log -p -U0` hunks to whole units as Git's own
function context does (History.unit_patches): both give the same snippets, line for line,
on the fixture histories, on a history of large entry files and on random small histories
of heading-like, blank and repeated lines (where Git's diff has many equally short
answers), with and without a last newline.

Not asserted for large files of repeated lines: there Git's diff without context (which
first trims the versions' common tail, the point of using it) may place a change elsewhere
than its diff with function context does; both widen a valid diff of the same versions,
and the rebuilt versions are still checked against Git's blob sizes."""

import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classes import agreeing_history, held_twice_history
from histrepo import MEM, Repo as FixtureRepo, entry, env

from analyzer.history.git import History, Repo
from analyzer.history.unit_hunks import unit_patches


def both(root, revisions, stdin=None):
    """Ours and Git's widening of the same commits; ours also with the commits newest first
    (its versions then rebuilt backwards), which must give the same."""
    history = History(Repo(str(root)), MEM)
    ours = unit_patches(history, revisions, stdin)
    if stdin is None:
        assert unit_patches(history, [r for r in revisions if r != "--reverse"]) == ours
    else:
        newest_first = b"".join(reversed(stdin.splitlines(keepends=True)))
        assert unit_patches(history, revisions, newest_first) == ours
    return ours, history.unit_patches(revisions, stdin)


def test_the_fixture_histories_give_gits_own_widening(tmp_path):
    for n, build in enumerate((agreeing_history, held_twice_history)):
        repo, shas = build(tmp_path / f"p{n}")
        ours, gits = both(repo.root, ["--reverse", "--first-parent", "HEAD"])
        assert ours == gits and len(ours) == len(shas)
        # commits given one by one, every second one: their parents' versions are read from Git
        picked = list(shas.values())[1::2]
        ours, gits = both(repo.root, ["--no-walk=unsorted", "--diff-merges=first-parent", "--stdin"],
                          ("\n".join(picked) + "\n").encode())
        assert ours == gits and sorted(ours) == sorted(picked)


def test_large_entry_files_give_gits_own_widening(tmp_path):
    """Files of 60 entries (over Git's 1 KiB tail blocks): entries rewritten, added,
    moved and removed, one file without a last newline."""
    repo = FixtureRepo(tmp_path / "p")
    ids = [f"MC-DEC-20260101-{n:08x}" for n in range(60)]
    texts = {i: entry(i, f"Decision {n}", f"Body {n}.") for n, i in enumerate(ids)}
    repo.write("decisions.md", "# Decisions\n\n" + "\n".join(texts[i] for i in ids))
    repo.commit("many")
    steps = [lambda o: o[:10] + o[11:], lambda o: o[:30] + [ids[10]] + o[30:], lambda o: o[::-1][:45],
             lambda o: o + [ids[0].replace("0000", "ffff")], lambda o: o[5:] + o[:5]]
    order = list(ids)
    for n, step in enumerate(steps):
        order = step(order)
        texts[order[len(order) // 2]] = texts[order[len(order) // 2]].replace("Body", f"Body rewritten {n}")
        for i in order:
            texts.setdefault(i, entry(i, "Added", "Added body."))
        text = "# Decisions\n\n" + "\n".join(texts[i] for i in order)
        repo.write("decisions.md", text.rstrip("\n") if n == 2 else text)
        repo.commit(f"step {n}")
    ours, gits = both(repo.root, ["--reverse", "--first-parent", "HEAD"])
    assert ours == gits


LINES = ["", " ", "## MC-DEC-20260101-0000000a — A", "## MC-DEC-20260101-0000000b — B", "   ## MC-DEC-20260101-0000000c",
         "    ## MC-DEC-20260101-0000000d — code, not a heading", "##\tMC-CON-20260101-0000000e — tab", "# Title",
         "Status: active", "Decision:", "text", "more text", "- user-confirmed", "crlf\r", "\t"]
FILES = st.lists(st.sampled_from(range(len(LINES))), max_size=24).map(lambda ix: [LINES[i] for i in ix])
VERSION = st.tuples(FILES, st.booleans())  # lines, ends with a newline
HISTORY = st.lists(st.tuples(st.one_of(st.none(), VERSION), st.one_of(st.none(), VERSION)), min_size=1, max_size=5)


def _random_repo(tmp_path_factory, history):
    """A repository whose commits write each step's versions of a.md and b.md (None: removed)."""
    root = tmp_path_factory.mktemp("h")
    mem = root / MEM
    mem.mkdir(parents=True)

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, env=env(), check=True, capture_output=True).stdout

    git("init", "-q", "-b", "main")
    (mem / "keep.md").write_text("# kept\n")
    git("add", "-A")
    git("commit", "-qm", "init")
    for versions in history:
        for name, version in zip(("a.md", "b.md"), versions):
            path = mem / name
            if version is None:
                path.unlink(missing_ok=True)
            else:
                lines, newline = version
                path.write_bytes(("\n".join(lines) + ("\n" if newline and lines else "")).encode())
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", "step")
    return root


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=HISTORY)
def test_random_histories_give_gits_own_widening(tmp_path_factory, history):
    root = _random_repo(tmp_path_factory, history)
    ours, gits = both(root, ["--reverse", "--first-parent", "HEAD"])
    assert ours == gits


ROOT_ARGS = ["--no-walk=unsorted", "--diff-merges=first-parent", "--stdin"]


def _root_history(tmp_path, files):
    """A root commit holding ``files`` (name -> bytes, or a symlink target as str) below
    the memory dir, and one commit editing a.md; the two commit ids, newest first."""
    root = tmp_path / "r"
    mem = root / MEM
    (mem / "areas").mkdir(parents=True)

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, env=env(), check=True, capture_output=True).stdout

    git("init", "-q", "-b", "main")
    for name, content in files.items():
        if isinstance(content, str):
            (mem / name).symlink_to(content)
        else:
            (mem / name).write_bytes(content)
    git("add", "-A")
    git("commit", "-qm", "root")
    (mem / "a.md").write_bytes(files["a.md"] + entry("MC-DEC-20260101-0000000f", "Later", "Added.").encode())
    git("commit", "-qam", "edit")
    return root, git("rev-list", "HEAD").decode().split()


def _log_stdin(monkeypatch):
    """Record what each `git log -p` of analyzer/history/unit_hunks.py reads on stdin."""
    import analyzer.history.git as gitmod

    seen = []
    real = gitmod.Repo._run

    def run(self, cwd, args, stdin=None):
        if "log" in args and "-p" in args:
            seen.append(stdin)
        return real(self, cwd, args, stdin)

    monkeypatch.setattr(gitmod.Repo, "_run", run)
    return seen


def test_a_root_commit_is_read_whole_and_gives_gits_own_widening(tmp_path, monkeypatch):
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    files = {"a.md": a, "b.md": b"no last newline\n\n## MC-DEC-20260101-0000000b \xe2\x80\x94 B",
             "areas/c.md": b"\n", "x.txt": b"not memory\r\nline\n", "link.md": "a.md"}
    root, shas = _root_history(tmp_path, files)
    seen = _log_stdin(monkeypatch)
    ours, gits = both(root, ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    assert ours == gits and sorted(ours) == sorted(shas)
    assert sorted(ours[shas[1]]) == ["a.md", "areas/c.md", "b.md", "link.md", "x.txt"]
    # Git diffed only the later commit: the root's files were read whole
    assert seen[0] == (shas[0] + "\n").encode()
    # the root alone: no `git log -p` at all
    seen.clear()
    assert unit_patches(History(Repo(str(root)), MEM), ROOT_ARGS, (shas[1] + "\n").encode()) == {
        shas[1]: gits[shas[1]]}
    assert seen == []


def test_a_path_with_a_space_is_one_name_in_every_commit(tmp_path):
    # Git ends a `---`/`+++` line with a tab when its path holds a space: the file is
    # "b c.md" in the root read whole and in every commit Git diffs (it was "b c.md\t" there)
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, _ = _root_history(tmp_path, {"a.md": a, "b c.md": a})
    spaced = root / MEM / "b c.md"
    spaced.write_bytes(a + entry("MC-DEC-20260101-0000000e", "Spaced", "Edited.").encode())
    subprocess.run(["git", "commit", "-qam", "edit b c"], cwd=root, env=env(), check=True, capture_output=True)
    shas = subprocess.run(["git", "rev-list", "HEAD"], cwd=root, env=env(), check=True,
                          capture_output=True).stdout.decode().split()
    ours, gits = both(root, ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    assert ours == gits
    assert "b c.md" in ours[shas[0]] and "b c.md" in ours[shas[2]]
    assert not [name for files in ours.values() for name in files if name.endswith("\t")]


def test_a_root_commit_git_shows_otherwise_is_left_to_git(tmp_path, monkeypatch):
    # an empty file has no hunk in Git's diff: the root goes to Git as before
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, shas = _root_history(tmp_path, {"a.md": a, "empty.md": b""})
    seen = _log_stdin(monkeypatch)
    ours, gits = both(root, ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    assert ours == gits
    assert seen[0] == ("\n".join(shas) + "\n").encode()


def _both_parsers(root):
    """The two readings of the `git log -p -U0` unit_patches asks for, over every commit:
    (the pattern-per-hunk one or None, the line-by-line one), each as plain tuples."""
    from analyzer.history.unit_hunks import LOG, _parse_fast, _parse_lines

    history = History(Repo(str(root)), MEM)
    text = history.repo._run(history.repo.top, [*LOG, "--first-parent", "HEAD", "--", history.folder + "/"]).decode(
        "utf-8", "surrogateescape")

    def plain(commits):
        return [(sha, [(f.path, f.old, f.new, f.gone, f.born, f.changes, f.old_eol, f.new_eol) for f in files])
                for sha, files in commits]

    raw_fast, raw_lines = {}, {}
    fast = _parse_fast(text, raw_fast)
    lines = plain(_parse_lines(text, raw_lines))
    assert fast is None or raw_fast == raw_lines
    return (None if fast is None else plain(fast)), lines


def test_the_fast_reading_of_gits_output_is_the_line_by_line_one(tmp_path):
    # taken on the fixture histories and on files without a last newline (\ No newline...)
    for n, build in enumerate((agreeing_history, held_twice_history)):
        repo, _ = build(tmp_path / f"p{n}")
        fast, lines = _both_parsers(repo.root)
        assert fast is not None and fast == lines and any(files for _sha, files in lines)
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, _ = _root_history(tmp_path / "n", {"a.md": a.rstrip(b"\n"), "b.md": b"x\n-y\n+z\n\\w\n@@ -1 +1 @@\n"})
    (root / MEM / "b.md").write_bytes(b"-y\n+z\n@@ -1 +1 @@\nx")
    subprocess.run(["git", "commit", "-qam", "edit b"], cwd=root, env=env(), check=True, capture_output=True)
    fast, lines = _both_parsers(root)
    assert fast is not None and fast == lines
    assert [f[6:] for _sha, files in lines for f in files if f[0].endswith("/b.md")][0] == (True, False)
    # a path with a space (Git ends its ---/+++ lines with a tab) and an empty new file (no
    # hunk): left to the line-by-line reading
    for n, files in enumerate(({"a.md": a, "b c.md": a}, {"a.md": a, "empty.md": b""})):
        root, _ = _root_history(tmp_path / f"o{n}", files)
        fast, lines = _both_parsers(root)
        assert fast is None and lines


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=HISTORY)
def test_random_histories_read_fast_as_line_by_line(tmp_path_factory, history):
    root = _random_repo(tmp_path_factory, history)
    fast, lines = _both_parsers(root)
    assert fast is None or fast == lines


def test_roots_known_from_the_log_need_no_rev_list(tmp_path, monkeypatch):
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, shas = _root_history(tmp_path, {"a.md": a, "b.md": a})
    expected = unit_patches(History(Repo(str(root)), MEM), ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    import analyzer.history.git as gitmod

    asked = []
    real = gitmod.Repo._run
    monkeypatch.setattr(gitmod.Repo, "_run", lambda self, cwd, args, stdin=None: (
        asked.append(gitmod._command(args)), real(self, cwd, args, stdin))[1])
    history = History(Repo(str(root)), MEM)
    assert [c.sha for c in history.log(["HEAD"])] == shas[::-1]
    asked.clear()
    assert unit_patches(history, ROOT_ARGS, ("\n".join(shas) + "\n").encode()) == expected
    assert "rev-list" not in asked and "log" in asked


def test_a_root_file_a_later_change_starts_from_is_not_read_again(tmp_path, monkeypatch):
    # newest first, the edit's parent version of a.md is read once, and the root's a.md is
    # that version; b.md, which no later commit changes, is read for the root
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, shas = _root_history(tmp_path, {"a.md": a, "b.md": a + b"more\n"})
    import analyzer.history.git as gitmod

    asked = []
    real = gitmod.Repo.blobs

    def blobs(self, oids):
        oids = list(oids)
        asked.extend(oids)
        return real(self, oids)

    monkeypatch.setattr(gitmod.Repo, "blobs", blobs)
    history = History(Repo(str(root)), MEM)
    ours = unit_patches(history, ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    assert ours == history.unit_patches(ROOT_ARGS, ("\n".join(shas) + "\n").encode())
    listed = subprocess.run(["git", "ls-tree", "-r", shas[1], "--", MEM], cwd=root, env=env(), check=True,
                            capture_output=True).stdout.decode().splitlines()
    tree = {line.split("\t")[1]: line.split()[2] for line in listed}
    assert sorted(asked) == sorted([tree[f"{MEM}/a.md"], tree[f"{MEM}/b.md"]])


def test_the_changes_git_log_p_showed_are_git_log_raws(tmp_path):
    # a root with a symlink and a file that is not memory, a mode change, a deletion, a
    # merge (first parent), a path with a space: History.changes of the window's commits,
    # answered from the raw lines of unit_patches' own `git log -p --raw`, is what Git's
    # `log --raw --first-parent` says
    a = ("# Decisions\n\n" + entry("MC-DEC-20260101-0000000a", "A", "Body.")).encode()
    root, _ = _root_history(tmp_path, {"a.md": a, "b c.md": a, "x.txt": b"x\n", "link.md": "a.md"})
    mem = root / MEM

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, env=env(), check=True, capture_output=True).stdout.decode()

    (mem / "b c.md").chmod(0o755)
    (mem / "x.txt").unlink()
    git("commit", "-qam", "mode and deletion")
    git("checkout", "-qb", "side")
    (mem / "side.md").write_text("# side\n")
    git("add", "-A")
    git("commit", "-qm", "side")
    git("checkout", "-q", "main")
    (mem / "a.md").write_bytes(a + b"more\n")
    git("commit", "-qam", "main")
    git("merge", "-q", "--no-ff", "-m", "merge", "side")
    history = History(Repo(str(root)), MEM)
    shas = [c.sha for c in history.log(["--first-parent", "HEAD"])]
    from analyzer.history.commit_cache import commit_patches

    assert commit_patches(history, shas, use_cache=False)
    assert sorted(history.read_changes) == sorted(shas)
    gits = History(Repo(str(root)), MEM).changes(["--first-parent", "HEAD"])
    assert history.changes(["--first-parent", "HEAD"], shas) == {sha: gits.get(sha, []) for sha in shas}
    assert any(old and new and path == "b c.md" for found in gits.values() for path, old, new in found)


def test_a_form_feed_line_is_not_blank_to_git(tmp_path):
    """Git's function context stops widening at a blank line by Git's own isspace (space,
    tab, CR, LF): a line holding only a form feed or a vertical tab is kept in the snippet
    as Git keeps it, not dropped as blank."""
    repo = FixtureRepo(tmp_path / "p")
    for mark in ("\f", "\v"):
        repo.write("a.md", f"## MC-DEC-20260101-0000000b \u2014 B\nx\n{mark}\n## MC-DEC-20260101-0000000c \u2014 C\ny\n")
        repo.commit("before")
        repo.write("a.md", f"## MC-DEC-20260101-0000000b \u2014 B\nz\n{mark}\n## MC-DEC-20260101-0000000c \u2014 C\ny\n")
        repo.commit("after")
    ours, gits = both(repo.root, ["--reverse", "--first-parent", "HEAD"])
    assert ours == gits
