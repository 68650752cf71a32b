"""Adapter: run `datalog-conformance` program cases on our engine.

The suite hands an evaluator a ``Program`` with ``facts`` ({predicate: [tuple, ...]}) and
``rules`` (rule strings in a Soufflé-like syntax without declarations) and compares the
returned model per predicate. Its syntax differs from ours in a few places, which we
translate token by token (never by editing the program's meaning):

* every bare identifier in an argument position is a variable (any case): we rename it
  ``V_<name>`` so it can never collide with one of our keywords (``count``, ``min``...);
* predicates may be any identifier (``A``, ``X``, ``count_third``): we rename them
  ``r_<name>`` so they can never collide with a builtin, and map them back in the model;
* negation is ``not atom``; ours is ``!atom``;
* a body literal may be wrapped in parentheses, ``(n <= 25)``; ours has no parentheses
  around literals, so a wrapping pair is dropped;
* the final ``.`` of a rule is optional there, required here.

There are no declarations, so we synthesise a ``.decl`` per predicate: arity from its first
occurrence (facts first, then rules), column types inferred from fact values and rule
constants, unified through shared variables. Facts are written into the program text, so
our parser and checker see exactly what the suite gives (``"01"`` stays a symbol).

Our static checks report diagnostics with stable ``DL`` codes; :data:`SUITE_ERROR_NAMES`
maps the ones the suite expects onto its (unnormalised) error names, and
:class:`ConformanceError` carries the result as ``code`` (the runner accepts a matching
``code``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Dict, List, Optional, Tuple

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine import Engine, EngineError, load_program, parse_program
from analyzer.engine import ast

#: Our diagnostic code -> the suite's name for that kind of error.
SUITE_ERROR_NAMES = {
    "DL103": "arity_mismatch",  # atom with the wrong number of arguments
    "DL108": "unbound_variable",  # head variable not bound by a positive body literal
    "DL110": "unbound_variable",  # variable in an expression never bound
    "DL109": "SafetyViolationError",  # variable only under negation
    "DL113": "safety_violations",  # wildcard `_` in a head
    "DL115": "cyclic_negation",  # negation through recursion (checker)
    "DL901": "cyclic_negation",  # the same, found while stratifying
}

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+|:-|!=|<=|>=|\S')
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_REL_PREFIX = "r_"
_VAR_PREFIX = "V_"


class ConformanceError(Exception):
    """Our engine rejected a program; ``code`` is the suite's name for the error when known."""

    def __init__(self, code: str, message: str, our_codes: Tuple[str, ...] = ()):
        super().__init__(message)
        self.code = code
        self.our_codes = our_codes


# ---- syntax translation ---------------------------------------------------------------------

def _split_top(tokens: List[str], sep: str) -> List[List[str]]:
    """Split ``tokens`` at ``sep`` where it is outside parentheses and braces."""
    parts, depth, current = [], 0, []
    for tok in tokens:
        if tok in "({":
            depth += 1
        elif tok in ")}":
            depth -= 1
        if tok == sep and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(tok)
    parts.append(current)
    return parts


def _wrapped(tokens: List[str]) -> bool:
    """True when the first token's ``(`` is closed by the last token."""
    if len(tokens) < 2 or tokens[0] != "(" or tokens[-1] != ")":
        return False
    depth = 0
    for i, tok in enumerate(tokens):
        depth += tok == "("
        depth -= tok == ")"
        if depth == 0:
            return i == len(tokens) - 1
    return False


def _literal(tokens: List[str]) -> str:
    while _wrapped(tokens):
        tokens = tokens[1:-1]
    out = []
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok == "not" and _IDENT.match(nxt):
            out.append("!")
        elif _IDENT.match(tok) and tok != "_":
            out.append((_REL_PREFIX if nxt == "(" else _VAR_PREFIX) + tok)
        else:
            out.append(tok)
    return " ".join(out)


def translate_rule(rule: str) -> str:
    """One suite rule in our syntax (see the module docstring for every difference)."""
    tokens = _TOKEN.findall(rule)
    while tokens and tokens[-1] == ".":
        tokens.pop()
    if ":-" not in tokens:
        return _literal(tokens) + "."
    cut = tokens.index(":-")
    body = [_literal(lit) for lit in _split_top(tokens[cut + 1:], ",")]
    return f"{_literal(tokens[:cut])} :- {', '.join(body)}."


