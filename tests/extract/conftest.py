"""Keep every extraction test's cache inside pytest's temporary directory."""

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-state"))


@pytest.fixture
def force_helpers(monkeypatch, tmp_path):
    """Make ``load_project`` fork its prefetch helper even for a small project, with a cache
    of the test's own. Returns ``install(record)``: after each start, ``record(jobs, schema,
    helper)`` is called (``helper`` None when no helper was forked)."""
    import os

    from analyzer.project.extract import prefetch

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch, "_threaded", lambda: False)
    real_start = prefetch.start

    def install(record):
        def start(jobs, work, side_task=None, schema=None, flush=None):
            helper = real_start(jobs, work, side_task, schema, flush)
            record(jobs, schema, helper)
            return helper

        monkeypatch.setattr(prefetch, "start", start)

    return install
