"""Static checks of a parsed rule program: every problem a DLnnn diagnostic with a caret.

Checks: declarations (undeclared, conflicting, arity), column types, safety (every variable
bound, computed to a fixpoint so literal order does not matter), builtin binding modes,
wildcards and aggregates where they cannot be evaluated, ground facts, and negation or
aggregation through recursion (diagnosed here; the back end stratifies). The safety
analysis lives in :mod:`analyzer.engine.safety`.
"""

from __future__ import annotations

from typing import List, Optional

from analyzer.core.diagnostics import Diagnostic, DiagnosticError, sort_diagnostics
import analyzer.engine.ast as ast
import analyzer.engine.sourcefile as sourcefile
from analyzer.engine.builtins import ANY, BUILTINS, CONSTANT_CHECKS
from analyzer.engine.errors import INCLUDE_NOT_FOUND, syntax_codes
from analyzer.engine.syntax import line_of, parse_program
from analyzer.core.span import Span

CHECK_CODES = {
    "DL101": "relation used (in a head, body or fact) without a `.decl`",
    "DL102": "relation declared twice with different columns (identical redeclaration is fine)",
    "DL103": "atom or builtin call with the wrong number of arguments",
    "DL104": "constant or expression of the wrong type for its column",
    "DL105": "variable used at columns of different types",
    "DL106": "arithmetic (or sum) on symbols",
    "DL107": "comparison between a number and a symbol",
    "DL108": "head variable not bound by a positive body literal (unsafe rule)",
    "DL109": "variable in a negation not bound by a positive literal",
    "DL110": "variable in a comparison or expression never bound",
    "DL111": "aggregate variable not bound (grouping variable outside, or target inside the body)",
    "DL112": "builtin called with arguments unbound in a way no mode allows",
    "DL113": "wildcard `_` in a head, comparison or expression",
    "DL114": "aggregate inside an aggregate",
    "DL115": "negation through recursion (the cycle is named)",
    "DL116": "aggregation through recursion (the cycle is named)",
    "DL117": "fact with variables (facts must be ground)",
    "DL118": "graph builtin's relation argument is not a declared binary relation of one node type",
    "DL119": "builtin used as a rule head",
    "DL120": "declaration uses a builtin's name",
    "DL121": "declaration with a duplicate column name",
    "DL122": "aggregate not on one side of `=` in a rule body",
    "DL123": "graph builtin over a relation in its own recursion (the cycle is named)",
    "DL124": "constant builtin argument that can never work (invalid glob or regular expression)",
}


def markdown_code_table() -> str:
    """Every DL code of the front end with its meaning (docs/rule-language.md; a test syncs it)."""
    rows = ["| code | meaning |", "| --- | --- |"]
    rows += [f"| {code} | {text} |" for code, text in {**syntax_codes(), **CHECK_CODES}.items()]
    return "\n".join(rows)


class Reporter:
    """Collects diagnostics, adding the source line for the caret."""

    def __init__(self, program: ast.Program):
        self.sources = program.sources
        self.diags: List[Diagnostic] = []

    def __call__(self, span: Optional[Span], code: str, message: str, severity: str = "error"):
        span = span or Span("<unknown>")
        text = self.sources.get(span.path)
        line = line_of(text, span.line) if text is not None else None
        self.diags.append(Diagnostic(span, code, message, severity, line))


def check_program(program: ast.Program) -> List[Diagnostic]:
    """Run every static check; return the diagnostics sorted by location (empty = fine)."""
    from analyzer.engine.safety import check_safety

    report = Reporter(program)
    _check_decls(program, report)
    for directive in program.directives:
        for rel in directive.relations:
            if rel not in program.decls:
                report(directive.span, "DL101", f".{directive.kind} names undeclared relation {rel}")
    for rule in program.rules:
        atoms = _check_atoms(program, rule, report)
        if atoms:
            _check_types(program, rule, report)
        check_safety(rule, report)
    _check_recursion(program, report)
    return sort_diagnostics(report.diags)


