"""The compiled-program cache gives the same engine as compiling afresh, and a damaged
cache file is a miss, never an error."""

from pathlib import Path

import pytest

from analyzer.core.resources import IGNORE_SHIPPED_ENV
from analyzer.engine.cache import cache_dir, cache_key, cached_engine, load_engine

PROGRAM = """
.decl edge(a: number, b: number)
.decl path(a: number, b: number)
.decl isolated(a: number)
.decl node(a: number)
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), edge(Y, Z).
node(X) :- edge(X, _).
node(Y) :- edge(_, Y).
isolated(X) :- node(X), !path(X, _), N = count : { path(_, X) }, N = 0.
"""
FACTS = {"edge": [(1, 2), (2, 3), (3, 1), (4, 5)]}


def _program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.dl"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def test_cached_engine_matches_fresh_engine(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    entry = _program(tmp_path)
    fresh = load_engine(entry, use_cache=False).evaluate(FACTS)
    first = load_engine(entry).evaluate(FACTS)  # miss: compiles and writes the cache
    assert (cache_dir() / f"{cache_key(entry)}.pickle").is_file()
    second = load_engine(entry).evaluate(FACTS, provenance=True)  # hit
    for rel in ("path", "node", "isolated"):
        assert fresh.relation(rel) == first.relation(rel) == second.relation(rel)
    assert second.why("path", (1, 1)) is not None


def test_damaged_cache_file_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    entry = _program(tmp_path)
    load_engine(entry)
    target = cache_dir() / f"{cache_key(entry)}.pickle"
    target.write_bytes(target.read_bytes()[:100])
    assert load_engine(entry).evaluate(FACTS).relation("isolated") == []


def test_changed_rules_change_the_key(tmp_path):
    entry = _program(tmp_path)
    before = cache_key(entry)
    other = tmp_path / "other.dl"
    other.write_text(PROGRAM, encoding="utf-8")
    assert cache_key(other) != before


def test_the_key_covers_the_engine_and_its_grammar_not_other_rule_files(tmp_path, monkeypatch):
    """A program is keyed by the engine (sources, Python, the rule language's grammar) and its
    path; its own files are checked on load, no other rule file is read. The check result
    cache, which must change with any rule, adds the rule-set fingerprint itself."""
    import analyzer.engine.cache as program_cache
    from analyzer.core import fingerprint
    from analyzer.query import check_cache

    entry = _program(tmp_path)
    monkeypatch.setattr(fingerprint, "compute", lambda *a: pytest.fail("a program key read the rule set"))
    fingerprint.ruleset_fingerprint.cache_clear()
    program_cache.engine_digest.cache_clear()
    before = cache_key(entry)
    grammar = tmp_path / "datalog.lark"
    grammar.write_text("// another grammar\n", encoding="utf-8")
    from analyzer.engine import keys  # where the program key is computed (engine/cache.py imports it)

    monkeypatch.setattr(keys, "data_file", lambda kind, name: grammar)
    program_cache.engine_digest.cache_clear()
    assert cache_key(entry) != before
    monkeypatch.undo()
    program_cache.engine_digest.cache_clear()
    fingerprint.ruleset_fingerprint.cache_clear()
    project = tmp_path / "project"
    (project / "docs" / "memory").mkdir(parents=True)
    (project / "docs" / "memory" / "manifest.md").write_text("# Manifest\n", encoding="utf-8")
    key = check_cache.result_key(str(project), "docs/memory", ["legacy"])
    monkeypatch.setattr(check_cache, "ruleset_fingerprint", lambda: "another rule set")
    assert check_cache.result_key(str(project), "docs/memory", ["legacy"]) != key


def test_edited_program_is_recompiled(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    entry = _program(tmp_path)
    assert load_engine(entry).evaluate(FACTS).relation("isolated") == []
    entry.write_text(PROGRAM + "isolated(9).\n", encoding="utf-8")
    assert load_engine(entry).evaluate(FACTS).relation("isolated") == [(9,)]


def test_a_stored_program_is_compiled_only_for_its_current_files(tmp_path, monkeypatch):
    """What a program load would take without compiling: not an entry made from files that
    have changed since (load_engine would recompile it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(IGNORE_SHIPPED_ENV, "1")
    entry = _program(tmp_path)
    assert cached_engine(entry) is None
    load_engine(entry)
    assert cached_engine(entry).evaluate(FACTS).relation("isolated") == []
    assert cached_engine(entry, use_cache=False) is None  # nothing shipped for it
    entry.write_text(PROGRAM + "isolated(9).\n", encoding="utf-8")
    assert cached_engine(entry) is None


def test_a_cold_read_warms_read_rules_stored_for_other_files(tmp_path, monkeypatch):
    """A cold read compiles the read rules next to its extraction unless they are compiled
    for their current files (analyzer/query/read.py ``_program_warmer``). An entry under the
    read rules' key made from a file that changed since is no such program: the read would
    compile it anyway (it was taken as compiled, and the read then compiled the rules itself,
    after the extraction)."""
    from analyzer.core.resources import data_file
    from analyzer.engine import cache as program_cache
    from analyzer.query import program, read

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(IGNORE_SHIPPED_ENV, "1")
    entry = _program(tmp_path)
    key = program_cache.cache_key(data_file("rules", "read/read.dl"))
    program_cache._write(key, load_engine(entry, use_cache=False))  # stored for entry's text as it is now
    monkeypatch.setattr(program, "_loaded", {})  # none loaded yet (and the stand-in is not kept)
    entry.write_text(PROGRAM + "isolated(9).\n", encoding="utf-8")
    assert read._program_warmer(read.ReadRequest()) is not None
    entry.write_text(PROGRAM, encoding="utf-8")  # its files as stored again: taken as compiled
    assert read._program_warmer(read.ReadRequest()) is None
    assert read._program_warmer(read.ReadRequest(use_cache=False)) is None


def test_query_command_uses_and_bypasses_the_cache(tmp_path):
    import os
    import subprocess
    import sys

    entry = tmp_path / "with_facts.dl"
    entry.write_text(PROGRAM + "edge(1, 2). edge(2, 3). edge(3, 1). edge(4, 5).\n", encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for extra in ([], [], ["--no-cache"]):
        run = subprocess.run([sys.executable, "-m", "analyzer", "query", str(entry), "path(1, X)", "--format", "csv",
                              *extra], capture_output=True, text=True, env=env, timeout=120)
        assert run.stdout.splitlines() == ["X", "1", "2", "3"], run.stderr
    assert list((tmp_path / "cache" / "memory-analyzer" / "programs").glob("*.pickle"))


def test_cached_program_defers_its_rules_and_pickles_whole(tmp_path, monkeypatch):
    import pickle

    from analyzer.engine.ast import Program

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    entry = _program(tmp_path)
    fresh = load_engine(entry, use_cache=False)
    load_engine(entry)  # miss: compiles and writes the cache
    cached = load_engine(entry)
    assert cached.evaluate(FACTS).relation("isolated") == []
    assert cached._rules is None  # evaluating read no rule
    copy = pickle.loads(pickle.dumps(cached.program))
    assert type(copy) is Program and copy.rules == fresh.program.rules and copy.decls == fresh.program.decls
    assert cached.rules == fresh.rules and cached.source() == fresh.source()
