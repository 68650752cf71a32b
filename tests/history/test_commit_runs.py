"""The history cache keeps a closed run of commits' results as one entry and the open run's
one per commit (analyzer/history/commit_cache.py ``per_commit``): a first reading of 1,000 commits
wrote 2,000 entry files. Each commit's result is still computed once, a new commit costs
only its own, and a window that starts inside a run, a run that just closed and a damaged
run entry all give the same results."""

import os

import pytest

from analyzer.core import cache
from analyzer.history import commit_cache
from analyzer.history.commit_cache import per_commit, runs

# ids as Git gives them (40 hex digits); those starting with "0" end a run
SHAS = [f"{c}{n:039x}" for n, c in enumerate("a0bc0de0fa")]


@pytest.fixture()
def area(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_WARNED", {})  # warnings are once per process: see this test's
    cache._forget()
    yield lambda: sorted(f for _, _, files in os.walk(commit_cache.AREA.directory()) for f in files)
    cache._forget()


def _results(shas, asked, use_cache=True):
    def compute(missing):
        asked.append(list(missing))
        return {sha: {"sha": sha, "n": int(sha[1:], 16)} for sha in missing if not sha.startswith("f")}

    return per_commit("test-kind", "docs/memory", shas, compute, lambda v: isinstance(v, dict), {}, "v", use_cache)


def _expected(shas):
    return {sha: {} if sha.startswith("f") else {"sha": sha, "n": int(sha[1:], 16)} for sha in shas}


def test_runs_end_after_each_marked_commit():
    assert list(runs(SHAS)) == [(SHAS[0:2], True), (SHAS[2:5], True), (SHAS[5:8], True), (SHAS[8:], False)]
    assert list(runs(SHAS[3:])) == [(SHAS[3:5], True), (SHAS[5:8], True), (SHAS[8:], False)]
    assert list(runs([])) == []


def test_closed_runs_are_one_entry_each_and_answer_as_computed(area):
    asked = []
    assert _results(SHAS, asked) == _expected(SHAS)
    assert asked == [SHAS]
    assert len(area()) == 3 + 2  # three closed runs, two commits of the open one
    assert _results(SHAS, asked) == _expected(SHAS) and len(asked) == 1  # nothing computed again
    assert _results(SHAS[3:], asked) == _expected(SHAS[3:]) and len(asked) == 1  # a window inside a run


def test_a_new_commit_costs_its_own_result_and_a_closing_one_keeps_the_run(area):
    asked = []
    _results(SHAS, asked)
    more = SHAS + ["b" + "1" * 39]
    assert _results(more, asked) == _expected(more) and asked[-1] == [more[-1]]
    closing = more + ["0" + "2" * 39]
    assert _results(closing, asked) == _expected(closing) and asked[-1] == [closing[-1]]
    assert len(area()) == 4 + 3  # the run closed: its entry beside its commits' own (still there)
    for sha in closing[8:11]:  # without the commits' own entries the run's entry answers
        os.unlink(commit_cache.AREA.path(commit_cache._key("test-kind", "docs/memory", sha, "v")))
    assert len(area()) == 4
    assert _results(closing, asked) == _expected(closing) and len(asked) == 3


def test_a_damaged_run_entry_recomputes_its_commits_only(area, capsys):
    asked = []
    _results(SHAS, asked)
    key = commit_cache._key("test-kind", "docs/memory", commit_cache._RUN + SHAS[4], "v")
    assert commit_cache.AREA.put(key, b"not marshal")
    assert _results(SHAS, asked) == _expected(SHAS)
    assert asked[-1] == SHAS[2:5]
    assert "discarded history cache entry" in capsys.readouterr().err


def test_without_the_cache_nothing_is_read_or_written(area):
    asked = []
    _results(SHAS, asked)
    assert _results(SHAS, asked, use_cache=False) == _expected(SHAS) and asked[-1] == SHAS
    files = area()
    _results(SHAS + ["c" * 40], asked, use_cache=False)
    assert area() == files
