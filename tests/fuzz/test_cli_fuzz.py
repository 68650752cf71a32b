"""A CI-sized run of the mutation fuzzer (bench/fuzz.py): two mutated projects through every
command, within docs/cli.md's exit table, without internal errors, without touching the tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_mutated_projects_stay_within_the_contract(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "bench" / "fuzz.py"), "--cases", "2", "--seed", "14",
                           "--out", str(tmp_path), "--memory-mb", "2048", "--shrink-runs", "5"],
                          capture_output=True, text=True, timeout=900)
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["cases"] == 2 and summary["runs"] == 18  # 9 commands per case
    assert summary["distinct_failures"] == [], done.stderr
    assert done.returncode == 0


def test_the_fuzzer_reports_a_failure(tmp_path):
    """The classifier is not blind: an internal error, exit 3, a crash, a changed tree count."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_fuzz", REPO / "bench" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    classify = module.classify

    assert classify(3, "analyze: internal error: ValueError: embedded null byte\n", 1, 10, False)[0] == "internal-error"
    assert classify(3, "boom\n", 1, 10, False) == ("exit-3", "boom")
    assert classify(-9, "", 61, 10, False)[0] == "killed"
    assert classify(0, "", 1, 10, True) == ("tree-changed", "")
    assert classify(2, "", 11, 10, False) == ("slow", "over 10 s")
    assert classify(2, "analyze read: error: unknown task\n", 1, 10, False) is None
