"""Facts as Parquet: one file per relation, a ``repo`` column (the repository's path) first,
then the declared columns with their declared types (symbol: string, number: int64).

Base relations are every relation of facts/schema.dl (an empty relation is an empty file:
its schema is still there). With ``derived``, every relation rules/check/check.dl derives
is written too, as the SQL back end evaluates it over the same facts.
"""

from __future__ import annotations

import os
from typing import Dict, List, Sequence
from analyzer.engine.cache import load_engine
from analyzer.core.resources import data_file
from analyzer.engine.sql.tables import arrow_table


def schema_decls() -> Dict[str, object]:
    """The declarations of facts/schema.dl."""

    return load_engine(data_file("facts", "schema.dl")).program.decls


def write_base(out: str, repos: Sequence[str], facts: Sequence[Dict[str, set]]) -> List[str]:
    """Write every base relation of ``facts`` (one mapping per repository of ``repos``)."""
    import pyarrow.parquet as pq

    written = []
    for name, decl in sorted(schema_decls().items()):
        table = arrow_table(decl, ((repo, sorted(f.get(name, ()))) for repo, f in zip(repos, facts)), "string")
        path = os.path.join(out, f"{name}.parquet")
        pq.write_table(table, path)
        written.append(path)
    return written


def write_derived(out: str, repos: Sequence[str], run, relations) -> List[str]:
    """Write each relation of ``relations`` a :class:`~analyzer.engine.sql.duck.DuckRun` derived."""
    import pyarrow.parquet as pq

    written = []
    for name in sorted(relations):
        rows = run.rows(name)
        table = arrow_table(run.decls[name], ((repo, sorted(rows.get(i, ()))) for i, repo in enumerate(repos)),
                            "string")
        path = os.path.join(out, f"{name}.parquet")
        pq.write_table(table, path)
        written.append(path)
    return written
