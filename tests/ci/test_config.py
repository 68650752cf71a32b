"""The project configuration: `[tool.memory-analyzer]` in pyproject.toml or `.memory-analyzer.toml`
sets option defaults, flags win, and an unusable file is an error at file:line (exit 2)."""

from __future__ import annotations

import argparse
import json

import pytest

from analyzer.project import config
from cihelp import copy_example, run_cli


def _write(root, name, text):
    (root / name).write_text(text, encoding="utf-8")


def test_no_file_means_no_settings(tmp_path):
    assert config.load(str(tmp_path)).values == {}


def test_pyproject_table_is_read_and_other_tools_are_left_alone(tmp_path):
    _write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n\n[tool.memory-analyzer]\nformat = "sarif"\n'
                                       'select = ["MC-FRESH"]\n\n[tool.other]\nfoo = 1\n')
    loaded = config.load(str(tmp_path))
    assert loaded.values == {"format": "sarif", "select": ["MC-FRESH"]}
    assert loaded.lines == {"format": 5, "select": 6}
    assert loaded.path == "pyproject.toml"


def test_a_pyproject_without_our_table_is_not_even_parsed(tmp_path):
    _write(tmp_path, "pyproject.toml", "this is [not toml\n")
    assert config.load(str(tmp_path)).values == {}


def test_own_file_wins_over_pyproject(tmp_path):
    _write(tmp_path, "pyproject.toml", '[tool.memory-analyzer]\nformat = "json"\n')
    _write(tmp_path, ".memory-analyzer.toml", '# defaults\nformat = "sarif"\n')
    loaded = config.load(str(tmp_path))
    assert loaded.values == {"format": "sarif"} and loaded.path == ".memory-analyzer.toml"


@pytest.mark.parametrize("text, code, line", [
    ('[tool.memory-analyzer]\n\nformat = "json"\nformt = "sarif"\n', "MA-CONFIG-UNKNOWN-KEY", 4),
    ('[tool.memory-analyzer]\nformat = "yaml"\n', "MA-CONFIG-VALUE", 2),
    ('[tool.memory-analyzer]\nselect = "MC-FRESH"\n', "MA-CONFIG-VALUE", 2),
    # the project never names a file to write, whatever the value's type (issue 32)
    ('[tool.memory-analyzer]\nformat = "json"\noutput = ["a.sarif"]\n', "MA-CONFIG-OUTPUT", 3),
    ('[tool.memory-analyzer]\noutput = "a.sarif"\n', "MA-CONFIG-OUTPUT", 2),
    # nested past tomllib's recursion: was RecursionError, exit 3 (issue 32)
    ('[tool.memory-analyzer]\nformat = ' + "[" * 3000 + "]" * 3000 + '\n', "MA-CONFIG-TOML", 2),
    ('[tool.memory-analyzer]\nformat = ' + "{a = " * 3000 + "1" + "}" * 3000 + '\n', "MA-CONFIG-TOML", 2),
    ('[tool.memory-analyzer]\nformat = "json\n', "MA-CONFIG-TOML", 2),
    ('[tool.memory-analyzer]\nformat = "json"\n[tool.memory-analyzer.nested]\nx = 1\n', "MA-CONFIG-UNKNOWN-KEY", 3),
])
def test_bad_files_are_errors_at_their_line(tmp_path, text, code, line):
    _write(tmp_path, "pyproject.toml", text)
    with pytest.raises(config.ConfigError) as caught:
        config.load(str(tmp_path))
    assert (caught.value.code, caught.value.line, caught.value.path) == (code, line, "pyproject.toml")
    assert str(caught.value).startswith(f"pyproject.toml:{line}:")


def test_unknown_key_suggests_the_near_one(tmp_path):
    _write(tmp_path, ".memory-analyzer.toml", 'formt = "json"\n')
    with pytest.raises(config.ConfigError, match="did you mean 'format'"):
        config.load(str(tmp_path))


def test_apply_fills_only_unset_options():
    args = argparse.Namespace(format=None, select=["x"])
    config.apply(args, "check", config.Config({"format": "sarif", "select": ["y"]}))
    assert args.format == "sarif" and args.select == ["x"]


def test_every_key_is_declared_with_a_known_kind():
    for key in config.KEYS.values():
        assert key.kind in ("str", "path", "list", "bool", "int") and key.commands and key.help


def test_check_takes_defaults_from_the_file_and_flags_win(tmp_path):
    root = copy_example(tmp_path)
    _write(root, "pyproject.toml", '[tool.memory-analyzer]\nformat = "json"\n')
    proc = run_cli(["check", "--all", "--project-root", str(root)], tmp_path)
    assert json.loads(proc.stdout)["schema"]["name"] == "check.result"
    text = run_cli(["check", "--all", "--format", "text", "--project-root", str(root)], tmp_path)
    assert text.stdout.startswith("MemoryCustodian routing check:")


def test_check_refuses_a_bad_file_with_exit_2(tmp_path):
    root = copy_example(tmp_path)
    _write(root, ".memory-analyzer.toml", 'format = "json"\nfail-fast = true\n')
    proc = run_cli(["check", "--all", "--project-root", str(root)], tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert ".memory-analyzer.toml:2:1: MA-CONFIG-UNKNOWN-KEY" in proc.stderr
    as_json = run_cli(["check", "--all", "--format", "json", "--project-root", str(root)], tmp_path)
    document = json.loads(as_json.stdout)
    assert as_json.returncode == 2 and document["schema"]["name"] == "check.error"
    assert document["diagnostics"][0]["code"] == "MA-CONFIG-UNKNOWN-KEY"
