"""The long-run harness (bench/fuzz_grammars.py) reports a failure with the input as found and,
rerun with shrinking, a minimal one; it counts every input it ran."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .targets import InternalError

BENCH = Path(__file__).resolve().parents[2] / "bench" / "fuzz_grammars.py"


def _harness():
    spec = importlib.util.spec_from_file_location("fuzz_grammars", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_inputs_are_counted_and_pass():
    problem, ran, text = _harness().fuzz("local_manifest", 30, seed=3)
    assert (problem, ran, text) == ("", 30, "")


def test_a_failure_is_reported_with_its_input_and_shrunk(monkeypatch):
    harness = _harness()

    def fails_on_profiles(grammar, text):
        if "## Profiles\n- " in text:
            raise InternalError("planted")

    monkeypatch.setattr(harness, "run", fails_on_profiles)
    problem, ran, found = harness.fuzz("local_manifest", 500, seed=3)
    assert problem == "InternalError: planted" and 1 <= ran < 500
    assert "## Profiles\n- " in found
    problem, _, minimal = harness.fuzz("local_manifest", 500, seed=3, shrink=True)
    assert problem == "InternalError: planted"
    assert "## Profiles\n- " in minimal and len(minimal) <= len(found)


def test_each_grammar_strategy_is_built_once_per_process():
    # a strategy built per run was kept by Hypothesis: a long run's worker grew ~5 MiB a run
    harness = _harness()
    assert harness.strategy("entries") is harness.strategy("entries")
