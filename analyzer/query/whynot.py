"""Why-not: why a pattern has no tuples ("why is changelog.md not loaded?").

For each rule that could derive the pattern's relation (its head agrees with the pattern's
constants), the rule body is asked as goals of growing length, in the order it is written:
the first literal after which nothing matches is the one that fails under the pattern's
bindings. For a failing positive atom the facts that came closest (most columns equal) are
shown, and a derived one is explained in turn, a few levels deep. Every step is an ordinary
query of the session, so negation, comparisons, builtins and aggregates mean what they mean
in the rules; nothing here decides anything about memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from analyzer.engine import ast
from analyzer.engine.astfmt import literal_text, rule_text, value_text

MAX_DEPTH = 3
MAX_CLOSEST = 3
_UNSAFE = {"DL108", "DL109", "DL110", "DL111", "DL112"}


@dataclass
class Miss:
    """One rule that could derive the pattern, and where its body stops matching."""

    rule: str
    location: str
    bindings: List[str]
    failing: Optional[str] = None  # the literal that fails (None: the head cannot match)
    reason: str = ""
    closest: List[str] = field(default_factory=list)
    deeper: List["WhyNot"] = field(default_factory=list)


@dataclass
class WhyNot:
    """The why-not answer for one pattern."""

    pattern: str
    holds: bool = False
    base: bool = False  # a base relation: no rule could derive it
    misses: List[Miss] = field(default_factory=list)
    closest: List[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: the pattern and the first failing literal of the first rule."""
        if self.holds:
            return f"{self.pattern} holds (ask why, not why-not)"
        if self.base:
            near = f"; closest: {self.closest[0]}" if self.closest else ""
            return f"{self.pattern} is not a fact of this project (no rule derives it){near}"
        first = next((m for m in self.misses if m.failing), None)
        if first is None:
            return f"{self.pattern} does not hold: no rule's head matches it"
        return f"{self.pattern} does not hold: {first.failing} {first.reason} ({first.location})"

    def render(self, depth: int = 0) -> str:
        """The summary, then per rule its bindings, failing literal, closest facts, sub-answers."""
        pad = "  " * depth
        lines = [pad + self.summary()] if depth == 0 else []
        if self.base and depth:
            lines.append(f"{pad}{self.pattern}: base relation, no such fact")
            lines += [f"{pad}  closest: {c}" for c in self.closest]
        for miss in self.misses:
            lines.append(f"{pad}rule {miss.rule}  ({miss.location})")
            if miss.bindings:
                lines.append(f"{pad}  with {', '.join(miss.bindings)}")
            if miss.failing is None:
                lines.append(f"{pad}  {miss.reason}")
                continue
            lines.append(f"{pad}  fails at {miss.failing}: {miss.reason}")
            lines += [f"{pad}  closest: {c}" for c in miss.closest]
            for sub in miss.deeper:
                lines.append(f"{pad}  why not {sub.pattern}:")
                lines.append(sub.render(depth + 2).rstrip("\n"))
        return "\n".join(line for line in lines if line) + "\n"


def why_not(session, pattern: str, depth: int = 0) -> WhyNot:
    """Explain why ``pattern`` (one atom, e.g. ``disposition("changelog.md", "loaded")``) has no tuples."""
    from analyzer.engine.syntax import parse_goal

    body = parse_goal(pattern)
    if len(body) != 1 or not isinstance(body[0], ast.Atom):
        from analyzer.query.adhoc import _error

        raise _error(None, "DL910", "why-not takes one atom, e.g. disposition(\"changelog.md\", \"loaded\")",
                     {"<goal>": pattern})
    return _explain(session, body[0], depth)


def _explain(session, atom: ast.Atom, depth: int) -> WhyNot:
    from analyzer.query.why import shipped_relative

    text = literal_text(atom, {})
    answer = WhyNot(text)
    if session.ask(text).rows:
        answer.holds = True
        return answer
    rules = [r for r in session.rules_for(atom.rel) if not r.is_fact]
    if not rules:
        answer.base = True
        answer.closest = _closest(session, atom, {})
        return answer
    for rule in rules:
        location = shipped_relative(str(rule.span)) if rule.span else "?"
        miss = Miss(rule_text(rule), location, [])
        binds = _head_bindings(rule.head, atom)
        if binds is None:
            continue  # the head has a different constant: this rule never derives the pattern
        miss.bindings = [literal_text(c, {}) for c in binds]
        _first_failure(session, rule, binds, miss, depth)
        answer.misses.append(miss)
    return answer


