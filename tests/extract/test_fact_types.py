"""Every extracted fact is exactly as facts/schema.dl declares it: the declared arity, ``str``
for a symbol column and ``int`` for a number column (no ``bool``, no ``None``, no subclass).

Commands hand the fact base's own sets to the engine without type-checking them again
(analyzer/query/program.py ``extracted``): these tests are what that rests on. They cover
whole projects (the example, the firing corpus, the conformance corpus and a generated project;
the spec's scenarios and the real-world trees of ../shared as cross-checks) and fuzzed text
through each extractor."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, strategies as st

from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.manifest import extract_manifest
from analyzer.project.extract.records import extract_records
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.subjects import extract_subjects
from analyzer.project.loader import load_project
from analyzer.project.schema import declared_relations

from shared_reference import REALWORLD, cross_check

from .helpers import generated_project, own_projects, scenarios, write_project
from .test_fuzz import ENTRY, RECORDS, SETTINGS, SUBJECTS, manifest_seed, mutated

REPO = Path(__file__).resolve().parents[2]
PYTYPE = {"symbol": str, "number": int}


def conform(relation: str, values) -> None:
    """Fail unless ``relation(values)`` is exactly as declared."""
    decls = declared_relations()
    assert relation in decls, relation
    types = [PYTYPE[t] for _, t in decls[relation].columns]
    assert type(values) is tuple and len(values) == len(types), (relation, values)
    for value, py in zip(values, types):
        assert type(value) is py, (relation, values)


def conform_project(root: Path) -> int:
    project = load_project(root, use_cache=False)
    count = 0
    for rel, facts in project.facts.relation_sets().items():
        assert type(facts) is set, rel
        for values in facts:
            conform(rel, values)
            count += 1
    return count


def test_example_and_corpus_projects():
    roots = [REPO / "examples" / "acme-shop"]
    roots += sorted(p for p in (REPO / "tests" / "corpus").glob("*/*") if (p / "docs").is_dir())
    assert len(roots) > 50
    assert sum(conform_project(root) for root in roots) > 1000


def test_conformance_corpus_projects(tmp_path):
    assert sum(conform_project(p["root"]) for p in own_projects(tmp_path)) > 1000


@cross_check
def test_scenario_projects(tmp_path):
    for sc in scenarios():
        conform_project(write_project(tmp_path / sc["name"], sc["files"]))


@cross_check
def test_realworld_projects():
    for root in sorted(p for p in REALWORLD.iterdir() if (p / "docs").is_dir()):
        assert conform_project(root) > 0


def test_generated_project(tmp_path):
    assert conform_project(generated_project(tmp_path / "p", 300)) > 3000


def conform_sink(text: str, run) -> None:
    sink = Sink("docs/memory/x.md")
    run(text, sink)
    for relation, values, _line, _col in sink.facts:
        conform(relation, values)


@SETTINGS
@given(st.one_of(mutated(ENTRY), mutated(SUBJECTS), mutated(RECORDS), mutated(manifest_seed()), st.text(max_size=300)))
def test_fuzzed_text_through_every_extractor(text):
    conform_sink(text, extract_manifest)
    conform_sink(text, lambda t, s: extract_entries(t, "decisions.md", 2, s))
    conform_sink(text, lambda t, s: extract_entries(t, "areas/web.md", 1, s))
    conform_sink(text, lambda t, s: extract_subjects(t, "subjects.md", s))
    conform_sink(text, lambda t, s: extract_records(t, "reconciliations.md", s))
