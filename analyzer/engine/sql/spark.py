"""Evaluate a checked program on Apache Spark: the same emitted SQL as on DuckDB, transpiled.

:class:`SparkRun` is :class:`~analyzer.engine.sql.duck.DuckRun` with its table primitives
kept as Spark DataFrames registered as temporary views (Spark SQL has no ``INSERT`` into a
temporary table): creating a table registers an empty frame of the declared schema, an
insert is a union with the frame, a rename moves the view. Each new frame is checkpointed
locally, so a recursive stratum's lineage does not grow with its rounds. Every statement
is DuckDB's dialect written for Spark by sqlglot; DuckDB's ``error()`` (division by zero,
DL905) becomes Spark's ``raise_error``. The builtins that Python computes
(analyzer/engine/sql/functions.py) are registered as Python UDFs, called inline rather than
in a lateral subquery (``emit.Context.lateral``).

The session is ``local[*]`` by default or any master Spark accepts (``spark://``, ``yarn``,
``k8s://``); the workers need this package importable for the UDFs (docs/fleet.md).
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import analyzer.engine.ast as ast
from analyzer.engine.errors import EngineError
from analyzer.engine.sql import emit
from analyzer.engine.sql.duck import DuckRun, engine_error
from analyzer.engine.sql.functions import FUNCTIONS
from analyzer.engine.sql.tables import REPO, columns, quote

_SESSIONS: dict = {}


def session(master: str = "local[*]"):
    """A Spark session on ``master`` (one per process and master), with the builtins registered."""
    if master in _SESSIONS:
        return _SESSIONS[master]
    # the UDFs run in Python workers: the same interpreter as this process (its packages)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    try:
        spark = (SparkSession.builder.master(master).appName("memory-analyzer fleet")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "8")
                 .config("spark.sql.ansi.enabled", "false")
                 .getOrCreate())
    except Exception as exc:  # no Java, an unreachable master: one stable code, no traceback
        raise EngineError(f"Spark did not start on {master}: {str(exc).splitlines()[0]}", code="DL941") from None
    spark.sparkContext.setLogLevel("ERROR")
    _register(spark)
    _SESSIONS[master] = spark
    return spark


def _register(spark) -> None:
    from pyspark.sql import types as T

    kinds = {"VARCHAR": T.StringType(), "BIGINT": T.LongType(), "BOOLEAN": T.BooleanType(),
             "VARCHAR[]": T.ArrayType(T.StringType())}
    for name, (_fn, _args, result) in FUNCTIONS.items():
        # pickled to the workers by name: they import this package and look the function up
        spark.udf.register(name, (lambda n: lambda *a: call_function(n, a))(name), kinds[result])


def call_function(name: str, args: tuple):
    """The registered Python function ``name`` on ``args`` (None for a NULL argument, as
    DuckDB answers without calling it)."""
    return None if any(v is None for v in args) else FUNCTIONS[name][0](*args)


def spark_sql(sql: str) -> str:
    """DuckDB's SQL written for Spark."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read="duckdb")

    def swap(node):
        if isinstance(node, exp.Anonymous) and node.name.lower() == "error":
            return exp.Anonymous(this="raise_error", expressions=node.expressions)
        return node

    return tree.transform(swap).sql(dialect="spark")


def _schema(decl):
    from pyspark.sql import types as T

    kinds = {ast.SYMBOL: T.StringType(), ast.NUMBER: T.LongType()}
    return T.StructType([T.StructField(REPO, T.IntegerType(), False)] +
                        [T.StructField(n, kinds[c.type], False) for n, c in zip(columns(decl), decl.columns)])


