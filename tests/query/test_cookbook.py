"""Every query of docs/queries.md runs and prints exactly its documented output."""

import pytest

from tests.query.cookbook import COOKBOOK, examples, run

CASES = examples(COOKBOOK.read_text(encoding="utf-8"))


def test_the_cookbook_has_at_least_twelve_questions():
    assert len(CASES) >= 12
    assert COOKBOOK.read_text(encoding="utf-8").count("\n## ") >= 12


@pytest.mark.parametrize("command, expected", CASES, ids=[f"q{i + 1}" for i in range(len(CASES))])
def test_cookbook_query_prints_its_documented_output(command, expected):
    code, out = run(command)
    assert code == 0, out
    assert out == expected
