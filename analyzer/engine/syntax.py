"""Rule-language text -> :mod:`analyzer.engine.ast` nodes, with ``.include`` resolution.

The LALR parser for ``grammar/datalog.lark`` is built once per process and its tables are
kept in the verified cache (analyzer/core/larkcache.py), never inside the analyzed project.
``///`` doc comments are ignored by the grammar and gathered by a lexer callback, then
attached to the next ``.decl`` or rule by position (see docs/rule-language.md).
Every syntax error becomes a :class:`~analyzer.core.diagnostics.DiagnosticError`.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import List, Optional

import lark
from lark import Token
from lark.exceptions import UnexpectedInput

from analyzer.core.diagnostics import Diagnostic, DiagnosticError
import analyzer.engine.ast as ast
import analyzer.engine.errors as et
from analyzer.engine.limits import MAX_EXPRESSION_DEPTH, MAX_NUMBER
import analyzer.engine.sourcefile as sourcefile
from analyzer.core.resources import data_file
from analyzer.core.span import Span

_local = threading.local()  # the doc-comment tokens of the parse running on this thread


def _collect_doc(token: Token) -> Token:
    docs = getattr(_local, "docs", None)
    if docs is not None:
        docs.append(token)
    return token


_PARSER = None


def forget_parser() -> None:
    """Drop the parser built so far (the build step builds it again to ship its tables)."""
    global _PARSER
    _PARSER = None


def parser() -> lark.Lark:
    """The process-wide Lark parser for the rule language (built, or loaded from cache, once)."""
    global _PARSER
    if _PARSER is None:
        grammar = data_file("grammar", "datalog.lark").read_text(encoding="utf-8")
        from analyzer.core.larkcache import build

        _PARSER = build("datalog", grammar, parser="lalr", lexer="contextual",
                        propagate_positions=True, start=["start", "query", "goal"],
                        lexer_callbacks={"DOC_COMMENT": _collect_doc})
    return _PARSER


# ---- syntax errors -----------------------------------------------------------------------

def _signature(exc: UnexpectedInput):
    """How a parse failed, independent of where: LALR state (with what it would accept after
    reductions, which tells ``(X`` from ``X != Y`` at end of input) and the token or char."""
    state = (getattr(getattr(exc, "state", None), "position", None),
             frozenset(getattr(exc, "accepts", None) or ()))
    token = getattr(exc, "token", None)
    if token is not None:
        return ("token", state, token.type, str(token))
    return ("char", state, None, getattr(exc, "char", None))


_EXAMPLES: Optional[list] = None


def _example_signatures() -> list:
    global _EXAMPLES
    if _EXAMPLES is None:
        table = []
        for mistake in et.KNOWN_MISTAKES:
            for example in mistake.examples:
                try:
                    parser().parse(example, start="start")
                except UnexpectedInput as exc:
                    table.append((_signature(exc), mistake))
        _EXAMPLES = table
    return _EXAMPLES


def classify(exc: UnexpectedInput) -> tuple:
    """Return ``(code, message)`` for a Lark error: an exact known mistake, then a same-type one."""
    kind, state, ttype, value = _signature(exc)
    if kind == "char" and value == '"':
        return _known("DL005")
    by_type = None
    for (k, s, t, v), mistake in _example_signatures():
        if (k, s, t) != (kind, state, ttype):
            continue
        if v == value:
            return mistake.code, mistake.message
        by_type = by_type or mistake
    if by_type is not None:
        return by_type.code, by_type.message
    if kind == "char":
        return et.UNEXPECTED_CHARACTER, f"unexpected character {value!r}"
    accepts = state[1] or frozenset(getattr(exc, "expected", None) or ())
    # What the parser would accept names the likely omission when no example matched.
    if "RPAR" in accepts and "COMMA" in accepts and ttype != "$END":
        return _known("DL011")
    if "RPAR" in accepts and "DOT" not in accepts:
        return _known("DL004")
    if "DOT" in accepts:
        return _known("DL002")
    shown = "end of input" if ttype == "$END" else repr(value)
    return et.GENERIC_SYNTAX, f"unexpected {shown}; expected one of: {_pretty(accepts)}"


def _known(code: str) -> tuple:
    return code, next(m.message for m in et.KNOWN_MISTAKES if m.code == code)


def _pretty(terminals) -> str:
    """Terminal names as the user types them: ``)`` rather than RPAR."""
    shown = []
    for name in terminals:
        if name == "$END":
            shown.append("end of input")
            continue
        try:
            pattern = parser().get_terminal(name).pattern
        except KeyError:
            shown.append(name)
            continue
        shown.append(f"`{pattern.value}`" if pattern.type == "str" else name.lower())
    return ", ".join(sorted(shown))


def line_of(text: str, line: int) -> Optional[str]:
    """The 1-based ``line`` of ``text`` (for the caret display), or None when out of range."""
    lines = text.splitlines()
    return lines[line - 1] if 1 <= line <= len(lines) else None


def _error(text: str, path: str, line: int, col: int, code: str, message: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic(Span(path, line, col), code, message,
                                       source_line=line_of(text, line))])


def _syntax_error(exc: UnexpectedInput, text: str, path: str) -> DiagnosticError:
    code, message = classify(exc)
    line, col = getattr(exc, "line", -1), getattr(exc, "column", -1)
    at_end = getattr(getattr(exc, "token", None), "type", None) == "$END"
    if at_end or line is None or line < 1:  # end of input: point just past the last character
        stripped = text.rstrip()
        line = stripped.count("\n") + 1
        col = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return _error(text, path, line, col, code, message)


# ---- tree -> ast --------------------------------------------------------------------------

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


class _Builder:
    """Turns one file's Lark tree into ast nodes; knows the path and text for spans/errors."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        self.pending: list = []  # builtin atoms computing the functors of the literal being built
        self.fresh = 0

    def span(self, item) -> Span:
        if isinstance(item, Token):
            return Span(self.path, item.line, item.column)
        return Span(self.path, item.meta.line, item.meta.column)

    def string(self, token: Token) -> str:
        def unescape(match):
            if match.group(1) not in _ESCAPES:
                raise _error(self.text, self.path, token.line, token.column + match.start(),
                             et.INVALID_ESCAPE, f"unknown escape '\\{match.group(1)}' in string")
            return _ESCAPES[match.group(1)]
        return re.sub(r"\\(.)", unescape, token[1:-1])

    def term(self, node, depth: int = 0):
        if isinstance(node, Token):  # never: terminals are wrapped by name/string/number rules
            raise AssertionError(node)
        kind = node.data
        if depth > MAX_EXPRESSION_DEPTH:
            span = self.span(node)
            raise _error(self.text, self.path, span.line, span.col, et.TOO_DEEP,
                         f"arithmetic nested deeper than {MAX_EXPRESSION_DEPTH} levels")
        if kind == "name":
            tok = node.children[0]
            return ast.Wildcard(self.span(tok)) if tok == "_" else ast.Var(str(tok), self.span(tok))
        if kind == "string":
            return ast.Const(self.string(node.children[0]), self.span(node))
        if kind == "number":
            digits = str(node.children[0]).lstrip("0") or "0"
            if len(digits) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:
                tok = node.children[0]
                shown = digits if len(digits) <= 30 else f"{digits[:12]}...({len(digits)} digits)"
                raise _error(self.text, self.path, tok.line, tok.column, et.NUMBER_RANGE,
                             f"number {shown} is outside the number range (magnitude at most 2^63 - 1)")
            return ast.Const(int(digits), self.span(node))
        if kind == "neg":
            inner = self.term(node.children[1], depth + 1)
            if isinstance(inner, ast.Const) and isinstance(inner.value, int):
                return ast.Const(-inner.value, self.span(node))
            return ast.BinOp("-", ast.Const(0, self.span(node)), inner, self.span(node))
        if kind == "binop":
            left, op, right = node.children
            return ast.BinOp(str(op), self.term(left, depth + 1), self.term(right, depth + 1), self.span(node))
        if kind == "aggregate":
            func = str(node.children[0])
            outer, self.pending = self.pending, []
            target = self.term(node.children[1], depth + 1) if len(node.children) == 3 else None
            computed, self.pending = tuple(self.pending), outer  # a functor target: computed per tuple
            return ast.Aggregate(func, target, self.body(node.children[-1]) + computed, self.span(node))
        if kind == "functor":
            return self.functor(node, depth)
        raise AssertionError(kind)

    def functor(self, node, depth: int):
        """A Soufflé functor term: its value's fresh variable; the builtin atoms computing it
        go to ``pending`` (see analyzer/engine/functors.py)."""
        import analyzer.engine.functors as functors

        name, *arg_nodes = node.children
        args = [self.term(a, depth + 1) for a in arg_nodes if a is not None]
        problem = functors.problem(str(name), len(args))
        if problem:
            raise _error(self.text, self.path, name.line, name.column, et.UNKNOWN_FUNCTOR, problem)
        span = self.span(node)

        def fresh():
            self.fresh += 1
            return ast.Var(f"{functors.FRESH}{name}{self.fresh}", span)

        calls, value = functors.calls(str(name), args, fresh)
        self.pending += [ast.Atom(builtin, tuple(call_args), span) for builtin, call_args in calls]
        return value

    def atom(self, node) -> ast.Atom:
        name, *args = node.children
        terms = tuple(self.term(a) for a in args if a is not None)
        return ast.Atom(str(name), terms, self.span(node))

    def literal(self, node):
        if node.data == "atom":
            return self.atom(node)
        if node.data == "negation":
            return ast.Negation(self.atom(node.children[0]), self.span(node))
        left, op, right = node.children
        return ast.Comparison(str(op), self.term(left), self.term(right), self.span(node))

    def body(self, node) -> tuple:
        out, outer = [], self.pending
        for child in node.children:
            self.pending = []
            literal = self.literal(child)
            out += self.pending + [literal]  # a functor's value is computed before its use
        self.pending = outer
        return tuple(out)

    def statement(self, node, doc: str):
        if node.data == "include":
            return ast.Include(self.string(node.children[1]), self.span(node))
        if node.data == "directive":
            kind, *rest = node.children
            names = tuple(str(t) for t in rest if isinstance(t, Token))
            options = {}
            opts = rest[-1] if rest and not isinstance(rest[-1], Token) else None
            for opt in (opts.children if opts is not None else ()):
                if opt is None:
                    continue
                key, value = opt.children
                options[str(key)] = self.string(value) if value.type == "STRING" else str(value)
            return ast.Directive(str(kind)[1:], names, tuple(sorted(options.items())), self.span(node))
        if node.data == "decl":
            columns = tuple(ast.Column(str(c.children[0]), str(c.children[1]))
                            for c in node.children[2:] if c is not None)
            return _documented_decl(str(node.children[1]), columns, doc, self.span(node))
        self.pending = []
        head = self.atom(node.children[0])
        computed = tuple(self.pending)  # functors of the head: computed after the body binds
        body = self.body(node.children[2]) if node.data == "rule" else ()
        return ast.Rule(head, body + computed, doc, self.span(node))


