"""A managed file that cannot be used, met by a history command (diff, check --autonomy,
restore, readiness), is reported as read and check report one: ``path:line:col: CODE
message``, in every output format, exit 2; a history reading never counts its change as
read (fail closed). A Git failure names no file."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import inprocess
from tests.history.histrepo import MEM, Repo, tree_state

BAD = b"# Notes\n\nfine line\n\xff\xfe not UTF-8\n"  # the bad byte at 4:1


def analyze(root, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(root.parent / "cache"))
    return inprocess.run([*args, "--project-root", str(root)],
                         capture_output=True, text=True, env=env)


@pytest.fixture
def repo(tmp_path):
    return Repo(tmp_path / "p")


def test_diff_names_an_undecodable_work_tree_file_by_place_and_code(repo):
    repo.path("notes.md").write_bytes(BAD)
    before = tree_state(repo.root)
    text = analyze(repo.root, "diff", "--base", "HEAD")
    assert text.returncode == 2 and text.stdout == ""
    assert text.stderr == (f"analyze diff: error: {MEM}/notes.md:4:1: MA-FILE-ENCODING file is not valid UTF-8 "
                           f"(byte 0xff); not read (in the work tree)\n")
    doc = json.loads(analyze(repo.root, "diff", "--base", "HEAD", "--format", "json").stdout)
    assert doc["schema"]["name"] == "diff.error"
    assert doc["diagnostics"] == [{"code": "MA-FILE-ENCODING", "severity": "error",
                                   "message": "file is not valid UTF-8 (byte 0xff); not read (in the work tree)",
                                   "path": f"{MEM}/notes.md", "line": 4, "col": 1}]
    github = analyze(repo.root, "diff", "--base", "HEAD", "--format", "github")
    assert github.returncode == 2
    assert github.stdout.startswith(f"::error file={MEM}/notes.md,line=4,col=1,title=MA-FILE-ENCODING::")
    sarif = json.loads(analyze(repo.root, "diff", "--base", "HEAD", "--format", "sarif").stdout)
    [invocation] = sarif["runs"][0]["invocations"]
    assert invocation["exitCode"] == 2 and invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "MA-FILE-ENCODING"
    place = note["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == f"{MEM}/notes.md" and place["region"] == {"startLine": 4, "startColumn": 1}
    assert tree_state(repo.root) == before


def test_diff_names_the_revision_that_holds_the_file(repo):
    repo.path("notes.md").write_bytes(BAD)
    repo.commit("bad bytes")
    proc = analyze(repo.root, "diff", "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"analyze diff: error: {MEM}/notes.md:4:1: MA-FILE-ENCODING ")
    assert proc.stderr.rstrip().endswith("(at HEAD)")


def test_a_git_failure_names_no_file_in_the_ci_formats(repo):
    github = analyze(repo.root, "diff", "--base", "no-such-ref", "--format", "github")
    assert github.returncode == 2 and github.stdout.startswith("::error title=MA-GIT::")
    sarif = json.loads(analyze(repo.root, "diff", "--base", "no-such-ref", "--format", "sarif").stdout)
    [note] = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "MA-GIT" and "locations" not in note
    junit = analyze(repo.root, "diff", "--base", "no-such-ref", "--format", "junit")
    assert junit.returncode == 2 and 'type="MA-GIT"' in junit.stdout
    doc = json.loads(analyze(repo.root, "diff", "--base", "no-such-ref", "--format", "json").stdout)
    assert doc["diagnostics"][0]["code"] == "MA-GIT" and doc["diagnostics"][0]["path"] == "<command line>"


def test_autonomy_and_restore_report_the_file(repo, tmp_path):
    repo.path("notes.md").write_bytes(BAD)
    out = tmp_path / "out.sarif"
    proc = analyze(repo.root, "check", "--autonomy", "confirm", "--base", "HEAD", "--format", "json",
                   "--output", f"sarif:{out}")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"analyze check: error: {MEM}/notes.md:4:1: MA-FILE-ENCODING ")
    doc = json.loads(proc.stdout)
    assert doc["schema"]["name"] == "check.error"
    assert (doc["diagnostics"][0]["code"], doc["diagnostics"][0]["line"]) == ("MA-FILE-ENCODING", 4)
    [note] = json.loads(out.read_text())["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "MA-FILE-ENCODING"
    restore = analyze(repo.root, "restore", "--preview", "MC-DEC-20260905-2c3d4e5f", "--base", "HEAD")
    assert restore.returncode == 2
    assert restore.stderr.startswith(f"analyze restore: error: {MEM}/notes.md:4:1: MA-FILE-ENCODING ")


def test_a_reading_fails_on_a_commit_whose_file_does_not_decode(repo):
    # an agent's commit that appends bad bytes to an entry was counted as a C change before
    text = repo.path("decisions.md").read_bytes()
    repo.path("decisions.md").write_bytes(text + b"\xff\n")
    sha = repo.commit("agent edit", trailers=["Memory-Agent: bot"])
    line = text.count(b"\n") + 1
    proc = analyze(repo.root, "readiness")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"analyze readiness: error: {MEM}/decisions.md:{line}:1: MA-FILE-ENCODING file is not "
                           f"valid UTF-8 (byte 0xff); not read (at {sha[:12]})\n")
    doc = json.loads(analyze(repo.root, "readiness", "--format", "json").stdout)
    assert doc["diagnostics"][0]["path"] == f"{MEM}/decisions.md" and doc["diagnostics"][0]["line"] == line
    # fixed by the next commit, the bad one is still in the window; full autonomy asks for
    # readiness: the same failure, never a demotion to confirm
    repo.path("decisions.md").write_bytes(text)
    repo.commit("fix")
    assert analyze(repo.root, "readiness").returncode == 2
    full = analyze(repo.root, "check", "--autonomy", "full", "--base", "HEAD")
    assert full.returncode == 2 and f"MA-FILE-ENCODING file is not valid UTF-8 (byte 0xff); not read (at {sha[:12]})" \
        in full.stderr
    assert analyze(repo.root, "check", "--autonomy", "confirm", "--base", "HEAD").returncode == 0


def test_a_reading_fails_on_a_manifest_that_does_not_decode(repo):
    text = repo.path("manifest.md").read_bytes()
    repo.path("manifest.md").write_bytes(text.replace(b"\n", b"\n\xfe", 1))
    repo.edit("decisions.md", "Status: active", "Status: active ")  # a memory commit in the window
    sha = repo.commit("agent edit", trailers=["Memory-Agent: bot"])
    proc = analyze(repo.root, "readiness")
    assert proc.returncode == 2
    assert proc.stderr == (f"analyze readiness: error: {MEM}/manifest.md:2:1: MA-FILE-ENCODING file is not "
                           f"valid UTF-8 (byte 0xfe); not read (at {sha[:12]})\n")


def test_a_configuration_error_of_a_reading_has_its_place(repo):
    (repo.root / "pyproject.toml").write_text('[tool.memory-analyzer]\nagent-authors = ["("]\n', encoding="utf-8")
    proc = analyze(repo.root, "readiness", "--format", "json")
    assert proc.returncode == 2
    [diag] = json.loads(proc.stdout)["diagnostics"]
    assert (diag["code"], diag["path"], diag["line"]) == ("MA-CONFIG-VALUE", "pyproject.toml", 2), diag
    text = analyze(repo.root, "readiness")
    assert text.stderr.startswith("analyze readiness: error: pyproject.toml:2:1: MA-CONFIG-VALUE agent-authors: '('")
