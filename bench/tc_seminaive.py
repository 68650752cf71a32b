"""Reference floor: a hand-written semi-naive loop over Python sets (no engine at all).

usage: python bench/tc_seminaive.py GRAPH  -- prints ``path_tuples=N``.
"""

import sys
from collections import defaultdict

import graphs


def closure(edges):
    """All (x, y) with a non-empty edge path from x to y; extends only the last round's pairs."""
    successors = defaultdict(list)
    for a, b in edges:
        successors[a].append(b)
    total = set(edges)
    frontier = set(edges)
    while frontier:
        fresh = {(x, y) for x, z in frontier for y in successors.get(z, ()) if (x, y) not in total}
        total |= fresh
        frontier = fresh
    return total


if __name__ == "__main__":
    name = sys.argv[1]
    edges = graphs.graph(name)
    print(f"seminaive graph={name} edges={len(edges)} path_tuples={len(closure(edges))}")
