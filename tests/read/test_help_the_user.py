"""read helps the person at the keyboard (issue 13): unknown tasks, root discovery, and file
positions of manifest errors, each in text and JSON."""

from __future__ import annotations

import json
import os

import pytest

import re

import inprocess
from analyzer.core.resources import data_file
from analyzer.project.root import find_root, resolve_root

from .conftest import REPO


def _aliases():
    """Every accepted spelling, straight from rules/read/tasks.dl."""
    text = data_file("rules", "read/tasks.dl").read_text(encoding="utf-8")
    aliases = re.findall(r'^task_alias\("([^"]+)", "([^"]+)"\)\.$', text, flags=re.M)
    assert len(aliases) > 10
    return aliases


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_unknown_task_lists_the_tasks_and_suggests_one(acme, analyze, fmt):
    proc = analyze("read", "--project-root", str(acme), "--task", "implementaton", "--format", fmt)
    assert proc.returncode == 2
    message = proc.stderr.strip().splitlines()[-1]
    assert "invalid choice: 'implementaton' (did you mean 'implementation'?)" in message
    for alias, canonical in _aliases():  # every spelling of the rules, none from elsewhere
        assert alias in message and canonical in message
    assert "implementation (debugging, execution, review)" in message
    if fmt == "json":
        [diag] = json.loads(proc.stdout)["diagnostics"]
        assert diag["message"] == message[len("analyze read: error: "):]
    else:
        assert proc.stdout == ""


def test_unknown_task_without_a_close_match_has_no_suggestion(acme, analyze):
    proc = analyze("read", "--project-root", str(acme), "--task", "zzzz")
    assert "did you mean" not in proc.stderr and "accepted tasks" in proc.stderr


def _run_in(cwd, *args):
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(REPO)
    return inprocess.run([*args], cwd=cwd, capture_output=True, text=True,
                         env=env, timeout=300)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_root_is_found_from_a_subdirectory(acme, fmt):
    sub = acme / "web" / "src"
    sub.mkdir(parents=True, exist_ok=True)
    # paths as git reads them (issue 25): from web/src, cart.ts is web/src/cart.ts
    found = _run_in(sub, "read", "--task", "implementation", "--path", "cart.ts", "--no-local",
                    "--names-only", "--format", fmt)
    given = _run_in(acme, "read", "--project-root", str(acme), "--task", "implementation", "--path",
                    "web/src/cart.ts", "--no-local", "--names-only", "--format", fmt)
    assert found.returncode == given.returncode, found.stderr  # 2: the example has deliberate conflicts
    if fmt == "text":
        assert found.stdout == given.stdout and "- areas/web.md" in found.stdout
    else:
        a, b = json.loads(found.stdout), json.loads(given.stdout)
        assert a["project_root"] == {"path": str(acme), "how": "found"}
        assert b["project_root"] == {"path": str(acme), "how": "given"}
        assert a["modules"] == b["modules"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_invalid_result_says_which_root_it_read(tmp_path, fmt):
    proc = _run_in(tmp_path, "read", "--no-local", "--format", fmt)
    assert proc.returncode == 2
    assert (f"Project root: {tmp_path} (the current directory; neither it nor a parent holds "
            "docs/memory/manifest.md)") in proc.stderr.splitlines()
    if fmt == "json":
        assert json.loads(proc.stdout)["project_root"] == {"path": str(tmp_path), "how": "cwd"}


def test_explicit_root_is_never_second_guessed(acme):
    # a directory inside the project, given explicitly, is read as the root (and is INVALID)
    proc = _run_in(acme, "read", "--project-root", "web", "--no-local", "--format", "json")
    doc = json.loads(proc.stdout)
    assert doc["routing_completeness"] == "INVALID"
    assert doc["project_root"] == {"path": str(acme / "web"), "how": "given"}
    assert "(given by --project-root)" in proc.stderr


def test_find_root_follows_the_memory_dir(tmp_path):
    (tmp_path / "docs/notes").mkdir(parents=True)
    (tmp_path / "docs/notes/manifest.md").write_text("# M\n", encoding="utf-8")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_root(str(deep), "docs/notes") == str(tmp_path)
    assert find_root(str(deep)) is None
    assert resolve_root(None, "docs/notes", cwd=str(deep)).how == "found"
    assert resolve_root("x", "docs/notes", cwd=str(deep)).path == "x"


def _drop_always_load(acme):
    manifest = acme / "docs/memory/manifest.md"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("## Always load"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    manifest.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")
    text = "".join(lines[:start] + lines[end:])
    return text.splitlines().index("## Load by task") + 1  # where the section was expected


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_manifest_error_names_file_line_and_column(acme, analyze, fmt):
    line = _drop_always_load(acme)
    proc = analyze("read", "--project-root", str(acme), "--no-local", "--format", fmt)
    assert proc.returncode == 2
    message = "expected exactly one 'Always load' section, found 0"
    assert proc.stderr.splitlines()[:2] == [f"Error: Routing input or manifest is invalid: {message}",
                                            f"docs/memory/manifest.md:{line}:1: {message}"]
    if fmt == "json":
        assert json.loads(proc.stdout)["error_location"] == {"path": "docs/memory/manifest.md", "line": line,
                                                              "col": 1}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_missing_manifest_points_at_where_it_should_be(acme, analyze, fmt):
    (acme / "docs/memory/manifest.md").unlink()
    proc = analyze("read", "--project-root", str(acme), "--no-local", "--format", fmt)
    assert "docs/memory/manifest.md:1:1: manifest.md is missing." in proc.stderr.splitlines()
    if fmt == "json":
        assert json.loads(proc.stdout)["error_location"]["path"] == "docs/memory/manifest.md"


def test_request_errors_have_no_file_position(acme, analyze):
    proc = analyze("read", "--project-root", str(acme), "--path", "../x", "--no-local", "--format", "json")
    assert json.loads(proc.stdout)["error_location"] is None
    assert len(proc.stderr.splitlines()) == 2  # the Error line and the project root


def test_memory_dir_help_says_what_it_is_relative_to(analyze):
    for command in ("read", "why", "facts"):
        help_text = " ".join(analyze(command, "--help").stdout.split())
        assert "relative to the project root" in help_text and "docs/" in help_text
        assert "--max-file-bytes" in help_text
