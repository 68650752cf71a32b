"""Transitive closure with clingo (gringo grounds path/2 completely; solving is trivial).

usage: python bench/tc_clingo.py GRAPH     -- prints ``path_tuples=N``.
"""

import sys

import clingo

import graphs

RULES = "path(X,Y) :- edge(X,Y).\npath(X,Y) :- path(X,Z), edge(Z,Y).\n#show path/2.\n"


def main(name: str) -> None:
    """Ground and solve; count the shown path/2 atoms of the (unique) model."""
    edges = graphs.graph(name)
    text = "".join(f"edge({a},{b}).\n" for a, b in edges) + RULES
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    counts = []
    ctl.solve(on_model=lambda model: counts.append(len(model.symbols(shown=True))))
    print(f"clingo {clingo.__version__} graph={name} edges={len(edges)} path_tuples={counts[0]}")


if __name__ == "__main__":
    main(sys.argv[1])