_COLUMN_DOC = re.compile(r"^-\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")


def _documented_decl(name: str, columns: tuple, doc: str, span: Span) -> ast.Decl:
    """Split a decl's doc block: ``- col: text`` lines document columns, the rest the relation."""
    names = {c.name for c in columns}
    col_docs: dict = {}
    rest = []
    for line in doc.splitlines():
        match = _COLUMN_DOC.match(line.strip())
        if match and match.group(1) in names:
            col_docs.setdefault(match.group(1), []).append(match.group(2).strip())
        else:
            rest.append(line)
    columns = tuple(ast.Column(c.name, c.type, " ".join(col_docs.get(c.name, ())))
                    for c in columns)
    return ast.Decl(name, columns, "\n".join(rest).strip(), span)


def _doc_text(tokens: List[Token]) -> str:
    lines = []
    for tok in tokens:
        body = tok[3:]
        lines.append(body[1:] if body.startswith(" ") else body)
    return "\n".join(lines).strip("\n")


def parse_statements(text: str, path: str = "<string>") -> list:
    """Parse one file into Decl/Rule/Include nodes in source order (includes not followed)."""
    _local.docs = []
    try:
        tree = parser().parse(text, start="start")
        docs = list(_local.docs)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, path) from None
    finally:
        _local.docs = None
    builder = _Builder(text, path)
    statements, previous_end, d = [], (0, 0), 0
    for node in tree.children:
        start = (node.meta.line, node.meta.column)
        block = []
        while d < len(docs) and (docs[d].line, docs[d].column) < start:
            if (docs[d].line, docs[d].column) > previous_end:
                block.append(docs[d])
            d += 1
        # only the last run of consecutive `///` lines documents the statement: an earlier run
        # separated by a blank line is a block of its own (e.g. a rule file's @code header)
        while len(block) > 1 and any(b.line - a.line > 1 for a, b in zip(block, block[1:])):
            gap = max(i for i, (a, b) in enumerate(zip(block, block[1:]), 1) if b.line - a.line > 1)
            block = block[gap:]
        statements.append(builder.statement(node, _doc_text(block)))
        previous_end = (node.meta.end_line, node.meta.end_column)
    return statements


