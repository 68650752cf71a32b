"""The SQL back end of the rule engine: the stratified program compiled to SQL and run over
many repositories' facts at once (docs/fleet.md).

Every table has a ``repo`` column first (an integer naming one repository of a fleet); every
join, negation and aggregate is taken within one repository, so evaluating once over the
union of the fleet's facts gives each repository exactly what the native engine
(analyzer/engine/evaluate.py) derives from that repository's facts alone.

- :mod:`analyzer.engine.sql.tables`: relation declarations as SQL tables and Arrow schemas.
- :mod:`analyzer.engine.sql.emit`: one rule as one ``SELECT`` (joins, anti-joins, aggregates,
  builtins as SQL expressions or registered functions).
- :mod:`analyzer.engine.sql.duck`: the DuckDB runner (strata in order, recursion iterated
  semi-naively to a fixpoint) and the per-repository result view.
- :mod:`analyzer.engine.sql.parquet`: facts (and derived relations) as Parquet files.
"""
