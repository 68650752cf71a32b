"""Safety of one rule: every variable bound, builtins called in a legal mode, aggregates placed.

Binding is computed to a fixpoint, so literal order never matters: a positive relation atom
binds its variables; ``X = term`` binds X once ``term`` is bound; a builtin binds its
variables once one of its modes is satisfied; an aggregate is bound once its grouping
variables (those it shares with the rest of the rule) are. Whatever is still unbound at the
fixpoint is reported, each variable once per code and rule.
"""

from __future__ import annotations

from typing import Iterator

import analyzer.engine.ast as ast
from analyzer.engine.builtins import BUILTINS


def term_vars(term) -> Iterator[ast.Var]:
    """Variables of ``term``, not looking inside aggregates."""
    if isinstance(term, ast.Var):
        yield term
    elif isinstance(term, ast.BinOp):
        yield from term_vars(term.left)
        yield from term_vars(term.right)


def subterms(term) -> Iterator:
    """Every sub-term of ``term``, not looking inside aggregate bodies."""
    yield term
    if isinstance(term, ast.BinOp):
        yield from subterms(term.left)
        yield from subterms(term.right)


def literal_args(lit) -> tuple:
    """The terms of a body literal: an atom's (or a negated atom's) arguments, a
    comparison's two sides."""
    if isinstance(lit, ast.Comparison):
        return (lit.left, lit.right)
    return (lit.atom if isinstance(lit, ast.Negation) else lit).args


def _deep_vars(term) -> set:
    """Names of every variable in ``term``, aggregate bodies and targets included."""
    names = set()
    for sub in subterms(term):
        if isinstance(sub, ast.Var):
            names.add(sub.name)
        elif isinstance(sub, ast.Aggregate):
            names |= _all_vars(sub.body)
            if sub.target is not None:
                names |= _deep_vars(sub.target)
    return names


def _all_vars(literals) -> set:
    return {name for lit in literals for term in literal_args(lit) for name in _deep_vars(term)}


