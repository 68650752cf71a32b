"""The forked prefetch helper never changes what a project loads to: same facts, spans and
diagnostics with the helper, without it, and when the helper fails."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from analyzer.project import extraction
from analyzer.project.loader import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def _snapshot(project):
    return (project.facts.relations(), project.facts.spans(), [d.render() for d in project.diagnostics])


@pytest.fixture
def forced_helper(force_helpers):
    """Fork the helper even for the small example, and record that it did."""
    started = []
    force_helpers(lambda jobs, schema, helper: started.append(helper is not None))
    return started


def test_helper_gives_the_same_project(forced_helper):
    baseline = _snapshot(load_project(EXAMPLE, use_cache=False))
    with_helper = _snapshot(load_project(EXAMPLE))
    assert forced_helper == [(os.cpu_count() or 1) >= 2]  # the helper needs a second core
    assert with_helper == baseline
    assert _snapshot(load_project(EXAMPLE)) == baseline  # warm, from what the helper stored


def test_failing_helper_is_harmless(forced_helper, monkeypatch):
    baseline = _snapshot(load_project(EXAMPLE, use_cache=False))

    def broken(self, job, schema):
        raise RuntimeError("helper crashed")

    monkeypatch.setattr(extraction._Stored, "__call__", broken)
    assert _snapshot(load_project(EXAMPLE)) == baseline


def test_the_parents_share_is_judged_in_one_evaluation(forced_helper, monkeypatch):
    # an evaluation of the judgement program has a fixed cost: the files the parent extracts
    # beside the helper are judged together, not one evaluation per file
    from analyzer.project.extract import judge

    calls = []
    real, stored = judge.judge_all, extraction._Stored.__call__

    def late(self, job, schema):  # the helper starts late: the parent claims most files
        time.sleep(1)
        stored(self, job, schema)

    monkeypatch.setattr(extraction._Stored, "__call__", late)
    monkeypatch.setattr(judge, "judge_all", lambda sinks: (calls.append(len(sinks)), real(sinks))[1])
    load_project(EXAMPLE)
    if not forced_helper[0]:
        pytest.skip("the helper needs a second core")
    assert sum(calls) > 2 and len(calls) <= 2, calls
