"""`analyze diff` between commits extracts of a changed entry file only the units it asks
about, once the file's units are stored (analyzer/history/narrow_files.py). It must answer exactly as
the comparison of whole revisions: every class, place (line), commit list and blind spot,
and it must fall back to whole files wherever a file is not plain or a check fails."""

import pytest

from classes import CENTS, agreeing_history, held_twice_history
from histrepo import MEM, Repo, entry
from test_diff_narrow import whole

from analyzer.history import narrow_files
from analyzer.query.diff import run_diff
from analyzer.render.diff_text import render_diff_text


@pytest.fixture
def narrowed(monkeypatch):
    """Counts the comparisons within_files answered (not None) and those it left to whole files."""
    seen = {"narrowed": 0, "whole": 0}
    real = narrow_files.within_files

    def spy(*args):
        out = real(*args)
        seen["whole" if out is None else "narrowed"] += 1
        return out

    monkeypatch.setattr(narrow_files, "within_files", spy)
    return seen


def cached_answer(root, base, head="HEAD"):
    """The diff with the caches on, twice (the first run stores the units of the changed
    files, the second narrows them), each the same as the comparison of whole revisions."""
    full = whole(root, base, head)
    for _run in range(2):
        result = run_diff(root, MEM, base, head, use_cache=True)
        assert render_diff_text(result) == render_diff_text(full)
        assert (result.status, result.exit_code, result.changes, result.blindspots) == \
               (full.status, full.exit_code, full.changes, full.blindspots)
    return result


def test_every_commit_and_range_of_the_class_history(tmp_path, narrowed):
    repo, shas = agreeing_history(tmp_path / "p")
    steps = list(shas)
    for step in steps[1:]:
        assert cached_answer(repo.root, f"{shas[step]}~1", shas[step]).changes, step
    for first in (0, 3):  # ranges over several commits: several units per changed file
        cached_answer(repo.root, shas[steps[first]])
    assert narrowed["narrowed"] >= len(steps), narrowed


def test_ids_held_twice(tmp_path, narrowed):
    repo, shas = held_twice_history(tmp_path / "p")
    for step, sha in list(shas.items())[1:]:
        cached_answer(repo.root, f"{sha}~1", sha)
    cached_answer(repo.root, shas["init"])
    assert narrowed["narrowed"], narrowed


def test_a_predecessor_left_as_it_is_in_a_changed_file(tmp_path, narrowed):
    """The Supersedes target is in a file the commit changes elsewhere: it is left out of
    the first extraction (it does not differ) and asked about in the second."""
    repo = Repo(tmp_path / "p")
    successor = entry("MC-DEC-20261020-eeee0001", "Totals in minor units", "Totals are integers in minor units.",
                      extra=(f"Supersedes: {CENTS}",))
    repo.write("constraints.md", repo.read("constraints.md").rstrip("\n") + "\n\n" + successor)
    base = repo.commit("a successor in another file")
    repo.edit("constraints.md", "Totals are integers in minor units.", "Totals are integers in cents.")
    repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + entry(
        "MC-DEC-20261021-eeee0002", "Refunds are in cents", "Refunds are integers too.",
        extra=(f"Supersedes: {CENTS}",)))
    repo.commit("a second successor beside the predecessor, the first one reworded")
    result = cached_answer(repo.root, base)
    assert {c.ident for c in result.changes} >= {"MC-DEC-20261021-eeee0002", "MC-DEC-20261020-eeee0001"}
    assert narrowed["narrowed"] == 1


@pytest.mark.parametrize("spoil", ["markdown", "crlf", "bom"])
def test_a_file_that_is_not_plain_is_read_whole(tmp_path, narrowed, spoil):
    repo = Repo(tmp_path / "p")
    path = repo.path("decisions.md")
    data = path.read_bytes()
    if spoil == "markdown":
        data = data.rstrip(b"\n") + b"\n\n<!-- an unclosed comment\n"
    elif spoil == "crlf":
        data = data.replace(b"\n", b"\r\n")
    else:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    base = repo.commit("decisions.md is not plain")
    text = path.read_bytes().replace(b"- issue:#42", b"- issue:#42\n- issue:#47", 1)
    path.write_bytes(text.replace(b"\n- issue:#47", b"\r\n- issue:#47") if spoil == "crlf" else text)
    repo.edit("constraints.md", "time out after ten seconds", "time out after nine seconds")
    repo.commit("change units of decisions.md and constraints.md")
    cached_answer(repo.root, base)
    assert narrowed["narrowed"] == 1  # constraints.md narrowed, decisions.md read whole


