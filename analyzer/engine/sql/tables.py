"""Relation declarations as SQL tables: names, column names and types.

A relation ``r(a: symbol, n: number)`` is the table ``"r"(repo INTEGER, "a" VARCHAR,
"n" BIGINT)``. Column names are the declared ones (readable in ``fleet query`` and in the
Parquet files); a declaration whose names repeat, or would shadow ``repo``, gets ``c0..cN``.
"""

from __future__ import annotations

from typing import List

import analyzer.engine.ast as ast

REPO = "repo"
SQL_TYPES = {ast.SYMBOL: "VARCHAR", ast.NUMBER: "BIGINT"}


def quote(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def columns(decl) -> List[str]:
    """The column names of ``decl``'s table, without ``repo``."""
    names = [c.name for c in decl.columns]
    if len(set(names)) != len(names) or REPO in names or any(not n for n in names):
        return [f"c{i}" for i in range(len(names))]
    return names


def create_sql(decl, name: str = None) -> str:
    """``CREATE TABLE`` for ``decl`` (under ``name`` when given)."""
    cols = [f"{REPO} INTEGER"] + [f"{quote(n)} {SQL_TYPES[c.type]}" for n, c in zip(columns(decl), decl.columns)]
    return f"CREATE TABLE {quote(name or decl.name)} ({', '.join(cols)})"


def arrow_schema(decl, repo_type: str = "int32"):
    """The pyarrow schema of ``decl``'s table (``repo`` as ``repo_type``: int32 inside the
    engine, string in exported Parquet files, where it is the repository's path)."""
    import pyarrow as pa

    types = {ast.SYMBOL: pa.string(), ast.NUMBER: pa.int64()}
    fields = [pa.field(REPO, getattr(pa, repo_type)(), nullable=False)]
    fields += [pa.field(n, types[c.type], nullable=False) for n, c in zip(columns(decl), decl.columns)]
    return pa.schema(fields)


def arrow_table(decl, rows_by_repo, repo_type: str = "int32"):
    """A pyarrow table of ``decl`` from ``(repo, tuples)`` pairs (tuples in declared order)."""
    import pyarrow as pa

    schema = arrow_schema(decl, repo_type)
    repos: list = []
    cols: List[list] = [[] for _ in range(decl.arity)]
    for repo, tuples in rows_by_repo:
        tuples = tuples if isinstance(tuples, (list, tuple)) else list(tuples)
        repos.extend([repo] * len(tuples))
        # columns by transposing the tuples (zip in C), not a Python loop per value
        for col, values in zip(cols, zip(*tuples)):
            col.extend(values)
    arrays = [pa.array(repos, type=schema[0].type)]
    arrays += [pa.array(col, type=schema[i].type) for i, col in enumerate(cols, 1)]
    return pa.Table.from_arrays(arrays, schema=schema)