def _const(value) -> str:
    if isinstance(value, bool):  # YAML true/false: the suite compares them as Python bools
        raise ConformanceError("unsupported_value", f"boolean fact value {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    raise ConformanceError("unsupported_value", f"fact value {value!r} of type {type(value).__name__}")


def fact_lines(facts: Dict[str, list]) -> List[str]:
    """Every suite fact as a line of our syntax."""
    return [f"{_REL_PREFIX}{pred}({', '.join(_const(v) for v in row)})."
            for pred in sorted(facts) for row in facts[pred]]


# ---- declarations ---------------------------------------------------------------------------

class _Types:
    """Union-find over typing slots: (relation, column) and (rule index, variable)."""

    def __init__(self):
        self.parent: dict = {}
        self.type: dict = {}

    def find(self, slot):
        self.parent.setdefault(slot, slot)
        while self.parent[slot] != slot:
            self.parent[slot] = self.parent[self.parent[slot]]
            slot = self.parent[slot]
        return slot

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
            # the first type seen wins; a clash is left for our checker to report
            if ra not in self.type and rb in self.type:
                self.type[ra] = self.type[rb]

    def fix(self, slot, typ):
        self.type.setdefault(self.find(slot), typ)


def _term_type(term) -> Optional[str]:
    if isinstance(term, ast.Const):
        return ast.NUMBER if isinstance(term.value, int) else ast.SYMBOL
    if isinstance(term, ast.BinOp):
        return ast.NUMBER
    return None


def _mark_numbers(term, rule_index, types) -> None:
    """Variables inside arithmetic are numbers."""
    if isinstance(term, ast.BinOp):
        for side in (term.left, term.right):
            if isinstance(side, ast.Var):
                types.fix((rule_index, side.name), ast.NUMBER)
            _mark_numbers(side, rule_index, types)


def synthesise_decls(facts: Dict[str, list], program: ast.Program) -> List[str]:
    """A ``.decl`` per relation: arity of its first occurrence, inferred column types.

    ``facts`` are the suite's facts (Python values), ``program`` our parse of the rules.
    """
    arity: dict = {}
    types = _Types()
    for pred in sorted(facts):
        for row in facts[pred]:
            rel = _REL_PREFIX + pred
            arity.setdefault(rel, len(row))
            for col, value in enumerate(row):
                types.fix((rel, col), ast.NUMBER if isinstance(value, int) else ast.SYMBOL)
    for index, rule in enumerate(program.rules):
        atoms = [rule.head] + [lit.atom if isinstance(lit, ast.Negation) else lit
                               for lit in rule.body if not isinstance(lit, ast.Comparison)]
        for atom in atoms:
            arity.setdefault(atom.rel, len(atom.args))
            for col, term in enumerate(atom.args):
                slot = (atom.rel, col)
                if isinstance(term, ast.Var):
                    types.union(slot, (index, term.name))
                elif _term_type(term):
                    types.fix(slot, _term_type(term))
                _mark_numbers(term, index, types)
        for lit in rule.body:
            if isinstance(lit, ast.Comparison):
                sides = (lit.left, lit.right)
                for side in sides:
                    _mark_numbers(side, index, types)
                if isinstance(sides[0], ast.Var) and isinstance(sides[1], ast.Var):
                    types.union((index, sides[0].name), (index, sides[1].name))
                for var, other in (sides, sides[::-1]):
                    if isinstance(var, ast.Var) and _term_type(other):
                        types.fix((index, var.name), _term_type(other))
    decls = []
    for rel in sorted(arity):
        cols = ", ".join(f"c{i}: {types.type.get(types.find((rel, i)), ast.SYMBOL)}"
                         for i in range(arity[rel]))
        decls.append(f".decl {rel}({cols})")
    return decls


# ---- evaluation -----------------------------------------------------------------------------

def program_text(facts: Dict[str, list], rules: List[str]) -> str:
    """The whole case as one program of ours: declarations, facts, rules."""
    rule_text = "\n".join(translate_rule(r) for r in rules) + "\n"
    try:
        parsed = parse_program(rule_text, "<conformance>")
    except DiagnosticError as exc:
        raise _as_conformance_error(exc) from None
    decls = synthesise_decls(facts, parsed)
    return "\n".join(decls + fact_lines(facts)) + "\n" + rule_text


def _as_conformance_error(exc: Exception) -> ConformanceError:
    if isinstance(exc, DiagnosticError):
        codes = tuple(d.code for d in exc.diagnostics if d.severity == "error")
    else:
        codes = (getattr(exc, "code", "DL900"),)
    names = [SUITE_ERROR_NAMES[c] for c in codes if c in SUITE_ERROR_NAMES]
    return ConformanceError(names[0] if names else codes[0], str(exc), codes)


def evaluate_text(text: str) -> Dict[str, set]:
    """Check and evaluate one of our programs; the model by the suite's predicate names."""
    try:
        program = load_program(text=text, name="<conformance>")
        db = Engine(program).evaluate({})
    except (DiagnosticError, EngineError) as exc:
        raise _as_conformance_error(exc) from None
    return {rel[len(_REL_PREFIX):]: set(db.relation(rel)) for rel in program.decls}


_CACHE: Dict[str, object] = {}


class OurEvaluator:
    """The suite's ``DatalogEvaluator`` protocol implemented on analyzer.engine."""

    def evaluate(self, program) -> Dict[str, set]:
        """Translate, check and evaluate a suite ``Program``; raise ConformanceError on rejection.

        Multi-case YAML files assert one relation per case over the same program, so the
        result (or the error) is cached by a digest of the case's facts and rules.
        """
        key = hashlib.sha256(repr((sorted(program.facts.items()), program.rules)).encode()).hexdigest()
        if key not in _CACHE:
            try:
                _CACHE[key] = evaluate_text(program_text(program.facts, program.rules))
            except ConformanceError as exc:
                _CACHE[key] = exc
        result = _CACHE[key]
        if isinstance(result, ConformanceError):
            raise result
        return result
