"""Each tool's fixture repository (tests/agents/fixtures/<tool>/repo, written from the tool's
documented examples) loads exactly the expected files, in the expected order, for each path.

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
TOOLS = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())
CASES = [(tool, i) for tool in TOOLS for i in range(len(json.loads((FIXTURES / tool / "expected.json").read_text())["cases"]))]


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """Every fixture repository, copied once."""
    base = tmp_path_factory.mktemp("agent-fixtures")
    out = {}
    for tool in TOOLS:
        out[tool] = base / tool
        shutil.copytree(FIXTURES / tool / "repo", out[tool])
    return out


def test_every_tool_has_a_fixture():
    assert TOOLS == ["claude", "codex", "copilot", "cursor", "gemini", "windsurf"]


@pytest.mark.parametrize("tool,index", CASES, ids=[f"{t}-{i}" for t, i in CASES])
def test_expected_load_list(tool, index, repos):
    case = json.loads((FIXTURES / tool / "expected.json").read_text())["cases"][index]
    result = read_tools(str(repos[tool]), (tool,), [case["path"]], case.get("cwd", ""), use_cache=False)
    (answer,) = result.answers
    assert [load.file for load in answer.loads] == case["loads"]
    assert sorted({skip.file for skip in answer.skipped}) == sorted(case["not_loaded"])
    if "near_misses" in case:
        assert sorted({n.file for n in answer.near_misses}) == sorted(case["near_misses"])
    assert answer.reachable is case["reachable"]
    for skip in answer.skipped:  # every file that does not load says why, at a line
        assert skip.reason and skip.line >= 1
