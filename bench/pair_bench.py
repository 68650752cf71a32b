"""Paired whole-process comparison of two ``analyze`` installations on one command line.

usage: python bench/pair_bench.py --a BIN_A --b BIN_B [--cold] [--repeat N] -- ARGS...

Runs ``BIN_A ARGS`` and ``BIN_B ARGS`` in turn (A B A B ...), N times each after one
unmeasured warm-up run of each, and prints per command the median wall seconds, user
seconds and peak RSS, and the median of the per-pair A/B ratios. Pairing keeps the ratio
meaningful on a shared machine whose speed drifts: quote the ratios, not the seconds.

*warm*: both use one ``XDG_CACHE_HOME`` filled by the warm-up run. *cold* (``--cold``):
every run gets a fresh, empty ``XDG_CACHE_HOME`` (facts cache, program cache, Lark tables,
materialized strata all start empty); ``--cold-a``: only A's runs are cold. Both commands
must print the same bytes on every run (exit status 1 otherwise), unless ``--b-args`` gives
B other arguments (e.g. ``check`` measured against a ``read``, or one project against
another). ``--b-remove AREA`` removes ``memory-analyzer/AREA`` from B's cache before each
of its runs (``results``: a ``check`` that evaluates its rules instead of answering from
its result cache); ``--remove AREA`` does so before every run of both (``history``: a
readiness or diff whose per-commit Git results and comparisons start empty, i.e. a first
run over a history). Wall = ``perf_counter`` around spawn-to-exit; user seconds, CPU
seconds (user + sys, Git's child processes included) and peak RSS = the child's
``os.wait4`` rusage. Used for docs/performance.md ("Issue 9").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv: list, cache: str) -> tuple:
    """One process: (wall s, user s, peak MiB, digest of stdout, user + sys s)."""
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, _status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        digest = hashlib.sha256(out.read()).hexdigest()[:12]
    return wall, usage.ru_utime, usage.ru_maxrss / 1024, digest, usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="the analyze executable measured")
    ap.add_argument("--b", required=True, help="the yardstick analyze executable")
    ap.add_argument("--cold", action="store_true", help="an empty cache for every run")
    ap.add_argument("--cold-a", action="store_true", help="an empty cache for every run of A only")
    ap.add_argument("--b-args", help="B's arguments, one shell-quoted string (default: the same as A's)")
    ap.add_argument("--b-remove", metavar="AREA", help="remove this cache area before each run of B")
    ap.add_argument("--remove", metavar="AREA", help="remove this cache area before each run of A and of B")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args(argv)
    args = [a for a in opts.args if a != "--"] if opts.args[:1] == ["--"] else opts.args
    b_args = shlex.split(opts.b_args) if opts.b_args is not None else args
    with tempfile.TemporaryDirectory(prefix="pair-bench-") as work:
        warm = {"A": os.path.join(work, "warm-a"), "B": os.path.join(work, "warm-b")}
        results = {"A": [], "B": []}
        digests = {"A": set(), "B": set()}
        for k in range(opts.repeat + 1):
            for name, argv in (("A", [opts.a, *args]), ("B", [opts.b, *b_args])):
                cold = opts.cold or (opts.cold_a and name == "A")
                cache = tempfile.mkdtemp(dir=work) if cold else warm[name]
                for area in (opts.remove, opts.b_remove if name == "B" else None):
                    if area:
                        shutil.rmtree(os.path.join(cache, "memory-analyzer", area), ignore_errors=True)
                wall, user, mib, digest, cpu = run(argv, cache)
                digests[name].add(digest)
                if k:  # the first round warms up (and fills the warm cache)
                    results[name].append((wall, user, mib, cpu))
    for name in ("A", "B"):
        rows = results[name]
        print(f"{name}: wall {statistics.median(r[0] for r in rows):.3f} s, user "
              f"{statistics.median(r[1] for r in rows):.3f} s, cpu {statistics.median(r[3] for r in rows):.3f} s, "
              f"peak {max(r[2] for r in rows):.0f} MiB")
    for i, what in ((0, "wall"), (1, "user"), (3, "cpu")):
        ratios = [a[i] / b[i] for a, b in zip(results["A"], results["B"]) if b[i]]
        print(f"A/B {what}: median {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f}, max {max(ratios):.3f}, {len(ratios)} pairs)")
    same = len(digests["A"] | digests["B"]) == 1 if opts.b_args is None else \
        len(digests["A"]) == 1 and len(digests["B"]) == 1
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; outputs {'same' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
