"""What crosses between `fleet check`'s processes: a repository's facts and kept project in
files of the fleet's private directory (only their names through the pool's pipes), its
Arrow tables as record batches without schemas, and a pool whose watching thread does not
spin while a result waits to be read (docs/fleet.md, docs/performance.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import os
import pickle
import shutil
from pathlib import Path

from analyzer.commands import fleet_check
from analyzer.engine.sql import duck
from analyzer.query.check import check_program

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def test_packed_tables_read_back_equal_with_several_batches_and_no_columns():
    import pyarrow as pa

    from analyzer.engine import ast

    decls = {**check_program(True).program.decls, "flag": ast.Decl("flag", ())}  # a relation of no columns
    facts = {"entry_facet": {("MC-DEC-1", "x"), ("MC-DEC-2", "y")}, "memory_file": {("decisions.md",)}}
    tables = duck.arrow_tables(decls, 7, {**facts, "flag": {()}})
    # a table of two chunks travels as two batches
    tables["entry_facet"] = pa.concat_tables([tables["entry_facet"].slice(0, 1), tables["entry_facet"].slice(1)])
    data, spans = duck.packed_tables(tables)
    assert len(spans["entry_facet"]) == 2
    back = duck.unpacked_tables(decls, data.to_pybytes(), spans)
    assert set(back) == set(tables) and all(back[rel].equals(tables[rel]) for rel in tables)
    assert sorted(back["entry_facet"].to_pylist(), key=str) == sorted(tables["entry_facet"].to_pylist(), key=str)


def test_a_worker_sends_names_through_the_pipe_and_the_readers_remove_the_files(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    parcels = tmp_path / "parcels"
    parcels.mkdir()
    item = fleet_check.extract((3, str(repo), False, (), str(parcels), True))
    assert item.result is None
    assert sorted(os.listdir(parcels)) == ["3.arrow", "3.kept"]
    # what the pool pickles: names and spans, not the facts (about 1 MB for 1,000 entries)
    assert len(pickle.dumps(item)) < 4096 < os.path.getsize(parcels / "3.arrow")
    carried = fleet_check.extract((3, str(repo), False, (), None, True))  # no directory: the bytes travel
    assert len(pickle.dumps(carried)) > os.path.getsize(parcels / "3.arrow")

    decls = check_program(True).program.decls
    tables = pickle.loads(pickle.dumps(item)).tables(decls)
    assert os.listdir(parcels) == ["3.kept"]  # mapped and removed
    assert {rel: t.to_pylist() for rel, t in tables.items()} == \
        {rel: t.to_pylist() for rel, t in carried.tables(decls).items()}
    assert all(set(t.column("repo").to_pylist()) == {3} for t in tables.values())
    kept = pickle.loads(pickle.dumps(item.kept)).take()
    assert os.listdir(parcels) == []
    assert pickle.loads(kept)[1].root == pickle.loads(carried.kept.take())[1].root


def test_the_pool_does_not_spin_while_a_large_result_waits(monkeypatch):
    import multiprocessing.pool

    wakeups = []
    real = multiprocessing.pool.Pool._wait_for_updates

    def counted(*args, **kwargs):
        wakeups.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(multiprocessing.pool.Pool, "_wait_for_updates", staticmethod(counted))
    with fleet_check.worker_pool(2) as pool:
        sizes = list(pool.imap(_large, range(20), chunksize=1))
    assert sizes == [8 << 20] * 20
    # the standard pool's watching thread woke while each result was read: thousands here
    assert len(wakeups) < 20, len(wakeups)


def _large(_number: int) -> int:
    return len(bytes(8 << 20))


def test_the_outcomes_the_cli_asks_for_are_those_of_the_results(tmp_path):
    notebook = EXAMPLE.parents[1] / "tests" / "golden" / "fixtures" / "notebook"
    paths = []
    for i, source in enumerate((EXAMPLE, notebook, EXAMPLE)):
        shutil.copytree(source, tmp_path / f"repo{i}")
        paths.append(str(tmp_path / f"repo{i}"))
    shutil.rmtree(tmp_path / "repo2" / "docs" / "memory")  # a check that stops early
    full = fleet_check.fleet_results(paths, use_cache=False, jobs=2, formats=("json",))
    outcomes = fleet_check.fleet_results(paths, use_cache=False, jobs=2, formats=("json",), results=False)
    assert outcomes == [(path, fleet_check.Outcome.of(result), texts) for path, result, texts in full]
    assert all(isinstance(outcome, fleet_check.Outcome) for _, outcome, _ in outcomes)
    assert outcomes[2][1].failure and outcomes[0][1].findings and not outcomes[0][1].failure