class _RuleSafety:
    def __init__(self, rule: ast.Rule, report):
        self.rule, self.report = rule, report
        self.reported: set = set()
        outer = {v.name for t in rule.head.args for v in term_vars(t)}
        for lit in rule.body:
            outer |= {v.name for t in literal_args(lit) for v in term_vars(t)}
        self.outer = outer

    def once(self, span, code: str, key: str, message: str) -> None:
        if (code, key) not in self.reported:
            self.reported.add((code, key))
            self.report(span, code, message)

    def shared(self, agg: ast.Aggregate) -> set:
        return _deep_vars(agg) & self.outer

    # -- binding --------------------------------------------------------------------------

    def is_bound(self, term, bound: set) -> bool:
        if isinstance(term, ast.Const):
            return True
        if isinstance(term, ast.Var):
            return term.name in bound
        if isinstance(term, ast.BinOp):
            return self.is_bound(term.left, bound) and self.is_bound(term.right, bound)
        if isinstance(term, ast.Aggregate):
            return self.shared(term) <= bound
        return False  # a wildcard is never bound

    def mode_ok(self, builtin, atom: ast.Atom, bound: set) -> bool:
        return len(atom.args) == builtin.arity and any(
            all(m == "f" or self.is_bound(a, bound) for m, a in zip(mode, atom.args))
            for mode in builtin.modes)

    def binds(self, lit, bound: set) -> set:
        if isinstance(lit, ast.Atom):
            builtin = BUILTINS.get(lit.rel)
            if builtin is None or self.mode_ok(builtin, lit, bound):
                return {a.name for a in lit.args if isinstance(a, ast.Var)}
        elif isinstance(lit, ast.Comparison) and lit.op == "=":
            for var, other in ((lit.left, lit.right), (lit.right, lit.left)):
                if isinstance(var, ast.Var) and self.is_bound(other, bound):
                    return {var.name}
        return set()

    def fixpoint(self, literals, bound: set) -> set:
        bound = set(bound)
        changed = True
        while changed:
            changed = False
            for lit in literals:
                new = self.binds(lit, bound) - bound
                if new:
                    bound |= new
                    changed = True
        return bound

    # -- reporting ------------------------------------------------------------------------

    def unbound(self, terms, bound: set, code: str, what: str) -> None:
        for term in terms:
            for var in term_vars(term):
                if var.name not in bound:
                    self.once(var.span, code, var.name, f"variable {var.name} {what}")

    def wildcards(self, terms, where: str) -> None:
        for term in terms:
            for sub in subterms(term):
                if isinstance(sub, ast.Wildcard):
                    self.report(sub.span, "DL113", f"wildcard `_` cannot be used in {where}")

    def misplaced_aggregates(self, terms, where: str) -> None:
        for term in terms:
            for sub in subterms(term):
                if isinstance(sub, ast.Aggregate):
                    self.report(sub.span, "DL122", f"aggregate in {where}; write `N = "
                                f"{sub.func} ... : {{ ... }}` as a body literal")

    def literal(self, lit, bound: set, depth: int) -> None:
        terms = literal_args(lit)
        if isinstance(lit, ast.Comparison):
            self.comparison(lit, bound, depth)
            return
        self.misplaced_aggregates(terms, "an atom's arguments")
        self.wildcards([t for t in terms if isinstance(t, ast.BinOp)], "an arithmetic expression")
        if isinstance(lit, ast.Negation):
            self.unbound(terms, bound, "DL109",
                         f"in !{lit.atom.rel}(...) is not bound by a positive literal")
            return
        builtin = BUILTINS.get(lit.rel)
        if builtin is not None and not self.mode_ok(builtin, lit, bound):
            free = [str(i + 1) for i, a in enumerate(lit.args) if not self.is_bound(a, bound)]
            self.report(lit.span, "DL112", f"{lit.rel} called with argument(s) {', '.join(free)} "
                        f"unbound; allowed modes: {', '.join(builtin.modes)} "
                        "(b = must be bound)")
            return
        nested = [t for t in terms if not isinstance(t, ast.Var)]
        self.unbound(nested, bound, "DL110", "in an expression is never bound")

    def comparison(self, cmp: ast.Comparison, bound: set, depth: int) -> None:
        sides = (cmp.left, cmp.right)
        self.wildcards(sides, "a comparison")
        for side, other in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
            if isinstance(side, ast.Aggregate):
                if depth > 0:
                    self.report(side.span, "DL114", "aggregate inside an aggregate")
                elif cmp.op != "=" or not isinstance(other, (ast.Var, ast.Const)):
                    self.misplaced_aggregates([side], "this position")
                else:
                    self.aggregate(side, bound)
            else:
                self.misplaced_aggregates([t for t in subterms(side) if t is not side], "an expression")
        if any(isinstance(s, ast.Aggregate) for s in sides):
            return  # an unbound `N = agg` is explained by the aggregate's own DL111
        self.unbound(sides, bound, "DL110", f"in `{cmp.op}` is never bound")

    def aggregate(self, agg: ast.Aggregate, bound: set) -> None:
        for name in sorted(self.shared(agg) - bound):
            self.once(agg.span, "DL111", name, f"grouping variable {name} of this {agg.func} is "
                      "not bound outside the aggregate")
        inner = self.fixpoint(agg.body, bound)
        if agg.target is not None:
            self.wildcards([agg.target], f"a {agg.func} target")
            self.unbound([agg.target], inner, "DL111",
                         f"({agg.func} target) is not bound by the aggregate body")
        for lit in agg.body:
            self.literal(lit, inner, depth=1)

    def check(self) -> None:
        rule = self.rule
        bound = self.fixpoint(rule.body, set())
        self.wildcards(rule.head.args, "a rule head")
        self.misplaced_aggregates(rule.head.args, "a rule head")
        if rule.is_fact:
            names = sorted({v.name for t in rule.head.args for v in term_vars(t)})
            if names:
                self.report(rule.head.span, "DL117",
                            f"fact {rule.head.rel} is not ground: variable(s) {', '.join(names)}")
        else:
            self.unbound(rule.head.args, bound, "DL108",
                         f"in the head of {rule.head.rel} is not bound by a positive body literal")
        for lit in rule.body:
            self.literal(lit, bound, depth=0)


def check_safety(rule: ast.Rule, report) -> None:
    """Report unbound variables, illegal builtin modes, misplaced wildcards and aggregates."""
    _RuleSafety(rule, report).check()
