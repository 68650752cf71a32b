"""The generated grammar terminals (analyzer/project/extract/grammar_terms.py) are what Lark reads from
grammar/*.lark, the manifest's line kinds and ``paths:`` values come out as the Lark parser
gives them, and a cold load of a plain project imports no Lark in either process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from analyzer.project.extract import grammar_terms, grammars, optional_index
from analyzer.dev import terms_gen
from analyzer.project.extract.manifest import line_kinds, parsed_line_kinds
from analyzer.project.markdown import lex

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"


def test_generated_module_is_fresh():
    # regenerating it from the grammars through Lark gives the committed file
    assert terms_gen.render() == terms_gen.TARGET.read_text(encoding="utf-8"), \
        "stale: run python -m analyzer.dev.terms_gen"
    assert terms_gen.main(["--check"]) == 0


def test_every_grammar_is_served_from_the_generated_terminals():
    for name in terms_gen.GRAMMARS:
        assert grammars.generated(name) == grammar_terms.TERMINALS[name], name


def test_terminals_equal_the_ones_lark_reads():
    for name in terms_gen.GRAMMARS:
        lark = (grammars.parser("manifest", terms_gen.MANIFEST_STARTS) if name == "manifest"
                else grammars.terminal_parser(name))
        for term, pattern in grammar_terms.TERMINALS[name].items():
            assert grammars.terminal(name, term).pattern == pattern
            assert lark.get_terminal(term).pattern.to_regexp() == pattern, (name, term)


@pytest.fixture
def drifted(monkeypatch):
    """The manifest and entry grammars' recorded digests no longer match their text."""
    grammars.forget_generated()
    monkeypatch.setitem(grammar_terms.DIGESTS, "manifest", "0" * 64)
    monkeypatch.setitem(grammar_terms.DIGESTS, "entries", "0" * 64)
    yield
    grammars.forget_generated()


def test_a_drifted_grammar_is_read_through_lark(drifted):
    assert grammars.generated("manifest") is None and grammars.line_lexer() is None
    assert grammars.generated("plan") is not None
    # the same patterns, now from Lark's tables
    assert grammars.terminal("entries", "ENTRY_HEADING").pattern == grammar_terms.TERMINALS["entries"]["ENTRY_HEADING"]
    lexed = lex("# Memory\n\n## Routes\n\nLoad:\n- brief.md\n")
    assert line_kinds(lexed) == parsed_line_kinds(lexed) == {0: "heading", 2: "heading", 4: "mode", 5: "bullet"}
    assert optional_index._parse_paths("`a/**`, `b`") == ["a/**", "b"]


# Lines built from the pieces every manifest line token starts or ends with.
_PIECES = ["#", "##", "###", " ", "  ", "   ", "    ", "\t", "-", "- ", "  - ", "*", "+", "`", "``", "a", "Key",
           "key", "_x", ":", ": ", "None enabled.", "None enabled", "load", "LOAD", "also load", "Load If Present",
           ".", ",", "\r", "\u2014", "\u00e9", "\u00a0", "MC-DEC-20260101-0123abcd"]
_PREFIX = st.sampled_from(["", " ", "  ", "   ", "    ", "\t"])
_CORE = st.sampled_from(["#", "## Title", "#######", "#x", "- None enabled.", "- `rules/a.md`", "- `rules/a.md` x",
                         "  - tasks: x", "- key: v", "- Key_1:", "load:", "Also Load:", "load if present:", "- brief.md",
                         "* x", "+", "-", "text", "- `", "`a`", "-\tx"])
_SUFFIX = st.sampled_from(["", " ", "\t", "x", ":", "\r", " #", " `b`"])
_LINE = st.one_of(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join),
                  st.tuples(_PREFIX, _CORE, _SUFFIX).map("".join))


class _AllStructural:
    """A lexed view in which every line carries structure (no fence or comment hides one)."""

    def __init__(self, lines):
        self.lines = lines

    def structural(self, i):
        return True


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_line_kinds_are_the_parsers(lines):
    view = _AllStructural(lines)
    assert line_kinds(view) == parsed_line_kinds(view)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_LINE, st.sampled_from(["```", "~~~", "<!--", "-->", "    indented", ""])), max_size=14))
def test_line_kinds_of_lexed_manifests_are_the_parsers(lines):
    lexed = lex("\n".join(lines) + "\n")
    assert line_kinds(lexed) == parsed_line_kinds(lexed)


def _lark_paths(value):
    from lark.exceptions import LarkError

    try:
        tree = grammars.parser("manifest", terms_gen.MANIFEST_STARTS).parse(value.strip(), start="paths_value")
    except LarkError:
        return None
    return [str(tok)[1:-1].strip() for tok in tree.children]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["`", "`a/**`", "`src/x.py`", "a", " ", "\t", ",", ", ", " ,", "``", "` b `", "\u00e9"]),
                max_size=8).map("".join))
def test_paths_values_are_the_parsers(value):
    assert optional_index._parse_paths(value) == _lark_paths(value)
    if _lark_paths(value) is not None:  # a value that parses never needs the parser
        assert optional_index._code_spans(value.strip()) is not None


_PROBE = """
import json, sys
from analyzer.project.extract import prefetch
prefetch.MIN_BYTES = 0
prefetch._threaded = lambda: False
helpers = []
real_start = prefetch.start
def start(*args, **kwargs):
    helper = real_start(*args, **kwargs)
    helpers.append(helper is not None)
    return helper
prefetch.start = start
from analyzer.project.loader import load_project
project = load_project(sys.argv[1])
print(json.dumps({"helpers": helpers, "facts": sum(len(r) for r in project.facts.relations().values()),
                  "lark": sorted(m for m in sys.modules if m.split(".")[0] == "lark")}))
"""


def test_cold_load_of_a_plain_project_imports_no_lark(tmp_path):
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    # the per-entry rules extraction runs (rules/entries/entries.dl) are compiled once, as an
    # installed wheel ships them: a cold load of the facts then needs no parser
    subprocess.run([sys.executable, "-c", "from analyzer.project.extract.judge import entries_program; entries_program()"],
                   check=True, env=env, cwd=str(tmp_path), timeout=300)
    run = subprocess.run([sys.executable, "-X", "importtime", "-c", _PROBE, str(EXAMPLE)], capture_output=True,
                         text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["facts"] > 0 and result["lark"] == []
    if (os.cpu_count() or 1) >= 2:
        assert result["helpers"] == [True]
    # -X importtime lines of both processes (the forked helper writes to the same stderr)
    imported = [line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    assert "analyzer.project.extract.fast_entries" in imported  # the probe sees extraction's imports
    assert not [m for m in imported if m.split(".")[0] == "lark"], run.stderr
