"""The engine's errors and their codes: those raised by the back end (stratification,
evaluation, fact input), and the front end's table of known syntax mistakes.

Every engine error carries a stable ``code`` and, when the problem has a place in a source
file, a :class:`~analyzer.core.span.Span`; :meth:`EngineError.diagnostic` turns it into the one
printed form every command uses.

Known syntax mistakes in rule files (:data:`KNOWN_MISTAKES`) each have a stable code and a
friendly message.

Lark reports *where* an LALR parse failed (parser state and offending token). We parse each
example below once, remember its (state, token type, token value), and label a real error
with the entry whose example failed the same way (analyzer/engine/syntax.py): an exact token
first, then the same token type. Entries are ordered from specific to generic. One test
parses every example and asserts it comes back with its own code, so entries cannot silently
shadow each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from analyzer.core.span import Span


class EngineError(Exception):
    """A program, fact set or request the engine cannot evaluate."""

    code = "DL900"

    def __init__(self, message: str, span: Optional[Span] = None, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.span = span
        if code is not None:
            self.code = code

    def diagnostic(self, default_path: str = "<engine>"):
        """This error as a :class:`~analyzer.core.diagnostics.Diagnostic` (source line added when readable)."""
        from analyzer.core.diagnostics import Diagnostic

        span = self.span or Span(default_path, 1, 1)
        return Diagnostic(span, self.code, self.message, source_line=_source_line(span))


class StratificationError(EngineError):
    """Negation, an aggregate or a graph builtin depends on its own result (a cycle)."""

    code = "DL901"


class EvaluationLimitError(EngineError):
    """A resource limit (derived tuples, wall time) was reached; names the limit and relation."""

    code = "DL902"


class FactsError(EngineError):
    """Facts that do not fit the declarations (undeclared relation, arity, type, bad file)."""

    code = "DL903"


def _source_line(span: Span) -> Optional[str]:
    # a caret line is a convenience: any problem reading the file (missing, not a regular
    # file, not UTF-8) just drops it; never a read that could block on a FIFO
    from analyzer.engine.sourcefile import read_text

    try:
        lines = read_text(span.path).split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return lines[span.line - 1].rstrip("\r") + "\n" if 0 < span.line <= len(lines) else None


GENERIC_SYNTAX = "DL001"
UNEXPECTED_CHARACTER = "DL015"
INVALID_ESCAPE = "DL016"
INCLUDE_NOT_FOUND = "DL017"
INCLUDE_CYCLE = "DL018"
NUMBER_RANGE = "DL019"
TOO_DEEP = "DL020"
UNKNOWN_FUNCTOR = "DL021"


@dataclass(frozen=True)
class KnownMistake:
    """One family of syntax mistakes: stable code, message, and malformed examples."""

    code: str
    message: str
    examples: Tuple[str, ...]


KNOWN_MISTAKES: Tuple[KnownMistake, ...] = (
    KnownMistake(
        "DL003",
        "a rule's head is followed by `:-` (not `<-` or `:=`)",
        ('p(X) <- q(X).', 'p(X) := q(X).'),
    ),
    KnownMistake(
        "DL009",
        "write `<=` and `>=` (not `=<` or `=>`)",
        ('p(X) :- q(X), X =< 3.', 'p(X) :- q(X), X => 3.'),
    ),
    KnownMistake(
        "DL010",
        "equality is a single `=` (not `==`)",
        ('p(X) :- q(X), X == 3.',),
    ),
    KnownMistake(
        "DL008",
        "negation is written `!p(...)` (not `not p(...)`)",
        ('h(X) :- q(X), not p(X).', 'h(X) :- not p(X).'),
    ),
    KnownMistake(
        "DL006",
        "each `.decl` column needs a type: `name: symbol` or `name: number`",
        ('.decl p(x, y: symbol)', '.decl p(x)', '.decl p(x: symbol, y)'),
    ),
    KnownMistake(
        "DL007",
        "column types are `symbol` or `number` (lowercase)",
        ('.decl p(x: Symbol)', '.decl p(x: string)', '.decl p(x: symbol, n: Number)'),
    ),
    KnownMistake(
        "DL012",
        "unknown directive: only `.decl`, `.include`, `.input`, `.output` and `.printsize` are supported",
        ('.type T = symbol', '.decl p(x: symbol)\n.functor f(symbol): symbol'),
    ),
    KnownMistake(
        "DL013",
        "empty rule body or trailing comma: a rule needs at least one literal after `:-`",
        ('p(X) :- .', 'p(X) :- q(X), .', 'p(X) :- q(X), r(X),.'),
    ),
    KnownMistake(
        "DL014",
        "an aggregate is written `count : { body }` or `sum X : { body }`",
        ('p(N) :- N = count { q(_) }.', 'p(N) :- N = count : q(_).', 'p(N) :- N = sum X { q(X) }.',
         'p(N) :- N = sum X : q(X).'),
    ),
    KnownMistake(
        "DL011",
        "missing `,` between arguments",
        ('p("a" "b").', 'p(X) :- q(X Y).', 'p(1 2).', 'p(X) :- q("a" X).', 'p(X) :- q(1 X).'),
    ),
    KnownMistake(
        "DL004",
        "missing `)`",
        ('p("a".', 'p("a" :- q("a").', 'p(X :- q(X).', 'p(X) :- q(X.', 'p(X) :- q(X, Y.',
         '.decl p(x: symbol', '.decl p(x: symbol.', 'p(X) :- q(X), X = (1 + 2.', 'p(1.',
         'p(X) :- q(X), !r(X.', 'p(X) :- q(X), !r(1.', 'p(X) :- q(X), !r("a".'),
    ),
    KnownMistake(
        "DL002",
        "missing `.` at the end of the statement (or `,` between body literals)",
        ('p("a")', 'p("a") q("b").', 'p("a")\n.decl q(x: symbol)', 'p("a")\n.include "x.dl"',
         'p(X) :- q(X)', 'p(X) :- q(X) r(X).', 'p(X) :- q(X)\n.decl r(x: symbol)',
         'p(X) :- q(X), X != 1', 'p(X) :- q(X), X != 1 r(X).', 'p(X) :- q(X), !r(X)',
         'p(X) :- q(X), !r(X) s(X).', 'p(X) :- q(X), X != "a"', 'p(X) :- q(X), X != Y',
         'p(X) :- q(X), X != "a" r(X).', 'p(X) :- q(X), X != Y r(X).'),
    ),
    KnownMistake(
        "DL005",
        "unterminated string: close it with `\"` on the same line",
        ('p("abc).', 'p("a\n").', 'p(X) :- q(X), X = "abc.'),
    ),
)

# Codes that are not matched from examples but raised directly; documented with the table.
OTHER_SYNTAX_CODES = {
    GENERIC_SYNTAX: "syntax error not covered by a more specific code (the message lists what was expected)",
    UNEXPECTED_CHARACTER: "a character that cannot start any token here",
    INVALID_ESCAPE: 'unknown escape in a string (allowed: \\" \\\\ \\n \\t)',
    INCLUDE_NOT_FOUND: "`.include` names a file that cannot be read",
    INCLUDE_CYCLE: "`.include` files include each other in a cycle (the cycle is named)",
    NUMBER_RANGE: "number literal outside the number range (64-bit signed: magnitude at most 2^63 - 1)",
    TOO_DEEP: "arithmetic nested deeper than 100 levels (parentheses, operators, negations)",
    UNKNOWN_FUNCTOR: "a functor term other than cat, strlen, substr, to_number and to_string, or with the "
                     "wrong number of arguments",
}


def syntax_codes() -> dict:
    """Every syntax code with a one-line explanation (for docs and `explain`)."""
    codes = dict(OTHER_SYNTAX_CODES)
    for mistake in KNOWN_MISTAKES:
        codes.setdefault(mistake.code, mistake.message)
    return dict(sorted(codes.items()))
