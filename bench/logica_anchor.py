"""The Logica anchor (issue 29, docs/performance.md): a routing and conflict subset of the check
rules, written in Logica (bench/logica/*.l), against our SQL back end evaluating the same
relations of rules/check/check.dl, both on DuckDB over the same facts.

usage: python bench/logica_anchor.py facts FLEET FACTS_DIR [--jobs 2]
           extract every repository of the fleet (a directory of checkouts or a file listing
           them, as `analyze fleet` takes; no cache) and write the facts the subset
           reads as Parquet (`repo` is the repository's number), with repos.parquet
       python bench/logica_anchor.py compare FACTS_DIR
           both sides in one process: the same rows in every goal relation? (exit 1 if not)
       python bench/logica_anchor.py run FACTS_DIR --side ours|logica
           one side, as a whole process (what is timed): load the facts into DuckDB,
           evaluate, fetch every goal relation's rows; prints the phases' times
       python bench/logica_anchor.py pair FACTS_DIR [--runs 5]
           `run` of each side as a process, alternating which goes first; wall times

Logica is not a dependency of the analyzer: `pip install logica` (1.3.x) into the
benchmark's environment (bench/README.md). Both sides load the facts the same way (Arrow
tables read from Parquet, inserted with DISTINCT) into a DuckDB connection with the same
settings; Logica runs its program as Logica runs several predicates (its compiled SQL and
the Concertina scheduler, every predicate a `distinct` set, each shared one computed once).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

#: our relation -> the Logica predicate computing it (the compared goals)
GOALS = {
    "effective_route": "EffectiveRoute",
    "reachable_module": "ReachableModule",
    "required_missing": "RequiredMissing",
    "routing_finding": "RoutingFinding",
    "routing_status": "RoutingStatus",
    "owner": "Owner",
    "identity_owners": "IdentityOwners",
    "duplicate_identity": "DuplicateIdentity",
    "area_overlap": "AreaOverlap",
    "unresolved_subject": "UnresolvedSubject",
}
LOGICA_FILES = ("routing.l", "conflicts.l")


def _program():
    from analyzer.query.check import check_program

    return check_program(True)


def _extract(job):
    """One repository's facts the subset reads, as Arrow tables (in a worker; pickled back)."""
    from analyzer.commands.fleet_check import prepare
    from analyzer.engine.sql.duck import arrow_tables
    from analyzer.query.check_families import ORDER

    index, path, relations = job
    item = prepare(path, ORDER, False)
    if item.result is not None:  # a check that stops before evaluating: not in the fleet's SQL either
        return index, None
    decls = _program().program.decls
    return index, arrow_tables(decls, index, {r: rows for r, rows in item.facts.items() if r in relations})


def facts(root: Path, out: Path, jobs: int) -> int:
    """Write the subset's facts of every repository under ``root`` to ``out``."""
    import multiprocessing

    import pyarrow as pa
    import pyarrow.parquet as pq

    from analyzer.engine.sql.tables import arrow_schema

    engine = _program()
    relations = {r for r in engine.needed(list(GOALS)) if r in engine.program.decls}
    from analyzer.project.fleet_repos import resolve

    paths = resolve([str(root)])  # a directory of checkouts or a file listing them, as `analyze fleet`
    collected, numbers = {}, []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for index, tables in pool.imap(_extract, [(i, p, relations) for i, p in enumerate(paths)]):
            if tables is None:
                continue
            numbers.append(index)
            for rel, table in tables.items():
                collected.setdefault(rel, []).append(table)
    out.mkdir(parents=True, exist_ok=True)
    for rel in sorted(relations):
        decl = engine.program.decls[rel]
        table = pa.concat_tables(collected[rel]) if rel in collected else arrow_schema(decl).empty_table()
        pq.write_table(table, out / f"{rel}.parquet")
    pq.write_table(pa.table({"repo": pa.array(numbers, type=pa.int32())}), out / "repos.parquet")
    print(f"{len(numbers)} repositories, {len(relations)} relations, "
          f"{sum(t.num_rows for ts in collected.values() for t in ts):,} facts -> {out}")
    return 0


def _read(facts_dir: Path):
    import pyarrow.parquet as pq

    tables = {p.stem: pq.read_table(p) for p in sorted(facts_dir.glob("*.parquet"))}
    repos = tables.pop("repos").column("repo").to_pylist()
    return repos, tables


def _connect():
    from analyzer.engine.sql.duck import connect

    return connect()


def run_ours(facts_dir: Path, timings: dict) -> dict:
    """Our SQL back end: the check program's strata that the goals need, then the goals' rows."""
    from analyzer.engine.sql.duck import DuckRun

    start = time.perf_counter()
    repos, tables = _read(facts_dir)
    engine = _program()
    run = DuckRun(engine, _connect())
    # the whole fleet's tables as one load (the repository numbers are in the tables)
    run.load_stream([(repos[0], tables)] + [(n, {}) for n in repos[1:]])
    timings["load"] = time.perf_counter() - start
    start = time.perf_counter()
    run.evaluate(list(GOALS))
    rows = {rel: run.con.execute(f'SELECT * FROM "{rel}"').fetchall() for rel in GOALS}
    timings["evaluate"] = time.perf_counter() - start
    return rows


