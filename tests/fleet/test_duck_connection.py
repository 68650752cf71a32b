"""The DuckDB connection a fleet evaluates on: nothing of DuckDB's own reaches the command's
output, and its in-memory tables are not checkpointed (docs/fleet.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

from analyzer.engine.sql.duck import connect


def _setting(con, name: str):
    return con.execute(f"SELECT current_setting('{name}')").fetchone()[0]


def test_no_progress_bar_on_standard_output():
    # DuckDB draws one on stdout for a statement over 2 s: in `fleet query --format json` of a
    # large fleet it was part of the document
    assert _setting(connect(threads=1), "enable_progress_bar") is False


def test_tables_are_not_checkpointed_while_loaded():
    # a checkpoint compressed the tables inside single inserts (0.2-0.4 s each, 100 repositories)
    threshold = _setting(connect(threads=1), "checkpoint_threshold")  # DuckDB's default: 16.0 MiB
    assert threshold.endswith(("GiB", "TiB")), threshold