def test_a_failed_check_reads_whole_files(tmp_path, monkeypatch, narrowed):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#48\n")
    repo.commit("more evidence")
    cached_answer(repo.root, base)
    real = narrow_files.units_of
    # a narrowed text that reads otherwise than the whole file: its kept unit loses a line
    monkeypatch.setattr(narrow_files, "units_of", lambda *a: (lambda text, lines: (
        text.replace("- issue:#48\n", ""), lines))(*real(*a)))
    cached_answer(repo.root, base)
    assert narrowed == {"narrowed": 1, "whole": 3}  # the spoiled runs fell back


def test_units_of_keeps_the_lines_of_the_units_asked_about():
    text = "# T\n\n## A\na\n\n## B\nb\n\n## C\nc\n\nnot a unit\n## D\nd"
    data = text.encode()
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
    ends = [4, 7, 9, 13]  # last line (0-based) of each unit; "not a unit" is in none
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    columns = (("entry",) * 4, ("a", "b", "c", "d"), ("",) * 4, tuple(h + 1 for h in heads),
               tuple(e + 1 for e in ends), tuple(offsets[h] for h in heads),
               tuple(min(offsets[e + 1], len(data)) for e in ends))
    kept, parts = narrow_files.units_of(data, columns, {("entry", "b"), ("entry", "d")})
    assert kept == "# T\n\n## B\nb\n\n\nnot a unit\n## D\nd"
    assert parts == [(1, 1), (3, 6), (6, 11)]
    kept_lines = kept.split("\n")
    for first, whole_line in parts:  # each kept part's lines are the file's lines
        assert kept_lines[first - 1] == lines[whole_line - 1]
    assert narrow_files.units_of(data, columns, set())[0] == "# T\n\n\nnot a unit\n"


def test_a_file_without_a_final_line_break_and_with_non_ascii_text(tmp_path, narrowed):
    """Stored byte ranges count UTF-8 bytes (every heading has an em dash), and the last
    unit of a file may end without a line break."""
    repo = Repo(tmp_path / "p")
    last = entry("MC-DEC-20261022-eeee0003", "Prix arrondis à l’euro près", "Les prix sont arrondis — «toujours».")
    repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n" + last.rstrip("\n"))
    base = repo.commit("a last unit without a final line break")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#49\n")
    repo.write("decisions.md", repo.read("decisions.md").replace("«toujours»", "«toujours», même ici"))
    repo.commit("change the first and the last unit")
    result = cached_answer(repo.root, base)
    assert sorted(c.ident for c in result.changes) == ["MC-DEC-20260910-1b2c3d4e", "MC-DEC-20261022-eeee0003"]
    assert narrowed["narrowed"] == 1


def test_left_out_ranges_break_at_asked_units_and_between_units():
    # units at bytes 0-10, 10-20, 20-25, then lines that are no unit, then 30-40, 40-50
    columns = (("entry",) * 5, ("a", "b", "c", "d", "e"), ("",) * 5, (1, 3, 5, 8, 10), (2, 4, 6, 9, 11),
               (0, 10, 20, 30, 40), (10, 20, 25, 40, 50))
    assert narrow_files.left_out(columns, set()) == [(0, 25), (30, 50)]
    assert narrow_files.left_out(columns, {("entry", "b")}) == [(0, 10), (20, 25), (30, 50)]
    assert narrow_files.left_out(columns, {("entry", "a"), ("entry", "e"), ("x", "c")}) == [(10, 25), (30, 40)]
    assert narrow_files.left_out(columns, {("entry", i) for i in "abcde"}) == []
    assert narrow_files.left_out(((),) * 7, set()) == []
