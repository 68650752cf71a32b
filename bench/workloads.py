"""Inputs and independently computed answers for the non-closure programs (bench/programs/).

* ``sg``: same generation over a seeded random recursive tree of 2,000 nodes (node i > 0 gets
  a parent drawn uniformly from 0..i-1). On a tree, sg(X, Y) holds exactly for distinct nodes
  at equal depth, which gives the reference count without any datalog.
* ``neg``: reachability, then stratified negation over it, on the seeded random graph with
  1,000 nodes and 1,500 edges. References come from a breadth-first search per node.

Each ``facts_*`` returns ``{relation: [tuples]}``; ``reference_*`` returns the expected count of
every derived relation the programs define.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict, deque

import graphs

SG_NODES = 2000
NEG_NODES, NEG_EDGES = 1000, 1500


def _parents() -> list:
    """parent[i] for i >= 1 of the seeded random recursive tree (parent[0] is None)."""
    rng = random.Random(graphs.SEED)
    return [None] + [rng.randrange(i) for i in range(1, SG_NODES)]


def facts_sg() -> dict:
    """``par(child, parent)`` edges of the tree."""
    parents = _parents()
    return {"par": [(child, parent) for child, parent in enumerate(parents) if parent is not None]}


def reference_sg() -> dict:
    """Ordered pairs of distinct nodes at equal depth."""
    parents = _parents()
    depth = [0] * SG_NODES
    for node in range(1, SG_NODES):
        depth[node] = depth[parents[node]] + 1  # parents have smaller ids: already set
    per_level = Counter(depth)
    return {"sg": sum(n * (n - 1) for n in per_level.values())}


def facts_neg() -> dict:
    """``edge(a, b)`` of the negation workload's graph."""
    return {"edge": graphs.random_graph(NEG_NODES, NEG_EDGES)}


def reference_neg() -> dict:
    """Counts for node, reach, unreach (distinct, no path) and one_way, by BFS from every node."""
    edges = facts_neg()["edge"]
    succ = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    nodes = sorted({v for edge in edges for v in edge})
    reach = {}
    for start in nodes:
        seen, todo = set(), deque(succ[start])
        while todo:
            v = todo.popleft()
            if v not in seen:
                seen.add(v)
                todo.extend(succ[v])
        reach[start] = seen
    n_reach = sum(len(s) for s in reach.values())
    distinct_reach = sum(len(s - {x}) for x, s in reach.items())
    one_way = sum(1 for x, s in reach.items() for y in s if x not in reach[y])
    return {
        "node": len(nodes),
        "reach": n_reach,
        "unreach": len(nodes) * (len(nodes) - 1) - distinct_reach,
        "one_way": one_way,
    }


WORKLOADS = {
    "sg": (facts_sg, reference_sg),
    "neg": (facts_neg, reference_neg),
}
