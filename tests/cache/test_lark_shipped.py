"""Lark tables shipped in the wheel (analyzer/core/larkcache.py) and the table cache's keys."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analyzer.core import larkcache
from analyzer.dev import ship
from analyzer.engine import syntax

REPO = Path(__file__).resolve().parents[2]
DOCUMENTED = "/// Edges of the graph.\n.decl edge(a: symbol, b: symbol)\n"


def test_the_rule_language_parser_has_one_key_in_every_process(tmp_path):
    # its options hold a lexer callback, whose repr carries a memory address: every run
    # used to get a key of its own, never hit the cache and left a new file behind
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
           "MEMORY_ANALYZER_IGNORE_SHIPPED": "1"}  # the cache's keys, not the tables a checkout ships
    for _ in range(2):
        subprocess.run([sys.executable, "-c", "from analyzer.engine import syntax; syntax.parser()"],
                       env=env, check=True, cwd=tmp_path)
    tables = list((tmp_path / "xdg" / "memory-analyzer" / "lark").glob("datalog-*"))
    assert len(tables) == 1, tables


def test_a_parser_loaded_from_tables_keeps_its_doc_comments(monkeypatch):
    monkeypatch.setenv("MEMORY_ANALYZER_IGNORE_SHIPPED", "1")  # tables from this test's cache
    fresh = [s.doc for s in syntax.parse_statements(DOCUMENTED) if hasattr(s, "doc")]
    assert fresh == ["Edges of the graph."]
    monkeypatch.setattr(syntax, "_PARSER", None)
    syntax.parser()  # stores the tables in this test's cache
    monkeypatch.setattr(syntax, "_PARSER", None)
    syntax.parser()  # and loads them
    loaded = [s.doc for s in syntax.parse_statements(DOCUMENTED) if hasattr(s, "doc")]
    assert loaded == fresh


def test_shipped_tables_are_verified_before_use(tmp_path, monkeypatch):
    monkeypatch.setattr(larkcache, "ship_dir", lambda: tmp_path)
    path = larkcache.write_tables("k", b"payload bytes")
    assert larkcache.shipped_tables("k") == b"payload bytes"
    assert larkcache.shipped_tables("other") is None
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # one flipped bit in the payload
    path.write_bytes(bytes(data))
    assert larkcache.shipped_tables("k") is None
    path.write_bytes(b"short")
    assert larkcache.shipped_tables("k") is None


def test_build_all_ships_every_parser_the_package_builds(tmp_path, monkeypatch):
    monkeypatch.setattr(larkcache, "ship_dir", lambda: tmp_path)
    from analyzer.project.extract import grammars

    monkeypatch.setattr(grammars, "_PARSERS", {})
    monkeypatch.setattr(syntax, "_PARSER", None)
    written = ship.build_lark_tables()
    names = sorted(p.name.split("-")[0] for p in written)
    assert names == ["agent_body", "agent_frontmatter", "datalog", "entries", "local_manifest", "manifest", "plan",
                     "reconciliations", "subjects"]
    assert larkcache.SHIPPING is None
    # a build that finds them ships them: nothing is built, nothing is cached
    monkeypatch.setattr(grammars, "_PARSERS", {})
    monkeypatch.setattr(syntax, "_PARSER", None)
    built = []
    import lark

    real = lark.Lark.__init__
    monkeypatch.setattr(lark.Lark, "__init__", lambda self, *a, **k: (built.append(a), real(self, *a, **k))[1])
    grammars.terminal("entries", "FIELD_LINE")
    syntax.parser()
    assert built == []
