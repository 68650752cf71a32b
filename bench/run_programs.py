"""Same-generation and stratified-negation programs: ours and clingo, whole process.

usage: python bench/run_programs.py [--python PY] [--reps 5] [--engines ours,clingo]
                                    [--raw bench/results/programs_runs.tsv]

Runs bench/prog_<engine>.py for every workload of bench/workloads.py as separate processes
(bench/measure.py), checks every printed relation count against the workload's reference
(computed without datalog), and prints a Markdown table. Exits 1 on a wrong count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import measure
import workloads
from run_tc import DEFAULT_TIMEOUT, default_python, ratio

HERE = Path(__file__).resolve().parent
DESCRIPTIONS = {
    "sg": "same generation, random tree of 2,000 nodes (bench/programs/sg.dl)",
    "neg": "reach + 2 negation strata, random graph 1,000/1,500 (bench/programs/neg.dl)",
}


def main() -> int:
    """Run every workload with every engine and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=default_python())
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--engines", default="ours,clingo")
    parser.add_argument("--raw", default=None, help="also write every run as TSV here")
    args = parser.parse_args()
    engines = args.engines.split(",")

    rows, wrong, raw = [], [], ["engine\tprogram\trun\twall_s\tpeak_rss_mib\tstatus\tcounts"]
    for name, (_, reference_fn) in workloads.WORKLOADS.items():
        expected = reference_fn()
        derived = sum(expected.values())
        medians = {}
        for engine in engines:
            series = measure.run_series([args.python, str(HERE / f"prog_{engine}.py"), name],
                                        args.reps, DEFAULT_TIMEOUT)
            for i, run in enumerate(series.runs, 1):
                raw.append(f"{engine}\t{name}\t{i}\t{run.wall:.3f}\t{run.rss_mib:.0f}\t{run.status}\t{run.stdout.strip()}")
                if run.status == "ok":
                    got = {rel: measure.count_in(run.stdout, rel) for rel in expected}
                    if got != expected:
                        wrong.append(f"{engine} on {name}: {got}, expected {expected}")
            medians[engine] = series.median_wall
            rows.append(f"| {DESCRIPTIONS[name]} | {derived:,} | {engine} | "
                        f"{measure.fmt_seconds(series.median_wall)} (n={len(series.ok_runs)}) | "
                        f"{measure.fmt_mib(series.peak_rss)} | {series.note or ''} |")
            print(f"# {engine:8s} {name:5s} {measure.fmt_seconds(series.median_wall)} "
                  f"{[round(r.wall, 2) for r in series.runs]} {series.note}", file=sys.stderr, flush=True)
        if "ours" in medians and "clingo" in medians:
            rows.append(f"| | | clingo time / ours | {ratio(medians['clingo'], medians['ours'])} | | |")

    if args.raw:
        Path(args.raw).parent.mkdir(parents=True, exist_ok=True)
        Path(args.raw).write_text("\n".join(raw) + "\n")
    out = measure.header(args.python, f"Median of {args.reps} whole-process runs; "
                                      "peak RSS is the largest over those runs.")
    out += ["| program | derived tuples | engine | time | peak RSS | note |", "|---|---|---|---|---|---|", *rows]
    return measure.finish(out, wrong, "Wrong counts")


if __name__ == "__main__":
    raise SystemExit(main())
