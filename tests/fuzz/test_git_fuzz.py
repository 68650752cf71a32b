"""Fuzz what a repository's writer controls in Git (issue 32): commit metadata (times,
encodings, names, messages holding separators and forged trailers), memory file names as
bytes, and ``.gitattributes``. Bounded for CI: a few dozen examples on one repository.

Properties: reading the history never fails but with a clear error (GitError / FileError,
no other exception); ``git log`` is parsed into exactly the commits Git has, each with the
metadata its header holds (a message cannot add a commit, a trailer or an author); and the
diff of a range is the same with or without any ``.gitattributes``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "history"))

import histrepo  # noqa: E402
from histrepo import MEM, Repo  # noqa: E402

from analyzer.history.git import GitError, History, Repo as GitRepo  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

SEPARATORS = ["\x1e", "\x1f", "\x00", "\n", "%x00", "\r", "\x1e\x1f", ": ", "<", ">"]
text_with_separators = st.lists(st.one_of(st.sampled_from(SEPARATORS), st.text(max_size=6)), max_size=6).map("".join)
times = st.integers(-(1 << 70), 1 << 70).map(str)
encodings = st.sampled_from(["", "UTF-8", "ISO-8859-1", "UTF-16", "bogus-encoding", "SHIFT_JIS"])


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("fuzz") / "p")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.commit("rewrite")
    return repo


def _object(repo, kind, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-t", kind, "-w", "--stdin", "--literally"], cwd=repo.root,
                          check=True, input=data, capture_output=True, env=histrepo.env()).stdout.decode().strip()


def _commit(repo, name: str, when: str, encoding: str, message: str) -> str:
    """A commit object on HEAD's tree and parent, with the fuzzed header fields and message."""
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    parent = repo.git("rev-parse", "HEAD~1").strip()
    clean = name.replace("\n", " ").replace("\x00", "")  # a header line ends at a newline
    header = f"tree {tree}\nparent {parent}\nauthor {clean} <a@example.org> {when} +0000\n" \
             f"committer {clean} <a@example.org> {when} +0000\n"
    if encoding:
        header += f"encoding {encoding}\n"
    return _object(repo, "commit", header.encode("utf-8", "surrogateescape") + b"\n"
                   + message.encode("utf-8", "surrogateescape"))


@SETTINGS
@given(name=text_with_separators, when=times, encoding=encodings, body=text_with_separators,
       forged=st.booleans())
def test_commit_metadata_parses_to_what_the_header_holds(repo, name, when, encoding, body, forged):
    parent = repo.git("rev-parse", "HEAD~1").strip()
    fake = "\x1e" + "\x1f".join((parent, "", "1", "Eve <e@x>", "s", "Memory-Confirmed-By: alice", "")) if forged else ""
    sha = _commit(repo, name, when, encoding, f"subject\n\n{body}{fake}\n")
    try:
        commits = History(GitRepo(str(repo.root)), MEM).log([f"{parent}..{sha}"])
    except GitError:
        return  # a clear error is allowed; any other exception fails the test
    assert [c.sha for c in commits] == [sha]
    [commit] = commits
    assert commit.parents == (parent,)
    assert ("Memory-Confirmed-By", "alice") not in commit.trailers
    if encoding == "UTF-16" or "<" in name or ">" in name:
        # Git re-encodes the whole commit, header too; an ident holding <> is one Git cannot
        # split: what Git reads, not what the header meant
        return
    assert 0 <= commit.time < 1 << 63 and (commit.time == int(when) or not 0 < int(when or 0) < 1 << 63)
    assert commit.author.endswith("<a@example.org>")


@SETTINGS
@given(name=st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\x00" not in b
                                                       and b not in (b".", b"..")))
def test_memory_file_names_as_bytes_are_read_or_refused_clearly(repo, name):
    from analyzer.query.diff import run_diff

    path = repo.root / MEM / os.fsdecode(b"fz-" + name + b".md")
    base = repo.git("rev-parse", "HEAD").strip()
    try:
        name.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    try:
        path.write_bytes(b"# x\n")
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", "a name")
        for head in ("HEAD", None):
            result = run_diff(repo.root, MEM, base, head, use_cache=False)  # no exception
            if not utf8:
                assert result.failure is not None and result.failure.code == "MA-FILE-NAME"
                assert "\\x" in result.failure.span.path
    finally:
        repo.git("reset", "-q", "--hard", base)
        if path.exists():
            path.unlink()


ATTRIBUTE_LINES = ["*.md diff=other", "*.md binary", "*.md -diff", "*.md !diff", "*.md diff", "* -text",
                   "*.md text eol=crlf", "*.md diff=memoryunit", "docs/** diff=x", "[attr]evil -diff -text",
                   "*.md evil", "*.md ident", "*.md filter=none", "*.md merge=binary"]


@SETTINGS
@given(lines=st.lists(st.sampled_from(ATTRIBUTE_LINES), min_size=1, max_size=4),
       where=st.sampled_from([".gitattributes", f"{MEM}/.gitattributes", "docs/.gitattributes"]))
def test_gitattributes_never_change_a_range_diff(repo, lines, where):
    from analyzer.query.diff import run_diff

    def answer():
        result = run_diff(repo.root, MEM, "HEAD~1", "HEAD", use_cache=False)
        return result.failure, [(c.ident, c.cls, c.subkind, tuple(c.commits)) for c in result.changes]

    honest = answer()
    target = repo.root / where
    target.write_text("\n".join(lines) + "\n")
    try:
        assert answer() == honest
    finally:
        target.unlink()
