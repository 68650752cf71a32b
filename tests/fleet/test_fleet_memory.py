"""`fleet check` streams: each repository's project is dropped once its facts are loaded, so
the Python heap does not grow with the number of repositories (issue 29: 1,000 repositories
x 1,000 entries within 4 GB; measured figures in docs/performance.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import shutil
import tracemalloc
from pathlib import Path

from analyzer.commands.fleet_check import fleet_check

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def _peak(paths) -> int:
    tracemalloc.start()
    try:
        results = fleet_check(paths, use_cache=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [p for p, _ in results] == paths and all(r.status for _, r in results)
    return peak


def test_peak_memory_does_not_grow_with_the_repositories(tmp_path, monkeypatch):
    from analyzer.engine.sql import duck

    # insert every repository's facts at once: the Arrow buffers awaiting an insert are
    # bounded by FLUSH_ROWS, not by the fleet, and would blur a small fleet's figure
    monkeypatch.setattr(duck, "FLUSH_ROWS", 1)
    paths = []
    for i in range(12):
        shutil.copytree(EXAMPLE, tmp_path / f"repo{i:02d}")
        paths.append(str(tmp_path / f"repo{i:02d}"))
    fleet_check(paths[:1], use_cache=False)  # the imports and the compiled program, outside the figures
    small, large = _peak(paths[:3]), _peak(paths)
    # holding every project until the results (before streaming) took 2.3x at 12 repositories
    assert large < 1.25 * small, (small, large)


def test_intermediate_tables_are_dropped_after_their_last_reader(check_inputs):
    from analyzer.commands.fleet_check import prepare
    from analyzer.engine.sql.duck import DuckRun
    from analyzer.query.check_families import ORDER

    engine, only, facts = check_inputs([prepare(str(EXAMPLE), ORDER, use_cache=False)])
    run = DuckRun(engine)
    run.load(facts)
    run.evaluate(only, keep=only)
    derived = {rule.head.rel for rule in engine.rules} & engine.needed(only)
    assert len(derived - set(only)) > 100
    assert not (derived - set(only)) & run.tables  # every intermediate table is gone
    native = engine.evaluate(facts[0], only=only)
    assert [rel for rel in only if native.relation(rel) != run.database(0).relation(rel)] == []
