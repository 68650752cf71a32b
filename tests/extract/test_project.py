"""load_project over scenario fixtures, the realistic example, and determinism."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from analyzer.project.loader import load_project

from .helpers import SHARED, scenarios, write_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def test_scenario_entry_messages(tmp_path):
    wanted = {
        "entry_integrity_live_and_archive_invalid": ["unknown field Mystery", "Evidence", "promoted entry",
                                                     "unknown field Unknown-Scalar"],
        "duplicate_status_field_invalid": ["duplicate Status"],
    }
    seen = 0
    for sc in scenarios():
        if sc["name"] not in wanted:
            continue
        project = load_project(write_project(tmp_path / sc["name"], sc["files"]), use_cache=False)
        messages = [f[2] for f in project.facts.relation("entry_issue")]
        for needle in wanted[sc["name"]]:
            assert any(needle in m for m in messages), (sc["name"], needle, messages)
        seen += 1
    assert seen == len(wanted)


def test_scenario_registry_and_record_problems_are_facts(tmp_path):
    by_name = {sc["name"]: sc for sc in scenarios()}
    for name, rel in (("malformed_reconciliation_heading", "rec_issue"),
                      ("subject_registry_schema_invalid", "registry_issue")):
        project = load_project(write_project(tmp_path / name, by_name[name]["files"]), use_cache=False)
        assert project.facts.relation(rel), name


def test_clear_scenarios_have_no_entry_issues(tmp_path):
    for sc in scenarios():
        if sc["expect"].get("conflict_status") != "CLEAR" or sc.get("git_steps"):
            continue
        project = load_project(write_project(tmp_path / sc["name"], sc["files"]), use_cache=False)
        assert not project.facts.relation("entry_issue"), sc["name"]
        assert not project.facts.relation("rec_issue"), sc["name"]


@pytest.mark.parametrize("name", ["memorycustodian-dogfood", "nightnotes-video-demo"])
def test_real_projects_read_cleanly(name):
    root = SHARED / "realworld" / name
    if not root.is_dir():
        pytest.skip("realworld projects not available")
    project = load_project(root, use_cache=False)
    assert project.facts.relation("manifest_error") == []
    assert project.facts.relation("entry_issue") == []
    assert project.facts.relation("unit")
    assert [d for d in project.diagnostics if d.severity == "error"] == []


def test_unit_texts_match_unit_facts():
    project = load_project(EXAMPLE, use_cache=False)
    units = project.facts.relation("unit")
    assert units
    for module, ordinal, kind, ref, tokens in units:
        text = project.unit_text(module, ordinal)
        assert text is not None and text.strip(), (module, ordinal)
        if ref:
            assert ref in text.splitlines()[0]


def test_enumeration_order_and_repetition_do_not_matter():
    first = load_project(EXAMPLE, use_cache=False)
    modules = [f[0] for f in first.facts.relation("memory_file")]
    shuffled = modules[:]
    random.Random(7).shuffle(shuffled)
    second = load_project(EXAMPLE, use_cache=False, order=shuffled)
    third = load_project(EXAMPLE, use_cache=True)
    fourth = load_project(EXAMPLE, use_cache=True)  # served from the cache
    for other in (second, third, fourth):
        assert other.facts.relations() == first.facts.relations()
        assert other.facts.spans() == first.facts.spans()
        assert other.diagnostics == first.diagnostics


def test_cache_lives_outside_the_project(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    before = sorted(p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*"))
    load_project(EXAMPLE, use_cache=True)
    assert sorted(p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*")) == before
    assert list((cache / "memory-analyzer" / "facts").rglob("*.marshal"))
