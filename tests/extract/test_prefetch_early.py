"""The prefetch helper forked before the manifest is read (analyzer/project/extraction.py
start_early): it extracts the schema-free files first, gets the entry schema on a pipe, and
the project it helps load is the project loaded without it, early or late, whatever fails."""

from __future__ import annotations

import marshal
import os
import shutil
import time
from pathlib import Path

import pytest

from analyzer.core import cache
from analyzer.project import facts_cache
from analyzer.project import extraction
from analyzer.project.extract import prefetch
from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.sink import Sink
from analyzer.project.loader import load_project

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
# an entry whose body is a schema-2 wrapper fence: its facts depend on the entry schema
FENCED = """
## MC-DEC-20260911-0f0f0f0f — Money is formatted by one helper

Status: active
Scope: project
Subject: MC-SUBJ-20260901-0a0a0a01
Facet: behavior
Evidence:
- repo:api/orders.py

Decision:
```memory-custodian-body-v1
format_cents() is the one formatter.
```
"""


@pytest.fixture
def example(tmp_path):
    """The example project with a decision whose body is a wrapper fence (schema 2)."""
    root = tmp_path / "acme-shop"
    shutil.copytree(SOURCE, root)
    with open(root / "docs" / "memory" / "decisions.md", "a", encoding="utf-8") as handle:
        handle.write(FENCED)
    return root


def _snapshot(project):
    return (project.facts.relations(), project.facts.spans(), [d.render() for d in project.diagnostics],
            project.unit_ranges, project.titled, list(project.texts))


@pytest.fixture
def starts(force_helpers):
    """Fork helpers even for the small example; records the schema each start was given
    (None: forked before the manifest was read)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the helper needs fork and a second core")
    seen = []
    force_helpers(lambda jobs, schema, helper: seen.append(
        (schema, helper is not None, sorted(job.module for job in jobs))))
    return seen


def test_the_example_needs_its_schema(example):
    # else a helper given the wrong schema could go unnoticed below
    text = (example / "docs" / "memory" / "decisions.md").read_text(encoding="utf-8")
    sinks = []
    for schema in (1, 2):
        sink = Sink("docs/memory/decisions.md")
        extract_entries(text, "decisions.md", schema, sink)
        sinks.append(sink.to_plain())
    assert sinks[0] != sinks[1]


def test_a_cold_cache_forks_before_the_manifest(starts, example):
    baseline = _snapshot(load_project(example, use_cache=False))
    assert _snapshot(load_project(example)) == baseline
    assert [(schema, forked) for schema, forked, _ in starts] == [(None, True)]
    assert "manifest.md" not in starts[0][2]
    assert _snapshot(load_project(example)) == baseline  # warm, from what both stored
    assert len(starts) == 1  # a warm run forks nothing


def _file_entries():
    """The facts-cache entries of every file but the manifest (whose sink has an info)."""
    return [p for p in (cache.cache_root() / "facts").rglob("*.marshal")
            if Sink.from_plain(marshal.loads(facts_cache.FACTS.get(p.name.split(".")[0]))).info == ()]


def test_a_cached_manifest_forks_after_it_with_the_uncached_files_only(starts, example):
    baseline = _snapshot(load_project(example, use_cache=False))
    load_project(example)
    files = _file_entries()
    for path in files[: len(files) // 2]:
        path.unlink()
    del starts[:]
    assert _snapshot(load_project(example)) == baseline
    assert len(starts) == 1 and starts[0][0] == 2 and starts[0][1]  # forked late, knowing schema 2
    assert len(starts[0][2]) == len(files) // 2 > 0


@pytest.mark.parametrize("when", ["early", "late"])
def test_a_failing_helper_is_harmless(starts, monkeypatch, when, example):
    baseline = _snapshot(load_project(example, use_cache=False))
    if when == "late":  # only the manifest cached: the helper forks after it
        load_project(example)
        for path in _file_entries():
            path.unlink()

    def broken(self, job, schema):
        raise RuntimeError("helper crashed")

    monkeypatch.setattr(extraction._Stored, "__call__", broken)
    assert _snapshot(load_project(example)) == baseline
    assert starts and all(forked for _, forked, _ in starts)
    assert starts[-1][0] == (None if when == "early" else 2)


def test_shuffled_module_order_with_an_early_helper(starts, example):
    baseline = _snapshot(load_project(example, use_cache=False))
    modules = sorted(str(p.relative_to(example / "docs" / "memory")) for p in (example / "docs" / "memory").rglob("*.md"))
    project = load_project(example, order=list(reversed(modules)))
    assert (project.facts.relations(), project.facts.spans(), [d.render() for d in project.diagnostics]) == baseline[:3]


def _jobs():
    return [prefetch.Job(f"f{i}.md", "x" * (10 + i), "subjects" if i % 2 else "entries", bool(i % 2 == 0))
            for i in range(6)]


def _any_size(monkeypatch):
    """Fork a helper for any job list (or skip where none can be forked)."""
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        pytest.skip("the helper needs fork and a second core")
    monkeypatch.setattr(prefetch, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch, "_threaded", lambda: False)


def test_a_helper_never_sent_the_schema_exits(monkeypatch):
    _any_size(monkeypatch)
    helper = prefetch.start(_jobs(), lambda job, schema: None)
    assert helper is not None
    began = time.monotonic()
    finished = helper.finished(block=True)  # gives up on the schema: the helper stops
    helper.wait()
    assert time.monotonic() - began < 30
    # the schema-free jobs come first; nothing that needs the schema was done without it
    assert finished and all(not job.needs_schema for job in finished)


def test_the_helper_gets_the_schema_the_parent_sends(monkeypatch, tmp_path):
    _any_size(monkeypatch)
    out = tmp_path / "seen"
    out.mkdir()

    def work(job, schema):
        (out / job.module).write_text(str(schema))

    helper = prefetch.start(_jobs(), work)
    helper.send_schema(7)
    finished = {job.module for job in helper.finished(block=True)}
    helper.wait()
    assert finished == {p.name for p in out.iterdir()}
    assert finished == {job.module for job in _jobs()}  # the parent claimed nothing
    for job in _jobs():
        assert (out / job.module).read_text() == ("7" if job.needs_schema else "None")


def test_the_helper_works_on_its_files_in_batches(monkeypatch, tmp_path):
    # one batch of about BATCH_BYTES of text: its entries are judged in one evaluation
    _any_size(monkeypatch)
    out = tmp_path / "batches"
    out.mkdir()
    for limit, sizes in ((10**9, [6]), (1, [1] * 6)):
        monkeypatch.setattr(prefetch, "BATCH_BYTES", limit)

        batch = []

        def flush():
            (out / str(len(list(out.iterdir())))).write_text(str(len(batch)))
            batch.clear()

        helper = prefetch.start(_jobs(), lambda job, schema: batch.append(job), schema=7, flush=flush)
        finished = helper.finished(block=True)
        helper.wait()
        assert len(finished) == 6
        assert sorted(int(p.read_text()) for p in out.iterdir()) == sizes
        for p in out.iterdir():
            p.unlink()
