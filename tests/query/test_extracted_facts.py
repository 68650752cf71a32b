"""Which facts a command's evaluation takes without type-checking them again
(analyzer/query/program.py ``extracted``): the fact base's own sets, declared by facts/schema.dl;
anything a caller adds or replaces, and any relation a program declares itself, is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.engine import Engine
from analyzer.engine.check import load_program
from analyzer.engine.errors import FactsError
from analyzer.project.loader import load_project
from analyzer.query.check import check_program
from analyzer.query.program import extracted

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.fixture(scope="module")
def project():
    return load_project(EXAMPLE, use_cache=False)


def test_the_fact_bases_own_sets_are_extracted(project):
    engine = check_program()
    facts = dict(project.facts.relation_sets())
    assert "entry" in extracted(engine, facts, project)
    assert set(extracted(engine, facts, project)) == set(facts)
    facts["entry"] = set(facts["entry"])  # an equal set, but not the fact base's own
    facts["subject"] = list(facts["subject"])
    facts["req_task"] = [("implementation",)]
    found = extracted(engine, facts, project)
    assert "entry" not in found and "subject" not in found and "req_task" not in found
    assert "entry_subject" in found


def test_a_replaced_relation_is_checked(project):
    engine = check_program()
    facts = dict(project.facts.relation_sets())
    facts["entry"] = [*facts["entry"], ("MC-DEC-1", "decisions.md", "DEC", 7, "project")]
    with pytest.raises(FactsError, match="column"):
        engine.evaluate(facts, only=["conflict_finding"], checked=extracted(engine, facts, project))


def test_a_program_declaring_the_relation_itself_checks_it(project):
    text = ".decl entry(a: symbol, b: symbol, c: symbol, d: number, e: symbol)\n.decl out(a: symbol)\nout(A) :- entry(A, _, _, _, _).\n"
    engine = Engine(load_program(text=text, name="pack.dl"))
    facts = dict(project.facts.relation_sets())
    facts = {"entry": facts["entry"]}
    assert extracted(engine, facts, project) == []
    with pytest.raises(FactsError):
        engine.evaluate(facts, checked=extracted(engine, facts, project))


def test_same_result_with_and_without_the_check(project):
    engine = check_program()
    facts = dict(project.facts.relation_sets())
    trusted = engine.evaluate(facts, checked=extracted(engine, facts, project))
    checked = engine.evaluate(facts)
    assert trusted.known() == checked.known()
    for rel in sorted(checked.known()):
        assert trusted.relation(rel) == checked.relation(rel), rel
    # the fact base's sets are the engine's relations, and evaluation left them unchanged
    before = {rel: set(tuples) for rel, tuples in facts.items()}
    engine.evaluate(facts, checked=extracted(engine, facts, project))
    assert {rel: set(tuples) for rel, tuples in facts.items()} == before
