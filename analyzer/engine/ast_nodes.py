"""The rule language's syntax-tree nodes: terms, literals, rules, includes and directives.

They are attributes of :mod:`analyzer.engine.ast` (the contract; always reach them through
it) and live here so that a run that only evaluates a compiled program, whose declarations
are the only nodes it decodes, does not build their eleven frozen dataclasses: about 5 ms
of every ``read`` before its prefetch helper forks. ``analyzer.engine.ast`` imports this
module the first time one of its names is read (PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

from analyzer.core.span import Span


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
