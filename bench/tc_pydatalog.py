"""Transitive closure with pyDatalog (pure-Python tabled top-down engine).

usage: python bench/tc_pydatalog.py GRAPH  -- prints ``path_tuples=N``.
"""

import sys

from pyDatalog import pyDatalog

import graphs


def main(name: str) -> None:
    """Assert the edges, define path/2 and count the answers to path(X, Y)."""
    edges = graphs.graph(name)
    pyDatalog.create_terms("edge, path, X, Y, Z")
    for a, b in edges:
        pyDatalog.assert_fact("edge", a, b)
    pyDatalog.load("path(X, Y) <= edge(X, Y)\npath(X, Y) <= path(X, Z) & edge(Z, Y)")
    answers = pyDatalog.ask("path(X, Y)")
    count = len(answers.answers) if answers else 0
    print(f"pyDatalog graph={name} edges={len(edges)} path_tuples={count}")


if __name__ == "__main__":
    main(sys.argv[1])
