"""Hostile input for read: a managed file that cannot be used stops the read (issue 13).

Every case is checked in text (``Error: <path>:<line>:<col>: <CODE> …`` on stderr, nothing
on stdout, exit 2) and JSON (the ``read.error`` shape naming the file), with and without
--strict-routing, which must never approve. ``analyze facts`` keeps reporting the same files
as diagnostics and exits 0.
"""

from __future__ import annotations

import json
import os

import pytest

from analyzer.commands import cli
from analyzer.project.files import SIZE_CAP

TASK = ("--task", "implementation", "--path", "web/src/cart.ts", "--no-local")


def _latin1(root):
    (root / "docs/memory/decisions.md").write_bytes(b"# Decisions\n\nCaf\xe9 au lait\n")
    return "docs/memory/decisions.md", "MA-FILE-ENCODING", (3, 4), "byte 0xe9"


def _binary(root):
    (root / "docs/memory/decisions.md").write_bytes(bytes(range(256)) * 4)
    return "docs/memory/decisions.md", "MA-FILE-ENCODING", (2, 118), "byte 0x80"  # byte 10 is a newline


def _oversized(root):
    with open(root / "docs/memory/decisions.md", "wb") as fh:
        fh.truncate(SIZE_CAP + 1)  # sparse: refused by its size, never read
    return "docs/memory/decisions.md", "MA-FILE-UNREADABLE", (1, 1), f"over the {SIZE_CAP}-byte limit"


def _symlink(root):
    target = root / "outside-decisions.md"
    (root / "docs/memory/decisions.md").rename(target)
    os.symlink("../../outside-decisions.md", root / "docs/memory/decisions.md")
    return "docs/memory/decisions.md", "MA-FILE-SYMLINK", (1, 1), "must not be a symlink"


def _directory(root):
    (root / "docs/memory/decisions.md").unlink()
    (root / "docs/memory/decisions.md").mkdir()
    return "docs/memory/decisions.md", "MA-FILE-NOT-REGULAR", (1, 1), "not a regular file"


def _unrouted_archive(root):
    # not routed for this task, but the project-wide conflict analysis reads it (§8.4)
    (root / "docs/memory/archive").mkdir(exist_ok=True)
    (root / "docs/memory/archive/old.md").write_bytes(b"# Old\n\n\xff\n")
    return "docs/memory/archive/old.md", "MA-FILE-ENCODING", (3, 1), "byte 0xff"


CASES = {"latin1": _latin1, "binary": _binary, "oversized": _oversized, "symlink": _symlink,
         "not-regular": _directory, "unrouted-archive": _unrouted_archive}


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_unusable_file_stops_read_in_text(acme, analyze, case, strict):
    path, code, (line, col), cause = CASES[case](acme)
    proc = analyze("read", "--project-root", str(acme), *TASK, *(["--strict-routing"] if strict else []))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""  # no pack, not even a partial one
    [error] = proc.stderr.splitlines()
    assert error.startswith(f"Error: {path}:{line}:{col}: {code} ")
    assert cause in error


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_unusable_file_stops_read_in_json(acme, analyze, case, strict):
    path, code, (line, col), cause = CASES[case](acme)
    proc = analyze("read", "--project-root", str(acme), *TASK, "--format", "json",
                   *(["--strict-routing"] if strict else []))
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["ok"], doc["status"], doc["schema"]["name"]) == (False, "INVALID", "read.error")
    [diag] = doc["diagnostics"]
    assert (diag["path"], diag["code"], diag["line"], diag["col"]) == (path, code, line, col)
    assert cause in diag["message"]
    assert "context_pack" not in doc and "approved" not in doc


def test_facts_still_reports_unusable_files(acme, analyze):
    _latin1(acme)
    proc = analyze("facts", "--project-root", str(acme), "--format", "json", "--relation", "file_unreadable")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["status"] == "DIAGNOSTICS"
    assert doc["relations"][0]["tuples"] == [["decisions.md", "file is not valid UTF-8 (byte 0xe9); not read"]]
    assert ("docs/memory/decisions.md", "MA-FILE-ENCODING") in {(d["path"], d["code"]) for d in doc["diagnostics"]}
    text = analyze("facts", "--project-root", str(acme), "--relation", "file_unreadable")
    assert text.returncode == 0
    assert "docs/memory/decisions.md:3:4: MA-FILE-ENCODING" in text.stderr


def test_why_fails_closed_like_read(acme, analyze):
    _symlink(acme)
    proc = analyze("why", "decisions.md", "--project-root", str(acme), *TASK)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("Error: docs/memory/decisions.md:1:1: MA-FILE-SYMLINK")
    doc = json.loads(analyze("why", "decisions.md", "--project-root", str(acme), *TASK, "--format", "json").stdout)
    assert doc["schema"]["name"] == "why.error" and doc["diagnostics"][0]["code"] == "MA-FILE-SYMLINK"