def load_program(path=None, *, text: Optional[str] = None, name: str = "<string>") -> ast.Program:
    """Parse (from ``path`` or ``text``) and check; raise DiagnosticError on any error."""
    if path is not None:
        name = str(path)
        try:
            text = sourcefile.read_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise DiagnosticError([Diagnostic(Span(name), INCLUDE_NOT_FOUND,
                                              f"cannot read {name!r}: {reason}")]) from None
    program = parse_program(text or "", name)
    diags = check_program(program)
    if any(d.severity == "error" for d in diags):
        raise DiagnosticError(diags)
    return program


# ---- declarations and atoms -----------------------------------------------------------------

def _shape(decl: ast.Decl) -> tuple:
    return tuple((c.name, c.type) for c in decl.columns)


def _check_decls(program: ast.Program, report: Reporter) -> None:
    for decl in program.all_decls:
        first = program.decls[decl.name]
        if decl is not first and _shape(decl) != _shape(first):
            report(decl.span, "DL102", f"relation {decl.name} redeclared with different columns "
                   f"(first declared at {first.span})")
        if decl.name in BUILTINS:
            report(decl.span, "DL120", f"{decl.name} is a builtin and cannot be declared")
        names = [c.name for c in decl.columns]
        for dup in sorted({n for n in names if names.count(n) > 1}):
            report(decl.span, "DL121", f"column {dup} declared twice in {decl.name}")


def iter_atoms(literals, depth: int = 0):
    """Yield ``(atom, negated, aggregate_depth)`` for every atom, inside aggregates too."""
    for lit in literals:
        if isinstance(lit, ast.Atom):
            yield lit, False, depth
        elif isinstance(lit, ast.Negation):
            yield lit.atom, True, depth
        for term in _literal_terms(lit):
            for agg in iter_aggregates(term):
                yield from iter_atoms(agg.body, depth + 1)


def _literal_terms(lit) -> tuple:
    if isinstance(lit, ast.Comparison):
        return (lit.left, lit.right)
    atom = lit.atom if isinstance(lit, ast.Negation) else lit
    return atom.args


def iter_aggregates(term):
    """Aggregates directly in ``term`` (not those nested inside an aggregate body)."""
    if isinstance(term, ast.Aggregate):
        yield term
    elif isinstance(term, ast.BinOp):
        yield from iter_aggregates(term.left)
        yield from iter_aggregates(term.right)


def _check_atoms(program: ast.Program, rule: ast.Rule, report: Reporter) -> bool:
    """Undeclared relations, arity, graph builtins' relation argument; False if any failed."""
    ok = True
    head = rule.head
    if head.rel in BUILTINS:
        report(head.span, "DL119", f"{head.rel} is a builtin and cannot be defined by a rule")
        ok = False
    atoms = [atom for atom, _neg, _depth in iter_atoms(rule.body)]
    for atom in ([] if head.rel in BUILTINS else [head]) + atoms:
        builtin = BUILTINS.get(atom.rel)
        decl = program.decls.get(atom.rel)
        if builtin is None and decl is None:
            report(atom.span, "DL101", f"relation {atom.rel} is not declared")
            ok = False
            continue
        arity = builtin.arity if builtin else decl.arity
        if len(atom.args) != arity:
            kind = "builtin" if builtin else "relation"
            report(atom.span, "DL103", f"{kind} {atom.rel} takes {arity} argument(s), "
                   f"got {len(atom.args)}")
            ok = False
        elif builtin and builtin.relation_arg is not None:
            ok = _check_relation_arg(program, atom, builtin.relation_arg, report) and ok
        elif builtin and atom.rel in CONSTANT_CHECKS:
            _check_constant_arg(atom, report)
    return ok


def _check_constant_arg(atom: ast.Atom, report: Reporter) -> None:
    index, problem_of = CONSTANT_CHECKS[atom.rel]
    arg = atom.args[index]
    if isinstance(arg, ast.Const) and isinstance(arg.value, str):
        problem = problem_of(arg.value)
        if problem:
            report(arg.span, "DL124", f"argument {index + 1} of {atom.rel}: {problem}")


