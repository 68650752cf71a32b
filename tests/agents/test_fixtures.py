"""Each fixture repository (tests/agents/fixtures/<name>/repo, written from a tool's documented
examples; one per tool, named after it, and more for settings that change what a tool looks
for) loads exactly the expected files, in the expected order, for each path.

expected.json: ``{"tool": T, "cases": [{"path", "cwd"?, "loads": [...], "not_loaded": [...],
"near_misses"?: [...], "reachable": bool}]}``. The fixtures are copied to a temporary folder
first, so the walk sees only the fixture (the read is read-only anyway).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer.query.agents import read_tools

FIXTURES = Path(__file__).resolve().parent / "fixtures"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())
EXPECTED = {name: json.loads((FIXTURES / name / "expected.json").read_text()) for name in NAMES}
CASES = [(name, i) for name in NAMES for i in range(len(EXPECTED[name]["cases"]))]


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """Every fixture repository, copied once."""
    base = tmp_path_factory.mktemp("agent-fixtures")
    out = {}
    for name in NAMES:
        out[name] = base / name
        shutil.copytree(FIXTURES / name / "repo", out[name])
    return out


def test_every_tool_has_a_fixture():
    tools = ["claude", "codex", "copilot", "cursor", "gemini", "windsurf"]
    assert [name for name in NAMES if name in tools] == tools
    assert {EXPECTED[name]["tool"] for name in NAMES} == set(tools)


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_expected_load_list(name, index, repos):
    tool, case = EXPECTED[name]["tool"], EXPECTED[name]["cases"][index]
    result = read_tools(str(repos[name]), (tool,), [case["path"]], case.get("cwd", ""), use_cache=False)
    (answer,) = result.answers
    assert [load.file for load in answer.loads] == case["loads"]
    assert sorted({skip.file for skip in answer.skipped}) == sorted(case["not_loaded"])
    if "near_misses" in case:
        assert sorted({n.file for n in answer.near_misses}) == sorted(case["near_misses"])
    assert answer.reachable is case["reachable"]
    for skip in answer.skipped:  # every file that does not load says why, at a line
        assert skip.reason and skip.line >= 1