class SparkRun(DuckRun):
    """One program evaluated over one fleet's facts on a Spark session."""

    LATERAL_UDFS = False
    LATERAL_AGGREGATES = True
    ANTI_JOINS = False  # NOT EXISTS, as the dialects sqlglot writes for read it
    GROUP = None  # each evaluation is minutes of Spark jobs whatever the facts: one for the fleet

    def __init__(self, engine, spark):
        super().__init__(engine, con=spark)
        self.frames: dict = {}
        self._pending: dict = {}  # relation -> rows, until every repository is loaded

    def _flush(self, pending) -> None:
        """Keep the buffered tables' rows: each relation becomes one frame once every
        repository is given (:meth:`_repos`)."""
        for rel, tables in pending.items():
            rows = self._pending.setdefault(rel, [])
            for table in tables:
                rows.extend(zip(*(column.to_pylist() for column in table.columns)))

    def _repos(self, numbers) -> None:
        """Every repository's facts as one frame per relation."""
        from pyspark.sql import types as T

        repos = T.StructType([T.StructField(REPO, T.IntegerType(), False)])
        self._put(emit.REPOS, self.con.createDataFrame([(i,) for i in numbers], repos))
        for rel in sorted(self._pending):
            self._put(rel, self.con.createDataFrame(self._pending.pop(rel), _schema(self.decls[rel])).distinct())
            self.filled.add(rel)

    # -- table primitives as views -------------------------------------------------------
    def _put(self, name: str, frame, checkpoint: bool = True) -> None:
        if checkpoint:
            try:
                frame = frame.localCheckpoint()
            except Exception as exc:  # Spark evaluates here: its errors are the statement's
                raise engine_error(exc) from None
        frame.createOrReplaceTempView(name)
        self.frames[name] = frame
        self.tables.add(name)

    def _query(self, sql: str):
        try:
            return self.con.sql(spark_sql(sql))
        except EngineError:
            raise
        except Exception as exc:
            raise engine_error(exc) from None

    def _create(self, rel: str, name: Optional[str] = None) -> None:
        name = name or rel
        if name not in self.tables:
            # an empty frame has no lineage to cut: checkpointing it was one Spark job per
            # table (about 450 of an evaluation's jobs), for nothing
            self._put(name, self.con.createDataFrame([], _schema(self.decls[rel])), checkpoint=False)

    def _create_as(self, name: str, select: str) -> None:
        # a union under a new empty frame: the table's columns get their own identities (a
        # frame read from a view keeps the view's, and a later union with it fails)
        query = self._query(select)
        self._put(name, self.con.createDataFrame([], query.schema).unionAll(query))
        self.filled.add(name)

    def _insert(self, name: str, select: str) -> None:
        """Append ``select`` to view ``name`` (how many tuples that was is not counted: None,
        so the table may hold tuples)."""
        table = self.frames[name]
        new = self._query(select)
        # by position, in the table's own types (a literal's type is not always the column's)
        if len(new.columns) == len(table.columns):
            from pyspark.sql import functions as F

            new = new.toDF(*table.columns).select([F.col(c).cast(table.schema[c].dataType) for c in table.columns])
        self._put(name, table.unionAll(new))

    def _drop(self, name: str) -> None:
        if self.frames.pop(name, None) is not None:
            self.con.catalog.dropTempView(name)
        self.tables.discard(name)
        self.filled.discard(name)

    def _rename(self, name: str, to: str) -> None:
        frame = self.frames[name]
        self._drop(name)
        self._put(to, frame)
        self.filled.add(to)  # may hold tuples

    def _closure(self, name: str, rel: str, src: str, dst: str) -> None:
        """The transitive closure iterated semi-naively: Spark's recursive CTEs take only
        ``UNION ALL``, which would not stop on a cycle."""
        delta, new = "__d" + name, "__n" + name
        self._create_as(name, f"SELECT DISTINCT {REPO}, {src} AS src, {dst} AS dst FROM {quote(rel)}")
        self._create_as(delta, f"SELECT * FROM {quote(name)}")
        while True:
            self._drop(new)
            self._create_as(new, f"SELECT DISTINCT d.{REPO}, d.src, e.{dst} AS dst FROM {quote(delta)} AS d "
                                 f"JOIN {quote(rel)} AS e ON e.{REPO} = d.{REPO} AND e.{src} = d.dst "
                                 f"EXCEPT SELECT * FROM {quote(name)}")
            if not self.frames[new].count():
                break
            self._insert(name, f"SELECT * FROM {quote(new)}")
            self._drop(delta)
            self._rename(new, delta)
        self._drop(new)
        self._drop(delta)

    def _fetch(self, sql: str) -> list:
        try:
            return [tuple(row) for row in self._query(sql).collect()]
        except EngineError:
            raise
        except Exception as exc:
            raise engine_error(exc) from None

    def _sql(self, sql: str):
        raise AssertionError("SparkRun runs statements through its table primitives")  # pragma: no cover