def graph_relation(program: ast.Program, atom: ast.Atom, index: int) -> Optional[ast.Decl]:
    """The declared binary relation a graph builtin names, or None when it names none."""
    arg = atom.args[index]
    if isinstance(arg, ast.Const) and isinstance(arg.value, str):
        decl = program.decls.get(arg.value)
        if decl is not None and decl.arity == 2 and decl.columns[0].type == decl.columns[1].type:
            return decl
    return None


def _check_relation_arg(program, atom: ast.Atom, index: int, report: Reporter) -> bool:
    if graph_relation(program, atom, index) is not None:
        return True
    arg = atom.args[index]
    what = (f"relation {arg.value!r}" if isinstance(arg, ast.Const) and isinstance(arg.value, str)
            else "a non-constant")
    report(getattr(arg, "span", None) or atom.span, "DL118",
           f"{atom.rel} needs a string constant naming a declared binary relation whose two "
           f"columns have one type; got {what}")
    return False


# ---- types ---------------------------------------------------------------------------------

def _column_types(program: ast.Program, atom: ast.Atom) -> tuple:
    builtin = BUILTINS.get(atom.rel)
    if builtin is None:
        return tuple(c.type for c in program.decls[atom.rel].columns)
    node_type = None
    if builtin.relation_arg is not None:
        node_type = graph_relation(program, atom, builtin.relation_arg).columns[0].type
    return tuple(node_type if t == ANY else t for t in builtin.types)


def _const_type(value) -> str:
    return ast.NUMBER if isinstance(value, int) else ast.SYMBOL


class _Types:
    """Type inference for one rule: variable -> (type, where first typed)."""

    def __init__(self, program: ast.Program, report: Reporter):
        self.program, self.report = program, report
        self.vars: dict = {}

    def bind(self, var: ast.Var, typ: str, origin: str) -> None:
        known = self.vars.get(var.name)
        if known is None:
            self.vars[var.name] = (typ, origin)
        elif known[0] != typ:
            self.report(var.span, "DL105", f"variable {var.name} is used as {typ} ({origin}) "
                        f"and as {known[0]} ({known[1]})")

    def of(self, term) -> Optional[str]:
        """The type of ``term`` if known; checks arithmetic operands on the way."""
        if isinstance(term, ast.Const):
            return _const_type(term.value)
        if isinstance(term, ast.Var):
            known = self.vars.get(term.name)
            return known[0] if known else None
        if isinstance(term, ast.BinOp):
            for side in (term.left, term.right):
                self.number_operand(side, f"operand of `{term.op}`")
            return ast.NUMBER
        if isinstance(term, ast.Aggregate):
            if term.func == "sum":
                self.number_operand(term.target, "sum target")
            elif term.func in ("min", "max"):  # ordered: numbers, or symbols by code point
                return self.of(term.target)
            return ast.NUMBER
        return None

    def number_operand(self, term, what: str) -> None:
        typ = self.of(term)
        if typ == ast.SYMBOL:
            self.report(getattr(term, "span", None), "DL106", f"{what} is a symbol; arithmetic "
                        "and sum work on numbers")
        elif typ is None and isinstance(term, ast.Var):
            self.bind(term, ast.NUMBER, what)

    def atom(self, atom: ast.Atom) -> None:
        for i, (arg, typ) in enumerate(zip(atom.args, _column_types(self.program, atom))):
            where = f"column {i + 1} of {atom.rel}"
            if isinstance(arg, ast.Var):
                self.bind(arg, typ, where)
                continue
            actual = self.of(arg)
            if actual is not None and actual != typ:
                shown = repr(arg.value) if isinstance(arg, ast.Const) else "an arithmetic expression"
                self.report(getattr(arg, "span", None) or atom.span, "DL104",
                            f"{where} is {typ}, got {actual} {shown}")

    def comparison(self, cmp: ast.Comparison, final: bool) -> None:
        left, right = self.of(cmp.left), self.of(cmp.right)
        if left and right and left != right and final:
            self.report(cmp.span, "DL107", f"`{cmp.op}` compares a {left} with a {right}")
        elif left and not right and isinstance(cmp.right, ast.Var):
            self.bind(cmp.right, left, f"in `{cmp.op}` with a {left}")
        elif right and not left and isinstance(cmp.left, ast.Var):
            self.bind(cmp.left, right, f"in `{cmp.op}` with a {right}")


