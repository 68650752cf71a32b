"""The prefetch helper is never left behind and never forked for nothing: a load that fails
between the fork and the end of extraction (a library caller's internal error) reaps it, and
no helper is forked when the facts cache cannot be written (it only stores there)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from analyzer.project import extraction, loader as project
from analyzer.project.extract import prefetch
from analyzer.project.loader import load_project

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.fixture
def helpers(force_helpers, tmp_path):
    """Every helper forked, and a copy of the example to load."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the helper needs fork and a second core")
    forked = []
    force_helpers(lambda jobs, schema, helper: forked.append(helper) if helper is not None else None)
    root = tmp_path / "acme-shop"
    shutil.copytree(SOURCE, root)
    return forked, root


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # no child of ours by that id: waited for already
    return False


@pytest.mark.parametrize("where", ["manifest", "merge"])
def test_an_internal_error_reaps_the_helper(helpers, monkeypatch, where):
    forked, root = helpers

    def broken(*_args, **_kwargs):
        raise RuntimeError("an internal error")

    monkeypatch.setattr(project if where == "manifest" else extraction, "_manifest" if where == "manifest" else "_sink",
                        broken)
    with pytest.raises(RuntimeError):
        load_project(root)
    assert forked, "no helper was forked"
    assert all(_reaped(helper.pid) for helper in forked)


def test_a_helper_is_reaped_once(helpers):
    forked, root = helpers
    load_project(root)
    assert forked and all(_reaped(helper.pid) for helper in forked)
    for helper in forked:  # waiting or abandoning again is harmless
        helper.wait()
        helper.abandon()


def test_no_helper_without_a_usable_facts_cache(helpers, monkeypatch, tmp_path):
    forked, root = helpers
    baseline = load_project(root, use_cache=False)
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    from analyzer.core import cache

    cache._forget()
    loaded = load_project(root)
    assert forked == []
    assert loaded.facts.relations() == baseline.facts.relations()
    cache._forget()


def test_abandon_stops_a_helper_waiting_for_its_schema(monkeypatch):
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch, "_threaded", lambda: False)
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        pytest.skip("the helper needs fork and a second core")
    jobs = [prefetch.Job(f"m{i}.md", "x" * 10) for i in range(50)]
    helper = prefetch.start(jobs, lambda job, schema: None)  # every job needs the schema: it waits
    assert helper is not None
    helper.abandon()
    assert _reaped(helper.pid)
