"""The sink's column-per-relation form (analyzer/project/extract/sink.py) and its facts-cache entries:
a round trip through the cache keeps every fact, position, diagnostic and unit range; merging
by relation gives the fact base that adding each fact gives; an entry of the old row format,
or a malformed one, is never read as facts (the file is extracted again)."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from analyzer.core import cache
from analyzer.project import facts_cache
from analyzer.project.extract.sink import FORMAT, Sink
from analyzer.project.factbase import FactBase
from analyzer.project.loader import load_project
from analyzer.core.span import Span

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"

_values = st.tuples(st.one_of(st.text(max_size=8), st.integers(-5, 10**12)),
                    st.one_of(st.text(max_size=8), st.integers(0, 99)))
_rows = st.lists(st.tuples(st.sampled_from(["a", "b", "entry", "unit"]), _values,
                           st.integers(1, 2**40), st.integers(1, 2**33)), max_size=40)


def _sink(rows) -> Sink:
    sink = Sink("docs/memory/x.md")
    for i, (relation, values, line, col) in enumerate(rows):
        if i % 2:
            sink.fact(relation, *values, line=line, col=col)
        else:
            sink.row(relation, values, line, col)
    return sink


def _by_relation(rows):
    return sorted(rows, key=repr)


@settings(max_examples=150, deadline=None)
@given(_rows)
def test_round_trip_keeps_every_row(rows):
    sink = _sink(rows)
    sink.diag("MA-X", "m", 3, 4)
    sink.units, sink.has_title, sink.info = [(0, 2), (3, 9)], True, ("0.7", 2)
    back = Sink.from_plain(marshal.loads(marshal.dumps(sink.to_plain())))
    assert back is not None
    assert _by_relation(back.facts) == _by_relation(sink.facts) == _by_relation(rows)
    # each relation keeps its rows in the order written
    for relation in {r for r, *_ in rows}:
        assert [row for row in back.facts if row[0] == relation] == [row for row in rows if row[0] == relation]
    assert (back.diagnostics, back.units, back.has_title, back.info) == (
        sink.diagnostics, sink.units, sink.has_title, sink.info)
    assert back.to_plain() == sink.to_plain()


@settings(max_examples=150, deadline=None)
@given(st.lists(_rows, max_size=4))
def test_merging_by_relation_equals_adding_each_fact(files):
    merged, single = FactBase(), FactBase()
    for n, rows in enumerate(files):
        path = f"docs/memory/f{n % 2}.md"  # two files share a path: the smallest span wins
        sink = _sink(rows)
        if n % 2:  # one fresh, one through the cache's form
            sink = Sink.from_plain(marshal.loads(marshal.dumps(sink.to_plain())))
        merged.add_columns(path, sink.columns, f"key{n}")
        for relation, values, line, col in rows:
            single.add(relation, *values, span=Span(path, line, col))
    assert merged.relations() == single.relations()
    for relation in ("a", "b", "entry", "unit"):
        assert merged.spans_of(relation) == single.spans_of(relation)
    assert merged.spans() == single.spans()


@settings(max_examples=150, deadline=None)
@given(st.lists(_rows, max_size=4), st.lists(st.sampled_from(("a", "b", "entry", "unit", "zzz")), max_size=3),
       st.integers(0, 3))
def test_relations_asked_for_are_merged_alone_and_equal_adding_each_fact(files, asked, late):
    """A bulk-added file's rows reach a relation's set when that relation is asked for
    (FactBase merges lazily): asking for some relations builds no set of the others, and
    every answer, before or after more files and single facts arrive, is the set that adding
    each fact gives."""
    merged, single = FactBase(), FactBase()
    for n, rows in enumerate(files):
        if n == late:  # a relation asked for, then more files and a single fact
            assert merged.relation_sets(asked) == {r: s for r, s in single.relation_sets().items() if r in asked}
            merged.add("a", "single", 1)
            single.add("a", "single", 1)
        merged.add_columns("p", _sink(rows).columns, f"key{n}")
        for relation, values, _line, _col in rows:
            single.add(relation, *values)
    expected = single.relation_sets()
    assert merged.relation_sets(asked) == {r: s for r, s in expected.items() if r in asked}
    assert not set(merged._facts) - set(asked) - {"a"}  # nothing else was built
    for col in (0, 1):
        assert merged.column_values(["a", "b"], col) == {t[col] for r in ("a", "b") for t in expected.get(r, ())
                                                          if len(t) > col}
    assert merged.relation_sets() == expected and len(merged) == len(single)
    assert merged.relations() == single.relations()


@settings(max_examples=100, deadline=None)
@given(_rows, _rows)
def test_a_sink_read_from_the_cache_takes_more_rows_and_keys_like_a_fresh_one(rows, more):
    """A cached sink keeps its positions as the cache's bytes until they are read; writing
    to it, merging it without a key and reading its spans give what the fresh sink gives."""
    fresh = _sink(rows)
    back = Sink.from_plain(marshal.loads(marshal.dumps(fresh.to_plain())))
    for sink in (fresh, back):
        for i, (relation, values, line, col) in enumerate(more):
            if i % 2:
                sink.row(relation, values, line, col)
            else:
                sink.rel(relation)[0].append(values)
                sink.rel(relation)[1].append(line)
                sink.rel(relation)[2].append(col)
    assert back.facts == fresh.facts and back.to_plain() == fresh.to_plain()
    one, two = FactBase(), FactBase()
    one.add_columns("p", fresh.columns)
    two.add_columns("p", Sink.from_plain(marshal.loads(marshal.dumps(fresh.to_plain()))).columns)
    assert one.digest() == two.digest() and one.spans() == two.spans()


def test_digest_without_a_key_depends_on_the_facts_only():
    one, two = FactBase(), FactBase()
    one.add_columns("p", _sink([("a", (1, "x"), 2, 1), ("b", ("y", 2), 3, 1)]).columns)
    two.add_columns("p", _sink([("b", ("y", 2), 3, 1), ("a", (1, "x"), 2, 1)]).columns)
    assert one.digest() == two.digest()
    three = FactBase()
    three.add_columns("p", _sink([("a", (1, "x"), 2, 1), ("b", ("y", 3), 3, 1)]).columns)
    assert three.digest() != one.digest()


def test_facts_are_read_only_rows():
    sink = _sink([("a", (1,), 1, 1)])
    with pytest.raises(AttributeError):
        sink.facts.append(("a", (2,), 1, 1))  # a writer must use fact() or row()


def _good_plain():
    return _sink([("a", (1, "x"), 2, 1), ("a", (2, "y"), 3, 1), ("b", ("z",), 4, 3)]).to_plain()


def _replace(plain, index, value):
    return plain[:index] + (value,) + plain[index + 1:]


MALFORMED = {
    "old row format": lambda p: (p[1], [("a", (1, "x"), 2, 1)], [], [], False, ()),
    "other format": lambda p: _replace(p, 0, "rows-0"),
    "short positions": lambda p: _replace(p, 2, {"a": ([(1, "x")], b"\0" * 8, b"\0" * 7)}),
    "more positions than values": lambda p: _replace(p, 2, {"a": ([(1, "x")], b"\0" * 16, b"\0" * 16)}),
    "positions as lists": lambda p: _replace(p, 2, {"a": ([(1, "x")], [2], [1])}),
    "empty relation": lambda p: _replace(p, 2, {"a": ([], b"", b"")}),
    "values not tuples": lambda p: _replace(p, 2, {"a": ([[1, "x"]], b"\0" * 8, b"\0" * 8)}),
    "facts not a dict": lambda p: _replace(p, 2, [("a", (1,), 1, 1)]),
    "too few parts": lambda p: p[:-1],
    "not a tuple": lambda p: 7,
}


def test_the_good_plain_form_loads():
    assert Sink.from_plain(_good_plain()) is not None
    assert _good_plain()[0] == FORMAT


@pytest.mark.parametrize("damage", sorted(MALFORMED))
def test_malformed_plain_forms_are_refused(damage):
    assert Sink.from_plain(MALFORMED[damage](_good_plain())) is None


def _facts_entries():
    return sorted((cache.cache_root() / "facts").rglob("*.marshal"))


def _old_format(plain):
    """A sink's plain form rewritten in the previous (row) format."""
    stored = Sink.from_plain(plain)
    return (stored.path, list(stored.facts), stored.diagnostics, stored.units, stored.has_title, stored.info)


