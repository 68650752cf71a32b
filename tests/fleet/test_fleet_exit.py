"""`fleet check`'s exit status and its JSON document's status are one rule over the
repositories' exit statuses (analyzer/commands/fleet.py ``worst_exit``): 2 beats 1 beats 0,
and any other code counts as 2 (fail closed), as docs/fleet.md says."""

from __future__ import annotations

import argparse

import pytest

from analyzer.commands import fleet
from analyzer.contract.check_model import CheckResult

# repositories' exit statuses -> the fleet's exit and its document's status
TABLE = [
    ((), 0, "CLEAN"),
    ((0, 0), 0, "CLEAN"),
    ((0, 1, 0), 1, "FINDINGS"),
    ((1, 2, 0), 2, "FAILED"),
    ((2, 1), 2, "FAILED"),
    ((3,), 2, "FAILED"),  # the tool's own failure: never a pass
    ((1, 3), 2, "FAILED"),
    ((1, -1), 2, "FAILED"),  # a code no check gives counts as 2, not below the 1 beside it
    ((0, 7), 2, "FAILED"),
]


@pytest.mark.parametrize("codes, exit_code, status", TABLE)
def test_the_worst_exit_and_the_status_of_a_fleet(codes, exit_code, status):
    results = [(f"r{n}", CheckResult([], "OK", code)) for n, code in enumerate(codes)]
    assert fleet.worst_exit(codes) == exit_code
    assert fleet._status(results) == status


@pytest.mark.parametrize("codes, exit_code, status", TABLE)
def test_fleet_check_returns_that_exit(codes, exit_code, status, monkeypatch, capsys):
    """The command's own return goes through the same rule (its text lines aside)."""
    from analyzer.commands import fleet_check

    checked = [(f"r{n}", fleet_check.Outcome("OK", code, 0), {}) for n, code in enumerate(codes)]
    monkeypatch.setattr(fleet_check, "fleet_results", lambda *a, **k: checked)
    args = argparse.Namespace(format="text", sarif_dir=None, engine="duckdb", no_cache=True, jobs=1,
                              memory_limit=None, spark_master="local[*]")
    assert fleet._check(args, [p for p, _, _ in checked]) == exit_code
