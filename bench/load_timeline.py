"""The cold load path of a read, before evaluation: when evaluation starts, and what each step costs.

usage: python bench/load_timeline.py --a PY_A [--b PY_B] [--repeat N] -- ARGS...
       python bench/load_timeline.py --steps PROJECT_ROOT [--repeat N]

The first form runs ``analyze ARGS`` in-process under each installation's Python (``PY_A``,
``PY_B``: the ``python`` of a venv with the package installed non-editable), alternating A
and B, each run with a fresh empty ``XDG_CACHE_HOME``, and prints per installation the median
and minimum of the wall and CPU seconds (``perf_counter`` and ``process_time`` since the
interpreter started the script) at which ``analyzer.query.read._evaluate`` is entered, i.e.
the whole cold load path of the parent process, and the per-pair median difference A - B.
Only a read's ARGS make sense (``read ...``).

``--steps``: in the current interpreter, the CPU seconds (minimum of ``--repeat`` rounds) of
extracting every entry file and subjects.md of the project, storing each sink
(``marshal.dumps`` of ``to_plain``), loading them back (``loads`` and ``from_plain``) and
merging them into one fact base (half fresh, half loaded, as the parent of a cold read
does). Runs against older installations too (row sinks, ``FactBase.add_located``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys, time
from analyzer.commands import cli
from analyzer.query import read
def stop(*args, **kwargs):
    print("MARK %.4f %.4f" % (time.perf_counter() - T0, time.process_time()), file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)
read._evaluate = stop
cli.main(sys.argv[1:])
"""


def timeline(python: str, argv: list) -> tuple:
    """(wall s, cpu s) at which one cold run enters evaluation."""
    cache = tempfile.mkdtemp(prefix="load-timeline-")
    try:
        code = "import time; T0 = time.perf_counter()\n" + CHILD
        done = subprocess.run([python, "-c", code, *argv], env=dict(os.environ, XDG_CACHE_HOME=cache),
                              capture_output=True, text=True, timeout=600)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    marks = [line.split() for line in done.stderr.splitlines() if line.startswith("MARK ")]
    if not marks:
        raise SystemExit(f"{python}: no evaluation reached (exit {done.returncode}): {done.stderr[-400:]}")
    return float(marks[-1][1]), float(marks[-1][2])


def steps(root: str, repeat: int) -> None:
    """Print the CPU seconds of extraction, store, load and merge over one project."""
    import gc
    import marshal
    import time

    from analyzer.project import loader as project
    from analyzer.project.extract.sink import Sink
    from analyzer.project.factbase import FactBase

    try:
        from analyzer.project import extraction

        def extract(kind, module, text):
            return extraction.extractor(kind, module, 1, text)
    except ImportError:  # before analyzer/project/extraction.py
        def extract(kind, module, text):
            return project._extractor(module, 1, text)

    gc.disable()
    memory = os.path.join(root, "docs", "memory")
    files = []
    for folder, _, names in sorted(os.walk(memory)):
        for name in sorted(names):
            module = os.path.relpath(os.path.join(folder, name), memory).replace(os.sep, "/")
            if name.endswith(".md") and project.file_kind(module) in ("entries", "subjects"):
                with open(os.path.join(memory, module), encoding="utf-8") as handle:
                    files.append((module, project.file_kind(module), handle.read()))
    spent: dict = {}
    for _ in range(repeat):
        clock = time.process_time
        start = clock()
        sinks = []
        for module, kind, text in files:
            sink = Sink(f"docs/memory/{module}")
            extract(kind, module, text)(sink)
            sinks.append(sink)
        extracted = clock() - start
        start = clock()
        stored = [marshal.dumps(sink.to_plain()) for sink in sinks]
        dumped = clock() - start
        start = clock()
        loaded = [Sink.from_plain(marshal.loads(data)) for data in stored]
        loads = clock() - start
        base, half = FactBase(), len(sinks) // 2
        start = clock()
        for sink in sinks[:half] + loaded[half:]:
            if hasattr(base, "add_columns"):
                base.add_columns(sink.path, sink.columns, "key")
            else:
                base.add_located(sink.path, sink.facts, "key")
        merged = clock() - start
        for name, value in (("extract", extracted), ("store", dumped), ("load", loads), ("merge", merged)):
            spent.setdefault(name, []).append(value)
    print(" ".join(f"{name} {min(values):.4f}" for name, values in spent.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a")
    parser.add_argument("--b")
    parser.add_argument("--steps", metavar="PROJECT_ROOT")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.steps:
        steps(args.steps, args.repeat)
        return
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not args.a or not argv:
        parser.error("--a PY and -- ARGS are required (or --steps PROJECT_ROOT)")
    runs = {"A": [], "B": []}
    for _ in range(args.repeat):
        runs["A"].append(timeline(args.a, argv))
        if args.b:
            runs["B"].append(timeline(args.b, argv))
    for label, found in runs.items():
        if found:
            walls, cpus = [w for w, _ in found], [c for _, c in found]
            print(f"{label}: evaluation starts at wall median {statistics.median(walls):.3f} s "
                  f"(min {min(walls):.3f}), cpu median {statistics.median(cpus):.3f} s (min {min(cpus):.3f})")
    if runs["B"]:
        pairs = list(zip(runs["A"], runs["B"]))
        print(f"A - B per pair: wall median {statistics.median(a[0] - b[0] for a, b in pairs):+.3f} s, "
              f"cpu median {statistics.median(a[1] - b[1] for a, b in pairs):+.3f} s ({len(pairs)} pairs)")
    try:
        load = os.getloadavg()
        print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    except OSError:
        pass


if __name__ == "__main__":
    main()
