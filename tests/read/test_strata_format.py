"""The materialized strata's entry format (analyzer/engine/materialize.py): each relation
column by column, read back as the same set of tuples; an entry of another shape is a miss
and is discarded."""

from __future__ import annotations

import marshal

from hypothesis import given, settings, strategies as st

from analyzer.engine import materialize

_VALUE = st.one_of(st.text(max_size=6), st.integers(-3, 2**40))


@st.composite
def _relation(draw):
    arity = draw(st.integers(0, 4))
    return set(draw(st.lists(st.tuples(*[_VALUE] * arity), max_size=20)))


@settings(max_examples=300, deadline=None)
@given(_relation())
def test_columns_round_trip_through_marshal(tuples):
    stored = marshal.loads(marshal.dumps(materialize.columns(tuples)))
    assert materialize.rows(stored) == tuples


def test_nullary_relations_keep_their_one_tuple():
    assert materialize.columns({()}) == (1, []) and materialize.rows((1, [])) == {()}
    assert materialize.columns(set()) == (0, []) and materialize.rows((0, [])) == set()


def test_other_shapes_are_refused():
    for bad in ([("a", "b")], (2, [["a"]]), (1, [["a"], ["b", "c"]]), (1, (["a"],)), ("1", [["a"]]),
                (2, []), (1, [["a"], "b"]), (1, [["a"]], 0), None, {"a": 1}):
        assert materialize.rows(bad) is None, bad


def test_an_entry_of_another_shape_is_a_miss_and_discarded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    key = "0" * 64
    materialize._write(key, {"a": materialize.columns({("x", 1)}), "b": materialize.columns(set())})
    assert materialize._read(key, ["a", "b"]) == {"a": {("x", 1)}, "b": set()}
    materialize._write(key, {"a": [("x", 1)], "b": []})  # the former format: tuples, not columns
    assert materialize._read(key, ["a", "b"]) is None
    assert not materialize.STRATA.has(key)  # discarded: the next full evaluation writes it again
