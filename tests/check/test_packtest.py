"""`analyze test DIR`: the example pack's cases pass; a wrong expectation fails with a diff
(exit 1); bad input (nothing to run, a bad pack, an unusable fixture) exits 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "packs" / "acme-audit"


@pytest.fixture()
def suite(tmp_path) -> Path:
    """A copy of the example pack and its cases that tests may change."""
    root = tmp_path / "suite"
    shutil.copytree(EXAMPLE, root)
    return root


def test_the_example_cases_pass(analyze):
    proc = analyze("test", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["PASS: inbox-candidate", "PASS: invalid-evidence", "PASS: sourced-constraint",
                                        "PASS: unsourced-constraint", "4 cases: 4 passed, 0 failed"]


def test_a_wrong_expectation_fails_with_a_diff(analyze, suite):
    expected = suite / "inbox-candidate" / "expected.txt"
    expected.write_text("ACME-002 WARNING: MC-INBOX-20270110-0e0e0e01 (scope project) is still a candidate\n",
                        encoding="utf-8")
    (suite / "sourced-constraint" / "expected.txt").write_text("", encoding="utf-8")  # still passes
    proc = analyze("test", str(suite))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == "FAIL: inbox-candidate"
    assert "  -ACME-002 WARNING: MC-INBOX-20270110-0e0e0e01 (scope project) is still a candidate" in lines
    assert "  +ACME-002 INFO: MC-INBOX-20270110-0e0e0e01 (scope project) is still a candidate" in lines
    assert "PASS: sourced-constraint" in lines
    assert lines[-1] == "4 cases: 3 passed, 1 failed"
    data = json.loads(analyze("test", str(suite), "--format", "json").stdout)
    assert data["status"] == "FAIL" and data["exit_code"] == 1
    failed = [c for c in data["cases"] if c["result"] == "fail"]
    assert [c["name"] for c in failed] == ["inbox-candidate"] and failed[0]["diff"]


def test_a_missing_finding_and_an_extra_one_both_fail(analyze, suite):
    (suite / "unsourced-constraint" / "expected.txt").write_text("# nothing expected\n", encoding="utf-8")
    (suite / "sourced-constraint" / "expected.txt").write_text("ACME-001 WARNING: x\n", encoding="utf-8")
    proc = analyze("test", str(suite), "--run", "sourced")
    assert proc.returncode == 1
    assert [l for l in proc.stdout.splitlines() if l[:5] in ("PASS:", "FAIL:")] == [
        "FAIL: sourced-constraint", "FAIL: unsourced-constraint"]


def test_run_selects_cases(analyze):
    proc = analyze("test", str(EXAMPLE), "--run", "^inbox")
    assert proc.returncode == 0 and proc.stdout.splitlines() == ["PASS: inbox-candidate", "1 case: 1 passed, 0 failed"]


def test_bad_input_exits_2(analyze, suite, tmp_path):
    proc = analyze("test", str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and "MA-TEST-EMPTY" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "p.dl").write_text("", encoding="utf-8")
    proc = analyze("test", str(empty), "--format", "json")
    assert proc.returncode == 2 and json.loads(proc.stdout)["diagnostics"][0]["code"] == "MA-TEST-EMPTY"
    # a bad pack: its diagnostic with file:line:col
    pack = suite / "acme-audit.dl"
    pack.write_text(pack.read_text(encoding="utf-8").replace("entry_display(I, E).", "entry_displa(I, E).", 1),
                    encoding="utf-8")
    proc = analyze("test", str(suite))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"{pack}:") and " DL915 " in proc.stderr


def test_a_fixture_that_cannot_be_checked_exits_2(analyze, suite):
    shutil.rmtree(suite / "inbox-candidate" / "docs")
    proc = analyze("test", str(suite))
    assert proc.returncode == 2 and "MA-TEST-CASE" in proc.stderr and "inbox-candidate" in proc.stderr
    assert "Traceback" not in proc.stderr
