"""The protocol glob dialect (§8.1.3): matching, validity, and the spec's unit scenarios."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.engine.glob import glob_match, glob_regex, glob_valid, path_valid
from shared_reference import SHARED, cross_check

SCENARIOS = SHARED / "spec" / "scenarios.jsonl"


@pytest.mark.parametrize("glob,path,expected", [
    ("**/*.py", "root.py", True),
    ("**/*.py", "cli/root.py", True),
    ("web/**", "web/a/b.ts", True),
    ("web/**", "web", False),
    ("web/*", "web/a/b.ts", False),
    ("web/*", "web/a.ts", True),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/xb", False),
    (".github/**", ".github/workflows/ci.yml", True),
    ("CLI/**", "cli/x.py", False),
    ("src/?.ts", "src/a.ts", True),
    ("src/?.ts", "src/ab.ts", False),
    ("*", "a/b", False),
    ("**", "anything/at/all", True),
    ("a.b", "axb", False),  # `.` is literal
    ("a+(b)", "a+(b)", True),
    ("a/**/b", "a/[x]/b", True),
    ("a/[x]", "a/x", False),  # invalid globs match nothing
])
def test_matching(glob, path, expected):
    assert glob_match(glob, path) is expected


@pytest.mark.parametrize("glob", [
    "", "/abs/**", "C:/x/**", "a\\b", "a/[ab].md", "a/{b,c}", "a//b", "./a", "a/../b", "a/**b",
    "***", "a/", "**x/y",
])
def test_invalid_globs(glob):
    assert isinstance(glob_valid(glob), str)


@pytest.mark.parametrize("path", ["", "/etc/kettle.toml", "D:/kettle.toml", "../kettle.toml", "src/../kettle.toml",
                                  "src//kettle.toml", "src/", "src/./kettle.toml"])
def test_invalid_input_paths(path):
    # an input path must be relative, normalized and name a file (the protocol's §8.1.3 checks)
    assert isinstance(path_valid(path), str)


@pytest.mark.parametrize("path", ["kettle.toml", "src/kettle.toml", ".github/workflows/ci.yml", "a b/c.md"])
def test_valid_input_paths(path):
    assert path_valid(path) is None


@pytest.mark.parametrize("glob", ["*.md", "**", "a/**/b/**", ".github/**", "a-b_c/?x*"])
def test_valid_globs(glob):
    assert glob_valid(glob) is None


_GLOB_SEGMENTS = st.one_of(st.just("**"), st.text(alphabet="ab*?.", min_size=0, max_size=5))
_GLOBS = st.lists(_GLOB_SEGMENTS, min_size=1, max_size=5).map("/".join)
_PATHS = st.lists(st.text(alphabet="ab.", min_size=0, max_size=5), min_size=1, max_size=6).map("/".join)


@settings(max_examples=600, deadline=None)
@given(_GLOBS, _PATHS)
def test_matcher_agrees_with_the_reference_regex(glob, path):
    # the linear matcher against the dialect's definition (today's regex), on random input
    # including paths with empty segments; invalid globs match nothing in both
    expected = glob_valid(glob) is None and glob_regex(glob).fullmatch(path) is not None
    assert glob_match(glob, path) is expected


@pytest.mark.parametrize("glob,path,expected", [
    # cases that took seconds to minutes with the backtracking regex (docs/reliability.md)
    ("**/**/**/**/*a*a*a*a*a*b", "/".join(["a" * 9] * 12), False),
    ("**/**/**/**/*a*a*a*a*a*b", "a" * 119 + "b", True),
    ("*a*a*a*a*a*a*a*a*b", "a" * 200, False),
    ("**/**/**/**/**/**/**/**/x", "/".join(["y"] * 60), False),
    ("**/**/**/**/**/**/**/**/x", "/".join(["y"] * 60 + ["x"]), True),
    ("?*?*?*?*?*?*?*?*b", "ab" * 2000 + "a", False),
])
def test_hostile_globs_are_answered(glob, path, expected):
    assert glob_match(glob, path) is expected


def test_regex_is_compiled_once():
    assert glob_regex("docs/**") is glob_regex("docs/**")


def _unit_scenarios():
    if not SCENARIOS.is_file():
        return []
    rows = [json.loads(line) for line in SCENARIOS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("command", [None])[0] == "__unit__" and "glob" in r["command"][1]]


@cross_check
def test_spec_unit_scenarios():
    """The protocol's glob unit scenarios (the tests above are our own of the same dialect)."""
    scenarios = _unit_scenarios()
    checked = 0
    for scenario in scenarios:
        expect = scenario["expect"]
        for glob, path, result in expect.get("cases", []) + expect.get("derived_cases", []):
            assert glob_match(glob, path) is result, (scenario["name"], glob, path)
            checked += 1
        for glob in expect.get("invalid_globs_derived", []):
            assert glob_valid(glob) is not None, glob
            checked += 1
        for path in expect.get("invalid_input_paths_derived", []):
            assert path_valid(path) is not None, path
            checked += 1
    assert checked > 0