def _head_bindings(head: ast.Atom, atom: ast.Atom) -> Optional[List[ast.Comparison]]:
    """``Var = const`` for each pattern constant; None when a head constant contradicts it."""
    out = []
    for h, a in zip(head.args, atom.args):
        if not isinstance(a, ast.Const):
            continue
        if isinstance(h, ast.Const):
            if h.value != a.value:
                return None
            continue
        out.append(ast.Comparison("=", h, a, a.span))
    return out


def _first_failure(session, rule, binds, miss: Miss, depth: int) -> None:
    """Find the first literal of ``rule``'s body after which the prefix has no answers."""
    from analyzer.core.diagnostics import DiagnosticError

    prefix = list(binds)
    pending = []
    last_rows, last_cols = [()], []
    if prefix:
        first = session.ask(", ".join(literal_text(c, {}) for c in prefix))
        last_rows, last_cols = first.rows, first.columns
    for lit in rule.body:
        pending.append(lit)
        goal = ", ".join(literal_text(l, {}) for l in prefix + pending)
        try:
            answer = session.ask(goal)
        except DiagnosticError as exc:
            if any(d.code in _UNSAFE for d in exc.diagnostics):
                continue  # not yet evaluable on its own: take the next literal with it
            raise
        if not answer.rows:
            failing = pending[-1]
            miss.failing = _lit_text(failing)
            env = dict(zip(last_cols, last_rows[0])) if last_rows and last_cols else {}
            miss.reason = _reason(failing, env)
            if isinstance(failing, ast.Atom):
                miss.closest = _closest(session, failing, env)
                if depth < MAX_DEPTH and _derived(session, failing.rel):
                    ground = _ground(failing, env)
                    if ground is not None:
                        miss.deeper.append(_explain(session, ground, depth + 1))
            if env:
                miss.bindings += [f"{k} = {value_text(v)}" for k, v in env.items()
                                  if f"{k} = {value_text(v)}" not in miss.bindings]
            return
        prefix += pending
        pending = []
        last_rows, last_cols = answer.rows, answer.columns
    miss.reason = "every literal matches (the tuple would be derived: check the pattern's constants)"


def _lit_text(lit) -> str:
    return literal_text(lit, {})


def _reason(lit, env) -> str:
    shown = ", ".join(f"{k} = {value_text(v)}" for k, v in env.items())
    under = f" under {shown}" if shown else ""
    if isinstance(lit, ast.Negation):
        return f"the negated atom holds{under}"
    if isinstance(lit, ast.Comparison):
        return f"is false{under}"
    return f"no tuple matches{under}"


def _derived(session, rel: str) -> bool:
    return any(not r.is_fact for r in session.rules_for(rel))


def _ground(atom: ast.Atom, env) -> Optional[ast.Atom]:
    """``atom`` with the variables of ``env`` replaced by their values (others kept)."""
    args = []
    for arg in atom.args:
        if isinstance(arg, ast.Var) and arg.name in env:
            args.append(ast.Const(env[arg.name], arg.span))
        elif isinstance(arg, (ast.Var, ast.Const, ast.Wildcard)):
            args.append(arg)
        else:
            return None
    return ast.Atom(atom.rel, tuple(args), atom.span)


def _closest(session, atom: ast.Atom, env) -> List[str]:
    """Tuples of ``atom``'s relation agreeing with the most of its known values (at least one)."""
    decl = session.decl(atom.rel)
    if decl is None:
        return []
    known = {}
    for i, arg in enumerate(atom.args):
        if isinstance(arg, ast.Const):
            known[i] = arg.value
        elif isinstance(arg, ast.Var) and arg.name in env:
            known[i] = env[arg.name]
    if not known:
        return []
    goal = f"{atom.rel}({', '.join(f'C{i}' for i in range(decl.arity))})"
    rows = session.ask(goal).rows
    scored = sorted(((sum(row[i] == v for i, v in known.items()), row) for row in rows),
                    key=lambda sr: (-sr[0], [str(x) for x in sr[1]]))
    return [f"{atom.rel}({', '.join(value_text(v) for v in row)})" for score, row in scored[:MAX_CLOSEST] if score]
