"""Soufflé-style diagnostic folders: cases/<name>/program.dl + expected_diagnostics.txt.

The expected file holds every rendered diagnostic (with source line and caret), sorted, or
is empty for a clean program. Regenerate with ``UPDATE_GOLDEN=1`` and review the diff.
"""

import os
from pathlib import Path

import pytest

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine import check_program, parse_program

CASES = Path(__file__).parent / "cases"


def rendered(folder: Path, monkeypatch) -> str:
    monkeypatch.chdir(folder)  # paths in the output are relative to the case folder
    try:
        program = parse_program(Path("program.dl").read_text(encoding="utf-8"), "program.dl")
    except DiagnosticError as exc:
        diags = exc.diagnostics
    else:
        diags = check_program(program)
    return "".join(d.render() + "\n" for d in diags)


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_case(case, monkeypatch):
    folder = CASES / case
    actual = rendered(folder, monkeypatch)
    expected = folder / "expected_diagnostics.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(actual, encoding="utf-8")
    assert expected.is_file(), f"missing {expected}; run with UPDATE_GOLDEN=1"
    assert actual == expected.read_text(encoding="utf-8")
