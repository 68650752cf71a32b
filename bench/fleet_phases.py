"""Where `fleet check`'s time goes, in one process (docs/performance.md, issue 29): the
timeline of the main process (each group's evaluation, when the workers' first and last
repositories arrived) with its CPU time, and the CPU time of the workers.

usage: python bench/fleet_phases.py ROOT [--jobs 2] [--group N]   (--group 0: one group)

Runs `fleet check ROOT --format json`'s work (analyzer.commands.fleet_check.fleet_results)
with a fresh cache directory (XDG_CACHE_HOME) in which only the compiled rules are cached
first, as bench/fleet_bench.py does: every repository is extracted and evaluated.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

from fleet_bench import fresh_cache  # bench/ is this script's folder, on the path


def main() -> int:
    """Run the fleet once and print the main process's timeline and the CPU split."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--group", type=int, default=None, help="repositories per evaluation (0: all)")
    args = parser.parse_args()
    fresh_cache()
    start = time.perf_counter()
    marks = []

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter() - start, time.process_time()))

    from analyzer.commands import fleet_check
    from analyzer.engine.sql import duck
    from analyzer.project.fleet_repos import resolve

    if args.group is not None:
        duck.DuckRun.GROUP = args.group or None
    evaluate, tables, arrived = duck.DuckRun.evaluate, fleet_check.Extracted.tables, []

    def timed_evaluate(run, *rest, **options):
        mark(f"evaluate {len(getattr(run, 'numbers', ()))} repositories")
        result = evaluate(run, *rest, **options)
        mark("  evaluated")
        return result

    def timed_tables(item, *args):
        arrived.append((time.perf_counter() - start, time.process_time()))
        return tables(item, *args)

    duck.DuckRun.evaluate, fleet_check.Extracted.tables = timed_evaluate, timed_tables
    paths = resolve([args.root])
    mark("start")
    fleet_check.fleet_results(paths, jobs=args.jobs, formats=("json",), results=False)  # as the CLI asks
    mark("done")
    for name, wall, cpu in marks:
        print(f"{name:32s} {wall:7.2f} s wall  main process CPU {cpu:6.2f} s")
    if arrived:
        (first, _), (last, cpu) = arrived[0], arrived[-1]
        # what waits for the last repository: the main process's work after it arrived
        print(f"repositories from the workers: first at {first:.2f} s, last at {last:.2f} s; after the last: "
              f"{marks[-1][1] - last:.2f} s wall, main process CPU {marks[-1][2] - cpu:.2f} s")
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU: main process {own.ru_utime + own.ru_stime:.2f} s, "
          f"workers {workers.ru_utime + workers.ru_stime:.2f} s; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
