"""Every command that uses the memory files fails closed, as `read` does (issue 13).

A managed file the command needs (rules/needed.dl) that is not UTF-8, over the size cap, a
symlink, a directory, a FIFO or a device, or unreadable stops `check`, `list`, `show`,
`subject list`, `subject merge` (and `read`) with one ``Error: <path>:<line>:<col>: <CODE>
<cause>`` line per file on stderr, exit 2, nothing else on stdout, and the command's
``error`` shape with the same diagnostics in JSON. Runs in process (cli.main) to stay cheap.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.commands import cli
from analyzer.project.files import SIZE_CAP

REPO = Path(__file__).resolve().parents[2]
DECISIONS = "docs/memory/decisions.md"

COMMANDS = {
    "read": ["read", "--task", "implementation", "--no-local"],
    "check": ["check"],
    "check-all": ["check", "--all"],
    "list": ["list"],
    "show": ["show", "MC-DEC-20260910-1b2c3d4e"],
    "subject-list": ["subject", "list"],
    "subject-merge": ["subject", "merge", "MC-SUBJ-20260901-0a0a0a01", "--into", "MC-SUBJ-20260901-0a0a0a02"],
}


def _latin1(path: Path):
    path.write_bytes(b"# Decisions\n\nCaf\xe9 au lait\n")
    return "MA-FILE-ENCODING", (3, 4), "byte 0xe9"


def _binary(path: Path):
    path.write_bytes(bytes(range(256)) * 4)
    return "MA-FILE-ENCODING", (2, 118), "byte 0x80"


def _oversized(path: Path):
    with open(path, "wb") as fh:
        fh.truncate(SIZE_CAP + 1)  # sparse: refused by its size, never read
    return "MA-FILE-UNREADABLE", (1, 1), f"over the {SIZE_CAP}-byte limit"


def _symlink(path: Path):
    target = path.parent.parent.parent / f"outside-{path.name}"
    path.rename(target)
    os.symlink(os.path.relpath(target, path.parent), path)
    return "MA-FILE-SYMLINK", (1, 1), "must not be a symlink"


def _directory(path: Path):
    path.unlink()
    path.mkdir()
    return "MA-FILE-NOT-REGULAR", (1, 1), "not a regular file"


def _fifo(path: Path):
    path.unlink()
    os.mkfifo(path)  # opening it for reading would block: it must be refused unopened
    return "MA-FILE-NOT-REGULAR", (1, 1), "not a regular file"


def _device(path: Path):
    path.unlink()
    try:
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))  # a character device, as /dev/null
    except PermissionError:
        pytest.skip("creating a device node needs root")
    return "MA-FILE-NOT-REGULAR", (1, 1), "not a regular file"


KINDS = {"latin1": _latin1, "binary": _binary, "oversized": _oversized, "symlink": _symlink,
         "directory": _directory, "fifo": _fifo, "device": _device}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A private copy of examples/acme-shop and a private cache."""
    root = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def _run(capsys, command, root, fmt):
    status = cli.main([*COMMANDS[command], "--project-root", str(root), "--format", fmt])
    out, err = capsys.readouterr()
    return status, out, err


def _assert_refused(status, out, err, fmt, command, expected):
    """``expected``: [(path, code, (line, col), cause)] in report order."""
    assert status == 2, (out, err)
    lines = [line for line in err.splitlines() if not line.startswith("Project root:")]
    assert len(lines) == len(expected), err
    for line, (path, code, (row, col), cause) in zip(lines, expected):
        assert line.startswith(f"Error: {path}:{row}:{col}: {code} ") and cause in line, line
    if fmt == "text":
        assert out == ""  # no answer, not even a partial one
        return
    doc = json.loads(out)
    name = command.split("-")[0]
    assert (doc["ok"], doc["status"], doc["schema"]["name"]) == (False, "INVALID", f"{name}.error")
    got = [(d["path"], d["code"], (d["line"], d["col"])) for d in doc["diagnostics"]]
    assert got == [(path, code, where) for path, code, where, _ in expected]


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unusable_file_stops_every_command(project, capsys, command, kind, fmt):
    code, where, cause = KINDS[kind](project / DECISIONS)
    status, out, err = _run(capsys, command, project, fmt)
    _assert_refused(status, out, err, fmt, command, [(DECISIONS, code, where, cause)])


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_permission_error_stops_every_command(project, capsys, refuse_open, command, fmt):
    refuse_open(project / DECISIONS)
    status, out, err = _run(capsys, command, project, fmt)
    _assert_refused(status, out, err, fmt, command,
                    [(DECISIONS, "MA-FILE-UNREADABLE", (1, 1), "cannot open: Permission denied")])


def test_a_larger_cap_lets_the_file_through(project, capsys):
    biggest = max(p.stat().st_size for p in (project / "docs/memory").rglob("*.md"))
    decisions = project / DECISIONS
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\nPadding.\n" * (biggest // 10 + 1), encoding="utf-8")
    size = decisions.stat().st_size  # now the largest file, alone over size - 1
    for command in ("check", "list", "subject-list"):
        status = cli.main([*COMMANDS[command], "--project-root", str(project), "--max-file-bytes", str(size - 1)])
        assert status == 2 and f"over the {size - 1}-byte limit" in capsys.readouterr().err
        status = cli.main([*COMMANDS[command], "--project-root", str(project), "--max-file-bytes", str(size)])
        assert status in (0, 1) and "MA-FILE" not in capsys.readouterr().err


BREAKERS = {"latin1": _latin1, "oversized": _oversized, "symlink": _symlink, "directory": _directory}


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_any_set_of_broken_files_is_named_in_order_by_every_command(tmp_path_factory, capsys, monkeypatch, data):
    root = tmp_path_factory.mktemp("acme") / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root.parent / "cache"))
    managed = sorted(str(p.relative_to(root)) for p in (root / "docs/memory").rglob("*.md")
                     if p.name.casefold() != "readme.md")
    chosen = data.draw(st.lists(st.sampled_from(managed), min_size=1, max_size=3, unique=True))
    expected = []
    for path in chosen:
        code, where, cause = BREAKERS[data.draw(st.sampled_from(sorted(BREAKERS)))](root / path)
        expected.append((path, code, where, cause))
    expected.sort(key=lambda e: (e[0], e[2]))
    for command in data.draw(st.permutations(["check", "list", "read", "subject-list"])):
        status, out, err = _run(capsys, command, root, "text")
        _assert_refused(status, out, err, "text", command, expected)
