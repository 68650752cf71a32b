"""Transitive closure with our engine compiled afresh on every run (no program cache).

usage: python bench/tc_ours_cold.py GRAPH
"""

import sys

import tc_ours

if __name__ == "__main__":
    tc_ours.main(sys.argv[1], cold=True)
