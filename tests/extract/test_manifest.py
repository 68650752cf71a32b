"""manifest.md extraction: contract errors, routes, optional index (spec §4)."""

from __future__ import annotations

import pytest

from analyzer.project.extract.manifest import extract_manifest
from analyzer.project.extract.sink import Sink

from shared_reference import cross_check

from .helpers import default_manifest, own_projects, relation, scenarios, template

REQUEST_ONLY = ("invalid_explicit_name",)
MIGRATION_MESSAGE = ("Project uses Protocol 0.7 entry schema 1; migration to entry schema 2 is available. "
                     "Run `memory-custodian migrate --apply` after reviewing the preview.")  # INVALID because of --rule/--profile/--area input


def run(text):
    sink = Sink("docs/memory/manifest.md")
    info = extract_manifest(text, sink)
    return sink, info


def errors(sink):
    return [v[1] for v in relation(sink, "manifest_error")]


def assert_default_routes(text: str) -> None:
    """A fresh memory's manifest is valid and routes in order, the archive explicit only."""
    sink, info = run(text)
    assert errors(sink) == []
    assert info.entry_schema == 2 and info.exact_07_valid
    routes = relation(sink, "route")
    assert ("always", "brief.md", "required", 1) in routes
    assert ("implementation", "preferences.md", "optional", 3) in routes
    assert ("maintenance", "changelog.md", "optional", 3) in routes
    assert all(r[1] != "archive/" for r in routes)
    assert relation(sink, "protocol_version") == [("0.7",)]


def test_default_manifest_is_valid_and_routes_in_order():
    assert_default_routes(default_manifest())


def test_placeholder_project_id_is_rejected():
    sink, _ = run(default_manifest(project_id="<a UUIDv4, written once when the memory is created>"))
    assert any("project_id" in e for e in errors(sink))


@cross_check
def test_the_protocols_default_template():
    """The protocol's own manifest template: valid once its project_id is filled in, and its
    placeholder project_id is rejected."""
    assert_default_routes(template("manifest.md").replace("<UUIDv4 generated once by memory-custodian init>",
                                                          "11111111-2222-4333-8444-555555555555"))
    sink, _ = run(template("manifest.md"))
    assert any("project_id" in e for e in errors(sink))


@cross_check
def test_scenario_manifests_agree_with_expected_validity():
    checked = 0
    for sc in scenarios():
        text = sc["files"].get("docs/memory/manifest.md")
        if text is None or sc["name"].startswith(REQUEST_ONLY):
            continue
        exp = sc["expect"]
        invalid = (exp.get("routing_completeness") == "INVALID"
                   or (sc["command"][:2] == ["check", "--routing"] and exp.get("exit_code") == 1))
        complete = exp.get("routing_completeness") == "COMPLETE"
        sink, _ = run(text)
        found = errors(sink)
        if invalid:
            assert found, sc["name"]
        if complete:
            assert not found, (sc["name"], found)
        for key in ("stdout_contains", "stderr_contains", "stdout_or_stderr_contains"):
            for needle in exp.get(key, []):
                if invalid and needle[0].islower() and not needle.startswith("- "):
                    assert any(needle in m for m in found), (sc["name"], needle, found)
        checked += 1
    assert checked > 50


def assert_lines_inside(projects) -> int:
    """Every fact of each project's manifest sits on a line of the file; how many had errors."""
    with_errors = 0
    for project in projects:
        text = project["files"].get("docs/memory/manifest.md")
        if text is None:
            continue
        sink, _ = run(text)
        n = max(len(text.splitlines()), 1)
        for rel, _, line, col in sink.facts:
            assert 1 <= line <= n and col >= 1, (project["name"], rel, line)
        with_errors += bool(errors(sink))
    return with_errors


def test_every_error_has_a_line_inside_the_file(tmp_path):
    assert assert_lines_inside(own_projects(tmp_path)) >= 10  # the corpus's broken manifests among them


@cross_check
def test_every_error_has_a_line_inside_the_file_in_the_scenarios():
    assert_lines_inside(scenarios())


def test_schema_1_reports_migration_and_selects_schema_1():
    text = default_manifest().replace("entry_schema_version: 2", "entry_schema_version: 1")
    sink, info = run(text)
    assert errors(sink) == [MIGRATION_MESSAGE]
    assert info.entry_schema == 1


OPTIONAL = """
## Optional module index

### Enabled rules
- `rules/output.md`
  - tasks: artifact, artifact
  - activation: task-or-explicit
  - description: Public output rules.

### Enabled profiles
- `profiles/git.md`
  - activation: explicit-only

### Enabled areas
- `areas/web.md`
  - activation: path-or-explicit
  - paths: `web/**`, `shared/*.ts`, `web/**`
"""


