"""The tight code of analyzer/engine/shapes.py (bulk projections, counts by length, key
sets, constant-key selections, base variants adding heads untested) and the skipping of
variants with an empty atom (analyzer/engine/evaluate.py) derive exactly what the general
code running every variant derives: random programs with constants, wildcards, counts,
negations and recursion, over facts that may include tuples of derived relations, are
evaluated both ways (``shapes.TIGHT`` off gives the general code), with provenance, and with
outer loops cut into chunks of one or two tuples (analyzer/engine/runtime.py); the per-rule
profile counts the same new tuples."""

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.engine import runtime, shapes
from analyzer.engine.evaluate import Engine, _Run
from analyzer.engine.syntax import parse_program

BASE = ("a", "b", "u")
DERIVED = ("p", "q", "w", "r")
ARITY = {"u": 1, "w": 1}  # the others have three columns
VARS = ("X", "Y", "Z")
ARG = st.sampled_from(VARS + ("_", "_", "0", "1"))


@st.composite
def atoms(draw, rels):
    rel = draw(st.sampled_from(rels))
    return rel, [draw(ARG) for _ in range(ARITY.get(rel, 3))]


def _vars(args):
    return [a for a in args if a in VARS]


@st.composite
def programs(draw):
    """Rules over a(x, y, z), b(x, y, z), u(x) and derived p, q, w(x), r (each may read
    itself and the ones before it: recursion through a delta)."""
    lines = [f".decl {r}(x: number{'' if r in ARITY else ', y: number, z: number'})" for r in BASE + DERIVED]
    lines.append(".decl n(x: number, c: number)")
    for level, head in enumerate(DERIVED):
        readable = BASE + DERIVED[: level + 1]
        for _ in range(draw(st.integers(1, 3))):
            body = [draw(atoms(readable)) for _ in range(draw(st.sampled_from((1, 1, 2))))]
            bound = sorted({v for _, args in body for v in _vars(args)})
            if not bound:
                body[0][1][0] = "X"
                bound = ["X"]
            text = [f"{rel}({', '.join(args)})" for rel, args in body]
            if draw(st.booleans()):  # a negation on some bound columns, the rest ignored
                rel, args = draw(atoms(BASE + DERIVED[:level]))
                text.append(f"!{rel}({', '.join(a if a not in VARS or a in bound else '_' for a in args)})")
            args = ", ".join(draw(st.sampled_from(bound * 3 + ["2"])) for _ in range(ARITY.get(head, 3)))
            lines.append(f"{head}({args}) :- {', '.join(text)}.")
    # a count over one atom keyed by a bound variable (and maybe a constant)
    wide = tuple(r for r in BASE + DERIVED if r not in ARITY)
    rel, args = draw(atoms(wide))
    key = draw(st.sampled_from(("X", "_", "1", "Y")))
    also = ", u(Y)" if key == "Y" else ""  # a one-column membership test inside the aggregate
    lines.append(f"n(X, C) :- {rel}(X, _, _), C = count : {{ {draw(st.sampled_from(wide))}"
                 f"({', '.join(['X', key, args[2] if args[2] not in VARS else '_'])}){also} }}.")
    # one column of a whole relation into a one-column relation (the relation's key set)
    rel = draw(st.sampled_from(("a", "b", "p", "q")))  # read before w: no cycle through it
    column = draw(st.integers(0, 2))
    lines.append(f"w(X) :- {rel}({', '.join('X' if i == column else '_' for i in range(3))}).")
    return "\n".join(lines) + "\n"


IDLE = _Run.idle


@lru_cache(maxsize=4)
def _parsed(text):
    """``text`` parsed once for the five evaluations of an example (the parse was 2/3 of the
    property's time): each evaluation still builds, stratifies and compiles its own Engine,
    which only reads the Program (its statements are frozen dataclasses)."""
    return parse_program(text, "shapes.dl")

triples = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)), max_size=15)
singles = st.lists(st.tuples(st.integers(0, 2)), max_size=3)
# a first column that identifies the tuple: indexes on it are unique (analyzer/engine/indexes.py)
keyed = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)), max_size=3,
                 unique_by=lambda t: t[0])


def _evaluate(text, facts, tight, provenance=False, chunk=None, derived=None, skip=True):
    old, sizes = shapes.TIGHT, (runtime._chunks.__defaults__, runtime._lists.__defaults__)
    shapes.TIGHT = tight
    if chunk:
        runtime._chunks.__defaults__ = runtime._lists.__defaults__ = (chunk,)
    if not skip:  # every variant runs, even one with an empty atom (evaluate.py _Run.idle)
        _Run.idle = lambda self, variant: False
    try:
        db = Engine(_parsed(text), builtins={}).evaluate(
            facts, provenance=provenance, profile=derived is not None)
        if provenance:  # proof search compiles its own variants, aggregates included
            for rel in DERIVED + ("n",):
                for tup in db.relation(rel)[:2]:
                    assert db.why(rel, tup) is not None
        if derived is not None:
            derived.append([s.derived for s in db.stats])
    finally:
        shapes.TIGHT = old
        runtime._chunks.__defaults__, runtime._lists.__defaults__ = sizes
        _Run.idle = IDLE
    return {rel: db.relation(rel) for rel in DERIVED + ("n",)}


