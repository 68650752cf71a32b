"""Every `read` scenario of the protocol reference, run through the CLI (issue 4).

Each scenario (and each of its read variants) is one test; every key of its ``expect``
is asserted. Variants that run `check` belong to the check command and are reported as
skipped until it exists.
"""

from __future__ import annotations

import pytest

from harness import ScenarioProject, load_scenarios, scenario_request
from expect import check_expect, parse_json

ALL = load_scenarios()
BY_NAME = {s["name"]: s for s in ALL}


def _cases():
    for scenario in ALL:
        if scenario["command"][0] != "read":
            continue
        yield pytest.param(scenario, None, id=scenario["name"])
        for key, variant in scenario["expect"].items():
            if key.endswith("_variant") or key.startswith("also_"):
                yield pytest.param(scenario, key, id=f"{scenario['name']}::{key}")


CASES = list(_cases())


@pytest.mark.skipif(not ALL, reason="../shared/spec/scenarios.jsonl is not available")
@pytest.mark.parametrize("scenario,variant", CASES)
def test_read_scenario(scenario, variant, tmp_path):
    project = ScenarioProject(scenario, tmp_path)
    argv, expect = scenario_request(scenario, variant)
    if argv[0] != "read":
        pytest.skip(f"variant runs `{' '.join(argv)}`; the check command is not part of issue 4")
    run = project.run(argv)
    data = parse_json(project.run(argv + ["--format", "json"]))

    def other_scenario(name):
        other = BY_NAME[name]
        sub = tmp_path / f"other-{name}"
        sub.mkdir()
        return ScenarioProject(other, sub).run(list(other["command"]))

    check_expect(expect, run, data, project.run, other_scenario)
