"""Every `read` scenario of the protocol reference, run through the CLI (issue 4).

Each scenario (and each of its read variants) is one test; every key of its ``expect``
is asserted. Variants that run `check` belong to tests/scenarios/test_check_scenarios.py.
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
        if scenario["command"][0] != "read":
            continue
        yield pytest.param(scenario, None, id=scenario["name"])
        for key, variant in scenario["expect"].items():
            # a variant that runs `check` is tests/scenarios/test_check_scenarios.py's
            if (key.endswith("_variant") or key.startswith("also_")) and scenario_request(scenario, key)[0][0] == "read":
                yield pytest.param(scenario, key, id=f"{scenario['name']}::{key}")


CASES = list(_cases())


@pytest.mark.parametrize("scenario,variant", CASES)
def test_read_scenario(scenario, variant, tmp_path):
    argv, expect = scenario_request(scenario, variant)
    run_and_check(scenario, argv, expect, tmp_path, BY_NAME)
