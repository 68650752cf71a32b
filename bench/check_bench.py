"""`analyze check` benchmark: whole-process wall and CPU time, cold, warm and warm without
the result cache, per family, on generated projects.

usage: python bench/check_bench.py [--sizes 10000] [--one-group 10000] [--repeat 5] [--src DIR]
                                   [--families conflicts,all]

Projects: ../shared/bench/gen_project.py ROOT N (run as a subprocess, never copied: entry
schema 2, 20 path areas, one Subject per entry), and with --one-group N a generated
1,000-entry project whose decisions.md is replaced by N active decisions sharing ONE
structural identity (one Subject, one Facet, Scope project): the case where a rule joining
owners pairwise goes quadratic (MC-CONFLICT-001 then lists all N owners in one finding).

*cold* = a fresh, empty ``XDG_CACHE_HOME`` for every run (compiled rules and the facts cache
are built and written by that run); *warm* = a cache filled by one unmeasured run, so the
result cache answers; *warm, no result cache* = the same, with the result cache's folder
removed before each run (facts and compiled rules cached, rules evaluated). Each run is a
fresh interpreter started from ``--src``; wall = ``perf_counter`` spawn-to-exit, CPU = the
child's user + system time from ``os.wait4``. Every run of a case must print the same bytes,
otherwise the script exits with status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO.parent / "shared" / "bench" / "gen_project.py"


def run(src: Path, cache: Path, argv: list) -> tuple:
    """One whole process: (wall s, cpu s, stdout bytes, exit status)."""
    from read_bench import run_usage  # bench/ is sys.path[0] when this script runs

    wall, usage, out, status = run_usage(src, cache, argv)
    return wall, usage.ru_utime + usage.ru_stime, out, status


def one_group(root: Path, n: int) -> None:
    """Replace a generated project's decisions.md by ``n`` active decisions that all share
    one structural identity (the first Subject, Facet behavior, Scope project)."""
    path = root / "docs" / "memory" / "decisions.md"
    first = re.search(r"^Subject: (\S+)$", path.read_text(encoding="utf-8"), re.M).group(1)
    parts = ["# Decisions\n"]
    for i in range(n):
        parts.append(f"## MC-DEC-20261201-{i:08x} — Owner {i}\n\nStatus: active\nScope: project\nSubject: {first}\n"
                     f"Facet: behavior\nEvidence:\n- user-confirmed\n\nDecision:\nOwner number {i}.\n")
    path.write_text("\n".join(parts), encoding="utf-8")


def measure(src: Path, work: Path, root: Path, flag: str, repeat: int) -> dict:
    """Median wall / CPU over ``repeat`` runs of each mode, and the output digest."""
    argv = ["check", flag, "--project-root", str(root)]
    outputs, cells = set(), {}
    for mode in ("cold", "warm", "warm-no-result-cache"):
        walls, cpus = [], []
        warm = work / "warm-cache"
        shutil.rmtree(warm, ignore_errors=True)
        if mode != "cold":
            run(src, warm, argv)
        for i in range(repeat):
            cache = work / f"cold-{i}" if mode == "cold" else warm
            if mode == "warm-no-result-cache":
                shutil.rmtree(warm / "memory-analyzer" / "results", ignore_errors=True)
            wall, cpu, out, status = run(src, cache, argv)
            walls.append(wall)
            cpus.append(cpu)
            outputs.add((out, status))
            if mode == "cold":
                shutil.rmtree(cache, ignore_errors=True)
        cells[mode] = (statistics.median(walls), statistics.median(cpus))
    if len(outputs) != 1:
        raise SystemExit(f"{root.name} {flag}: runs printed different output")
    (out, status), = outputs
    cells["digest"] = hashlib.sha256(out).hexdigest()[:12]
    cells["exit"] = status
    return cells


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--one-group", type=int, default=0, help="also a project of this size with one identity group")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--families", default="conflicts,all")
    ap.add_argument("--src", type=Path, default=REPO)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="check-bench-"))
    try:
        cases = []
        for n in [int(s) for s in args.sizes.split(",") if s]:
            root = work / f"gen{n}"
            subprocess.run([sys.executable, str(GENERATOR), str(root), str(n)], check=True, stdout=subprocess.DEVNULL)
            cases.append((f"generated {n}", root))
        if args.one_group:
            root = work / f"group{args.one_group}"
            subprocess.run([sys.executable, str(GENERATOR), str(root), "1000"], check=True, stdout=subprocess.DEVNULL)
            one_group(root, args.one_group)
            cases.append((f"one identity, {args.one_group} owners", root))
        print("| project | command | cold wall / cpu s | warm wall / cpu s | warm, no result cache wall / cpu s | exit | output |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for label, root in cases:
            for family in args.families.split(","):
                cells = measure(args.src, work, root, f"--{family}", args.repeat)
                fmt = lambda c: f"{cells[c][0]:.2f} / {cells[c][1]:.2f}"
                print(f"| {label} | check --{family} | {fmt('cold')} | {fmt('warm')} | {fmt('warm-no-result-cache')} "
                      f"| {cells['exit']} | {cells['digest']} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
