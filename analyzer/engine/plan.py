"""Join planning: the order in which a rule body's literals are evaluated.

A literal is taken once it can run: a comparison, negation or builtin when its inputs are
bound (a builtin by one of its ``modes``), an aggregate when its grouping variables are
bound. Filters go first, then the relation atom with the most bound arguments (source
order breaks ties); for evaluation (not proof search) a builtin that binds variables comes
after the atoms with bound arguments. In a delta variant the delta atom is always the
outermost loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, List, Mapping, Optional, Set, Tuple

import analyzer.engine.ast as ast
from analyzer.engine.astfmt import literal_text
from analyzer.engine.errors import EngineError

SCAN, NEG, CMP, CALL = "scan", "neg", "cmp", "call"


@dataclass
class AggPlan:
    """An aggregate computed just before the step that uses it, with its own body plan."""

    node: ast.Aggregate
    steps: List["Step"]


@dataclass
class Step:
    """One literal in evaluation order; ``bound`` = variables bound before it runs."""

    kind: str
    literal: object
    bound: FrozenSet[str]
    delta: bool = False
    assign: Optional[str] = None  # for ``X = expr`` comparisons that bind X
    aggs: List[AggPlan] = field(default_factory=list)


def term_vars(term, out: Set[str]) -> Set[str]:
    """Variables a term needs bound to be computed (an aggregate needs its grouping vars)."""
    if isinstance(term, ast.Var):
        out.add(term.name)
    elif isinstance(term, ast.BinOp):
        term_vars(term.left, out)
        term_vars(term.right, out)
    elif isinstance(term, ast.Aggregate):
        out |= getattr(term, "_grouping", frozenset())
    return out


def all_vars(node, out: Set[str], skip=()) -> Set[str]:
    """Every variable occurring in a node (terms, literals, aggregates), except inside the
    nodes listed in ``skip`` (compared by identity)."""
    if any(node is s for s in skip):
        return out
    if isinstance(node, ast.Var):
        out.add(node.name)
    elif isinstance(node, ast.BinOp):
        all_vars(node.left, out, skip)
        all_vars(node.right, out, skip)
    elif isinstance(node, ast.Aggregate):
        if node.target is not None:
            all_vars(node.target, out, skip)
        for lit in node.body:
            all_vars(lit, out, skip)
    elif isinstance(node, ast.Atom):
        for t in node.args:
            all_vars(t, out, skip)
    elif isinstance(node, ast.Negation):
        all_vars(node.atom, out, skip)
    elif isinstance(node, ast.Comparison):
        all_vars(node.left, out, skip)
        all_vars(node.right, out, skip)
    return out


def outer_vars(rule: ast.Rule) -> Set[str]:
    """Variables of a rule outside its aggregates (all bound once the body has matched)."""
    out: Set[str] = set()
    for node in (rule.head,) + tuple(rule.body):
        all_vars(node, out, skip=tuple(aggregates_in(node, [])))
    return out


def aggregates_in(node, out: list) -> list:
    """Aggregates directly inside a literal or term (not those nested in other aggregates)."""
    if isinstance(node, ast.Aggregate):
        out.append(node)
    elif isinstance(node, ast.BinOp):
        aggregates_in(node.left, out)
        aggregates_in(node.right, out)
    elif isinstance(node, ast.Atom):
        for t in node.args:
            aggregates_in(t, out)
    elif isinstance(node, ast.Negation):
        aggregates_in(node.atom, out)
    elif isinstance(node, ast.Comparison):
        aggregates_in(node.left, out)
        aggregates_in(node.right, out)
    return out


def _literal_needs(lit, builtins) -> Set[str]:
    if isinstance(lit, ast.Atom):
        needs: Set[str] = set()
        for t in lit.args:
            if not isinstance(t, (ast.Var, ast.Wildcard, ast.Const)):
                term_vars(t, needs)
        return needs
    if isinstance(lit, ast.Negation):
        return term_vars_of_atom(lit.atom)
    return term_vars(lit.left, set()) | term_vars(lit.right, set())


def term_vars_of_atom(atom: ast.Atom) -> Set[str]:
    """Variables of an atom's arguments."""
    out: Set[str] = set()
    for t in atom.args:
        term_vars(t, out)
    return out


def _mode_ok(atom: ast.Atom, spec, bound: Set[str]) -> bool:
    def is_bound(t):
        if isinstance(t, ast.Wildcard):
            return False
        if isinstance(t, ast.Var):
            return t.name in bound
        return term_vars(t, set()) <= bound

    for mode in spec.modes:
        if len(mode) == len(atom.args) and all(
                c != "b" or is_bound(t) for c, t in zip(mode, atom.args)):
            return all(is_bound(t) for t in atom.args
                       if not isinstance(t, (ast.Var, ast.Wildcard, ast.Const)))
    return False