def parse_goal(text: str, path: str = "<goal>") -> tuple:
    """Parse a query goal, a conjunction such as ``p(X, _), !q(X), X != "a"``, into literals."""
    try:
        tree = parser().parse(text, start="goal")
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, path) from None
    return _Builder(text, path).body(tree.children[0])


def parse_query(text: str) -> ast.Atom:
    """Parse a query pattern such as ``p(X, "a", _)`` into an :class:`ast.Atom`."""
    try:
        tree = parser().parse(text, start="query")
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, "<query>") from None
    return _Builder(text, "<query>").atom(tree.children[0])


# ---- programs and includes ------------------------------------------------------------------

def _identity(path: str) -> str:
    return os.path.realpath(path) if not path.startswith("<") else path


def parse_program(text: str, path: str = "<string>") -> ast.Program:
    """Parse ``text`` (read from ``path``) and every file it includes into one Program.

    ``.include "f.dl"`` is resolved relative to the including file's directory (the current
    directory for ``<string>``); a file already included is not read again; an include
    cycle is a DL018 diagnostic naming the cycle.
    """
    program = ast.Program(decls={}, rules=[], files=[])
    _load(program, text, path, stack=[], seen=set())
    return program


def _load(program: ast.Program, text: str, path: str, stack: list, seen: set) -> None:
    stack.append((_identity(path), path))
    seen.add(_identity(path))
    program.files.append(path)
    program.sources[path] = text
    for stmt in parse_statements(text, path):
        if isinstance(stmt, ast.Decl):
            program.decls.setdefault(stmt.name, stmt)
            program.all_decls.append(stmt)
        elif isinstance(stmt, ast.Rule):
            program.rules.append(stmt)
        elif isinstance(stmt, ast.Directive):
            program.directives.append(stmt)
        else:
            _include(program, stmt, text, path, stack, seen)
    stack.pop()


def _include(program, inc: ast.Include, text: str, path: str, stack: list, seen: set) -> None:
    base = Path(path).parent if not path.startswith("<") else Path(".")
    target = os.path.normpath(str(base / inc.path))
    ident = _identity(target)
    chain = [ident for ident, _ in stack]
    if ident in chain:
        cycle = [shown for _, shown in stack[chain.index(ident):]] + [target]
        raise _error(text, path, inc.span.line, inc.span.col, et.INCLUDE_CYCLE,
                     "include cycle: " + " -> ".join(cycle))
    if ident in seen:
        return
    try:
        included = sourcefile.read_text(target)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise _error(text, path, inc.span.line, inc.span.col, et.INCLUDE_NOT_FOUND,
                     f"cannot include {target!r}: {reason}") from None
    _load(program, included, target, stack, seen)
