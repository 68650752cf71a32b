"""`analyze fleet`: the missing-extra and bad-source refusals, the report, query, SARIF per
repository, the JSON document's bytes and the Parquet export (read back with pyarrow)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import contextlib
import io
import json
from pathlib import Path


from analyzer.commands.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "examples" / "acme-shop")
NOTEBOOK = str(REPO / "tests" / "golden" / "fixtures" / "notebook")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_a_missing_extra_names_the_extra_and_exits_2(monkeypatch):
    import importlib.util

    from analyzer.commands import fleet

    real = importlib.util.find_spec
    monkeypatch.setattr(fleet.importlib.util, "find_spec", lambda name: None if name == "duckdb" else real(name))
    code, out, err = run("fleet", "check", EXAMPLE)
    assert code == 2 and out == ""
    assert "MA-FLEET-EXTRA" in err and "[fleet]" in err and "duckdb" in err


def test_numpy_is_part_of_the_fleet_extra(monkeypatch):
    """DuckDB refuses our SQL builtins (Python functions) without numpy: an install of duckdb
    and pyarrow alone was an internal error (exit 3), not the extra's refusal."""
    import importlib.util

    from analyzer.commands import fleet

    real = importlib.util.find_spec
    monkeypatch.setattr(fleet.importlib.util, "find_spec", lambda name: None if name == "numpy" else real(name))
    code, out, err = run("fleet", "check", EXAMPLE)
    assert code == 2 and out == ""
    assert "MA-FLEET-EXTRA" in err and "[fleet]" in err and "numpy" in err


def test_a_listing_naming_no_directory_is_refused_at_its_line(tmp_path):
    listing = tmp_path / "fleet.txt"
    listing.write_text(f"# two repositories\n{EXAMPLE}\nnowhere\n", encoding="utf-8")
    code, out, err = run("fleet", "check", str(listing))
    assert code == 2 and out == ""
    assert f"MA-FLEET-INPUT: {listing}:3:1: not a directory: nowhere" in err


def test_a_repository_whose_check_stops_says_why_in_text(tmp_path):
    """A repository with a memory file that cannot be used is INVALID (exit 2), and the text
    line names the file, position and code, as `analyze check` there does (it said only
    "INVALID (exit 2, 0 findings)")."""
    import shutil

    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    (root / "docs/memory/decisions.md").write_bytes(b"# Decisions\n\nCaf\xe9\n")
    code, out, _ = run("fleet", "check", str(root), NOTEBOOK, "--no-cache")
    assert code == 2, out
    assert out.splitlines()[:2] == [
        f"{root}: INVALID (exit 2, 0 findings)",
        "  Error: docs/memory/decisions.md:3:4: MA-FILE-ENCODING file is not valid UTF-8 (byte 0xe9); not read"]


@pytest.mark.parametrize("argv", [["query", "--goal", "live_entry(I, M)"], ["query", "--sql", "SELECT * FROM repos"],
                                  ["export", "--out", "OUT"]])
def test_query_and_export_refuse_a_repository_they_cannot_read(tmp_path, argv):
    """A repository with a memory file that cannot be used was left out of the answers (exit
    0), as if it held no memory; now each is named with its error and nothing is answered."""
    import shutil

    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    (root / "docs/memory/decisions.md").write_bytes(b"# Decisions\n\nCaf\xe9\n")
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    code, out, err = run("fleet", argv[0], NOTEBOOK, str(root), *argv[1:], "--no-cache")
    assert (code, out) == (2, ""), err
    assert err == (f"analyze fleet: error: {root}: Error: docs/memory/decisions.md:3:4: MA-FILE-ENCODING "
                   "file is not valid UTF-8 (byte 0xe9); not read\n")


