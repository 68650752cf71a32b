"""Read facts/schema.dl: the declared base relations with their doc lines and column types.

A small line reader (the schema only holds ``///`` doc comments and ``.decl`` lines), used by
``analyze facts`` and the extractor tests; the rule engine (and docs/facts.md, via
analyzer.gendocs) parses the same file with its own front end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Tuple

from analyzer.resources import data_file

DECL_RE = re.compile(r"^\.decl\s+([a-z_][a-z0-9_]*)\((.*)\)\s*$")
COLUMN_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(symbol|number)\s*$")


@dataclass
class Relation:
    """One declared relation: name, (column, type) pairs, relation doc and column docs."""

    name: str
    columns: List[Tuple[str, str]]
    doc: str
    column_docs: Dict[str, str] = field(default_factory=dict)
    line: int = 0


def parse_schema(text: str) -> Dict[str, Relation]:
    """Parse schema text into relations by name; raises ValueError on a malformed .decl."""
    out: Dict[str, Relation] = {}
    docs: List[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("///"):
            docs.append(stripped[3:].strip())
            continue
        m = DECL_RE.match(stripped)
        if m:
            columns = []
            for part in filter(None, (p.strip() for p in m.group(2).split(","))):
                cm = COLUMN_RE.match(part)
                if not cm:
                    raise ValueError(f"schema.dl:{n}: malformed column {part!r}")
                columns.append((cm.group(1), cm.group(2)))
            rel = Relation(m.group(1), columns, "", line=n)
            prose = []
            for d in docs:
                if d.startswith("- ") and ":" in d:
                    col, _, text_ = d[2:].partition(":")
                    rel.column_docs[col.strip()] = text_.strip()
                else:
                    prose.append(d)
            rel.doc = " ".join(prose)
            out[rel.name] = rel
        docs = [] if not stripped.startswith("///") else docs
    return out


@lru_cache(maxsize=1)
def declared_relations() -> Dict[str, Relation]:
    """The relations of the shipped facts/schema.dl."""
    return parse_schema(data_file("facts", "schema.dl").read_text(encoding="utf-8"))
