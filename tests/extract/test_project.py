"""load_project over scenario fixtures, the realistic example, and determinism."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from analyzer.project.loader import load_project

from shared_reference import REALWORLD, cross_check

from .helpers import own_projects, scenarios, write_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


# What our conformance corpus's cases (tests/conformance_corpus) and, as a cross-check, the
# protocol's scenarios of the same behaviour hold: entry problems as entry_issue messages, a
# broken reconciliation and registry as facts, and the projects that are CLEAR.
OWN = {"entries": {"entry-integrity-live-and-archive": ["unknown field Colour", "Evidence", "promoted entry",
                                                       "unknown field Flavour"],
                   "status-twice": ["duplicate Status"]},
       "problems": {"reconciliation-bad-heading": "rec_issue", "registry-schema-invalid": "registry_issue"}}
SCENARIOS = {"entries": {"entry_integrity_live_and_archive_invalid": ["unknown field Mystery", "Evidence",
                                                                      "promoted entry", "unknown field Unknown-Scalar"],
                         "duplicate_status_field_invalid": ["duplicate Status"]},
             "problems": {"malformed_reconciliation_heading": "rec_issue",
                          "subject_registry_schema_invalid": "registry_issue"}}
SOURCES = [pytest.param("own", id="conformance-corpus"), pytest.param("scenarios", marks=cross_check)]


def _projects(source: str, tmp_path) -> dict:
    """name -> project ({"files", ...}) of our conformance corpus or of ../shared's scenarios."""
    return {p["name"]: p for p in (own_projects(tmp_path / "own") if source == "own" else scenarios())}


def _clear(source: str, project: dict) -> bool:
    """Whether the case or scenario expects conflict status CLEAR (and needs no Git history)."""
    if source == "own":
        case = project["case"]
        return not case.get("from_corpus") and (case.get("fields", {}).get("conflict_status") == "CLEAR"
                                                or "Conflict status: CLEAR" in case.get("out", ()))
    return project["expect"].get("conflict_status") == "CLEAR" and not project.get("git_steps")


@pytest.mark.parametrize("source", SOURCES)
def test_entry_problems_are_entry_issue_messages(source, tmp_path):
    projects = _projects(source, tmp_path)
    wanted = (OWN if source == "own" else SCENARIOS)["entries"]
    for name, needles in wanted.items():
        project = load_project(write_project(tmp_path / name, projects[name]["files"]), use_cache=False)
        messages = [f[2] for f in project.facts.relation("entry_issue")]
        for needle in needles:
            assert any(needle in m for m in messages), (name, needle, messages)


@pytest.mark.parametrize("source", SOURCES)
def test_registry_and_record_problems_are_facts(source, tmp_path):
    projects = _projects(source, tmp_path)
    for name, rel in (OWN if source == "own" else SCENARIOS)["problems"].items():
        project = load_project(write_project(tmp_path / name, projects[name]["files"]), use_cache=False)
        assert project.facts.relation(rel), name


@pytest.mark.parametrize("source", SOURCES)
def test_clear_projects_have_no_entry_issues(source, tmp_path):
    clear = [p for p in _projects(source, tmp_path).values() if _clear(source, p)]
    assert len(clear) >= 5
    for project in clear:
        root = write_project(tmp_path / project["name"], project["files"])
        loaded = load_project(root, use_cache=False)
        assert not loaded.facts.relation("entry_issue"), project["name"]
        assert not loaded.facts.relation("rec_issue"), project["name"]


@cross_check
@pytest.mark.parametrize("name", ["memorycustodian-dogfood", "nightnotes-video-demo"])
def test_real_projects_read_cleanly(name):
    root = REALWORLD / name
    if not root.is_dir():
        pytest.skip(f"../shared/realworld/{name} is not available")
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