def _check_types(program: ast.Program, rule: ast.Rule, report: Reporter) -> None:
    types = _Types(program, report)
    for atom, _neg, _depth in iter_atoms(rule.body):
        types.atom(atom)
    comparisons = list(_iter_comparisons(rule.body))
    for _ in range(len(comparisons)):  # propagate `X = Y` typing to a fixpoint
        before = dict(types.vars)
        for cmp in comparisons:
            types.comparison(cmp, final=False)
        if before == types.vars:
            break
    for cmp in comparisons:
        types.comparison(cmp, final=True)
    types.atom(rule.head)


def _iter_comparisons(literals):
    for lit in literals:
        if isinstance(lit, ast.Comparison):
            yield lit
        for term in _literal_terms(lit):
            for agg in iter_aggregates(term):
                yield from _iter_comparisons(agg.body)


# ---- recursion through negation / aggregation ------------------------------------------------

_KIND_CODE = {"negation": "DL115", "aggregation": "DL116", "graph builtin": "DL123"}


def dependency_graph(program: ast.Program):
    """Relation dependency graph (head -> body relation) and the non-monotone uses.

    Returns ``(graph, uses)`` where ``uses`` lists ``(head, rel, kind, span)`` for each
    negation, aggregate-body atom and graph-builtin relation argument.
    """
    import networkx as nx  # only when a program is checked, never on the cached read path

    # only relations that rules connect: a cycle has edges, and an ad hoc goal's program
    # declares every relation of the base program it sits on (analyzer/query/adhoc.py)
    graph = nx.DiGraph()
    uses = []
    for rule in program.rules:
        head = rule.head.rel
        for atom, negated, depth in iter_atoms(rule.body):
            builtin = BUILTINS.get(atom.rel)
            if builtin is not None:
                decl = (graph_relation(program, atom, builtin.relation_arg)
                        if builtin.relation_arg is not None and len(atom.args) == builtin.arity
                        else None)
                if decl is not None:
                    graph.add_edge(head, decl.name)
                    uses.append((head, decl.name, "graph builtin", atom.span))
                continue
            graph.add_edge(head, atom.rel)
            kind = "negation" if negated else "aggregation" if depth else None
            if kind:
                uses.append((head, atom.rel, kind, atom.span))
    return graph, uses


def _check_recursion(program: ast.Program, report: Reporter) -> None:
    import networkx as nx  # lazily, like dependency_graph

    graph, uses = dependency_graph(program)
    if not uses:
        return
    component = {}
    for members in nx.strongly_connected_components(graph):
        for node in members:
            component[node] = min(members)
    for head, rel, kind, span in uses:
        if component.get(head) != component.get(rel) or head not in component:
            continue
        path = nx.shortest_path(graph, rel, head)
        cycle = " -> ".join([head] + path)
        report(span, _KIND_CODE[kind], f"{kind} through recursion: {cycle}")


def variable_types(program: ast.Program, body) -> dict:
    """The type the checker infers for each variable of ``body`` (a tuple of literals over
    ``program``'s declarations): name -> "symbol" | "number". Variables it cannot type are
    left out; problems are not reported here (:func:`check_program` reports them)."""
    types = _Types(program, lambda *a, **k: None)
    for atom, _neg, _depth in iter_atoms(body):
        if atom.rel in program.decls or atom.rel in BUILTINS:
            types.atom(atom)
    comparisons = list(_iter_comparisons(body))
    for _ in range(len(comparisons) + 1):
        before = dict(types.vars)
        for cmp in comparisons:
            types.comparison(cmp, final=False)
            for side in (cmp.left, cmp.right):  # `N = X + 1`, `N = count : {..}` type N too
                other = cmp.right if side is cmp.left else cmp.left
                if isinstance(side, ast.Var) and side.name not in types.vars:
                    typ = types.of(other)
                    if typ is not None:
                        types.bind(side, typ, "")
        if before == types.vars:
            break
    return {name: typ for name, (typ, _origin) in types.vars.items()}
