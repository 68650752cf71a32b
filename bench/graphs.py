"""Seeded graph generators for the transitive-closure benchmark.

The same graphs as the shared baselines (seed 20240607), so our figures line up with theirs:

* ``random``: 2,000 nodes, 6,000 distinct directed edges, no self-loops;
* ``chain``: 1,000 nodes, edges i -> i+1;
* ``random_small``: 300 nodes, 900 edges.

``python bench/graphs.py --check`` compares every graph with the shared baseline generator
(``../shared/bench/baselines/gen_graph.py``) when that file exists, and always checks the
edge counts and the absence of self-loops.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

SEED = 20240607

#: Expected ``path/2`` tuple counts for each graph (all engines must agree on these).
EXPECTED_PATH_TUPLES = {"random": 3_558_922, "chain": 499_500, "random_small": 81_511}

GRAPHS = ("random_small", "chain", "random")


def random_graph(nodes: int, edges: int, seed: int = SEED) -> list[tuple[int, int]]:
    """``edges`` distinct (a, b) pairs with a != b, drawn as pairs of ``randrange(nodes)``.

    The drawing order (a then b, rejecting self-loops and repeats until enough distinct
    pairs exist) is part of the graph's identity: any other loop gives a different graph.
    """
    rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    while len(seen) < edges:
        src = rng.randrange(nodes)
        dst = rng.randrange(nodes)
        if src != dst:
            seen.add((src, dst))
    return sorted(seen)


def chain_graph(nodes: int) -> list[tuple[int, int]]:
    """The path 0 -> 1 -> ... -> nodes-1."""
    return [(i, i + 1) for i in range(nodes - 1)]


def graph(name: str) -> list[tuple[int, int]]:
    """The named benchmark graph as a sorted edge list."""
    if name == "random":
        return random_graph(2000, 6000)
    if name == "chain":
        return chain_graph(1000)
    if name == "random_small":
        return random_graph(300, 900)
    raise ValueError(f"unknown graph {name!r}; expected one of {', '.join(GRAPHS)}")


def _baseline_module():
    """The shared baseline generator, imported (never copied) when it is present."""
    base = Path(__file__).resolve().parents[1] / ".." / "shared" / "bench" / "baselines"
    if not (base / "gen_graph.py").is_file():
        return None
    sys.path.insert(0, str(base))
    try:
        import gen_graph  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return gen_graph


def self_check() -> int:
    """Check the generators; return a process exit status (0 when all checks pass)."""
    failures = 0
    for name in GRAPHS:
        edges = graph(name)
        if any(a == b for a, b in edges) or len(set(edges)) != len(edges):
            print(f"FAIL {name}: self-loop or duplicate edge")
            failures += 1
    sizes = {name: len(graph(name)) for name in GRAPHS}
    if sizes != {"random": 6000, "chain": 999, "random_small": 900}:
        print(f"FAIL edge counts {sizes}")
        failures += 1
    baseline = _baseline_module()
    if baseline is None:
        print("note: ../shared/bench/baselines/gen_graph.py not found; identity check skipped")
    else:
        for name in GRAPHS:
            same = sorted(baseline.get(name)) == graph(name)
            print(f"{'ok  ' if same else 'FAIL'} {name}: identical to the baseline generator")
            failures += not same
    print("graphs: all checks passed" if not failures else f"graphs: {failures} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        raise SystemExit(self_check())
    raise SystemExit("usage: python bench/graphs.py --check")
