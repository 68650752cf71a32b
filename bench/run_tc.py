"""Transitive closure, side by side: ours, clingo, pyDatalog and a plain semi-naive loop.

usage: python bench/run_tc.py [--python PY] [--reps 5] [--graphs g1,g2] [--engines e1,e2]
                              [--raw bench/results/tc.tsv]

Every run is its own process (bench/measure.py). Prints a Markdown report: the machine, the
versions, one table of median wall time and peak RSS per engine and graph, the speed ratios
the issue's target is stated in, and a note wherever fewer than --reps runs were made.
Exits 1 if any engine printed a wrong tuple count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import graphs
import measure

HERE = Path(__file__).resolve().parent
ENGINES = ("ours", "ours_cold", "clingo", "pydatalog", "seminaive")
LABELS = {
    "ours": "ours (analyzer.engine, compiled program cached)",
    "ours_cold": "ours, compiled afresh (no cache)",
    "clingo": "clingo",
    "pydatalog": "pyDatalog",
    "seminaive": "plain semi-naive loop (reference)",
}
# pyDatalog needs minutes on the 3.5 M-tuple graph; the baselines stop it at 300 s too.
TIMEOUT = {"pydatalog": 300.0}
DEFAULT_TIMEOUT = 600.0


def default_python() -> str:
    """bench's own venv when it exists (bench/setup_venv.sh), else this interpreter."""
    venv = HERE.parent / ".bench-venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def ratio(num: float | None, den: float | None) -> str:
    """``num / den`` as ``N.N×`` (or a lower bound when ``num`` is a timeout)."""
    if num is None or den is None or den == 0:
        return "—"
    return f"{num / den:.1f}×"


def main() -> int:
    """Run the matrix and print the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=default_python())
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--graphs", default=",".join(graphs.GRAPHS))
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--raw", default=None, help="also write every run as TSV here")
    args = parser.parse_args()
    graph_names = args.graphs.split(",")
    engine_names = args.engines.split(",")

    results: dict = {}
    wrong = []
    raw_lines = ["engine\tgraph\trun\twall_s\tpeak_rss_mib\tstatus\tpath_tuples"]
    for graph in graph_names:
        for engine in engine_names:
            argv = [args.python, str(HERE / f"tc_{engine}.py"), graph]
            timeout = TIMEOUT.get(engine, DEFAULT_TIMEOUT)
            if engine == "ours":  # fill the compiled-program cache once, as any earlier run would
                measure.run_once(argv, timeout)
            series = measure.run_series(argv, args.reps, timeout)
            for i, run in enumerate(series.runs, 1):
                count = measure.count_in(run.stdout, "path_tuples")
                raw_lines.append(f"{engine}\t{graph}\t{i}\t{run.wall:.3f}\t{run.rss_mib:.0f}\t{run.status}\t{count}")
                if run.status == "ok" and count != graphs.EXPECTED_PATH_TUPLES[graph]:
                    wrong.append(f"{engine} on {graph}: {count} tuples, expected {graphs.EXPECTED_PATH_TUPLES[graph]}")
            results[engine, graph] = series
            print(f"# {engine:10s} {graph:13s} {measure.fmt_seconds(series.median_wall):>10s} "
                  f"{[round(r.wall, 2) for r in series.runs]} {series.note}", file=sys.stderr, flush=True)

    if args.raw:
        Path(args.raw).parent.mkdir(parents=True, exist_ok=True)
        Path(args.raw).write_text("\n".join(raw_lines) + "\n")

    out = measure.header(args.python, f"Median of up to {args.reps} whole-process runs per cell; "
                                      "peak RSS is the largest over those runs.")
    header = "| engine | " + " | ".join(f"{g} time | {g} peak RSS" for g in graph_names) + " |"
    out += [header, "|" + "---|" * (1 + 2 * len(graph_names))]
    notes = []
    for engine in engine_names:
        cells = []
        for graph in graph_names:
            series = results[engine, graph]
            if series.median_wall is None:
                cells += [f">{TIMEOUT.get(engine, DEFAULT_TIMEOUT):.0f} s ({series.note})", "—"]
            else:
                cells += [f"{measure.fmt_seconds(series.median_wall)} (n={len(series.ok_runs)})",
                          measure.fmt_mib(series.peak_rss)]
            if series.note and series.median_wall is not None:
                notes.append(f"{LABELS[engine]} on {graph}: {series.note}.")
        out.append(f"| {LABELS[engine]} | " + " | ".join(cells) + " |")
    if "ours" in engine_names:
        out += ["", "| graph | clingo time / ours | pyDatalog time / ours |", "|---|---|---|"]
        for graph in graph_names:
            ours = results["ours", graph].median_wall
            clingo = results.get(("clingo", graph))
            pyd = results.get(("pydatalog", graph))
            pyd_cell = "—"
            if pyd is not None:
                pyd_cell = (ratio(pyd.median_wall, ours) if pyd.median_wall is not None
                            else f">{ratio(TIMEOUT['pydatalog'], ours)} (pyDatalog timed out)")
            out.append(f"| {graph} | {ratio(clingo.median_wall if clingo else None, ours)} | {pyd_cell} |")
    if notes:
        out += ["", *[f"* {n}" for n in notes]]
    return measure.finish(out, wrong, "Wrong tuple counts")


if __name__ == "__main__":
    raise SystemExit(main())