@settings(max_examples=150, deadline=None)
@given(programs(), st.one_of(triples, keyed), st.one_of(triples, keyed), singles, triples, st.sampled_from((1, 2)))
def test_tight_code_derives_what_general_code_derives(text, a, b, u, p, chunk):
    facts = {"a": a, "b": b, "u": u, "p": a[:3] + p[:2]}  # p: also facts, which its rules may derive again
    derived = []
    general = _evaluate(text, facts, tight=False, derived=derived, skip=False)
    assert _evaluate(text, facts, tight=True, derived=derived) == general
    assert derived[0] == derived[1]
    assert _evaluate(text, facts, tight=True, provenance=True) == general
    assert _evaluate(text, facts, tight=True, chunk=chunk) == general
    assert _evaluate(text, facts, tight=False, chunk=chunk) == general


@pytest.mark.parametrize("rule, expect", [
    ("p(X, Y, Y) :- a(X, Y, _).", "new_p.update("),  # projection in bulk
    ("p(X, X, X) :- a(1, X, _).", "Q_a_0"),  # constant key: a selection
    ("p(X, Y, Z) :- a(X, Y, Z), !b(X, _, 1).", "K_b_0_2"),  # membership only: a key set
    ("n(X, C) :- a(X, _, _), C = count : { b(X, _, 0) }.", "len("),  # count by length
    ("p(X, Y, Z) :- a(X, Y, Z), X < Y, !u(X).", "v_X not in K_u_0"),  # one column: no 1-tuple
    ("p(X, Y, Y) :- a(X, Y, _), !b(X, _, 1), u(Y).", "_compress("),  # a filtered projection
    ("u(X) :- a(_, X, _).", "_chunks(K_a_1)"),  # one column: its key set, then 1-tuples
    ("p(X, X, X) :- a(_, X, _), X > 0.", "_chunks(K_a_1)"),  # an outer loop over one column
    ("p(X, Y, Y) :- a(_, X, Y), X > Y.", "dict.fromkeys(map("),  # two columns: distinct pairs
    ("p(X, Y, Z) :- a(X, Y, Z), X < Y, !u(X).", "add_p((v_X, v_Y, v_Z))"),  # a base variant: no test
])
def test_shapes_are_generated(rule, expect):
    text = "".join(f".decl {r}(x: number, y: number, z: number)\n" for r in ("a", "b", "p"))
    text += ".decl n(x: number, c: number)\n.decl u(x: number)\n" + rule + "\n"
    source = Engine(parse_program(text, "s.dl"), builtins={}).source()
    assert expect in source


UNIQUE = """.decl a(x: number, y: number, z: number)
.decl b(x: number, y: number, z: number)
.decl n(x: number, c: number)
.decl p(x: number, y: number, z: number)
n(X, C) :- a(X, _, _), C = count : { b(X, _, 1) }.
p(X, Y, Z) :- a(X, Y, _), b(Y, Z, _), X != Z.
"""


@pytest.mark.parametrize("b", [
    [(0, 1, 1), (2, 0, 0)],  # key (column 0) unique: the code for unique indexes runs
    [(0, 1, 1), (0, 2, 1), (2, 0, 0)],  # 0 repeats: the general code runs
])
def test_unique_index_code_against_the_general_code(b):
    facts = {"a": [(0, 0, 0), (1, 2, 1), (2, 1, 2)], "b": b}
    engine = Engine(parse_program(UNIQUE, "u.dl"), builtins={})
    assert all(v.unique_fn is not None for base, _ in engine.compiled("plain") for v in base)
    found = engine.evaluate(facts)
    expected = {"n": sorted((x, sum(1 for t in b if t[0] == x and t[2] == 1)) for x, _, _ in facts["a"]),
                "p": sorted((x, y, z) for x, y, _ in facts["a"] for y2, z, _ in b if y2 == y and x != z)}
    assert {rel: found.relation(rel) for rel in expected} == expected


KEY_SETS = """.decl a(x: number, y: number, z: number)
.decl p(x: number, y: number, z: number)
.decl u(x: number)
.decl w(x: number)
u(Y) :- a(_, Y, _).
w(Z) :- a(X, _, Z), !u(X).
p(Y, Y, Y) :- a(_, Y, _), Y > 0.
p(Z, Z, 0) :- a(_, _, Z), u(Z).
"""


