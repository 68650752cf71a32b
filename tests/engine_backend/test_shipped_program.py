"""The shipped compiled form of a built-in program (analyzer/engine/shipped.py): it gives the
engine the rules give, names the installed rule files, and is ignored when it was made by
another Python, engine or rule set."""

import io

from analyzer.engine import shipped
from analyzer.engine.cache import engine_state
from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine
from analyzer.resources import data_file


def _ship(tmp_path, monkeypatch, header: bytes):
    entry = data_file("facts", "schema.dl")
    buffer = io.BytesIO()
    shipped._Pickler(buffer, str(shipped._data_root())).dump(engine_state(Engine(load_program(str(entry)))))
    target = tmp_path / "facts__schema.program"
    target.write_bytes(header + buffer.getvalue())
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
    header = shipped._header().replace(shipped.FORMAT, shipped.FORMAT.replace(b"-1", b"-0"))
    entry = _ship(tmp_path, monkeypatch, header)
    assert shipped.load_shipped(entry) is None


def test_only_built_in_programs_ship(tmp_path):
    assert shipped.shipped_path(tmp_path / "mine.dl") is None
    assert shipped.shipped_path(data_file("rules", "read/read.dl")).name == "rules__read__read.program"