def run_logica(facts_dir: Path, timings: dict) -> dict:
    """Logica: the program compiled to DuckDB's SQL and run as Logica runs several predicates."""
    from logica.common import concertina_lib
    from logica.compiler import universe
    from logica.parser_py import parse

    start = time.perf_counter()
    repos, tables = _read(facts_dir)
    con = _connect()
    for rel, table in sorted(tables.items()):
        con.register("__facts_in", table)
        con.execute(f'CREATE TABLE "{rel}" AS SELECT DISTINCT * FROM __facts_in')
        con.unregister("__facts_in")
    con.execute("CREATE TABLE repos (repo INTEGER)")
    con.executemany("INSERT INTO repos VALUES (?)", [(n,) for n in repos])
    timings["load"] = time.perf_counter() - start
    start = time.perf_counter()
    source = '@Engine("duckdb");\n' + "\n".join((HERE / "logica" / name).read_text(encoding="utf-8")
                                               for name in LOGICA_FILES)
    program = universe.LogicaProgram(parse.ParseFile(source)["rule"])
    executions = []
    for predicate in GOALS.values():
        program.FormattedPredicateSql(predicate)
        executions.append(program.execution)
    timings["compile"] = time.perf_counter() - start
    start = time.perf_counter()

    def runner(sql, _engine, is_final):
        return con.sql(sql).fetchall() if is_final else con.execute(sql)

    results = concertina_lib.ExecuteLogicaProgram(executions, runner, "duckdb", display_mode="silent")
    timings["evaluate"] = time.perf_counter() - start
    return {rel: results[predicate] for rel, predicate in GOALS.items()}


def compare(facts_dir: Path) -> int:
    """Both sides' rows of every goal, as sets."""
    ours, theirs = run_ours(facts_dir, {}), run_logica(facts_dir, {})
    differ = 0
    for rel in GOALS:
        a, b = set(map(tuple, ours[rel])), set(map(tuple, theirs[rel]))
        status = "same" if a == b else f"DIFFER (ours only {len(a - b)}, Logica only {len(b - a)})"
        differ += a != b
        print(f"{rel:20} {len(a):>9,} rows  {status}")
        if a != b:
            for row in sorted(a - b)[:3]:
                print("   ours only:", row)
            for row in sorted(b - a)[:3]:
                print("   Logica only:", row)
    print(f"same rows in {len(GOALS) - differ} of {len(GOALS)} relations")
    return 1 if differ else 0


def run(facts_dir: Path, side: str) -> int:
    """One side as a whole process (what `pair` and paired external timings run)."""
    timings: dict = {}
    rows = (run_ours if side == "ours" else run_logica)(facts_dir, timings)
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in timings.items())
    print(f"{side}: {sum(len(r) for r in rows.values()):,} goal rows; {phases}")
    return 0


def pair(facts_dir: Path, runs: int) -> int:
    """``run`` of each side as a process, alternating which goes first."""
    walls = {"ours": [], "logica": []}
    for number in range(runs):
        for side in (("ours", "logica") if number % 2 == 0 else ("logica", "ours")):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, __file__, "run", str(facts_dir), "--side", side],
                                  capture_output=True, text=True, check=True)
            walls[side].append(time.perf_counter() - start)
            said = proc.stdout.strip().splitlines()[-1]  # Logica's Concertina says first that IPython is absent
            print(f"run {number + 1} {side}: {walls[side][-1]:.2f} s ({said})", flush=True)
    ours, logica = statistics.median(walls["ours"]), statistics.median(walls["logica"])
    print(f"median wall: ours {ours:.2f} s, Logica {logica:.2f} s: ours/Logica {ours / logica:.2f}x")
    return 0


def main() -> int:
    """Dispatch the sub-commands (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    subs = parser.add_subparsers(dest="command", required=True)
    sub = subs.add_parser("facts")
    sub.add_argument("root", type=Path, help="a directory of checkouts or a file listing them")
    sub.add_argument("out", type=Path)
    sub.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    for name in ("compare", "run", "pair"):
        sub = subs.add_parser(name)
        sub.add_argument("facts", type=Path)
        if name == "run":
            sub.add_argument("--side", choices=("ours", "logica"), required=True)
        if name == "pair":
            sub.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.command == "facts":
        return facts(args.root, args.out, args.jobs)
    if args.command == "compare":
        return compare(args.facts)
    if args.command == "run":
        return run(args.facts, args.side)
    return pair(args.facts, args.runs)


if __name__ == "__main__":
    sys.exit(main())