def with_index(index, version="0.7"):
    base = default_manifest()
    head, _, _ = base.partition("## Optional module index")
    tail = base[base.index("## Explicit only"):]
    return (head + index.strip() + "\n\n" + tail).replace("protocol_version: 0.7", f"protocol_version: {version}")


def test_optional_index_declarations():
    sink, _ = run(with_index(OPTIONAL))
    assert errors(sink) == []
    assert sorted(relation(sink, "module_decl")) == [
        ("areas/web.md", "areas", "path-or-explicit"),
        ("profiles/git.md", "profiles", "explicit-only"),
        ("rules/output.md", "rules", "task-or-explicit"),
    ]
    assert relation(sink, "module_task") == [("rules/output.md", "artifact")]
    assert relation(sink, "module_glob") == [("areas/web.md", "web/**", 1), ("areas/web.md", "shared/*.ts", 2)]
    assert relation(sink, "module_description") == [("rules/output.md", "Public output rules.")]


@pytest.mark.parametrize("index, needle", [
    ("### Enabled rules\n- `rules/a.md`: inline\n", "inline metadata"),
    ("### Enabled areas\n- `rules/a.md`\n  - activation: explicit-only\n", "does not match areas/"),
    ("### Enabled areas\n- `areas/README.md`\n  - activation: explicit-only\n", "README"),
    ("### Enabled areas\n- `areas/a.md`\n  - activation: path\n", "requires paths"),
    ("### Enabled areas\n- `areas/a.md`\n  - activation: path\n  - paths: web/**\n", "comma-separated Markdown code spans"),
    ("### Enabled areas\n- `areas/a.md`\n  - activation: path\n  - paths: `web/**x`\n", "invalid path glob"),
    ("### Enabled rules\n- `rules/a.md`\n  - activation: task\n  - tasks: review\n", "invalid task"),
    ("### Enabled profiles\n- `profiles/a.md`\n  - activation: task\n", "invalid activation"),
    ("### Enabled profiles\n- `profiles/a.md`\n  - activation: explicit-only\nmore text\n", "continuation lines"),
    ("### Enabled profiles\n- None enabled.\n- None enabled.\n", "contradictory"),
    ("### Enabled widgets\n", "unknown optional module subsection"),
    ("### Enabled rules\n- rules/a.md\n", "malformed optional module declaration"),
])
def test_optional_index_violations(index, needle):
    sink, _ = run(with_index("## Optional module index\n" + index))
    assert any(needle in e for e in errors(sink)), errors(sink)


def test_legacy_one_line_declaration_is_explicit_only_with_description():
    sink, info = run(with_index("## Optional module index\n### Enabled rules\n- `rules/output.md`: Use for output.\n",
                                version="0.6"))
    assert relation(sink, "module_decl") == [("rules/output.md", "rules", "explicit-only")]
    assert relation(sink, "module_description") == [("rules/output.md", "Use for output.")]
    assert info.entry_schema == 1 and not info.exact_07_valid


def test_duplicate_route_paths_across_always_and_task():
    text = default_manifest().replace("Load:\n- decisions.md\n- do-not-use.md\nLoad if present",
                                                   "Load:\n- decisions.md\n- constraints.md\nLoad if present", 1)
    sink, _ = run(text)
    assert any("implementation route has duplicate paths: constraints.md" in e for e in errors(sink))


def test_neutral_facts_conform_to_their_declarations(monkeypatch):
    # the manifest's judgement takes its facts unchecked (judge.evaluate): they are built as
    # facts/manifest_fields.dl declares them, which a checked evaluation confirms here
    from analyzer.project.extract import judge

    seen = set()

    def checked(facts):
        seen.update(rel for rel, rows in facts.items() if rows)
        return judge.entries_program().evaluate(facts, only=judge.MANIFEST_OUTPUTS)

    monkeypatch.setattr(judge, "evaluate", checked)
    texts = [sc["files"]["docs/memory/manifest.md"] for sc in scenarios() if "docs/memory/manifest.md" in sc["files"]]
    for text in texts + [with_index(OPTIONAL), with_index(OPTIONAL, "0.5")]:
        run(text)
    declared = {rel for rel in judge.entries_program().program.decls if rel.startswith("man_")}
    assert {"man_meta_line", "man_index_line", "man_key_line", "man_route_item", "man_version_order"} <= seen <= declared
