"""docs/performance.md opens with a table generated from bench/results/current.toml
(analyzer/dev/perf_table.py): every row names a notebook heading, and the table cannot drift
from the data (tests/contract/test_generated_docs.py compares the committed file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.dev import perf_table

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "# Performance\n\nThe lab notebook.\n\n## Parsing\n\ntext\n"
FIGURE = {"figure": "load", "value": "1 s", "command": "python bench/x.py", "date": "2026-12-05", "section": "Parsing"}


def test_the_committed_notebook_opens_with_the_table_of_the_data_file():
    text = (REPO / perf_table.DOC).read_text(encoding="utf-8")
    figures = perf_table.load(REPO / perf_table.DATA)
    assert figures, "bench/results/current.toml holds no figure"
    assert text.split("\n")[2] == perf_table.BEGIN  # the title, a blank line, then the table
    assert perf_table.fill(text, figures) == text
    for entry in figures:
        assert f"| {entry['date']} |" in text and entry["section"] in text


def test_a_changed_figure_changes_the_table_and_nothing_else():
    first = perf_table.fill(NOTEBOOK, [FIGURE])
    assert first.startswith("# Performance\n\n" + perf_table.BEGIN) and first.endswith(NOTEBOOK.split("\n", 1)[1])
    assert perf_table.fill(first, [FIGURE]) == first  # idempotent
    second = perf_table.fill(first, [dict(FIGURE, value="2 s")])
    assert "| 2 s |" in second and "| 1 s |" not in second
    assert second.replace("| 2 s |", "| 1 s |") == first


def test_a_row_must_point_at_a_heading_of_the_notebook():
    with pytest.raises(perf_table.FigureError, match="no heading 'Elsewhere'"):
        perf_table.fill(NOTEBOOK, [dict(FIGURE, section="Elsewhere")])


@pytest.mark.parametrize("bad, message", [({"command": ""}, "missing or empty command"),
                                          ({"date": "5 Dec"}, "is not YYYY-MM-DD")])
def test_a_figure_without_its_command_or_date_is_refused(tmp_path, bad, message):
    entry = dict(FIGURE, **bad)
    data = tmp_path / "current.toml"
    data.write_text("[[figure]]\n" + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in entry.items()))
    with pytest.raises(perf_table.FigureError, match=message):
        perf_table.load(data)
