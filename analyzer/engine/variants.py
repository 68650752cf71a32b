"""The compiled form of a program: per stratum, each rule's variants as Python functions.

A rule with no body atom in its own stratum gets one variant over the full relations. A
recursive rule gets one *delta variant* per body atom of its stratum: that atom reads the
tuples new in the last iteration, the others read everything (semi-naive evaluation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

from analyzer.engine import ast
from analyzer.engine.compile import PLAIN, PROV, RUNTIME, WHY, compile_function
from analyzer.engine.plan import plan_body
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


def _head_vars(rule: ast.Rule):
    return {t.name for t in rule.head.args if isinstance(t, ast.Var)}


def build_variants(rules: List[ast.Rule], stratum: Stratum, builtins: Mapping,
                   flavour: str) -> Tuple[List[Variant], List[Variant]]:
    """(non-recursive variants, delta variants) of a stratum's rules in ``flavour``."""
    own = set(stratum.relations)
    base, delta = [], []
    for ri in stratum.rules:
        rule = rules[ri]
        if rule is None:  # a fact: loaded as a base tuple, nothing to compile
            continue
        positions = [i for i, lit in enumerate(rule.body) if isinstance(lit, ast.Atom)
                     and lit.rel not in builtins and lit.rel in own]
        if not positions:
            base.append(_variant(rule, ri, None, builtins, flavour))
        for i in positions:
            delta.append(_variant(rule, ri, i, builtins, flavour))
    return base, delta


def why_variant(rule: ast.Rule, ri: int, builtins: Mapping) -> Variant:
    """A generator function yielding every instantiation of ``rule`` whose head is ``T``."""
    return _variant(rule, ri, None, builtins, WHY)


def _variant(rule: ast.Rule, ri: int, delta: Optional[int], builtins, flavour) -> Variant:
    bound = _head_vars(rule) if flavour == WHY else set()
    steps = plan_body(rule.body, bound, builtins, delta=delta, defer_calls=flavour != WHY)
    fname = f"rule{ri}" + ("" if delta is None else f"_delta{delta}") + ("" if flavour == PLAIN else "_" + flavour)
    source, params = compile_function(rule, ri, steps, flavour, builtins, fname)
    namespace: Dict[str, object] = dict(RUNTIME)
    exec(compile(source, f"<datalog {fname}>", "exec"), namespace)  # noqa: S102 - our own generated code
    delta_rel = None if delta is None else rule.body[delta].rel
    return Variant(ri, delta, delta_rel, namespace[fname], params, source, steps)


__all__ = ["Variant", "build_variants", "why_variant", "PLAIN", "PROV", "WHY"]
