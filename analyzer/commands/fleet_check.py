"""``fleet check``: every repository's ``check --all`` with the rules evaluated once, in SQL,
over the facts of the whole fleet.

Per repository, what the native check does before and after its evaluation is done the same
way and by the same code (analyzer/query/check.py): the memory dir checks, extraction (the
facts cache of analyzer/project/loader.py), the facts the families gather (Git, path probes,
scans), the refusal of unusable needed files, and, from the derived relations, the result
model, its redaction and gating. Only the evaluation of rules/check/check.dl moves: all
repositories' facts are loaded into one DuckDB database (analyzer/engine/sql/duck.py) and the
program runs there once. A repository whose check stops before evaluating (no memory dir,
an unusable needed file) keeps that error result.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from analyzer.contract.check_model import CheckResult


@dataclass
class Prepared:
    """One repository ready for the shared evaluation (or already decided: ``result``)."""

    path: str
    result: Optional[CheckResult] = None
    request: object = None
    project: object = None
    facts: Optional[dict] = None
    needed: Optional[set] = None


def prepare(path: str, families, use_cache: bool = True) -> Prepared:
    """Everything before the evaluation for the repository at ``path``."""
    from analyzer.query.check import CheckRequest, check_program, gather, load_checked, open_request

    request, early = open_request(CheckRequest(list(families), Path(path), "docs/memory", use_cache))
    if early is not None:
        return Prepared(path, early)
    project, refused = load_checked(request)
    if refused is not None:
        return Prepared(path, refused)
    facts, _only, needed = gather(request, project, check_program(True))
    return Prepared(path, None, request, project, facts, needed)


def fleet_check(paths: List[str], engine: str = "duckdb", use_cache: bool = True, jobs: int = 1,
                memory_limit: Optional[str] = None, spark_master: str = "local[*]") -> List[Tuple[str, CheckResult]]:
    """``(path, result)`` per repository, in the order of ``paths``."""
    from analyzer.query.check import check_program, finish
    from analyzer.query.check_families import FAMILIES, ORDER

    families = list(ORDER)
    prepared = prepare_all(paths, families, use_cache, jobs)
    live = [p for p in prepared if p.result is None]
    program = check_program(True)  # the compiled rules, not repository data: cached whatever --no-cache
    only = sorted({rel for name in families for rel in FAMILIES[name].relations})
    run = evaluate(program, [{rel: rows for rel, rows in p.facts.items() if rel in p.needed} for p in live], only,
                   engine, memory_limit, spark_master)
    for index, item in enumerate(live):
        result, _probes, _git = finish(item.request, item.project, item.facts, item.needed, run.database(index))
        item.result = result
    return [(p.path, _as_cli(p.result)) for p in prepared]


def evaluate(program, fleet, only, engine: str = "duckdb", memory_limit=None, spark_master: str = "local[*]"):
    """The program evaluated over ``fleet`` (a list of per-repository facts) by ``engine``
    (DuckDB, or Spark on ``spark_master``)."""
    if engine == "spark":
        from analyzer.engine.sql.spark import SparkRun, session

        run = SparkRun(program, session(spark_master))
        run.load(fleet)
        return run.evaluate(only)
    from analyzer.engine.sql.duck import DuckRun, connect

    run = DuckRun(program, connect(memory_limit))
    run.load(fleet)
    return run.evaluate(only)


def _as_cli(result: CheckResult) -> CheckResult:
    """What ``analyze check --all`` prints of a result: the report family split off and the
    default gate applied (analyzer/commands/check.py)."""
    from analyzer.commands.gating import Gate, apply
    from analyzer.query.report import report_of

    return apply(report_of(result).check, Gate(None, [], [], None))


def prepare_all(paths: List[str], families, use_cache: bool = True, jobs: int = 1) -> List[Prepared]:
    """:func:`prepare` for every path, in ``jobs`` processes (extraction is per repository
    and independent; a prepared repository travels back pickled), in the order of ``paths``."""
    if jobs <= 1 or len(paths) < 2:
        return [prepare(p, families, use_cache) for p in paths]
    import functools
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(min(jobs, len(paths))) as pool:
        return pool.map(functools.partial(prepare, families=families, use_cache=use_cache), paths,
                        chunksize=max(1, len(paths) // (jobs * 8)))


def result_document(path: str, result: CheckResult) -> dict:
    """``{"path", "result"}``: the ``check.result`` (or ``check.error``) document that
    ``analyze check --all --format json`` prints in that repository."""
    import json

    from analyzer.commands.check_formats import Context, render

    text, _ = render("json", result, Context(os.path.abspath(path)))
    return {"path": path, "result": json.loads(text)}
