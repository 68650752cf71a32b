"""The shipped compiled form of a built-in program (analyzer/engine/shipped.py): it gives the
engine the rules give, names the installed rule files, and is ignored when it was made by
another Python, engine or rule set."""

import pytest

from analyzer.engine import shipped
from analyzer.engine.cache import engine_state
from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine
from analyzer.core.resources import IGNORE_SHIPPED_ENV, data_file


def _ship(tmp_path, monkeypatch, header: bytes, entry=None):
    entry = entry or data_file("facts", "schema.dl")
    engine = Engine(load_program(str(entry)))
    target = tmp_path / "shipped.program"
    target.write_bytes(header + shipped.dump(lambda dumps: engine_state(engine, dumps), str(shipped._data_root())))
    monkeypatch.setattr(shipped, "shipped_path", lambda e: target if e == entry else None)
    return entry

def test_shipped_program_loads_with_installed_paths(tmp_path, monkeypatch):
    entry = _ship(tmp_path, monkeypatch, shipped._header())
    engine = shipped.load_shipped(entry)
    assert engine is not None
    assert engine.program.files[0] == str(entry)
    assert set(engine.program.decls) == set(load_program(str(entry)).decls)
    assert all(d.span.path == str(entry) for d in engine.program.decls.values())

def test_shipped_program_of_another_build_is_ignored(tmp_path, monkeypatch):
    header = shipped._header().replace(shipped.FORMAT, shipped.FORMAT.replace(b"program", b"programme"))
    entry = _ship(tmp_path, monkeypatch, header)
    assert shipped.load_shipped(entry) is None

def test_only_built_in_programs_ship(tmp_path):
    assert shipped.shipped_path(tmp_path / "mine.dl") is None
    assert shipped.shipped_path(data_file("rules", "read/read.dl")).name == "rules__read__read.program"


def test_evaluating_a_shipped_program_reads_no_rules(tmp_path, monkeypatch):
    """Evaluation needs the declarations and the compiled variants only: the rules, plans and
    sources stay encoded until something asks for them, and then are what compiling gives."""
    entry = _ship(tmp_path, monkeypatch, shipped._header(), data_file("rules", "check/check.dl"))
    engine = shipped.load_shipped(entry)
    fresh = Engine(load_program(str(entry)))
    assert engine.evaluate({}).relation("entry") == fresh.evaluate({}).relation("entry") == []
    assert engine._rules is None and "rules" not in vars(engine.program)
    stored = [v for base, delta in engine.compiled("plain") for v in (*base, *delta)]
    assert all("source" not in vars(v) for v in stored)
    made = [v for base, delta in fresh.compiled("plain") for v in (*base, *delta)]
    assert [(v.head, v.empty_if, v.params, v.steps, v.source, v.unique_source) for v in stored] == \
        [(v.head, v.empty_if, v.params, v.steps, v.source, v.unique_source) for v in made]
    assert engine.source() == fresh.source()
    assert engine.rules == fresh.rules
    assert engine.program.rules == fresh.program.rules and engine.program.sources == fresh.program.sources
    assert engine.program.all_decls == fresh.program.all_decls
    assert len(engine.rules) > 100 and all(r.span.path.startswith(str(shipped._data_root())) for r in engine.rules)


def test_a_checkout_builds_its_compiled_programs_once_and_uses_them(monkeypatch):
    """tests/conftest.py built them for this run: building again writes nothing, and the
    built-in programs load from the checkout's compiled files unless told to ignore them."""
    from analyzer.core.resources import data_file, source_root
    from analyzer.engine import shipped

    if source_root() is None:
        pytest.skip("an installed package: its wheel ships the compiled programs")
    from analyzer.dev.ship import build_checkout

    assert build_checkout() == []
    entry = data_file("rules", "read/read.dl")
    assert shipped.load_shipped(entry) is not None
    monkeypatch.setenv(IGNORE_SHIPPED_ENV, "1")
    assert shipped.shipped_path(entry) is None and shipped.load_shipped(entry) is None


def test_a_shipped_program_reads_none_of_its_fingerprinted_files(tmp_path, monkeypatch):
    """The header's rule-set fingerprint covers every file of a built-in program (it changes
    when one does, and the shipped form is then ignored): loading hashes none of them again."""
    from analyzer.core.fingerprint import covers
    from analyzer.engine import cache

    entry = _ship(tmp_path, monkeypatch, shipped._header(), data_file("rules", "entries/entries.dl"))
    read = []
    real = cache._digest
    monkeypatch.setattr(cache, "_digest", lambda path: read.append(path) or real(path))
    engine = shipped.load_shipped(entry)
    assert engine is not None and len(engine.program.files) > 5 and read == []
    root = str(shipped._data_root()) + "/"
    assert all(covers(name[len(root):]) for name in engine.program.files)
    assert covers("rules/entries/fields.dl") and covers("facts/entry_fields.dl") and covers("rules/budgets.dl")
    assert not covers("rules/a/b/c.dl") and not covers("facts/x/y.dl") and not covers("rules/x.lark")


def test_a_shipped_program_with_a_file_outside_the_fingerprint_checks_it(tmp_path, monkeypatch):
    from analyzer.engine import cache

    entry = _ship(tmp_path, monkeypatch, shipped._header())
    root = str(shipped._data_root()) + "/"
    monkeypatch.setattr(shipped, "covers", lambda rel: False)  # as a file the fingerprint does not hash
    read = []
    real = cache._digest
    monkeypatch.setattr(cache, "_digest", lambda path: read.append(str(path)) or real(path))
    assert shipped.load_shipped(entry) is not None and read == [str(entry)] and read[0].startswith(root)


def test_shipped_facts_are_the_engines_without_building_it(tmp_path, monkeypatch):
    """The vocabularies read a shipped program's facts only (analyzer/project/vocab.py): the
    same facts the engine holds, no engine built; None where :func:`load_shipped` would check
    a file the fingerprint does not cover, or the program was built by another rule set."""
    from analyzer.engine import cache

    entry = _ship(tmp_path, monkeypatch, shipped._header(), data_file("rules", "vocab/vocab.dl"))
    built = []
    real = cache.engine_from_state
    monkeypatch.setattr(cache, "engine_from_state", lambda *a, **k: built.append(1) or real(*a, **k))
    facts = shipped.load_shipped_facts(entry)
    assert built == [] and facts and facts == shipped.load_shipped(entry).facts and built == [1]
    assert "status_rank" in facts
    monkeypatch.setattr(shipped, "covers", lambda rel: False)
    assert shipped.load_shipped_facts(entry) is None
    monkeypatch.undo()
    _ship(tmp_path, monkeypatch, shipped._header().replace(shipped.FORMAT, b"another build\n"),
          data_file("rules", "vocab/vocab.dl"))
    assert shipped.load_shipped_facts(data_file("rules", "vocab/vocab.dl")) is None
