"""Parsing: every construct into the right AST nodes and spans, docs, includes, syntax errors."""

import pytest

from analyzer.core.diagnostics import DiagnosticError
from analyzer.engine import ast, parse_program, parse_query
from analyzer.engine import errors, syntax
from analyzer.core.span import Span


def one_rule(text: str) -> ast.Rule:
    program = parse_program(text)
    assert len(program.rules) == 1
    return program.rules[0]


def syntax_error(text: str, path: str = "<string>"):
    with pytest.raises(DiagnosticError) as info:
        parse_program(text, path)
    assert len(info.value.diagnostics) == 1
    return info.value.diagnostics[0]


def test_decl_with_columns_and_span():
    program = parse_program('\n  .decl edge(src: symbol, weight: number)\n', "rules/x.dl")
    decl = program.decls["edge"]
    assert decl.columns == (ast.Column("src", "symbol"), ast.Column("weight", "number"))
    assert decl.span == Span("rules/x.dl", 2, 3)
    assert program.all_decls == [decl]
    assert program.files == ["rules/x.dl"]


def test_fact_constants_including_negative_and_escapes():
    rule = one_rule('p("a\\"b\\\\c\\nd\\te", -12, 7).')
    assert rule.is_fact
    assert [a.value for a in rule.head.args] == ['a"b\\c\nd\te', -12, 7]
    assert [a.span.col for a in rule.head.args] == [3, 20, 25]


def test_rule_literals():
    rule = one_rule('h(X) :- b(X, _), !c(X), X != "z", Y = X + 1.')
    b, neg, cmp, assign = rule.body
    assert b == ast.Atom("b", (ast.Var("X"), ast.Wildcard()))
    assert isinstance(b.args[1], ast.Wildcard) and b.span == Span("<string>", 1, 9)
    assert neg == ast.Negation(ast.Atom("c", (ast.Var("X"),)))
    assert neg.span.col == 18 and neg.atom.span.col == 19
    assert cmp == ast.Comparison("!=", ast.Var("X"), ast.Const("z"))
    assert assign == ast.Comparison("=", ast.Var("Y"), ast.BinOp("+", ast.Var("X"), ast.Const(1)))


@pytest.mark.parametrize("op", ["=", "!=", "<", "<=", ">", ">="])
def test_every_comparison_operator(op):
    rule = one_rule(f"h(X) :- b(X), X {op} 3.")
    assert rule.body[1] == ast.Comparison(op, ast.Var("X"), ast.Const(3))


def test_arithmetic_precedence_parentheses_and_unary_minus():
    rule = one_rule("h(Y) :- b(X), Y = -X + 2 * (X - 1) % 3 / 4.")
    x = ast.Var("X")
    minus_x = ast.BinOp("-", ast.Const(0), x)
    product = ast.BinOp("/", ast.BinOp("%", ast.BinOp("*", ast.Const(2),
                        ast.BinOp("-", x, ast.Const(1))), ast.Const(3)), ast.Const(4))
    assert rule.body[1].right == ast.BinOp("+", minus_x, product)


@pytest.mark.parametrize("text,func,target", [
    ("N = count : { p(X, _) }", "count", None),
    ("N = sum X : { p(X, _) }", "sum", ast.Var("X")),
    ("N = min X : { p(X, _), !q(X), X > 2 }", "min", ast.Var("X")),
    ("N = max X + 1 : { p(X, _) }", "max", ast.BinOp("+", ast.Var("X"), ast.Const(1))),
])
def test_aggregates(text, func, target):
    rule = one_rule(f"h(N) :- {text}.")
    agg = rule.body[0].right
    assert isinstance(agg, ast.Aggregate)
    assert (agg.func, agg.target) == (func, target)
    assert agg.body[0] == ast.Atom("p", (ast.Var("X"), ast.Wildcard()))
    assert agg.span.col == 13


def test_comments_are_ignored():
    program = parse_program('// line\n/* block\n .decl no(x: symbol) */ p("a"). // tail\n')
    assert not program.decls and program.rules[0].head.rel == "p"


