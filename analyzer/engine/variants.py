"""The compiled form of a program: per stratum, each rule's variants as Python functions.

A rule with no body atom in its own stratum gets one variant over the full relations. A
recursive rule gets one *delta variant* per body atom of its stratum: that atom reads the
tuples new in the last iteration, the others read everything (semi-naive evaluation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

import analyzer.engine.ast as ast

import analyzer.engine.shapes as shapes
from analyzer.engine.compile import PLAIN, PROV, WHY, compile_function
from analyzer.engine.runtime import RUNTIME
from analyzer.engine.plan import NEG, SCAN, plan_body
from analyzer.engine.stratify import Stratum


@dataclass
class Variant:
    """One generated function: which rule, which body atom reads the delta, its inputs."""

    rule: int
    delta: Optional[int]   # body position read as a delta; None = reads full relations
    delta_rel: Optional[str]
    fn: object
    params: List[Tuple]    # resource keys, in the function's parameter order
    source: str
    steps: list            # the plan the source was generated from
    name: str = ""         # the generated function's name in :attr:`source`
    # the same variant for unique indexes (analyzer/engine/indexes.py), same parameters;
    # plain variants that look an index up only
    unique_fn: object = None
    unique_name: str = ""
    unique_source: str = ""
    head: str = ""         # the relation the rule derives
    # what makes the variant derive nothing for sure, tested before it runs (evaluate.py
    # ``idle``): per positive body atom over full relations, ``(relation, selection key or
    # None)``; kept apart from ``steps`` so that a stored program need not load its plans
    empty_if: Tuple = ()
    # and per membership test of one column of the first atom's tuples (a one-column atom,
    # positive or negated, of a variable the first atom binds): ``(first relation, its
    # selection key or None, column, tested relation, negated)``: no tuple of the first atom
    # passes the test (``schema_issue``: every entry's file is canonical storage)
    filtered_if: Tuple = ()


def filter_checks(steps, builtins: Mapping) -> Tuple:
    """``filtered_if`` of a variant planned as ``steps`` (see :class:`Variant`)."""
    if not steps or steps[0].kind != SCAN or steps[0].delta:
        return ()
    first = steps[0].literal
    if not all(isinstance(t, (ast.Var, ast.Wildcard, ast.Const)) for t in first.args):
        return ()
    column = {}
    for i, t in enumerate(first.args):
        if isinstance(t, ast.Var):
            column.setdefault(t.name, i)
    cols = tuple(i for i, t in enumerate(first.args) if isinstance(t, ast.Const))
    selection = shapes.constant_key(first, cols) if cols else None
    if cols and selection is None:
        return ()
    checks = []
    for step in steps[1:]:
        negated = step.kind == NEG
        if not (negated or (step.kind == SCAN and not step.delta)):
            continue
        atom = step.literal.atom if negated else step.literal
        if atom.rel not in builtins and len(atom.args) == 1 and isinstance(atom.args[0], ast.Var) \
                and atom.args[0].name in column:
            checks.append((first.rel, selection, column[atom.args[0].name], atom.rel, negated))
    return tuple(checks)


def empty_checks(steps) -> Tuple:
    """``empty_if`` of a variant planned as ``steps``: every positive atom it scans over a
    full relation (outside aggregates), with the selection key of its constant columns."""
    checks = []
    for step in steps:
        if step.kind != SCAN or step.delta:
            continue
        atom = step.literal
        cols = tuple(i for i, t in enumerate(atom.args) if not isinstance(t, (ast.Var, ast.Wildcard)))
        checks.append((atom.rel, shapes.constant_key(atom, cols)))
    return tuple(checks)


def _head_vars(rule: ast.Rule):
    return {t.name for t in rule.head.args if isinstance(t, ast.Var)}


def build_variants(rules: List[ast.Rule], stratum: Stratum, builtins: Mapping,
                   flavour: str, link_later: bool = False) -> Tuple[List[Variant], List[Variant]]:
    """(non-recursive variants, delta variants) of a stratum's rules in ``flavour``.

    With ``link_later`` the functions are only generated, not compiled (``fn`` is None):
    :func:`link` then compiles every variant of a program in one go.
    """
    own = set(stratum.relations)
    base, delta = [], []
    for ri in stratum.rules:
        rule = rules[ri]
        if rule is None:  # a fact: loaded as a base tuple, nothing to compile
            continue
        positions = [i for i, lit in enumerate(rule.body) if isinstance(lit, ast.Atom)
                     and lit.rel not in builtins and lit.rel in own]
        if not positions:
            base.append(_variant(rule, ri, None, builtins, flavour, link_later))
        for i in positions:
            delta.append(_variant(rule, ri, i, builtins, flavour, link_later))
    return base, delta


def why_variant(rule: ast.Rule, ri: int, builtins: Mapping) -> Variant:
    """A generator function yielding every instantiation of ``rule`` whose head is ``T``."""
    return _variant(rule, ri, None, builtins, WHY)


def link(groups) -> object:
    """Compile the sources of every variant in ``groups`` (per stratum, ``(base, delta)``)
    as one module, bind each variant's ``fn``, and return the code object (the program
    cache stores it). One ``compile`` call for the whole program instead of one per
    function halves the code-generation time of a cold compile."""
    variants = [v for base, delta in groups for v in (*base, *delta)]
    sources = [text for v in variants for text in (v.source, v.unique_source) if text]
    code = compile("\n\n".join(sources), "<datalog program>", "exec")
    namespace: Dict[str, object] = dict(RUNTIME)
    exec(code, namespace)  # noqa: S102 - our own generated code
    for v in variants:
        v.fn = namespace[v.name]
        v.unique_fn = namespace[v.unique_name] if v.unique_name else None
    return code


def _variant(rule: ast.Rule, ri: int, delta: Optional[int], builtins, flavour, link_later: bool = False) -> Variant:
    bound = _head_vars(rule) if flavour == WHY else set()
    steps = plan_body(rule.body, bound, builtins, delta=delta, defer_calls=flavour != WHY)
    fname = f"rule{ri}" + ("" if delta is None else f"_delta{delta}") + ("" if flavour == PLAIN else "_" + flavour)
    base = delta is None and flavour != WHY
    source, params = compile_function(rule, ri, steps, flavour, builtins, fname, base=base)
    delta_rel = None if delta is None else rule.body[delta].rel
    variant = Variant(ri, delta, delta_rel, None, params, source, steps, fname,
                      head=rule.head.rel, empty_if=empty_checks(steps),
                      filtered_if=filter_checks(steps, builtins) if delta is None else ())
    if flavour == PLAIN and shapes.TIGHT and any(key[0] == "I" for key in params):
        usource, uparams = compile_function(rule, ri, steps, flavour, builtins, fname + "_u", base=base, unique=True)
        if uparams == params:  # always (the same resources in the same order); else no unique form
            variant.unique_name, variant.unique_source = fname + "_u", usource
    if link_later:
        return variant
    namespace: Dict[str, object] = dict(RUNTIME)
    exec(compile(source + "\n\n" + variant.unique_source, f"<datalog {fname}>", "exec"), namespace)  # noqa: S102
    variant.fn = namespace[fname]
    variant.unique_fn = namespace.get(variant.unique_name) if variant.unique_name else None
    return variant


__all__ = ["Variant", "build_variants", "empty_checks", "filter_checks", "link", "why_variant", "PLAIN", "PROV", "WHY"]
