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


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """Twelve repositories and their documents from one evaluation of the whole fleet (one
    group, one process), made once for the module: each test runs the first few grouped and
    compares with their documents here (a repository's results are its own, so the first n of
    twelve are those of a fleet of n; the five whole runs per module were about a fifth of its CPU)."""
    paths = _fleet(tmp_path_factory.mktemp("fleet"), 12)
    return paths, _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=1))


def _groups(monkeypatch) -> list:
    """The repositories of each group evaluated from now on (filled as they are)."""
    groups = []
    real = duck.DuckRun.evaluate

    def evaluate(run, *args, **kwargs):
        groups.append(list(run.numbers))
        return real(run, *args, **kwargs)

    monkeypatch.setattr(duck.DuckRun, "evaluate", evaluate)
    return groups


@pytest.mark.parametrize("jobs, group, window, expected", [
    (1, 2, 50, [[0, 1], [2, 4], [5, 6]]),
    (2, 2, 50, [[0, 1], [2, 4], [5, 6]]),
    # one group for the whole fleet (Spark's), its results built a window at a time
    (2, None, 2, [[0, 1, 2, 4, 5, 6]]),
])
def test_groups_give_the_results_of_one_evaluation(fleet, monkeypatch, jobs, group, window, expected):
    paths, whole = fleet[0][:7], fleet[1][:7]
    groups = _groups(monkeypatch)
    monkeypatch.setattr(duck.DuckRun, "GROUP", group)
    monkeypatch.setattr(fleet_check, "WINDOW", window)
    assert _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=jobs)) == whole
    # repo3 stops before evaluating: it is in no group
    assert groups == expected
    assert len({doc["result"].get("status", "error") for doc in whole}) > 1



def test_groups_grow_with_the_repositories_evaluated(fleet, monkeypatch):
    """Each group takes as many repositories as were evaluated before it, between GROUP and
    GROUP_MAX: a large fleet pays the program's fixed cost fewer times, and the results are
    still those of one evaluation."""
    paths, whole = fleet
    groups = _groups(monkeypatch)
    monkeypatch.setattr(duck.DuckRun, "GROUP", 2)
    monkeypatch.setattr(duck.DuckRun, "GROUP_MAX", 3)
    assert _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=2)) == whole
    assert [len(g) for g in groups] == [2, 2, 3, 3, 1]  # 11 evaluated (repo3 stops early)


def test_group_size():
    assert [duck.DuckRun.group_size(n) for n in (0, 49, 50, 120, 200, 950)] == [50, 50, 50, 120, 200, 200]
    assert duck.DuckRun.GROUP_MAX >= duck.DuckRun.GROUP


def test_a_group_ends_at_its_tuple_budget(fleet, monkeypatch):
    """A group ends with the repository that brings it to GROUP_ROWS tuples, however many
    repositories GROUP allows: larger repositories make smaller groups (the tables held at
    once stay about one budget), and the results are still those of one evaluation."""
    paths, whole = fleet[0][:4], fleet[1][:4]
    groups = _groups(monkeypatch)
    monkeypatch.setattr(duck.DuckRun, "GROUP", 50)
    monkeypatch.setattr(duck.DuckRun, "GROUP_ROWS", 1)  # every repository's facts reach it
    assert _documents(fleet_check.fleet_check(paths, use_cache=False, jobs=2)) == whole
    assert groups and {len(g) for g in groups} == {1}


def test_a_group_takes_nothing_beyond_its_last_repository():
    class Table:
        def __init__(self, rows):
            self.num_rows = rows

    taken = []

    def stream():
        for n, rows in enumerate([3, 3, 5, 1, 1, 1]):
            taken.append(n)
            yield n, {"r": Table(rows), "s": Table(1)}

    items = stream()
    assert [n for n, _ in fleet_check._group(items, 10, 8)] == [0, 1]  # 4 + 4 tuples reach 8
    assert taken == [0, 1]
    assert [n for n, _ in fleet_check._group(items, 2, 100)] == [2, 3]  # the count ends it
    assert [n for n, _ in fleet_check._group(items, 10, 100)] == [4, 5]  # the stream ends it
