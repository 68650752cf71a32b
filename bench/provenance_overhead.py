"""What provenance costs when nobody asks for a proof, and what it costs when they do.

usage: python bench/provenance_overhead.py [GRAPH ...]     (default: random_small chain)

In one process, per graph, the best of 7 runs of:

* ``loop``: a hand-written semi-naive transitive closure with set deltas (no engine at all);
* ``plain``: our engine, ``evaluate(provenance=False)``;
* ``proofs``: our engine, ``evaluate(provenance=True)`` (height bookkeeping for ``why``).

Time is ``perf_counter`` around the evaluation only (the program is compiled once before),
measured without tracing; memory is the ``tracemalloc`` peak of one further traced run. The engine generates separate code for
the two flavours, so ``plain`` runs no provenance code per tuple; the issue's limit is that
``plain`` stays within 10% of an engine without provenance. Prints a Markdown table.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import graphs

from analyzer.engine.cache import load_engine

PROGRAM = Path(__file__).resolve().parent / "programs" / "tc.dl"
REPEAT = 7


def hand_loop(edges):
    """Semi-naive transitive closure without an engine: the floor to compare against."""
    succ = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    path, delta = set(edges), set(edges)
    while delta:
        new = {(x, y) for x, z in delta for y in succ.get(z, ()) if (x, y) not in path}
        path |= new
        delta = new
    return len(path)


def measure(fn) -> tuple:
    """Best wall time over REPEAT untraced runs, and the tracemalloc peak (MiB) of one more."""
    best = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak


def main(names) -> None:
    """Print one table row per graph."""
    engine = load_engine(PROGRAM, use_cache=False)
    print("| graph | loop s | plain s | plain / loop | proofs s | proofs / plain | loop MiB | plain MiB | proofs MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        edges = graphs.graph(name)
        facts = {"edge": edges}
        engine.evaluate(facts, provenance=True)  # compile both flavours outside the timing
        loop_t, loop_m = measure(lambda: hand_loop(edges))
        plain_t, plain_m = measure(lambda: engine.evaluate(facts))
        prov_t, prov_m = measure(lambda: engine.evaluate(facts, provenance=True))
        print(f"| {name} | {loop_t:.3f} | {plain_t:.3f} | {plain_t / loop_t:.2f} | {prov_t:.3f} | "
              f"{prov_t / plain_t:.2f} | {loop_m:.1f} | {plain_m:.1f} | {prov_m:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["random_small", "chain"])
