"""Transitive closure with our engine, through its public API only.

usage: python bench/tc_ours.py GRAPH      (GRAPH: random | chain | random_small)

Loads bench/programs/tc.dl, adds the graph's edge facts, evaluates, and prints
``path_tuples=N``. Run it with bench's venv so the installed package (not the source tree)
is measured.
"""

import sys
from pathlib import Path

import graphs
from analyzer.engine import Engine, load_program

PROGRAM = Path(__file__).resolve().parent / "programs" / "tc.dl"


def main(name: str) -> None:
    """Evaluate path/2 over graph ``name`` and print the tuple count."""
    edges = graphs.graph(name)
    engine = Engine(load_program(PROGRAM))
    db = engine.evaluate({"edge": edges})
    print(f"ours graph={name} edges={len(edges)} path_tuples={db.count('path')}")


if __name__ == "__main__":
    main(sys.argv[1])
