"""Run one bench program (bench/programs/NAME.lp) with clingo and print relation counts.

usage: python bench/prog_clingo.py NAME    (NAME: sg | neg)
"""

import sys
from collections import Counter
from pathlib import Path

import clingo

import workloads

PROGRAMS = Path(__file__).resolve().parent / "programs"


def main(name: str) -> None:
    """Ground and solve the ASP version; count the shown atoms per relation."""
    facts_fn, reference_fn = workloads.WORKLOADS[name]
    text = "".join(f"{rel}({','.join(map(str, tup))}).\n"
                   for rel, tuples in facts_fn().items() for tup in tuples)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text + (PROGRAMS / f"{name}.lp").read_text())
    ctl.ground([("base", [])])
    counts = Counter()
    ctl.solve(on_model=lambda model: counts.update(s.name for s in model.symbols(shown=True)))
    print(" ".join(f"{rel}={counts[rel]}" for rel in sorted(reference_fn())))


if __name__ == "__main__":
    main(sys.argv[1])
