"""Every `check` scenario of the protocol reference without Git steps, and every `check`
variant of other scenarios, run through the CLI (issue 8). Every key of ``expect`` is
asserted on the text output and, where it has a structured twin, on the JSON output.

Scenarios with ``git_steps`` build their history in a temporary repository (gitsteps.py)
and run `check --conflicts --merge-base`; their merge lines are asserted on the JSON
``merge`` block too (expect.py).
"""

from __future__ import annotations

import pytest

from harness import load_scenarios, run_and_check, scenario_request
from shared_reference import cross_check

# the protocol's own scenarios: a cross-check (tests/conformance_corpus covers their behaviour)
pytestmark = cross_check

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


@pytest.mark.parametrize("scenario,variant", CASES)
def test_check_scenario(scenario, variant, tmp_path):
    argv, expect = scenario_request(scenario, variant)
    run_and_check(scenario, argv, expect, tmp_path, BY_NAME)
