"""`analyze facts`, the schema contract, and the generated docs/facts.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.commands.cli import main
from analyzer.engine.factsio import escape_symbol, unescape_symbol
from analyzer.project.loader import load_project
from analyzer.project.schema import declared_relations, parse_schema

from .helpers import own_projects

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
ROUTING = {"memory_dir", "memory_dir_missing", "memory_file", "manifest_state", "manifest_error", "protocol_key",
           "protocol_version", "route", "module_decl", "module_task", "module_glob", "module_description", "unit",
           "title_tokens", "file_tokens", "markdown_error", "entry", "entry_subject", "entry_facet",
           "entry_evidence", "entry_relation", "entry_field", "entry_issue", "subject", "subject_alias",
           "subject_merged_into", "registry_issue", "rec", "rec_entry", "rec_issue"}


def test_every_emitted_relation_is_declared_with_its_arity(tmp_path):
    decls = declared_relations()
    assert ROUTING <= set(decls)
    projects = [load_project(EXAMPLE, use_cache=False)]
    for own in own_projects(tmp_path):  # the conformance corpus: every kind of memory file, valid and not
        projects.append(load_project(own["root"], use_cache=False))
    for project in projects:
        for name, facts in project.facts.relations().items():
            assert name in decls, name
            types = [t for _, t in decls[name].columns]
            for fact in facts:
                assert len(fact) == len(types), (name, fact)
                for value, kind in zip(fact, types):
                    assert isinstance(value, int if kind == "number" else str), (name, fact)


def test_every_relation_and_column_is_documented():
    for rel in declared_relations().values():
        assert rel.doc, rel.name
        assert set(rel.column_docs) == {c for c, _ in rel.columns}, rel.name


def test_schema_is_a_valid_program_for_our_engine():
    check = pytest.importorskip("analyzer.engine.check")
    text = (REPO / "facts" / "schema.dl").read_text(encoding="utf-8")
    program = check.load_program(text=text, name="facts/schema.dl")
    assert check.check_program(program) == []


def test_docs_facts_md_is_current():
    gendocs = pytest.importorskip("analyzer.dev.gendocs")
    assert (REPO / "docs" / "facts.md").read_text(encoding="utf-8") == gendocs.facts_catalogue()


def test_parse_schema_rejects_bad_column():
    with pytest.raises(ValueError):
        parse_schema(".decl r(x: float)\n")


def test_facts_json(capsys):
    assert main(["facts", "--project-root", str(EXAMPLE), "--format", "json", "--no-cache"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["schema"]["name"].startswith("facts")
    rels = {r["name"]: r["tuples"] for r in doc["relations"]}
    assert ["areas/web.md", "web/**", 1] in rels["module_glob"]
    assert doc["status"] == "DIAGNOSTICS"  # the example's deliberate problems


def test_facts_souffle_files(tmp_path, capsys):
    out = tmp_path / "facts"
    assert main(["facts", "--project-root", str(EXAMPLE), "--format", "souffle", "--out", str(out)]) == 0
    route = (out / "route.facts").read_text(encoding="utf-8").splitlines()
    assert "always\tbrief.md\trequired\t1" in route
    assert set(p.stem for p in out.glob("*.facts")) == set(declared_relations())
    err = capsys.readouterr().err
    assert "docs/memory/constraints.md:" in err  # diagnostics as path:line:col: CODE message


def test_facts_table_and_bad_root(tmp_path, capsys):
    assert main(["facts", "--project-root", str(EXAMPLE), "--relation", "memory_dir"]) == 0
    assert "docs/memory" in capsys.readouterr().out
    assert main(["facts", "--project-root", str(tmp_path / "nope")]) == 2
    assert main(["facts", "--project-root", str(EXAMPLE), "--relation", "nope"]) == 2


def test_a_mistyped_relation_or_a_missing_out_is_a_command_line_error(capsys):
    """Not a place in a file named "." (it printed `.:1:1: MA-USAGE ...`); a near relation is named."""
    assert main(["facts", "--project-root", str(EXAMPLE), "--relation", "entri", "--relation", "zzzzzz"]) == 2
    assert capsys.readouterr().err == ("analyze facts: error: MA-USAGE undeclared relation(s): "
                                       "entri (did you mean 'entry'?), zzzzzz\n")
    assert main(["facts", "--project-root", str(EXAMPLE), "--format", "souffle"]) == 2
    assert capsys.readouterr().err == "analyze facts: error: MA-USAGE --format souffle needs --out DIR\n"
    assert main(["facts", "--project-root", str(EXAMPLE), "--relation", "entri", "--format", "json"]) == 2
    [diag] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (diag["path"], diag["code"]) == ("<command line>", "MA-USAGE")


def test_escape_symbol():
    assert escape_symbol("a\tb\nc\\") == "a\\tb\\nc\\\\"
    assert escape_symbol(3) == "3"
    for value in ("a\tb\nc\\", "plain", "x\\ty", "\\", "end\\"):
        assert unescape_symbol(escape_symbol(value)) == value


def test_example_has_its_documented_problems():
    project = load_project(EXAMPLE, use_cache=False)
    assert project.facts.relation("manifest_error") == []
    decls = {m for m, _, _ in project.facts.relation("module_decl")}
    files = {m for (m,) in project.facts.relation("memory_file")}
    assert len(decls) >= 10 and decls - files == {"areas/payments.md"}
    issues = project.facts.relation("entry_issue")
    assert [(i[1], i[2]) for i in issues] == [
        ("mc-con-20260903-4e5f6071", "MC-CON-20260903-4e5f6071 has invalid Evidence schema or unsafe source path")]
    owners = [e for e in project.facts.relation("entry_subject") if e[1] == "mc-subj-20260901-0a0a0a02"]
    assert len(owners) == 2
