"""The SQL back end agrees with the native engine: every derived relation of
rules/check/check.dl per repository, and every repository's ``check --all`` document, over a
fleet of every corpus project, the bundled example and the real-world trees."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import json
import subprocess
import sys


from analyzer.commands.fleet_check import fleet_check, prepare, result_document
from analyzer.query.check_families import ORDER


@pytest.fixture(scope="module")
def prepared(fleet_paths):
    """Each repository extracted once, with the facts the check evaluates."""
    return [p for p in (prepare(path, ORDER, use_cache=False) for path in fleet_paths) if p.result is None]


def test_every_derived_relation_agrees_per_repository(prepared, check_inputs):
    from analyzer.engine.sql.duck import DuckRun

    engine, only, facts = check_inputs(prepared)
    run = DuckRun(engine)
    run.load(facts)
    run.evaluate(only)
    derived = sorted(rel for rel in engine.needed(only) if any(r.head.rel == rel for r in engine.rules))
    assert len(prepared) > 100 and len(derived) > 200
    differ = []
    for index, repo_facts in enumerate(facts):
        native = engine.evaluate(repo_facts, only=only)
        sql = run.database(index)
        differ += [(prepared[index].path, rel) for rel in derived if native.relation(rel) != sql.relation(rel)]
    assert differ == []


def test_fleet_check_documents_equal_the_native_check(fleet_paths):
    from analyzer.commands.fleet_check import _as_cli
    from analyzer.query.check import CheckRequest, run_check
    from pathlib import Path

    fleet = fleet_check(fleet_paths, use_cache=False)
    assert [p for p, _ in fleet] == fleet_paths
    statuses = set()
    for path, result in fleet:
        native = _as_cli(run_check(CheckRequest(list(ORDER), Path(path), use_cache=False)))
        mine, theirs = result_document(path, result), result_document(path, native)
        assert mine == theirs, path
        statuses.add(mine["result"].get("status", "error"))
    assert len(statuses) > 2  # the corpus reaches several outcomes: the comparison is not of empty checks


def test_fleet_json_holds_what_check_all_prints_in_each_repository(fleet_paths, tmp_path):
    """End to end: the CLI's `fleet check --format json` against `check --all --format json`
    run in a few repositories (a clean one, one with findings, the example)."""
    chosen = [p for p in fleet_paths if p.endswith(("MC-CONFLICT-001-fires", "MC-CONFLICT-001-quiet", "acme-shop"))]
    assert len(chosen) == 3
    listing = tmp_path / "fleet.txt"
    listing.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "analyzer", "fleet", "check", str(listing), "--format", "json",
                          "--no-cache"], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    documents = json.loads(out.stdout)["repositories"]
    assert [d["path"] for d in documents] == chosen
    for doc in documents:
        native = subprocess.run([sys.executable, "-m", "analyzer", "check", "--all", "--format", "json", "--no-cache"],
                                cwd=doc["path"], capture_output=True, text=True)
        assert doc["result"] == json.loads(native.stdout), doc["path"]
