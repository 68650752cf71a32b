"""The abstract syntax of the rule language (a Soufflé subset).

This module is the contract between the front end (``syntax`` parses text into these nodes,
``check`` validates them) and the back end (``stratify`` and ``evaluate``). Nodes are frozen
dataclasses; every node that comes from text carries a :class:`~analyzer.core.span.Span`.

The declarations and the program are defined here; the other nodes (terms, literals,
rules, includes, directives: :data:`NODES`) in :mod:`analyzer.engine.ast_nodes`, imported
on first use and read as attributes of this module (``ast.Atom``): evaluating a compiled
program decodes declarations only.

Values at run time are Python ``str`` (type ``symbol``) and ``int`` (type ``number``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from analyzer.core.span import Span

SYMBOL = "symbol"
NUMBER = "number"


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


@dataclass
class Program:
    """A whole parsed program: declarations and rules from every included file."""

    decls: dict  # name -> Decl (first declaration wins; conflicts are diagnostics)
    rules: list  # [Rule] in source order (includes expanded in place)
    files: list = field(default_factory=list)  # every file read, in include order
    all_decls: list = field(default_factory=list)  # every Decl as written (for redeclaration checks)
    sources: dict = field(default_factory=dict)  # path -> text of every file read (for carets)
    directives: list = field(default_factory=list)  # [Directive] in source order


NODES = ("Var", "Wildcard", "Const", "BinOp", "Aggregate", "Term", "Atom", "Negation", "Comparison", "Literal",
         "Rule", "Include", "Directive")


def __getattr__(name: str):
    """The nodes of :data:`NODES`, from analyzer.engine.ast_nodes (imported on first use)."""
    if name in NODES:
        import analyzer.engine.ast_nodes as ast_nodes

        value = getattr(ast_nodes, name)
        globals()[name] = value  # later reads find it directly
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
