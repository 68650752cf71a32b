"""Failures a fuzzer found (issue 14), each kept as a test: never an internal error, exit
statuses from docs/cli.md's table, and diagnostics that stay readable at scale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer.commands.cli import main
from analyzer.project.loader import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
MEMORY = "docs/memory"


def _copy(tmp_path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


def _edit(root: Path, module: str, old: str, new: str) -> None:
    path = root / MEMORY / module
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err
    return code, out, err


@pytest.mark.parametrize("path", ["api/ord\x00ers.py", "\x00", "api/\x00/x.py"])
def test_nul_in_an_evidence_path_is_an_invalid_path(tmp_path, capsys, path):
    root = _copy(tmp_path)
    _edit(root, "decisions.md", "- repo:api/orders.py", f"- repo:{path}")
    project = load_project(root, use_cache=False)
    assert not [fact for fact in project.facts.relation("source_path") if "\x00" in fact[0]]
    issues = [d for d in project.diagnostics if d.code == "MC-CONFLICT-007" and "MC-DEC-20260910-1b2c3d4e" in d.message]
    assert issues and "unsafe source path" in issues[0].message
    code, _, _ = _run(capsys, "facts", "--project-root", str(root), "--no-cache")
    assert code == 0
    code, _, _ = _run(capsys, "read", "--project-root", str(root), "--no-local", "--no-cache", "--format", "json")
    assert code in (0, 1, 2)
    code, out, _ = _run(capsys, "check", "--freshness", "--project-root", str(root), "--no-cache")
    assert code in (1, 2)
    assert "MC-FRESH-001 ERROR: MC-DEC-20260910-1b2c3d4e Evidence has an unsafe or invalid source path." in out


@pytest.mark.parametrize("version", ["0." + "7" * 5000, "0.\u00b2", "\u0660.7", "0.\u0667", "0x7", "+0.7", "0.7\u200b", "1" * 5000])
def test_odd_protocol_versions_are_contract_errors(tmp_path, capsys, version):
    root = _copy(tmp_path)
    _edit(root, "manifest.md", "- protocol_version: 0.7", f"- protocol_version: {version}")
    project = load_project(root, use_cache=False)
    errors = [m for (_, m) in project.facts.relation("manifest_error")]
    assert errors and ("not a numeric version" in errors[0] or "newer than" in errors[0]), errors
    code, _, err = _run(capsys, "read", "--project-root", str(root), "--no-local", "--no-cache")
    assert code == 2


def _scale_case(tmp_path, case: str) -> Path:
    """A project of bench/scale_bench.py (the same inputs the bench times)."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "bench" / "scale_bench.py"
    spec = importlib.util.spec_from_file_location("bench_scale", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.build(tmp_path, case)


def test_many_duplicated_entries_each_keep_their_issue(tmp_path, capsys):
    root = _scale_case(tmp_path, "dup-600")
    project = load_project(root, use_cache=False)
    mine = [d for d in project.diagnostics if d.span.path == f"{MEMORY}/constraints.md"]
    lines = {d.span.line for d in mine}
    assert len(lines) >= 600  # one diagnostic (at least) per copy, each at its own line
    for d in mine:
        if d.source_line is not None:
            text = (root / MEMORY / "constraints.md").read_text(encoding="utf-8").splitlines()
            assert d.source_line == text[d.span.line - 1]
            break


def test_facts_text_caps_diagnostics_and_counts_the_rest(tmp_path, capsys):
    root = _scale_case(tmp_path, "dup-120")
    total = len(load_project(root, use_cache=False).diagnostics)
    assert total > 60
    code, out, err = _run(capsys, "facts", "--project-root", str(root), "--no-cache")
    assert code == 0
    lines = err.splitlines()
    shown = [line for line in lines if line.startswith(MEMORY)]
    assert len(shown) == 50
    summary = [line for line in lines if not line.startswith(MEMORY)]
    assert summary[0] == f"... and {total - 50} more diagnostics:"
    counted = 0
    for line in summary[1:]:
        count, code_name, where = line.split()[0], line.split()[1], line.split()[-1]
        assert code_name.startswith(("MC-", "MA-")) and where.startswith(MEMORY)
        counted += int(count)
    assert counted == total - 50
    # JSON keeps every one
    import json

    code, out, _ = _run(capsys, "facts", "--project-root", str(root), "--no-cache", "--format", "json")
    assert len(json.loads(out)["diagnostics"]) == total


def test_many_subject_headings(tmp_path):
    root = _scale_case(tmp_path, "subjects-2000")
    project = load_project(root, use_cache=False)
    assert len(project.facts.relation("subject_unit")) >= 2000
    assert len([d for d in project.diagnostics if d.span.path == f"{MEMORY}/subjects.md"]) >= 2000
