"""The size cap from the project configuration (`max-file-bytes`), for every command that
reads a project: the file sets it, the flag wins, a bad value or key is exit 2 with file:line."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import inprocess

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
COMMANDS = [
    ["read", "--task", "implementation"],
    ["check"],
    ["report"],
    ["list"],
    ["facts"],
]


def _run(argv, cwd):
    env = dict(os.environ, PYTHONHASHSEED="0")
    return inprocess.run([*argv], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_the_configured_cap_refuses_larger_files(project, argv):
    (project / ".memory-analyzer.toml").write_text("max-file-bytes = 100\n", encoding="utf-8")
    proc = _run([*argv, "--project-root", str(project)], project)
    # facts is a dump: it lists the refusals as diagnostics and exits 0, as with the flag
    assert proc.returncode == (0 if argv[0] == "facts" else 2)
    assert "over the 100-byte limit" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_the_flag_wins_over_the_configuration(project, argv):
    (project / ".memory-analyzer.toml").write_text("max-file-bytes = 100\n", encoding="utf-8")
    proc = _run([*argv, "--project-root", str(project), "--max-file-bytes", "1000000"], project)
    assert "over the" not in proc.stderr


def test_pyproject_table_sets_it_and_discovery_finds_it(project):
    (project / "pyproject.toml").write_text('[tool.memory-analyzer]\n"max-file-bytes" = 100\n', encoding="utf-8")
    proc = _run(["list"], project / "docs")  # root found from a subdirectory
    assert proc.returncode == 2 and "over the 100-byte limit" in proc.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("text,code", [("max-file-bytes = 0\n", "MA-CONFIG-VALUE"),
                                        ("max-file-bytes = \"big\"\n", "MA-CONFIG-VALUE"),
                                        ("\n\nmax-file-byte = 5\n", "MA-CONFIG-UNKNOWN-KEY")],
                         ids=["zero", "string", "typo"])
def test_a_bad_value_is_exit_2_with_its_line(project, argv, text, code):
    (project / ".memory-analyzer.toml").write_text(text, encoding="utf-8")
    proc = _run([*argv, "--project-root", str(project)], project)
    line = text.count("\n")  # the key is on the file's last line
    assert proc.returncode == 2 and proc.stdout == ""
    assert f".memory-analyzer.toml:{line}:1: {code}" in proc.stderr and "Traceback" not in proc.stderr
