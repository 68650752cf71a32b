"""Properties: printed random programs re-parse to the same AST; no input crashes the front end."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.core.diagnostics import Diagnostic, DiagnosticError
from analyzer.engine import ast, check_program, parse_program
from analyzer.engine.builtins import BUILTINS

from . import dl_printer

RESERVED = {"count", "sum", "min", "max"}
ARITIES = {"p": 2, "q": 1, "e": 2, "mixed": 2, "concat": 3, "strlen": 2, "reaches": 3,
           "glob_match": 2, "split": 4}
DECLS = (ast.Decl("p", (ast.Column("x", "symbol"), ast.Column("n", "number"))),
         ast.Decl("q", (ast.Column("x", "symbol"),)),
         ast.Decl("e", (ast.Column("a", "symbol"), ast.Column("b", "symbol"))),
         ast.Decl("mixed", (ast.Column("a", "symbol"), ast.Column("b", "number"))))

names = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True).filter(lambda n: n not in RESERVED)
variables = st.sampled_from(["X", "Y", "Z", "N", "Abc", "_x"]).map(ast.Var)
constants = st.one_of(st.integers(-10**9, 10**9), st.text(max_size=6)).map(ast.Const)
leaves = st.one_of(variables, constants, st.just(ast.Wildcard()))
terms = st.recursive(leaves, lambda inner: st.builds(
    ast.BinOp, st.sampled_from("+-*/%"), inner, inner), max_leaves=4)
doc_lines = st.from_regex(r"[a-z]([a-z .]{0,12}[a-z])?", fullmatch=True)
docs = st.lists(doc_lines, max_size=3).map("\n".join)


@st.composite
def atoms(draw, rel=None):
    rel = rel or draw(st.one_of(st.sampled_from(sorted(ARITIES)), names))
    arity = ARITIES.get(rel, draw(st.integers(0, 3)))
    if rel == "reaches":
        first = [ast.Const(draw(st.sampled_from(["e", "mixed", "zz"])))]
        return ast.Atom(rel, tuple(first + draw(st.lists(terms, min_size=2, max_size=2))))
    return ast.Atom(rel, tuple(draw(st.lists(terms, min_size=arity, max_size=arity))))


def literals(depth: int = 0):
    plain = st.one_of(atoms(), atoms().map(ast.Negation),
                      st.builds(ast.Comparison, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]),
                                terms, terms))
    if depth >= 1:
        return plain
    aggregate = st.builds(
        lambda func, target, body, var: ast.Comparison(
            "=", var, ast.Aggregate(func, None if func == "count" else target, tuple(body))),
        st.sampled_from(["count", "sum", "min", "max"]), terms,
        st.lists(literals(depth + 1), min_size=1, max_size=2), variables)
    return st.one_of(plain, aggregate)


rules = st.builds(lambda head, body, doc: ast.Rule(head, tuple(body), doc),
                  atoms(), st.lists(literals(), max_size=3), docs)


@st.composite
def decls(draw):
    cols = draw(st.lists(names, min_size=0, max_size=3, unique=True))
    columns = tuple(ast.Column(c, draw(st.sampled_from(["symbol", "number"])),
                               draw(st.one_of(st.just(""), doc_lines))) for c in cols)
    return ast.Decl(draw(names), columns, draw(docs))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(rules, decls()), max_size=6))
def test_printed_programs_reparse_to_the_same_ast(statements):
    statements = list(DECLS) + statements
    program = parse_program(dl_printer.statements(statements))
    assert program.all_decls == [s for s in statements if isinstance(s, ast.Decl)]
    assert program.rules == [s for s in statements if isinstance(s, ast.Rule)]
    # every parsed program can be checked without an exception
    assert all(isinstance(d, Diagnostic) for d in check_program(program))


def _front_end_never_crashes(text: str) -> None:
    try:
        program = parse_program(text)
    except DiagnosticError as exc:
        assert exc.diagnostics and all(d.code.startswith("DL") for d in exc.diagnostics)
        return
    assert all(isinstance(d, Diagnostic) for d in check_program(program))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80))
def test_random_bytes_only_raise_diagnostics(data):
    _front_end_never_crashes(data.decode("utf-8", "replace"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='pqeX_Y(),.:-!=<>+*/%"\\{}; \n01count sum', max_size=60))
def test_datalog_like_text_only_raises_diagnostics(text):
    _front_end_never_crashes(text.replace(".include", ".inc"))


def test_builtin_names_in_the_strategy_exist():
    assert {"concat", "strlen", "reaches", "glob_match", "split"} <= set(BUILTINS)