def _current(plain) -> bool:
    """Whether an entry (one file's sink, or the project's files': facts key -> sink, or the
    name of that) is in the current format."""
    if isinstance(plain, str):
        return True
    sinks = plain.values() if isinstance(plain, dict) else [plain]
    return all(Sink.from_plain(value) is not None for value in sinks)


def test_an_old_format_entry_under_the_current_key_is_extracted_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fresh = load_project(EXAMPLE, use_cache=False)
    load_project(EXAMPLE)  # fills the cache: the manifest's entry, the other files' and that one's name
    entries = _facts_entries()
    assert len(entries) == 3
    for path in entries:  # each sink rewritten in the previous (row) format, with a valid digest
        key = path.name.split(".")[0]
        plain = marshal.loads(facts_cache.FACTS.get(key))
        if isinstance(plain, str):  # the name of the files' entry
            continue
        old = ({digest: _old_format(value) for digest, value in plain.items()} if isinstance(plain, dict)
               else _old_format(plain))
        assert facts_cache.FACTS.put(key, marshal.dumps(old))
    monkeypatch.setattr(cache, "_WARNED", {})
    capsys.readouterr()
    again = load_project(EXAMPLE)
    assert again.facts.relations() == fresh.facts.relations()
    assert again.facts.spans() == fresh.facts.spans()
    assert again.diagnostics == fresh.diagnostics
    assert "holds data of the wrong shape" in capsys.readouterr().err
    # healed: every entry is in the current format again
    entries = _facts_entries()
    assert len(entries) == 3 and all(_current(marshal.loads(facts_cache.FACTS.get(p.name.split(".")[0])))
                                     for p in entries)


def test_the_key_names_the_format(monkeypatch):
    before = facts_cache.key("entries", "decisions.md", 1, "x")
    monkeypatch.setattr("analyzer.project.extract.sink.FORMAT", "columns-0")
    assert facts_cache.key("entries", "decisions.md", 1, "x") != before
