"""`fleet check` shares the result cache of `check --all`: a repository whose files are
unchanged is neither extracted nor evaluated again, by the fleet or by `check --all` in it,
and a changed repository is checked anew."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import shutil
from pathlib import Path

from analyzer.commands.fleet_check import _as_cli, fleet_check, result_document
from analyzer.query.check_families import ORDER

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def _documents(results):
    return [result_document(path, result) for path, result in results]


def test_a_warm_fleet_reuses_the_results_check_all_reuses(tmp_path, monkeypatch):
    from analyzer.engine.sql import duck
    from analyzer.query.check import CheckRequest, run_check

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    paths = []
    for i in range(2):
        shutil.copytree(EXAMPLE, tmp_path / f"repo{i}")
        paths.append(str(tmp_path / f"repo{i}"))
    cold = _documents(fleet_check(paths))
    assert cold == _documents(fleet_check(paths, use_cache=False))

    def refuse(self, only=None):
        raise AssertionError("evaluated although every result was cached")

    monkeypatch.setattr(duck.DuckRun, "evaluate", refuse)
    assert _documents(fleet_check(paths)) == cold
    # the entries the fleet stored are the ones `check --all` reads in each repository
    import analyzer.query.check as check

    monkeypatch.setattr(check, "load_checked", lambda request: pytest.fail("check --all extracted again"))
    for path, document in zip(paths, cold):
        native = _as_cli(run_check(CheckRequest(list(ORDER), Path(path))))
        assert result_document(path, native) == document
    monkeypatch.undo()

    # a changed repository is extracted and evaluated again; the unchanged one is not
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    decisions = Path(paths[1]) / "docs" / "memory" / "decisions.md"
    decisions.unlink()
    changed = _documents(fleet_check(paths))
    assert changed[0] == cold[0] and changed[1] != cold[1]
    assert changed == _documents(fleet_check(paths, use_cache=False))
