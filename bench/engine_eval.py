"""CPU of the datalog evaluation inside one cold ``analyze`` command, and paired comparisons.

usage: python bench/engine_eval.py [--repeat N] -- ARGS...
       python bench/engine_eval.py --a PYTHON_A --b PYTHON_B [--pairs P] [--repeat N] -- ARGS...

The first form runs ``analyze ARGS`` in this process with an empty ``XDG_CACHE_HOME`` (a cold
run: no facts, strata or program cache; the compiled rules come from the installation) and
prints the process CPU seconds of every ``Engine.evaluate`` call it made (``cold``: the
largest; ``total``: all of them plus storing the request-independent strata,
analyzer/engine/materialize.py, which a cold ``read`` does after evaluating; ``read``: for a
``read``, all of analyzer/query/read.py's ``_evaluate``: loading the compiled program, the
request's facts, every evaluation, the strata store and building the result). With ``--repeat N``
the largest call is then evaluated N more times over the same facts (garbage collector off,
as the commands run it) and the minimum and median CPU seconds are printed, with a digest of
every relation of the result (equal digests: equal results).

The second form alternates the first form under two interpreters (each with its own
installation of the analyzer, e.g. venvs made with ``pip install .`` of two commits), P
pairs, and prints the median of the per-pair ratios A/B of the cold call, the total and
the repeated minimum. Run it from outside the source tree, so that each interpreter imports its
own installation. Used for docs/performance.md ("Engine evaluation, cold runs").
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def measure(args: list, repeat: int) -> dict:
    """Run ``analyze args`` cold in this process; the evaluate calls' CPU seconds."""
    from analyzer.commands import cli
    from analyzer.engine.evaluate import Engine

    calls = []
    evaluate = Engine.evaluate

    def timed(self, facts, **options):
        start = time.process_time()
        db = evaluate(self, facts, **options)
        calls.append((time.process_time() - start, self, facts, options))
        return db

    from analyzer.engine import materialize

    stores = []
    write = materialize._write

    def timed_write(*a):
        start = time.process_time()
        write(*a)
        stores.append(time.process_time() - start)

    from analyzer.query import read

    evaluations = []
    read_evaluate = read._evaluate

    def timed_read(*a):
        start = time.process_time()
        try:
            return read_evaluate(*a)
        finally:
            evaluations.append(time.process_time() - start)

    Engine.evaluate = timed
    materialize._write = timed_write
    read._evaluate = timed_read
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="engine-eval-")
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.main(args)
        except SystemExit:
            pass
    Engine.evaluate = evaluate
    materialize._write = write
    read._evaluate = read_evaluate
    if not calls:
        raise SystemExit("the command evaluated nothing")
    first, engine, facts, options = max(calls, key=lambda c: c[0])
    result = {"calls": [round(c[0], 4) for c in calls], "cold": first, "store": sum(stores),
              "total": sum(c[0] for c in calls) + sum(stores), "read": sum(evaluations)}
    if repeat:
        gc.disable()
        times, db = [], None
        for _ in range(repeat):
            db = None
            gc.collect()
            start = time.process_time()
            db = evaluate(engine, facts, **options)
            times.append(time.process_time() - start)
        digest = hashlib.sha256()
        for rel in sorted(db.known()):
            digest.update(repr((rel, db.relation(rel))).encode())
        result.update(min=min(times), median=statistics.median(times), digest=digest.hexdigest()[:16])
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=0, help="evaluate the largest call N more times")
    ap.add_argument("--a", help="interpreter A (paired mode)")
    ap.add_argument("--b", help="interpreter B (paired mode)")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args(argv)
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    if not opts.a:
        result = measure(args, opts.repeat)
        if opts.json:
            print(json.dumps(result))
        else:
            print(" ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in result.items()))
        return 0
    rows = []
    for _ in range(opts.pairs):
        pair = []
        for python in (opts.a, opts.b):
            command = [python, os.path.abspath(__file__), "--json", "--repeat", str(opts.repeat), "--", *args]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            pair.append(json.loads(out.strip().splitlines()[-1]))
        rows.append(pair)
    for field in ("cold", "total") + (("read",) if rows[0][0]["read"] else ()) + (("min",) if opts.repeat else ()):
        a = [r[0][field] for r in rows]
        b = [r[1][field] for r in rows]
        ratios = sorted(x / y for x, y in zip(a, b))
        print(f"{field}: A {statistics.median(a):.3f} s, B {statistics.median(b):.3f} s, A/B median "
              f"{statistics.median(ratios):.3f} (min {ratios[0]:.3f}, max {ratios[-1]:.3f}, {len(rows)} pairs)")
    if opts.repeat:
        same = len({r[i]["digest"] for r in rows for i in (0, 1)}) == 1
        print("results identical" if same else "RESULTS DIFFER")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
