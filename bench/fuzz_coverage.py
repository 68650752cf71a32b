"""Which lines of analyzer/ the grammar fuzzers reach: a check that cheaper strategies still test as much.

    python bench/fuzz_coverage.py --examples 2000 --seed 7
    python bench/fuzz_coverage.py --grammar entries --examples 2000 --lines

For each grammar it runs ``--examples`` inputs of tests/fuzz/strategies.py through
tests/fuzz/targets.py (as bench/fuzz_grammars.py does) with a line tracer on, and prints how
many distinct lines of analyzer/ ran (function bodies; each grammar in its own process, so
that what an earlier grammar memoized does not hide lines). Run it in two checkouts (for instance one made with
``git archive``) to compare two versions of the strategies; ``--lines`` lists the lines, to diff.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import fuzz_grammars  # noqa: E402

ANALYZER = str(REPO / "analyzer") + "/"


def reached(grammar: str, examples: int, seed: int) -> set:
    """The ``(file, line)`` pairs of analyzer/ that ``examples`` inputs of ``grammar`` ran."""
    lines = set()

    def tracer(frame, _event, _arg):
        name = frame.f_code.co_filename
        if not name.startswith(ANALYZER):
            return None

        if frame.f_code.co_name == "<module>":
            return None  # a module's body runs once per process, whichever grammar imports it first

        def local(frame, event, _arg):
            if event == "line":
                lines.add((name[len(ANALYZER):], frame.f_lineno))
            return local
        return local

    target = fuzz_grammars.run

    def traced(grammar_name, text):
        sys.settrace(tracer)
        try:
            target(grammar_name, text)
        finally:
            sys.settrace(None)

    fuzz_grammars.run = traced
    try:
        problem = fuzz_grammars.fuzz(grammar, examples, seed)[0]
    finally:
        fuzz_grammars.run = target
    if problem:
        raise SystemExit(f"{grammar}: {problem}")
    return lines


def main(argv=None) -> int:
    """Print the number of analyzer lines each grammar's inputs reach (and, with --lines, the lines)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--grammar", action="append", choices=sorted(fuzz_grammars.GRAMMARS))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lines", action="store_true", help="list the lines reached")
    args = parser.parse_args(argv)
    grammars = args.grammar or sorted(fuzz_grammars.GRAMMARS)
    if len(grammars) > 1:  # one process each: memoized helpers would count a line only for the first
        for grammar in grammars:
            subprocess.run([sys.executable, __file__, "--grammar", grammar, "--examples", str(args.examples),
                            "--seed", str(args.seed)] + ["--lines"] * args.lines, check=True)
        return 0
    for grammar in grammars:
        lines = reached(grammar, args.examples, args.seed)
        print(f"{grammar}: {len(lines)} lines of analyzer/ reached by {args.examples} inputs (seed {args.seed})")
        if args.lines:
            for name, line in sorted(lines):
                print(f"  {name}:{line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