def test_doc_comments_attach_to_next_decl_with_column_docs():
    text = ("/// Owner of a subject.\n/// - entry: the entry id\n/// Second line.\n"
            "/// - other: not a column, stays in the text\n"
            ".decl owner(entry: symbol, scope: symbol)\n"
            "// plain comment\n.decl bare(x: symbol)\n")
    program = parse_program(text)
    owner = program.decls["owner"]
    assert owner.doc == "Owner of a subject.\nSecond line.\n- other: not a column, stays in the text"
    assert owner.columns[0].doc == "the entry id" and owner.columns[1].doc == ""
    assert program.decls["bare"].doc == ""


def test_doc_comments_attach_to_rules_not_across_statements():
    text = '/// Why h.\nh(X) :- b(X). /// inside a line\np("a").\n'
    first, second = parse_program(text).rules
    assert first.doc == "Why h."
    assert second.doc == "inside a line"


def test_reserved_aggregate_names_still_usable_as_heads():
    assert one_rule('count("a").').head.rel == "count"


def test_parse_query():
    atom = parse_query('p(X, "a", _, -3)')
    assert atom == ast.Atom("p", (ast.Var("X"), ast.Const("a"), ast.Wildcard(), ast.Const(-3)))
    assert atom.span == Span("<query>", 1, 1)
    assert parse_query("p(X).") == ast.Atom("p", (ast.Var("X"),))
    with pytest.raises(DiagnosticError):
        parse_query("p(X")


def test_include_relative_to_including_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "schema.dl").write_text('.decl e(x: symbol)\n.include "../facts.dl"\n')
    (tmp_path / "facts.dl").write_text('e("a").\n')
    main = tmp_path / "main.dl"
    main.write_text('.include "sub/schema.dl"\n.include "facts.dl"\nr(X) :- e(X).\n')
    program = parse_program(main.read_text(), str(main))
    assert [r.head.rel for r in program.rules] == ["e", "r"]  # facts.dl read once
    assert [p.rsplit("/", 1)[-1] for p in program.files] == ["main.dl", "schema.dl", "facts.dl"]
    assert program.rules[0].span.path.endswith("facts.dl")


def test_include_cycle_is_named(tmp_path):
    (tmp_path / "a.dl").write_text('.include "b.dl"\n')
    (tmp_path / "b.dl").write_text('.decl x(a: symbol)\n.include "a.dl"\n')
    diag = syntax_error('.include "b.dl"\n', str(tmp_path / "a.dl"))
    assert diag.code == "DL018"
    assert diag.span == Span(str(tmp_path / "b.dl"), 2, 1)
    assert diag.message.endswith("a.dl -> " + str(tmp_path / "b.dl") + " -> " + str(tmp_path / "a.dl"))


def test_missing_include(tmp_path):
    diag = syntax_error('\n.include "nope.dl"\n', str(tmp_path / "a.dl"))
    assert (diag.code, diag.span.line, diag.span.col) == ("DL017", 2, 1)


def test_syntax_error_renders_position_source_line_and_caret():
    diag = syntax_error('.decl p(x: symbol)\np(X) :- q(X), X =< 3.\n', "r.dl")
    assert diag.render() == ("r.dl:2:18: DL009 write `<=` and `>=` (not `=<` or `=>`)\n"
                             "  p(X) :- q(X), X =< 3.\n"
                             "                   ^")


def test_error_at_end_of_input_points_after_last_character():
    diag = syntax_error('p("a")\n\n')
    assert (diag.code, diag.span.line, diag.span.col) == ("DL002", 1, 7)


@pytest.mark.parametrize("mistake,example", [
    (m, ex) for m in errors.KNOWN_MISTAKES for ex in m.examples])
def test_every_known_mistake_yields_its_code(mistake, example):
    assert syntax_error(example).code == mistake.code


@pytest.mark.parametrize("text,code", [
    ('p("a\\q").', "DL016"),
    ("p(X) :- q(X) & r(X).", "DL015"),
    ("p(X) :- q(X), X + .", "DL001"),
    ('p(X, Y) :- q(X, Y', "DL004"),
    ('foo(X) :- bar(X), baz(X, "a") qux(X).', "DL002"),
])
def test_errors_outside_the_table(text, code):
    assert syntax_error(text).code == code
