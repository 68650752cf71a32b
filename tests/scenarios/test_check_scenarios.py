"""Every `check` scenario of the protocol reference without Git steps, and every `check`
variant of other scenarios, run through the CLI (issue 8). Every key of ``expect`` is
asserted on the text output and, where it has a structured twin, on the JSON output.

Scenarios with ``git_steps`` run `check --conflicts --merge-base`, which the merge review
work adds; they are skipped here until then.
"""

from __future__ import annotations

import pytest

from harness import load_scenarios, run_and_check, scenario_request

ALL = load_scenarios()
BY_NAME = {s["name"]: s for s in ALL}


def _cases():
    for scenario in ALL:
        if scenario["command"][0] == "check":
            yield pytest.param(scenario, None, id=scenario["name"])
        for key in scenario["expect"]:
            if key.endswith("_variant") or key.startswith("also_"):
                if scenario_request(scenario, key)[0][0] == "check":
                    yield pytest.param(scenario, key, id=f"{scenario['name']}::{key}")


CASES = list(_cases())


@pytest.mark.skipif(not ALL, reason="../shared/spec/scenarios.jsonl is not available")
@pytest.mark.parametrize("scenario,variant", CASES)
def test_check_scenario(scenario, variant, tmp_path):
    argv, expect = scenario_request(scenario, variant)
    if "--merge-base" in argv or scenario.get("git_steps"):
        pytest.skip("merge review (`--merge-base`) scenarios belong to the merge review work")
    run_and_check(scenario, argv, expect, tmp_path, BY_NAME)
