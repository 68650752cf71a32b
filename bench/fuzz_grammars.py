"""The long run of the grammar fuzzers: N near-valid files per grammar, zero internal errors.

    python bench/fuzz_grammars.py --examples 100000            # every grammar (docs/reliability.md)
    python bench/fuzz_grammars.py --grammar datalog --examples 5000
    python bench/fuzz_grammars.py --examples 100000 --jobs 2   # seeds in two processes
    python bench/fuzz_grammars.py --jobs 2 --max-load 2        # the second only while the load is below 2

The inputs are drawn in runs of ``--chunk`` inputs (default 5,000), each run with the next
seed; ``--jobs N`` runs N seeds at a time in separate processes and sums the counts. With
``--seconds S`` a grammar takes no new run after S seconds, so that on a shared machine every
grammar gets its share (the count actually reached is printed; it is the figure to record).

The bulk runs only generate (no shrinking, no example database): that is what makes a long
run cheap. When a run fails, the failing file is printed as it was found, and the same seed
is run again with shrinking to print a minimal one. The exit status is 1 when any grammar
failed. The strategies and the failure test are tests/fuzz/strategies.py and
tests/fuzz/targets.py, the same ones the test suite runs at CI size.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from tests.fuzz.strategies import GRAMMARS  # noqa: E402
from tests.fuzz.targets import run  # noqa: E402


@lru_cache(maxsize=None)
def strategy(grammar: str):
    """The grammar's strategy, built once per process: Hypothesis keeps what every strategy
    built, and building it anew for each run of 5,000 inputs grew a worker by ~5 MiB a run."""
    return GRAMMARS[grammar]()


def fuzz(grammar: str, examples: int, seed: int, every: int = 0, shrink: bool = False) -> tuple:
    """Run ``examples`` inputs of one grammar with one seed: ``(failure, inputs run, failing text)``.

    ``failure`` is "" when all passed. Without ``shrink`` only the generate phase runs and the
    failing text is the input as found; with it Hypothesis shrinks the failure and the text
    is the minimal input. With ``every`` > 0 a progress line goes to stderr after each
    ``every`` inputs, so a run stopped by a time limit still tells how many inputs passed.
    """
    count, last = [0], [""]
    start = time.monotonic()
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False, phases=phases,
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
    @given(strategy(grammar))
    def check(text):
        count[0] += 1
        last[0] = text
        run(grammar, text)
        if every and count[0] % every == 0:
            print(f"{grammar}: {count[0]} inputs passed ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)

    check._hypothesis_internal_use_seed = seed
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - reported, with the failing input
        return f"{type(exc).__name__}: {exc}", count[0], last[0]
    return "", count[0], ""


def _run_seed(grammar: str, examples: int, seed: int, every: int) -> tuple:
    """One bulk run in a worker: ``(grammar, seed, failure, inputs, text, seconds, max RSS in MiB)``."""
    start = time.monotonic()
    problem, ran, text = fuzz(grammar, examples, seed, every)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return grammar, seed, problem, ran, text, time.monotonic() - start, rss


def _report_failure(grammar: str, examples: int, seed: int, problem: str, text: str) -> None:
    print(f"{grammar}: seed {seed} FAILED: {problem}\n  input as found: {text!r}", flush=True)
    shrunk, _, minimal = fuzz(grammar, examples, seed, shrink=True)
    if shrunk:
        print(f"  minimal input ({shrunk}): {minimal!r}", flush=True)
    else:
        print("  the seed did not fail again with shrinking on; the input above is the reproducer", flush=True)


def _jobs(args) -> int:
    """How many runs may be in flight now: ``--jobs``, or 1 while the machine is busier than
    ``--max-load`` (a shared machine: the second process only takes a core nobody else uses)."""
    if args.max_load and os.getloadavg()[0] >= args.max_load:
        return 1
    return args.jobs


def main(argv=None) -> int:
    """Fuzz the chosen grammars; print one line per grammar; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100_000, help="inputs per grammar")
    parser.add_argument("--grammar", action="append", choices=sorted(GRAMMARS), help="only these (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed; each run takes the next")
    parser.add_argument("--progress", type=int, default=0, metavar="N", help="print a progress line every N inputs")
    parser.add_argument("--chunk", type=int, default=5000, metavar="N", help="inputs per run (one seed each)")
    parser.add_argument("--seconds", type=float, default=0, metavar="S", help="no new run of a grammar after S seconds")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="runs at a time, each in its own process")
    parser.add_argument("--max-load", type=float, default=0, metavar="L",
                        help="start a run beside another only while the 1-minute load average is below L")
    args = parser.parse_args(argv)
    grammars = args.grammar or sorted(GRAMMARS)
    state = {g: {"done": 0, "given": 0, "runs": 0, "problem": "", "start": 0.0, "end": 0.0, "rss": 0}
             for g in grammars}
    failed, loads = 0, []

    def todo(g):  # inputs of grammar g not yet given to a run
        s = state[g]
        over = args.seconds and s["runs"] and time.monotonic() - s["start"] > args.seconds
        return 0 if s["problem"] or over else args.examples - s["given"]

    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=get_context("spawn")) as pool:
        running = {}
        while True:
            for g in grammars:  # in order: a free process takes the first grammar with work left
                while len(running) < _jobs(args) and todo(g) > 0:
                    s = state[g]
                    size, seed = min(args.chunk, todo(g)), args.seed + s["runs"]
                    s["start"] = s["start"] or time.monotonic()
                    s["given"] += size
                    s["runs"] += 1
                    running[pool.submit(_run_seed, g, size, seed, args.progress)] = size
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                size = running.pop(future)
                g, seed, problem, ran, text, seconds, rss = future.result()
                s = state[g]
                s["done"] += ran
                s["given"] -= size - ran
                s["end"], s["rss"] = time.monotonic(), max(s["rss"], rss)
                loads.append(os.getloadavg()[0])
                print(f"{g}: seed {seed}: {ran} inputs in {seconds:.0f} s ({ran / max(seconds, 1e-9):.0f}/s), "
                      f"max RSS {rss} MiB{'; FAILED' if problem else ''}", file=sys.stderr, flush=True)
                if problem and not s["problem"]:
                    s["problem"] = problem
                    _report_failure(g, size, seed, problem, text)
    for g in grammars:
        s = state[g]
        print(f"{g}: {'FAIL ' + s['problem'] if s['problem'] else 'ok'}; {s['done']} inputs, "
              f"seeds {args.seed}-{args.seed + s['runs'] - 1} ({s['end'] - s['start']:.0f} s, "
              f"max RSS {s['rss']} MiB)", flush=True)
        failed += bool(s["problem"])
    if loads:
        print(f"1-minute load average when runs ended: min {min(loads):.1f}, mean {sum(loads) / len(loads):.1f}, "
              f"max {max(loads):.1f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
