"""Transitive closure with our engine, through its public API only.

usage: python bench/tc_ours.py GRAPH      (GRAPH: random | chain | random_small)

Loads bench/programs/tc.dl the way `analyze query` does (through the compiled-program
cache; ``--cold`` compiles afresh: parse, check, stratify with networkx, generate code), adds
the graph's edge facts, evaluates, and prints ``path_tuples=N``. Run it with bench's venv so
the installed package (not the source tree) is measured.
"""

import sys
from pathlib import Path

import graphs
from analyzer.engine.cache import load_engine

PROGRAM = Path(__file__).resolve().parent / "programs" / "tc.dl"


def main(name: str, cold: bool = False) -> None:
    """Evaluate path/2 over graph ``name`` and print the tuple count."""
    edges = graphs.graph(name)
    engine = load_engine(PROGRAM, use_cache=not cold)
    db = engine.evaluate({"edge": edges})
    print(f"ours graph={name} edges={len(edges)} path_tuples={db.count('path')}")


if __name__ == "__main__":
    main(sys.argv[1], cold="--cold" in sys.argv[2:])
