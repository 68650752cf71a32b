"""Root discovery and --memory-dir in every command that reads a project (issue 13).

Without --project-root, `check`, `list`, `show`, `subject` and `shell` (like `read`) use the
nearest ancestor holding the manifest. A --memory-dir outside docs/ (``/etc``) is refused and
shown as given, never rewritten to ``etc`` (docs/decisions.md).
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from analyzer.commands import cli

REPO = Path(__file__).resolve().parents[2]

COMMANDS = {
    "check": ["check", "--routing"],
    "list": ["list"],
    "show": ["show", "MC-DEC-20260910-1b2c3d4e"],
    "subject": ["subject", "list"],
    "read": ["read", "--names-only", "--no-local"],
    "report": ["report", "--format", "json"],
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A private copy of examples/acme-shop with a nested subdirectory, and a private cache."""
    root = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    (root / "src" / "deep" / "er").mkdir(parents=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_found_from_a_subdirectory_as_given(project, capsys, monkeypatch, command):
    given = cli.main([*COMMANDS[command], "--project-root", str(project)])
    expected = capsys.readouterr().out
    monkeypatch.chdir(project / "src" / "deep" / "er")
    assert cli.main(COMMANDS[command]) == given
    assert capsys.readouterr().out == expected and expected


def test_shell_finds_the_root_from_a_subdirectory(project, capsys, monkeypatch):
    monkeypatch.chdir(project / "src" / "deep")
    monkeypatch.setattr(sys, "stdin", io.StringIO("subject(S, _, _, T)\n"))
    assert cli.main(["shell", "--no-cache"]) == 0
    assert "Payment provider" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("command", ["check", "list", "show", "subject"])
def test_memory_dir_outside_docs_is_refused_as_given(project, capsys, command, fmt):
    status = cli.main([*COMMANDS[command], "--project-root", str(project), "--memory-dir", "/etc", "--format", fmt])
    out, err = capsys.readouterr()
    assert status == 2
    assert err.splitlines() == ["Error: memory dir must be a strict subdirectory of docs/: /etc"]
    if fmt == "json":
        doc = json.loads(out)
        assert doc["status"] == "INVALID" and doc["diagnostics"][0]["path"] == "/etc"
    else:
        assert out == ""


def test_read_names_the_memory_dir_as_given(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    assert cli.main([*COMMANDS["read"], "--memory-dir", "/etc"]) == 2
    err = capsys.readouterr().err
    assert "memory directory '/etc' is missing or unusable" in err
    assert "'etc'" not in err and "no parent was searched" in err


def _subparsers(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                for inner, subsub in _subparsers(sub):
                    yield f"{name} {inner}", subsub


def test_every_command_with_a_project_root_discovers_it():
    """A command that takes --project-root declares it with analyzer.project.root.add_root_arguments:
    no default (the nearest ancestor holding the manifest is found), the shared help."""
    taking = {}
    for name, sub in _subparsers(cli.build_parser()):
        for action in sub._actions:
            if "--project-root" in action.option_strings:
                taking[name] = (sub.get_default("project_root"), action.help)
    assert {"read", "check", "list", "show", "subject list", "shell", "report", "diff"} <= set(taking)
    for name, (default, text) in sorted(taking.items()):
        assert default is None and "nearest" in text, name
