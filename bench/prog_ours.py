"""Run one bench program (bench/programs/NAME.dl) with our engine and print relation counts.

usage: python bench/prog_ours.py NAME      (NAME: sg | neg)
Prints ``rel=N`` for every relation the workload's reference checks.
"""

import sys
from pathlib import Path

import workloads
from analyzer.engine import Engine, load_program

PROGRAMS = Path(__file__).resolve().parent / "programs"


def main(name: str) -> None:
    """Load the program, add the workload's facts, evaluate, print the counts."""
    facts_fn, reference_fn = workloads.WORKLOADS[name]
    db = Engine(load_program(PROGRAMS / f"{name}.dl")).evaluate(facts_fn())
    print(" ".join(f"{rel}={db.count(rel)}" for rel in sorted(reference_fn())))


if __name__ == "__main__":
    main(sys.argv[1])
