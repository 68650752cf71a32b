"""Every scenario of the protocol reference that runs the ID index or Subject commands
(`list`, `show`, `subject …`), as a main command or as a variant of another scenario
(issue 8). Every key of its ``expect`` is asserted, on text and on JSON."""

from __future__ import annotations

import hashlib

import pytest

from analyzer.contract.registry import command
from harness import ScenarioProject, load_scenarios, scenario_request
from expect import check_expect, parse_json
from shared_reference import cross_check

# the protocol's own scenarios: a cross-check (tests/conformance_corpus covers their behaviour)
pytestmark = cross_check

ALL = load_scenarios()
BY_NAME = {s["name"]: s for s in ALL}
COMMANDS = ("list", "show", "subject")


def _cases():
    for scenario in ALL:
        if scenario["command"][0] in COMMANDS:
            yield pytest.param(scenario, None, id=scenario["name"])
        for key, variant in scenario["expect"].items():
            if isinstance(variant, dict) and (variant.get("command") or [""])[0] in COMMANDS:
                yield pytest.param(scenario, key, id=f"{scenario['name']}::{key}")


CASES = list(_cases())


def _digest(root) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("scenario,variant", CASES)
def test_index_scenario(scenario, variant, tmp_path):
    project = ScenarioProject(scenario, tmp_path)
    argv, expect = scenario_request(scenario, variant)
    if command(argv[0]).status != "live":
        pytest.skip(f"`{argv[0]}` is not built yet")
    before = _digest(project.root)
    run = project.run(argv)
    data = parse_json(project.run(argv + ["--format", "json"]))
    if expect.get("files_unchanged"):
        assert _digest(project.root) == before
    check_expect(expect, run, data, project.run, lambda name: None)


def test_every_index_scenario_is_collected():
    """The reference has subject, list and show cases; none may silently drop out."""
    names = {c.id for c in CASES}
    assert {"list_legacy_unit_stable_reference", "subject_merge_preview_reports_downstream_owner_blocker",
            "valid_distinct_reconciliation::list_variant", "entry_schema_1_requires_migration::show_variant"} <= names
