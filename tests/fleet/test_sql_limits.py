"""The SQL back end stops where the native engine stops, with the same codes: a symbol over
the maximum length (DL931), division by zero (DL905); and refuses what it cannot compile (DL940)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")


from analyzer.engine.errors import EngineError
from analyzer.engine.evaluate import Engine
from analyzer.engine.syntax import parse_program


def _both(source: str, facts: dict):
    """The codes the native engine and the SQL back end stop with."""
    from analyzer.engine.sql.duck import DuckRun

    engine = Engine(parse_program(source, "<test>"))
    with pytest.raises(EngineError) as native:
        engine.evaluate(facts)
    run = DuckRun(engine)
    run.load([facts])
    with pytest.raises(EngineError) as sql:
        run.evaluate()
    return native.value.code, sql.value.code


def test_a_doubling_symbol_stops_with_dl931_in_both():
    native, sql = _both('.decl s(x: symbol)\ns("ab").\ns(C) :- s(X), concat(X, X, C).', {})
    assert native == sql == "DL931"


def test_division_by_zero_stops_with_dl905_in_both():
    native, sql = _both(".decl v(n: number)\n.decl d(n: number)\nd(N) :- v(M), N = 7 / M.", {"v": [(0,)]})
    assert native == sql == "DL905"


def test_a_graph_builtin_over_a_variable_relation_is_refused_with_dl940():
    from analyzer.engine.sql import emit
    from analyzer.engine import ast

    engine = Engine(parse_program('.decl e(a: symbol, b: symbol)\n.decl r(a: symbol)\nr(X) :- reaches("e", X, X).',
                                  "<test>"))
    rule = engine.rules[0]
    atom = rule.body[0]
    bad = ast.Rule(rule.head, (ast.Atom("e", (ast.Var("R"), ast.Wildcard())),
                               ast.Atom(atom.rel, (ast.Var("R"), *atom.args[1:]))))
    ctx = emit.Context(engine.program.decls, engine.builtins, lambda a: a.rel)
    with pytest.raises(EngineError) as err:
        emit.rule_select(ctx, bad)
    assert err.value.code == "DL940"
