"""``fleet query`` and ``fleet export``: the fleet's facts (and the check program's derived
relations) as tables, asked with a datalog goal or plain SQL, or written as Parquet."""

from __future__ import annotations

import os
from typing import List, Tuple

from analyzer.commands.fleet_check import evaluate, prepare_all
from analyzer.query.check_families import ORDER
from analyzer.engine import ast
from analyzer.query.constants import PROTOCOL_ID, WRITTEN, show_written, written_ids


class RepositoryStopped(Exception):
    """Repositories whose facts could not be read (a memory file that cannot be used, a root
    that is not a directory: their check stops with exit 2): a query or an export over the
    fleet must not answer as if they held nothing. ``stopped``: ``(path, message)`` each."""

    def __init__(self, stopped: List[Tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {message}" for path, message in stopped))
        self.stopped = stopped


def _live(prepared) -> list:
    """The prepared repositories with facts (a repository without a memory dir has none);
    raises :class:`RepositoryStopped` when any could not be read."""
    stopped = [(p.path, p.result.failure.message) for p in prepared
               if p.result is not None and p.result.exit_code == 2 and p.result.failure is not None]
    if stopped:
        raise RepositoryStopped(stopped)
    return [p for p in prepared if p.result is None]


def _run(args, paths, only):
    """Every repository prepared and the check program evaluated over them for ``only``
    (None: every relation); also the table ``repos(repo, path)``."""
    from analyzer.query.check import check_program

    live = _live(prepare_all(paths, ORDER, not args.no_cache, args.jobs))
    facts = [dict(p.project.facts.relation_sets()) | {r: v for r, v in p.facts.items()} for p in live]
    run = evaluate(check_program(True), facts, only, args.engine, args.memory_limit)
    return [p.path for p in live], facts, run


def goal_rows(args, paths) -> Tuple[List[str], List[tuple]]:
    """``(columns, rows)``: the tuples matching the goal, per repository path."""
    from analyzer.engine.syntax import parse_query

    goal = parse_query(args.goal)
    repos, facts, run = _run(args, paths, [goal.rel])
    rows = []
    for index, path in enumerate(repos):
        found = []
        for tup in run.database(index).relation(goal.rel):
            binding = {}
            if all(_matches(term, value, binding) for term, value in zip(goal.args, tup)):
                found.append(tup)
        # IDs as this repository's files write them, as `analyze query` shows them
        rows += [(path, *tup) for tup in show_written(found, written_ids(facts[index]))]
    names = [t.name if isinstance(t, ast.Var) else f"_{i}" for i, t in enumerate(goal.args)]
    return ["repository"] + names, rows


def _matches(term, value, binding) -> bool:
    if isinstance(term, ast.Const):
        # a protocol ID matches caselessly (§5.3): the facts key IDs casefolded
        if isinstance(term.value, str) and isinstance(value, str) and PROTOCOL_ID.fullmatch(term.value):
            return term.value.casefold() == value.casefold()
        return term.value == value
    if isinstance(term, ast.Var):
        return binding.setdefault(term.name, value) == value
    return True


def sql_rows(args, paths) -> Tuple[List[str], List[tuple]]:
    """``(columns, rows)`` of plain SQL over every relation (``repos`` maps repo to path)."""
    repos, facts, run = _run(args, paths, None)
    if args.engine == "spark":  # Spark SQL over the run's views
        from analyzer.engine.sql.duck import engine_error

        run._put("repos", run.con.createDataFrame(list(enumerate(repos)), "repo INT, path STRING"))
        try:
            frame = run.con.sql(args.sql)
            return list(frame.columns), _as_written([tuple(r) for r in frame.collect()], facts)
        except Exception as exc:
            raise engine_error(exc) from None
    run.con.execute("CREATE TABLE repos (repo INTEGER, path VARCHAR)")
    run.con.executemany("INSERT INTO repos VALUES (?, ?)", list(enumerate(repos)))
    cursor = run.con.execute(args.sql)
    return [d[0] for d in cursor.description], _as_written(cursor.fetchall(), facts)


def _as_written(rows: List[tuple], facts: list) -> List[tuple]:
    """SQL rows with casefolded IDs as the files write them (a row need not name its repository:
    the fleet's written forms together, the smallest where two repositories differ)."""
    return show_written(rows, written_ids({rel: [t for f in facts for t in f.get(rel, ())] for rel in WRITTEN}))


def export(args, paths) -> List[str]:
    """Write the Parquet files; their paths."""
    from analyzer.engine.sql import parquet

    os.makedirs(args.out, exist_ok=True)
    if not args.derived:
        live = _live(prepare_all(paths, ORDER, not args.no_cache, args.jobs))
        return parquet.write_base(args.out, [p.path for p in live],
                                  [p.project.facts.relation_sets() for p in live])
    repos, facts, run = _run(args, paths, None)
    written = parquet.write_base(args.out, repos, facts)
    derived = sorted({r.head.rel for r in run.engine.rules if not r.is_fact} | set(run.engine.facts))
    return written + parquet.write_derived(args.out, repos, run, derived)