def test_report_query_and_sarif_per_repository(tmp_path):
    code, out, _ = run("fleet", "report", EXAMPLE, NOTEBOOK, "--no-cache")
    assert code == 0 and out.startswith("# Fleet report\n\n2 repositories:")
    assert f"| {EXAMPLE} | INVALID | 1 |" in out and "## Most common findings" in out
    code, out, _ = run("fleet", "query", EXAMPLE, NOTEBOOK, "--goal", 'check_conflict_status(S, _)', "--format", "json")
    assert code == 0 and json.loads(out)["rows"] == [[EXAMPLE, "INVALID", 1], [NOTEBOOK, "CLEAR", 0]]
    code, out, _ = run("fleet", "query", EXAMPLE, NOTEBOOK, "--sql",
                       "SELECT path, count(*) AS n FROM entry JOIN repos USING (repo) GROUP BY path ORDER BY path")
    assert code == 0 and out.splitlines()[0] == "path\tn" and len(out.splitlines()) == 3
    code, _, _ = run("fleet", "check", EXAMPLE, NOTEBOOK, "--sarif-dir", str(tmp_path / "sarif"))
    assert code == 1
    logs = sorted(p.name for p in (tmp_path / "sarif").iterdir())
    assert logs == ["0001-acme-shop.sarif", "0002-notebook.sarif"]
    sarif = json.loads((tmp_path / "sarif" / logs[0]).read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]


def test_query_shows_ids_as_written_and_matches_them_caselessly():
    """Fleet query answered `mc-area-...` (the facts' casefolded keys) where `analyze query`
    shows `MC-AREA-...` as the files write it, and a goal ID in the written case matched nothing."""
    code, out, _ = run("fleet", "query", EXAMPLE, "--goal", 'entry(I, "rules/copy.md", _, _, _)', "--format", "json")
    assert code == 0 and json.loads(out)["rows"] == [[EXAMPLE, "MC-AREA-20260907-93a4b5c6", "rules/copy.md",
                                                      "AREA", "active", "project"]]
    code, out, _ = run("fleet", "query", EXAMPLE, "--goal", 'entry("MC-AREA-20260907-93A4B5C6", M, _, _, _)',
                       "--format", "json")
    assert code == 0 and [r[2] for r in json.loads(out)["rows"]] == ["rules/copy.md"]
    code, out, _ = run("fleet", "query", EXAMPLE, NOTEBOOK, "--sql",
                       "SELECT id FROM entry WHERE module = 'rules/copy.md'", "--format", "json")
    assert code == 0 and json.loads(out)["rows"] == [["MC-AREA-20260907-93a4b5c6"]]


def test_the_json_document_places_each_rendered_result_as_encoding_it_would():
    # the repositories' texts are rendered in the workers and placed into the document as
    # text: the bytes must be those of encoding the whole parsed document (indent 2, ASCII)
    code, out, _ = run("fleet", "check", EXAMPLE, NOTEBOOK, "--format", "json", "--no-cache", "--jobs", "2")
    assert code == 1
    document = json.loads(out)
    assert out == json.dumps(document, indent=2, ensure_ascii=True) + "\n"
    assert [r["path"] for r in document["repositories"]] == [EXAMPLE, NOTEBOOK]
    assert [r["result"]["schema"]["name"] for r in document["repositories"]] == ["check.result"] * 2


def test_parquet_export_has_a_repo_column_and_the_declared_types(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    code, out, _ = run("fleet", "export", EXAMPLE, NOTEBOOK, "--out", str(tmp_path), "--derived", "--format", "json")
    assert code == 0
    files = json.loads(out)["files"]
    entry = pq.read_table(tmp_path / "entry.parquet")
    assert entry.schema.names[0] == "repo" and entry.schema.field("repo").type == pa.string()
    assert set(entry.column("repo").to_pylist()) == {EXAMPLE, NOTEBOOK}
    diagnostic = pq.read_table(tmp_path / "diagnostic.parquet")
    assert diagnostic.schema.field("line").type == pa.int64()
    status = pq.read_table(tmp_path / "check_conflict_status.parquet").to_pylist()  # a derived relation
    assert {(r["repo"], r[status and list(r)[1]]) for r in status} == {(EXAMPLE, "INVALID"), (NOTEBOOK, "CLEAR")}
    assert str(tmp_path / "check_conflict_status.parquet") in files


def test_spark_without_its_extra_names_spark_and_exits_2(monkeypatch):
    import importlib.util

    from analyzer.commands import fleet

    real = importlib.util.find_spec
    monkeypatch.setattr(fleet.importlib.util, "find_spec", lambda name: None if name == "pyspark" else real(name))
    code, out, err = run("fleet", "check", EXAMPLE, "--engine", "spark")
    assert code == 2 and out == ""
    assert "MA-FLEET-EXTRA" in err and "[spark]" in err and "pyspark" in err
