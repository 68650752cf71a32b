"""Text of AST nodes as a reader writes them (for proofs, profiles and generated-code comments).

With ``env`` (variable name -> value) variables are shown ground, which is how a proof
shows a negated atom or a builtin call; unbound variables stay as written.
"""

from __future__ import annotations

from typing import Mapping, Optional

import analyzer.engine.ast as ast


def value_text(value) -> str:
    """A constant as written in the rule language: numbers bare, symbols double-quoted."""
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _operand(term, env) -> str:
    # nested arithmetic keeps its parentheses: (X + 1) * 2 must not print as X + 1 * 2
    text = term_text(term, env)
    return f"({text})" if isinstance(term, ast.BinOp) else text


def term_text(term, env: Optional[Mapping] = None) -> str:
    """One term; variables replaced by their values from ``env`` when bound there."""
    if isinstance(term, ast.Var):
        if env is not None and term.name in env:
            return value_text(env[term.name])
        return term.name
    if isinstance(term, ast.Wildcard):
        return "_"
    if isinstance(term, ast.Const):
        return value_text(term.value)
    if isinstance(term, ast.BinOp):
        return f"{_operand(term.left, env)} {term.op} {_operand(term.right, env)}"
    if isinstance(term, ast.Aggregate):
        target = "" if term.target is None else " " + term_text(term.target)
        body = ", ".join(literal_text(lit, env) for lit in term.body)
        return f"{term.func}{target} : {{ {body} }}"
    raise TypeError(f"not a term: {term!r}")


def atom_text(atom: ast.Atom, env: Optional[Mapping] = None) -> str:
    """``rel(a, b)``."""
    return f"{atom.rel}({', '.join(term_text(t, env) for t in atom.args)})"


def literal_text(lit, env: Optional[Mapping] = None) -> str:
    """An atom, ``!atom`` or comparison."""
    if isinstance(lit, ast.Atom):
        return atom_text(lit, env)
    if isinstance(lit, ast.Negation):
        return "!" + atom_text(lit.atom, env)
    if isinstance(lit, ast.Comparison):
        return f"{term_text(lit.left, env)} {lit.op} {term_text(lit.right, env)}"
    raise TypeError(f"not a literal: {lit!r}")


def rule_text(rule: ast.Rule) -> str:
    """``head :- body.`` on one line (``head.`` for a fact)."""
    if not rule.body:
        return atom_text(rule.head) + "."
    return f"{atom_text(rule.head)} :- {', '.join(literal_text(l) for l in rule.body)}."
