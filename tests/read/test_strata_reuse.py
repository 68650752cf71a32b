"""Materialized request-independent strata (analyzer/engine/materialize.py): a read that
reuses the relations stored by an earlier read, of another request, derives exactly the
relations a full evaluation derives, on every corpus project and the bundled example."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from analyzer.engine import materialize
from analyzer.project.loader import load_project
from analyzer.query.read import ReadRequest, request_relations, run_read

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "corpus"))
from corpus_project import build_project, cases, write_overlay  # noqa: E402

# requests that differ in every request relation: task, paths, explicit modules, flags
REQUESTS = [
    dict(task="implementation", paths=["src/app.py"]),
    dict(task="planning", areas=["web"], strict=True),
    dict(task="no-such-task", no_local=True),
    dict(task="maintenance", paths=["../outside", "web/src/cart.ts"], rules=["x"], profiles=["y"]),
]


def _relations(db, names) -> dict:
    return {rel: db.relation(rel) for rel in sorted(names)}


def _read(project, root: Path, use_cache: bool, **request):
    try:
        result, db, _ = run_read(ReadRequest(project_root=root, use_cache=use_cache, **request), project)
    except Exception as exc:  # an unknown task is raised before the full evaluation
        return type(exc).__name__, None
    return result, db


def _check(root: Path, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    hits = []
    real_read = materialize._read

    def spy(path, relations):
        got = real_read(path, relations)
        hits.append(got is not None)
        return got

    monkeypatch.setattr(materialize, "_read", spy)
    # one load per side, shared by that side's reads (as the MCP server shares one between
    # requests; a read leaves its project as it was, checked below): loading was half of the
    # time. Each side has its own, so nothing one side's reads keep on a project reaches the other.
    plain_project, reused_project = (load_project(root, use_cache=False) for _ in range(2))
    digest = plain_project.facts.digest()
    for request in REQUESTS + REQUESTS[:1]:
        plain, plain_db = _read(plain_project, root, False, **request)
        reused, reused_db = _read(reused_project, root, True, **request)
        assert reused == plain
        if plain_db is not None:
            engine = plain_db.engine
            inputs = request_relations(engine)
            derived = {rel for s in engine.strata if s.rules for rel in s.relations}
            # every relation that depends on the request, and the stored ones, are known
            assert derived & engine.dependent_on(inputs) <= reused_db.known()
            assert set(materialize.stored_relations(engine, inputs)) <= reused_db.known()
            assert _relations(reused_db, reused_db.known()) == _relations(plain_db, reused_db.known())
    assert plain_project.facts.digest() == reused_project.facts.digest() == digest
    # the first full evaluation stored the strata; every later one reused them
    assert hits and hits[0] is False and all(hits[1:]), hits


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.parent.name}/{c.name}")
def test_reuse_equals_full_evaluation_on_corpus(case, tmp_path, monkeypatch):
    root = build_project(case, tmp_path / "project")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    write_overlay(case, tmp_path / "state", root)
    _check(root, monkeypatch, tmp_path)


def test_reuse_equals_full_evaluation_on_example(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    _check(REPO / "examples" / "acme-shop", monkeypatch, tmp_path)


def test_changed_facts_are_not_reused(tmp_path, monkeypatch):
    """Another fact base (one entry edited) gets its own strata, never the stored ones."""
    import shutil

    root = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    _check(root, monkeypatch, tmp_path)
    first = load_project(root).facts.digest()
    decisions = root / "docs" / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8").replace("Status: active", "Status: superseded", 1),
                         encoding="utf-8")
    assert load_project(root).facts.digest() != first
    _check(root, monkeypatch, tmp_path)  # same cache: its first read must miss, and match


def test_request_relations_are_the_request_declarations():
    from analyzer.query.program import read_program

    engine = read_program(True)
    assert request_relations(engine) == ["path_probe", "req_explicit", "req_flag", "req_path", "req_task"]
    independent = materialize.independent_relations(engine, request_relations(engine))
    dependent = engine.dependent_on(request_relations(engine))
    # what the read's result is made of depends on the request; the project-wide analyses do not
    assert {"result_module", "exit_code", "analysis_module", "conflict_finding"} <= dependent
    assert {"identity_of", "operand_ok", "subject_resolves"} <= set(independent)
    assert not dependent & set(independent)


def test_fact_base_digest_does_not_depend_on_load_order(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = REPO / "examples" / "acme-shop"
    project = load_project(root, use_cache=False)
    modules = sorted({m for (m,) in project.facts.relation("memory_file")})
    shuffled = load_project(root, use_cache=False, order=list(reversed(modules)))
    assert shuffled.facts.digest() == project.facts.digest()
