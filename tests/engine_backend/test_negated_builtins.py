"""A negated builtin holds when the call yields nothing for its bound arguments."""

from analyzer.engine import Engine, load_program

PROGRAM = """
.decl p(x: symbol)
.decl plain(x: symbol)
.decl unmatched(path: symbol)
plain(X) :- p(X), !starts_with(X, "./").
unmatched(X) :- p(X), !glob_match("src/**", X).
"""


def test_negated_builtins_filter_and_explain():
    engine = Engine(load_program(text=PROGRAM))
    db = engine.evaluate({"p": [("./a",), ("b",), ("src/x.py",)]}, provenance=True)
    assert db.relation("plain") == [("b",), ("src/x.py",)]
    assert db.relation("unmatched") == [("./a",), ("b",)]
    proof = db.why("plain", ("b",))
    assert 'absent: !starts_with("b", "./")' in proof.render()



def test_a_negated_builtin_filters_a_projection_without_provenance():
    # the bulk projection shape took ``!ends_with(X, "/")`` for a relation to look in and
    # failed with KeyError 'ends_with' (an internal error in `analyze query`): only the
    # provenance flavour above was tested
    program = PROGRAM + '.decl file(x: symbol)\nfile(X) :- p(X), !ends_with(X, "/").\n'
    for provenance in (False, True):
        db = Engine(load_program(text=program)).evaluate({"p": [("a/",), ("b",), ("./c",)]}, provenance=provenance)
        assert db.relation("file") == [("./c",), ("b",)]
        assert db.relation("plain") == [("a/",), ("b",)]
