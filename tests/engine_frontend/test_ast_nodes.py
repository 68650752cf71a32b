"""The syntax-tree nodes are attributes of analyzer.engine.ast, defined in
analyzer/engine/ast_nodes.py and imported on first use: evaluating a compiled program
imports none of them."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.engine import ast

REPO = Path(__file__).resolve().parents[2]


def test_every_node_is_an_attribute_of_ast():
    from analyzer.engine import ast_nodes

    for name in ast.NODES:
        assert getattr(ast, name) is getattr(ast_nodes, name)
    from analyzer.engine.ast import Atom, Rule  # noqa: F401 - from-imports reach them too

    assert Rule is ast_nodes.Rule
    with pytest.raises(AttributeError):
        ast.NoSuchNode  # noqa: B018


def test_nodes_keep_their_value_semantics():
    rule = ast.Rule(ast.Atom("p", (ast.Var("X"), ast.Const(1))), (ast.Negation(ast.Atom("q", (ast.Wildcard(),))),))
    assert pickle.loads(pickle.dumps(rule)) == rule
    assert repr(ast.Var("X")) == "Var(name='X', span=None)"
    assert hash(ast.Const(1)) == hash(ast.Const(1, span=None))
    with pytest.raises(AttributeError):  # frozen
        ast.Var("X").name = "Y"
    program = ast.Program({"p": ast.Decl("p", (ast.Column("x", ast.SYMBOL),))}, [rule])
    assert pickle.loads(pickle.dumps(program)) == program


def test_the_evaluating_modules_import_no_node():
    probe = ("import sys\nimport analyzer.engine.cache, analyzer.engine.evaluate, analyzer.engine.materialize, "
             "analyzer.engine.shipped, analyzer.query.read\nprint('analyzer.engine.ast_nodes' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(REPO), timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"
