"""A `check --all` the result cache cannot answer lists the repository and reads the agents'
instruction files once (analyzer/query/check_request.py ``open_request``): the facts gathered
for the cache key are the ones the agents family evaluates. Same result, same key."""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from analyzer.query import agent_facts, check_families
from analyzer.query.check_request import ORDER, CheckRequest, open_request, result_cache_key, run_check

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "AGENTS.md").write_text("# Agents\n\nRead docs/memory/manifest.md first.\n", encoding="utf-8")
    (root / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    return root


def test_a_missed_check_all_gathers_the_agent_facts_once(project, monkeypatch):
    calls = Counter()
    listed, extract = agent_facts.list_files, agent_facts.extract
    monkeypatch.setattr(agent_facts, "list_files", lambda *a: calls.update(["list"]) or listed(*a))
    monkeypatch.setattr(check_families, "list_files", lambda *a: calls.update(["list"]) or listed(*a))
    monkeypatch.setattr(agent_facts, "extract", lambda *a: calls.update(["read"]) or extract(*a))
    result = run_check(CheckRequest(list(ORDER), project))
    assert calls == {"list": 1, "read": 1}
    agents = next(f for f in result.families if f.name == "agents")
    assert "CLAUDE.md" in str(agents.relations)  # the family evaluated the files read for the key
    # the same result as a check that keeps no cache (the family gathers on its own there too)
    assert run_check(CheckRequest(list(ORDER), project, use_cache=False)) == result
    # the same key as the facts gathered again, and the next run is the cache's answer
    opened, early = open_request(CheckRequest(list(ORDER), project))
    assert early is None and opened.agent_facts is not None
    assert result_cache_key(opened) == result_cache_key(replace(opened, agent_facts=None))
    calls.clear()
    assert run_check(CheckRequest(list(ORDER), project)) == result
    assert calls == {"list": 1, "read": 1}  # the key's reading only: nothing evaluated again