def test_every_unusable_file_is_named_in_order(acme, analyze):
    _latin1(acme)
    (acme / "docs/memory/brief.md").write_bytes(b"\xfe")
    proc = analyze("read", "--project-root", str(acme), *TASK)
    assert [line.split(": ")[1] for line in proc.stderr.splitlines()] == \
        ["docs/memory/brief.md:1:1", "docs/memory/decisions.md:3:4"]


def test_max_file_bytes_lets_a_large_file_through(acme, analyze):
    biggest = max(p.stat().st_size for p in (acme / "docs/memory").rglob("*.md"))
    decisions = acme / "docs/memory/decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\nPadding.\n" * (biggest // 10 + 1), encoding="utf-8")
    size = decisions.stat().st_size  # now the largest file, alone over size - 1
    small = analyze("read", "--project-root", str(acme), *TASK, "--max-file-bytes", str(size - 1))
    assert small.returncode == 2 and f"over the {size - 1}-byte limit" in small.stderr
    enough = analyze("read", "--project-root", str(acme), *TASK, "--max-file-bytes", str(size), "--names-only")
    assert "- decisions.md" in enough.stdout.split("Skipped optional:")[0]
    assert "MA-FILE" not in enough.stderr


@pytest.mark.parametrize("value", ["0", "-5", "ten"])
def test_max_file_bytes_must_be_a_positive_integer(acme, analyze, value):
    proc = analyze("read", "--project-root", str(acme), "--max-file-bytes", value)
    assert proc.returncode == 2 and "--max-file-bytes" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_unreadable_file_permission(acme, refuse_open, capsys, fmt, strict):
    refuse_open(acme / "docs/memory/decisions.md")
    status = cli.main(["read", "--project-root", str(acme), *TASK, "--no-cache", "--format", fmt,
                       *(["--strict-routing"] if strict else [])])
    out, err = capsys.readouterr()
    assert status == 2
    assert err.splitlines() == [
        "Error: docs/memory/decisions.md:1:1: MA-FILE-UNREADABLE cannot open: Permission denied"]
    if fmt == "json":
        assert json.loads(out)["diagnostics"][0]["message"] == "cannot open: Permission denied"
    else:
        assert out == ""


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_query_with_a_read_request_fails_closed_too(acme, analyze, fmt):
    _latin1(acme)
    proc = analyze("query", 'disposition(M, "loaded")', "--project-root", str(acme), *TASK, "--format", fmt)
    assert proc.returncode == 2
    assert proc.stderr.startswith("Error: docs/memory/decisions.md:3:4: MA-FILE-ENCODING")
    if fmt == "json":
        assert json.loads(proc.stdout)["diagnostics"][0]["code"] == "MA-FILE-ENCODING"
    else:
        assert proc.stdout == ""
    # without a read request, query looks at the facts, as `analyze facts` does, and says on
    # stderr which file they lack (it answered in silence: an empty answer read as "nothing there")
    facts = analyze("query", "file_unreadable(M, _)", "--project-root", str(acme))
    assert facts.returncode == 0 and "decisions.md" in facts.stdout
    assert facts.stderr == ("analyze query: warning: docs/memory/decisions.md:3:4: MA-FILE-ENCODING file is not "
                            "valid UTF-8 (byte 0xe9); not read (the answers lack this file's facts)\n")
    (acme / "docs/memory/decisions.md").unlink()  # gone, not unusable: no warning (and no memory file)
    clean = analyze("query", "live_entry(I, M)", "--project-root", str(acme))
    assert clean.returncode == 0 and clean.stderr == ""


def test_shell_request_fails_closed_and_keeps_the_old_request(acme):
    from analyzer.commands.shell_session import Shell

    _latin1(acme)
    shell = Shell(acme, use_cache=False)
    assert "decisions.md" in shell.handle("file_unreadable(M, _)")  # facts answer, as analyze facts
    assert shell.handle(".task implementation") == \
        "Error: docs/memory/decisions.md:3:4: MA-FILE-ENCODING file is not valid UTF-8 (byte 0xe9); not read\n"
    assert shell.handle(".request").startswith("request: none")
    assert "did you mean 'implementation'" in shell.handle(".task implementaton")


def test_the_shell_names_the_files_its_answers_lack_when_it_starts(acme, capsys, monkeypatch):
    """Every line of a shell is answered from the facts read at its start: it says there which
    file they lack (it said nothing; `live_entry(I, "decisions.md")` then answered 0 rows)."""
    import io

    _latin1(acme)
    monkeypatch.setattr("sys.stdin", io.StringIO('live_entry(I, "decisions.md")\n'))
    assert cli.main(["shell", "--project-root", str(acme), "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert "(0 tuples)" in out
    assert err == ("analyze shell: warning: docs/memory/decisions.md:3:4: MA-FILE-ENCODING file is not valid "
                   "UTF-8 (byte 0xe9); not read (the answers lack this file's facts)\n")