def plan_body(body: Tuple, bound: Set[str], builtins: Mapping,
              delta: Optional[int] = None, defer_calls: bool = False) -> List[Step]:
    """Order ``body`` given variables already ``bound``; ``delta`` = index of the delta atom.

    With ``defer_calls``, a builtin call that binds a variable (``concat(A, B, X)``,
    ``casefold(S, F)``) runs after the joins on bound arguments rather than before them:
    it never filters, so running it first only multiplies calls (10,000 wasted ``concat3``
    calls per registry rule on a 10,000-entry project). Proof search keeps the source-like
    order so that the proof it shows first does not change.
    """
    bound = set(bound)
    todo = list(range(len(body)))
    steps: List[Step] = []
    while todo:
        pick = None
        if delta is not None and delta in todo:
            pick = delta
        else:
            pick = _choose(body, todo, bound, builtins, defer_calls)
        if pick is None:
            lit = body[todo[0]]
            missing = sorted(_literal_needs(lit, builtins) - bound) or ["(builtin inputs)"]
            raise EngineError(f"cannot evaluate {literal_text(lit)}: variable(s) "
                              f"{', '.join(missing)} are not bound by any earlier literal",
                              getattr(lit, "span", None), code="DL904")
        todo.remove(pick)
        steps.append(_make_step(body[pick], bound, builtins, pick == delta, defer_calls))
    return steps


def _choose(body, todo, bound, builtins, defer_calls) -> Optional[int]:
    best, best_score = None, None
    for i in todo:
        lit = body[i]
        score = None
        if isinstance(lit, ast.Comparison):
            need = _literal_needs(lit, builtins)
            if need <= bound:
                score = (3, 0)
            elif lit.op == "=" and _assignable(lit, bound):
                score = (2, 0)
        elif isinstance(lit, ast.Negation):
            if _literal_needs(lit, builtins) <= bound:
                score = (3, 0)
        elif lit.rel in builtins:
            if _mode_ok(lit, builtins[lit.rel], bound):
                # a call that only tests is a filter; one that binds a variable filters
                # nothing, so it waits until the joins on bound arguments are done
                binds = any(isinstance(t, ast.Var) and t.name not in bound for t in lit.args)
                score = (1, 0.5) if binds and defer_calls else (2, 0)
        elif all(isinstance(t, ast.Const) or (isinstance(t, ast.Var) and t.name in bound)
                 for t in lit.args):
            score = (3, 0)  # a fully bound atom is a membership test: a cheap filter
        elif _literal_needs(lit, builtins) <= bound:
            nbound = sum(1 for t in lit.args if isinstance(t, ast.Const)
                         or (isinstance(t, ast.Var) and t.name in bound))
            score = (1, nbound)
        if score is not None and (best_score is None or score > best_score):
            best, best_score = i, score
    return best


def _assignable(lit: ast.Comparison, bound) -> bool:
    for var, other in ((lit.left, lit.right), (lit.right, lit.left)):
        if isinstance(var, ast.Var) and var.name not in bound and term_vars(other, set()) <= bound:
            return True
    return False


def _make_step(lit, bound: Set[str], builtins, is_delta, defer_calls: bool) -> Step:
    before = frozenset(bound)
    aggs = [AggPlan(a, plan_body(a.body, bound, builtins, defer_calls=defer_calls))
            for a in aggregates_in(lit, [])]
    if isinstance(lit, ast.Comparison):
        assign = None
        if not (_literal_needs(lit, builtins) <= bound):
            var = lit.left if isinstance(lit.left, ast.Var) and lit.left.name not in bound else lit.right
            assign = var.name
            bound.add(assign)
        return Step(CMP, lit, before, assign=assign, aggs=aggs)
    if isinstance(lit, ast.Negation):
        return Step(NEG, lit, before, aggs=aggs)
    kind = CALL if lit.rel in builtins else SCAN
    for t in lit.args:
        if isinstance(t, ast.Var):
            bound.add(t.name)
    return Step(kind, lit, before, delta=is_delta, aggs=aggs)


def annotate_aggregates(rule: ast.Rule) -> None:
    """Record each aggregate's grouping variables (shared with the rest of the rule)."""
    for lit in rule.body:
        for agg in _all_aggregates(lit, []):
            inner = all_vars(agg, set())
            outer = all_vars(rule.head, set(), skip=(agg,))
            for other in rule.body:
                all_vars(other, outer, skip=(agg,))
            object.__setattr__(agg, "_grouping", frozenset(inner & outer))


def _all_aggregates(node, out):
    for agg in aggregates_in(node, []):
        out.append(agg)
        for lit in agg.body:
            _all_aggregates(lit, out)
    return out
