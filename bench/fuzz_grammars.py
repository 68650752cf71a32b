"""The long run of the grammar fuzzers: N near-valid files per grammar, zero internal errors.

    python bench/fuzz_grammars.py --examples 100000            # every grammar (docs/reliability.md)
    python bench/fuzz_grammars.py --grammar datalog --examples 5000
    python bench/fuzz_grammars.py --examples 100000 --chunk 2000 --seconds 2400  # time-boxed

With ``--chunk N`` the inputs are drawn in runs of N, each with the next seed, and with
``--seconds S`` a grammar stops after the first run that ends past S seconds, so that on a
shared machine every grammar gets its share of the time (the count actually reached is
printed; it is the figure to record).

The strategies and the failure test are tests/fuzz/strategies.py and tests/fuzz/targets.py,
the same ones the test suite runs at CI size. Hypothesis shrinks each failure to a minimal
file, which is printed; the exit status is 1 when any grammar failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.fuzz.strategies import GRAMMARS  # noqa: E402
from tests.fuzz.targets import run  # noqa: E402


def fuzz(grammar: str, examples: int, seed: int, every: int = 0) -> tuple:
    """Run ``examples`` inputs of one grammar: ``(failure, inputs run)``, failure "" when all passed.

    With ``every`` > 0 a progress line goes to stderr after each ``every`` inputs, so a run
    stopped by its time limit still tells how many inputs passed.
    """
    count = [0]
    start = time.monotonic()

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(GRAMMARS[grammar]())
    def check(text):
        count[0] += 1
        run(grammar, text)
        if every and count[0] % every == 0:
            print(f"{grammar}: {count[0]} inputs passed ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)

    check._hypothesis_internal_use_seed = seed
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - reported, with hypothesis' minimal example
        return f"{type(exc).__name__}: {exc}", count[0]
    finally:
        print(f"{grammar}: {count[0]} inputs (seed {seed})", file=sys.stderr, flush=True)
    return "", count[0]


def main(argv=None) -> int:
    """Fuzz the chosen grammars; print one line per grammar; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100_000, help="inputs per grammar")
    parser.add_argument("--grammar", action="append", choices=sorted(GRAMMARS), help="only these (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", type=int, default=0, metavar="N", help="print a progress line every N inputs")
    parser.add_argument("--chunk", type=int, default=0, metavar="N", help="draw the inputs in runs of N, one seed each")
    parser.add_argument("--seconds", type=float, default=0, metavar="S", help="with --chunk: stop a grammar after S seconds")
    args = parser.parse_args(argv)
    failed = 0
    for grammar in args.grammar or sorted(GRAMMARS):
        start = time.monotonic()
        problem, done, seed = "", 0, args.seed
        chunk = args.chunk or args.examples
        while not problem and done < args.examples:
            size = min(chunk, args.examples - done)
            problem, ran = fuzz(grammar, size, seed, args.progress)
            done, seed = done + ran, seed + 1
            if args.seconds and time.monotonic() - start > args.seconds:
                break
        print(f"{grammar}: {'FAIL ' + problem if problem else 'ok'}; {done} inputs, seeds {args.seed}-{seed - 1} "
              f"({time.monotonic() - start:.0f} s)", flush=True)
        failed += bool(problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
