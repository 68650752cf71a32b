"""`fleet check` evaluates its repositories a group at a time, each group while the workers
extract the next: the results are those of one evaluation over the whole fleet."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import shutil
from pathlib import Path

from analyzer.commands import fleet_check
from analyzer.engine.sql import duck

REPO = Path(__file__).resolve().parents[2]
SOURCES = (REPO / "examples" / "acme-shop", REPO / "tests" / "golden" / "fixtures" / "notebook")


def _fleet(tmp_path: Path, count: int):
    paths = []
    for i in range(count):
        shutil.copytree(SOURCES[i % 2], tmp_path / f"repo{i}")
        paths.append(str(tmp_path / f"repo{i}"))
    shutil.rmtree(tmp_path / "repo3" / "docs" / "memory")  # a check that stops early: no memory dir
    return paths


def _documents(results):
    return [fleet_check.result_document(path, result) for path, result in results]


@pytest.mark.parametrize("jobs, group, window, expected", [
    (1, 2, 50, [[0, 1], [2, 4], [5, 6]]),
    (2, 2, 50, [[0, 1], [2, 4], [5, 6]]),
    # one group for the whole fleet (Spark's), its results built a window at a time
    (2, None, 2, [[0, 1, 2, 4, 5, 6]]),
])
def test_groups_give_the_results_of_one_evaluation(tmp_path, monkeypatch, jobs, group, window, expected):
    paths = _fleet(tmp_path, 7)
    whole = _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=jobs))
    groups = []
    real = duck.DuckRun.evaluate

    def evaluate(run, *args, **kwargs):
        groups.append(list(run.numbers))
        return real(run, *args, **kwargs)

    monkeypatch.setattr(duck.DuckRun, "GROUP", group)
    monkeypatch.setattr(fleet_check, "WINDOW", window)
    monkeypatch.setattr(duck.DuckRun, "evaluate", evaluate)
    assert _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=jobs)) == whole
    # repo3 stops before evaluating: it is in no group
    assert groups == expected
    assert len({doc["result"].get("status", "error") for doc in whole}) > 1
