"""The abstract syntax of the rule language (a Soufflé subset).

This module is the contract between the front end (``syntax`` parses text into these nodes,
``check`` validates them) and the back end (``stratify`` and ``evaluate``). Nodes are frozen
dataclasses; every node that comes from text carries a :class:`~analyzer.span.Span`.

Values at run time are Python ``str`` (type ``symbol``) and ``int`` (type ``number``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from analyzer.span import Span

SYMBOL = "symbol"
NUMBER = "number"
TYPES = (SYMBOL, NUMBER)


# ---- terms -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Var:
    """A named variable, e.g. ``X``."""

    name: str
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Wildcard:
    """The anonymous variable ``_``; every occurrence is distinct."""

    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Const:
    """A constant: ``str`` for a symbol literal, ``int`` for a number."""

    value: Union[str, int]
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class BinOp:
    """Integer arithmetic ``left op right`` with op in ``+ - * / %``."""

    op: str
    left: "Term"
    right: "Term"
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Aggregate:
    """``count : { body }``, ``sum X : { body }``, ``min X : {..}``, ``max X : {..}``.

    ``target`` is None for count. Variables of ``body`` that also occur outside the
    aggregate (in the enclosing rule) are grouping variables; the rest are local.
    """

    func: str  # "count" | "sum" | "min" | "max"
    target: Optional["Term"]
    body: Tuple["Literal", ...]
    span: Optional[Span] = field(default=None, compare=False)


Term = Union[Var, Wildcard, Const, BinOp, Aggregate]


# ---- literals --------------------------------------------------------------------------

@dataclass(frozen=True)
class Atom:
    """``rel(t1, ..., tn)``: a relation atom, or a builtin call when ``rel`` names a builtin."""

    rel: str
    args: Tuple[Term, ...]
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Negation:
    """``!atom``: true when no tuple of ``atom`` matches (stratified)."""

    atom: Atom
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Comparison:
    """``left op right`` with op in ``= != < <= > >=``; ``=`` may bind a variable."""

    op: str
    left: Term
    right: Term
    span: Optional[Span] = field(default=None, compare=False)


Literal = Union[Atom, Negation, Comparison]


# ---- statements ------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """One typed column of a declaration, with its ``///`` doc text if any."""

    name: str
    type: str  # SYMBOL | NUMBER
    doc: str = ""


@dataclass(frozen=True)
class Decl:
    """``.decl name(col: type, ...)`` with the ``///`` doc comment that preceded it."""

    name: str
    columns: Tuple[Column, ...]
    doc: str = ""
    span: Optional[Span] = field(default=None, compare=False)

    @property
    def arity(self) -> int:
        """Number of columns."""
        return len(self.columns)


@dataclass(frozen=True)
class Rule:
    """``head :- body.``; a fact is a rule with an empty body and a ground head."""

    head: Atom
    body: Tuple[Literal, ...]
    doc: str = ""
    span: Optional[Span] = field(default=None, compare=False)

    @property
    def is_fact(self) -> bool:
        """True for a bodiless rule (``p("a", 1).``)."""
        return not self.body


@dataclass(frozen=True)
class Include:
    """``.include "file.dl"`` as written (resolved relative to the including file)."""

    path: str
    span: Optional[Span] = field(default=None, compare=False)


@dataclass(frozen=True)
class Directive:
    """Soufflé's ``.input``/``.output``/``.printsize`` for one or more relations, with options
    such as ``filename`` and ``delimiter`` as ``(key, value)`` pairs."""

    kind: str  # "input" | "output" | "printsize"
    relations: Tuple[str, ...]
    options: Tuple[Tuple[str, str], ...] = ()
    span: Optional[Span] = field(default=None, compare=False)

    def option(self, key: str, default: Optional[str] = None) -> Optional[str]:
        """The value of option ``key`` (e.g. ``filename``), or ``default``."""
        return dict(self.options).get(key, default)


@dataclass
class Program:
    """A whole parsed program: declarations and rules from every included file."""

    decls: dict  # name -> Decl (first declaration wins; conflicts are diagnostics)
    rules: list  # [Rule] in source order (includes expanded in place)
    files: list = field(default_factory=list)  # every file read, in include order
    all_decls: list = field(default_factory=list)  # every Decl as written (for redeclaration checks)
    sources: dict = field(default_factory=dict)  # path -> text of every file read (for carets)
    directives: list = field(default_factory=list)  # [Directive] in source order
