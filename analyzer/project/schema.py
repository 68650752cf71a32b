"""The declared base relations of facts/schema.dl, with their doc lines and column types.

Read through the rule engine's own front end (the same parser and checks the rules get), so
the schema has one reader; used by ``analyze facts`` and the extractor tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Tuple

from analyzer.core.resources import data_file


@dataclass
class Relation:
    """One declared relation: name, (column, type) pairs, relation doc and column docs."""

    name: str
    columns: List[Tuple[str, str]]
    doc: str
    column_docs: Dict[str, str] = field(default_factory=dict)
    line: int = 0


def parse_schema(text: str, name: str = "facts/schema.dl") -> Dict[str, Relation]:
    """Relations by name; raises ValueError with the rendered diagnostics when the text is not
    a valid declarations-only program."""
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.engine.check import load_program

    try:
        program = load_program(text=text, name=name)
    except DiagnosticError as exc:
        raise ValueError(str(exc)) from None
    return _relations(program)


def _relations(program) -> Dict[str, Relation]:
    return {
        decl.name: Relation(
            decl.name,
            [(c.name, c.type) for c in decl.columns],
            decl.doc,
            {c.name: c.doc for c in decl.columns if c.doc},
            decl.span.line if decl.span else 0,
        )
        for decl in program.decls.values()
    }


@lru_cache(maxsize=1)
def declared_relations() -> Dict[str, Relation]:
    """The relations of the shipped facts/schema.dl."""
    from analyzer.engine.cache import load_engine  # the compiled-program cache: no parser when warm

    return _relations(load_engine(data_file("facts", "schema.dl")).program)