def test_loops_over_one_column_read_the_shared_key_set():
    """Rules that loop over the distinct values of one column of a whole relation read its key
    set (one per relation and column, shared): the same tuples as the general code's loops."""
    facts = {"a": [(0, 1, 5), (1, 1, 6), (2, 3, 1), (7, 0, 3), (3, 4, 4)]}
    source = Engine(parse_program(KEY_SETS, "k.dl"), builtins={}).source()
    assert source.count("_chunks(K_a_1)") == 2 and "_chunks(K_a_2)" in source
    found = []
    for tight in (True, False):
        old, shapes.TIGHT = shapes.TIGHT, tight
        try:
            db = Engine(parse_program(KEY_SETS, "k.dl"), builtins={}).evaluate(facts)
        finally:
            shapes.TIGHT = old
        found.append({rel: db.relation(rel) for rel in ("u", "w", "p")})
    assert found[0] == found[1] == {
        "u": [(0,), (1,), (3,), (4,)], "w": [(1,), (3,)],
        "p": [(1, 1, 0), (1, 1, 1), (3, 3, 0), (3, 3, 3), (4, 4, 0), (4, 4, 4)]}


def test_selections_on_one_column_are_made_in_one_pass(monkeypatch):
    """Every constant key the program selects on the same columns of a complete relation is
    selected in one pass over it (analyzer/engine/indexes.py ``select_all``); each selection
    holds what its own pass would."""
    from analyzer.engine import indexes

    text = """.decl a(x: number, y: number, z: number)
.decl p(x: number, y: number, z: number)
.decl q(x: number, y: number, z: number)
p(X, X, X) :- a(1, X, _).
q(X, Y, X) :- a(2, X, Y), !p(Y, Y, Y).
q(X, X, X) :- a(_, X, 0), a(3, _, X).
"""
    passes = []
    select_all = indexes.select_all
    monkeypatch.setattr(indexes, "select_all", lambda *a: passes.append(a[2]) or select_all(*a))
    facts = {"a": [(1, 5, 0), (2, 6, 5), (3, 4, 9), (2, 7, 6), (1, 9, 1), (3, 0, 5)]}
    db = Engine(parse_program(text, "q.dl"), builtins={}).evaluate(facts)
    assert [sorted(values) for values in passes] == [[1, 2, 3]]
    assert db.relation("p") == [(5, 5, 5), (9, 9, 9)]
    assert db.relation("q") == [(5, 5, 5), (7, 6, 7)]


FILTERED = """.decl e(i: number, m: number)
.decl d(i: number, s: number)
.decl good(m: number)
.decl bad(m: number)
.decl some(m: number)
.decl x(i: number)
.decl y(i: number)
.decl z(i: number, s: number)
x(I) :- e(I, M), good(M).
y(I) :- e(I, M), !some(M).
.decl w(i: number)
z(I, S) :- e(I, M), !bad(M), d(I, S).
w(I) :- e(I, M), some(M).
"""


@pytest.mark.parametrize("tight", [True, False])
def test_variants_whose_first_atom_no_test_passes_are_skipped(tight, monkeypatch):
    """A variant none of whose first atom's tuples passes a one-column membership test of it
    (evaluate.py ``idle``, ``filtered_if``) is not run and builds no index: the same tuples
    as running it."""
    from analyzer.engine import indexes

    built = []
    for name in ("build_index", "unique_index"):
        real = getattr(indexes, name)
        monkeypatch.setattr(indexes, name, lambda t, cols, real=real: built.append(len(t)) or real(t, cols))
    monkeypatch.setattr(shapes, "TIGHT", tight)
    facts = {"e": [(1, 10), (2, 20), (3, 10)], "d": [(1, 5), (2, 6), (4, 7), (3, 0)],
             "good": [(20,), (30,)], "bad": [(10,), (20,)], "some": [(40,), (10,)]}
    db = Engine(parse_program(FILTERED, "f.dl"), builtins={}).evaluate(facts)
    assert db.relation("x") == [(2,)] and db.relation("y") == [(2,)] and db.relation("w") == [(1,), (3,)]
    assert db.relation("z") == []
    assert built == []  # the z rule never ran: d is not indexed


mixed = st.one_of(st.integers(-2, 2), st.sampled_from(("a", "b", "")))


@settings(max_examples=200, deadline=None)
@given(st.sets(st.tuples(mixed, mixed, mixed)), st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True),
       st.tuples(mixed, mixed, mixed))
def test_a_selection_holds_the_tuples_whose_columns_equal_the_key(tuples, cols, key):
    """``select`` on one or several columns (compared one column at a time) keeps exactly the
    tuples whose ``cols`` equal the constant key, in the relation's iteration order."""
    from operator import itemgetter

    from analyzer.engine.indexes import select

    value = key[0] if len(cols) == 1 else key[:len(cols)]
    getter = itemgetter(*cols)
    expected = [t for t in tuples if getter(t) == value]
    assert select(tuples, tuple(cols), value) == expected
    # a key taken from the relation itself selects at least that tuple
    for t in list(tuples)[:3]:
        found = select(tuples, tuple(cols), getter(t))
        assert t in found and found == [u for u in tuples if getter(u) == getter(t)]
