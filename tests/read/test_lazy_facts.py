"""A read asks the fact base only for the relations some rule of the read program reads
(analyzer/query/read.py ``request_facts``): the fact base builds no set for the others
(analyzer/project/factbase.py merges bulk-added files lazily), and the answer and every derived
relation are those of a read given every relation."""

from __future__ import annotations

from pathlib import Path

from analyzer.engine.evaluate import Engine
from analyzer.project.loader import load_project
from analyzer.query.read import ReadRequest, run_read

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
REQUEST = dict(task="implementation", paths=["api/orders.py"])


def test_a_read_builds_no_set_of_relations_no_rule_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = load_project(EXAMPLE, use_cache=False)
    result, db, _ = run_read(ReadRequest(project_root=EXAMPLE, use_cache=False, **REQUEST), project)
    engine = db.engine
    read_by_rules = engine.needed(rel for s in engine.strata if s.rules for rel in s.relations)
    built = set(project.facts._facts)
    assert "entry_title" not in read_by_rules and "entry_title" not in built
    assert built <= read_by_rules | {"source_path", "diagnostic", "memory_dir"}
    # the relations left out are still there for whoever asks
    assert project.facts.relation("entry_title")

    # the same read over every relation of the fact base derives the same relations
    everything = load_project(EXAMPLE, use_cache=False)
    everything.facts.relation_sets()  # every set built
    asked = []
    real = Engine.evaluate

    def spy(self, facts, **options):
        asked.append(set(facts))
        return real(self, facts, **options)

    monkeypatch.setattr(Engine, "evaluate", spy)
    full, full_db, _ = run_read(ReadRequest(project_root=EXAMPLE, use_cache=False, **REQUEST), everything)
    assert full == result
    derived = {rel for s in engine.strata if s.rules for rel in s.relations}
    assert {rel: full_db.relation(rel) for rel in derived} == {rel: db.relation(rel) for rel in derived}
    assert all("entry_title" not in names for names in asked)
