"""Ad hoc query timings in one process, as `analyze shell` runs them.

    python bench/query_bench.py ROOT        # e.g. a project made by gen_project.py ROOT 100000

Prints wall and CPU seconds for: reading the project (once), a first goal over a derived
relation (evaluates the rules it needs), a second goal over another relation, the first
goal again (answered from the kept evaluation), and a goal with a read request.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def _timed(label, fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    print(f"{label:<48} wall {time.perf_counter() - wall:7.2f} s  cpu {time.process_time() - cpu:7.2f} s")
    return result


def main(root: str) -> None:
    """Time the steps on the project at ``root``."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from analyzer.commands.shell_session import Shell

    shell = _timed("read the project (once)", lambda: Shell(Path(root)))
    goal = 'owner(I, M, Sc, S, F), Sc != "project"'
    out = _timed("1st goal: owner(...), Sc != \"project\"", lambda: shell.handle(goal))
    _timed("2nd goal: entry(I, M, \"CON\", \"active\", _)", lambda: shell.handle('entry(I, M, "CON", "active", _)'))
    _timed("1st goal again (kept evaluation)", lambda: shell.handle(goal))
    _timed(".task implementation (request facts only)", lambda: shell.handle(".task implementation"))
    _timed("goal with a request: disposition(M, \"loaded\")", lambda: shell.handle('disposition(M, "loaded")'))
    print(f"answers to the 1st goal: {out.strip().splitlines()[-1]}; project reads: {shell.reads}")


if __name__ == "__main__":
    main(sys.argv[1])
