"""A CI-sized run of the grammar fuzzers (bench/fuzz_grammars.py runs the same for longer):
near-valid files of every grammar never make the analyzer fail instead of report."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .strategies import GRAMMARS
from .targets import run

CI = settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("grammar", sorted(GRAMMARS))
def test_near_valid_files_never_fail_internally(grammar):
    @CI
    @given(GRAMMARS[grammar]())
    def check(text):
        run(grammar, text)

    check()
