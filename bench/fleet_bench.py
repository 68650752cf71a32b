"""The fleet benchmark (docs/performance.md, issue 29): a generated fleet with planted
problems, `analyze fleet check` on DuckDB against `analyze check --all` run in each
repository one after the other, paired and alternating.

usage: python bench/fleet_bench.py ROOT [--repos 100] [--entries 1000] [--runs 2] [--gen PATH]
       [--compare]   (also check that both give the same document per repository)
       [--warm]      (both sides with one cache, filled by an untimed fleet run first: every
                     repository's facts and `check --all` result are cached)
       [--sample N]  (`check --all` in a random sample of N repositories only (--seed), its
                     times scaled to the whole fleet; --compare compares the sample)

ROOT/repoNNNN is made by ../shared/bench/gen_project.py (--seed NNNN: other IDs and texts per
repository) when absent. Planted: every 10th repository (i % 10 == 3) points its Evidence at a
missing source file (freshness findings), every 10th (i % 10 == 7) loses decisions.md, a
required core file (routing and legacy findings). Each side runs with a fresh cache directory
(XDG_CACHE_HOME) in which only the compiled rules are cached first (one `check --all` of the
notebook fixture): no repository's facts or result is cached, so each side extracts and
evaluates every repository. Wall time, CPU time (user + system of the process tree) and
peak memory (ru_maxrss of the children) are printed per run. On a machine shared with other
sessions (Linux's autogroup scheduling gives each session one share, however many threads
it runs) the CPU ratio is what the wall ratio tends to.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANALYZE = [sys.executable, "-m", "analyzer"]


def generate(root: Path, repos: int, entries: int, gen: str) -> None:
    """Make the fleet (repositories already present are kept)."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(repos):
        repo = root / f"repo{i:04d}"
        if (repo / "docs" / "memory" / "manifest.md").exists():
            continue
        subprocess.run([sys.executable, gen, str(repo), str(entries), "--seed", str(i)], check=True,
                       stdout=subprocess.DEVNULL)
        memory = repo / "docs" / "memory"
        if i % 10 == 3:
            for path in [memory / "decisions.md", *sorted((memory / "areas").glob("*.md"))]:
                text = path.read_text(encoding="utf-8")
                path.write_text(text.replace("\n- user-confirmed\n", "\n- repo:missing/gone.py\n"), encoding="utf-8")
        if i % 10 == 7:
            (memory / "decisions.md").unlink()


def _children_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_MADE = []  # the cache directories this run made, removed when it exits


def fresh_cache() -> None:
    """A new, empty XDG_CACHE_HOME holding only the compiled rules (removed at exit: a
    1,000-repository side leaves about 0.9 GB there)."""
    import atexit
    import shutil
    import tempfile

    if not _MADE:
        atexit.register(lambda: [shutil.rmtree(path, ignore_errors=True) for path in _MADE])
    _MADE.append(tempfile.mkdtemp(prefix="fleet-bench-cache-"))
    os.environ["XDG_CACHE_HOME"] = _MADE[-1]
    subprocess.run(ANALYZE + ["check", "--all"], cwd=str(HERE.parent / "tests" / "golden" / "fixtures" / "notebook"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_fleet(root: Path, out: Path, warm: bool = False) -> float:
    """`analyze fleet check ROOT --format json`; wall seconds."""
    if not warm:
        fresh_cache()
    start = time.perf_counter()
    with open(out, "w", encoding="utf-8") as handle:
        # the fleet's own figures too, as /usr/bin/time prints them (on stderr)
        timer = ["/usr/bin/time", "-f", "fleet: %e s wall %U user %S sys %M KB"] if os.path.exists("/usr/bin/time") else []
        subprocess.run(timer + ANALYZE + ["fleet", "check", str(root), "--format", "json"], stdout=handle,
                       cwd=str(HERE.parent))
    return time.perf_counter() - start


def run_each(root: Path, out: Path, warm: bool = False, repos=None) -> float:
    """`analyze check --all --format json` in each repository (of ``repos``, default all),
    one after the other."""
    if not warm:
        fresh_cache()
    start = time.perf_counter()
    documents = []
    for repo in repos or sorted(p for p in root.iterdir() if p.is_dir()):
        proc = subprocess.run(ANALYZE + ["check", "--all", "--format", "json"], cwd=str(repo),
                              capture_output=True, text=True)
        documents.append({"path": str(repo), "result": json.loads(proc.stdout)})
    elapsed = time.perf_counter() - start
    out.write_text(json.dumps(documents), encoding="utf-8")
    return elapsed


def main() -> int:
    """Generate, then run the pair --runs times, alternating which goes first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--repos", type=int, default=100)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--gen", default=str(HERE.parents[1] / "shared" / "bench" / "gen_project.py"))
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--fleet-only", action="store_true")
    parser.add_argument("--warm", action="store_true",
                        help="both sides with one cache that an untimed fleet run filled first")
    parser.add_argument("--sample", type=int, default=0, help="check --all in a random sample of N repositories")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    if not os.path.isfile(args.gen):
        print(f"no project generator at {args.gen} (pass --gen)", file=sys.stderr)
        return 2
    generate(args.root, args.repos, args.entries, args.gen)
    os.environ["PYTHONPATH"] = str(HERE.parent)
    # a directory of this run's own: two benches at once on one machine wrote the same /tmp
    # files, and one compared the other's (or a half-written) document
    import tempfile

    out_dir = Path(tempfile.mkdtemp(prefix="fleet-bench-out-"))
    fleet_out, each_out = out_dir / "fleet.json", out_dir / "each.json"
    if args.warm:
        fresh_cache()
        print(f"filling the cache: {run_fleet(args.root, fleet_out, True):.1f} s", flush=True)
    every = sorted(p for p in args.root.iterdir() if p.is_dir())
    sample = sorted(random.Random(args.seed).sample(every, args.sample)) if args.sample else every
    scale = len(every) / len(sample)
    for run in range(args.runs):
        order = ("fleet", "each") if run % 2 == 0 else ("each", "fleet")
        for side in order:
            if side == "each" and args.fleet_only:
                continue
            if not args.warm:
                fresh_cache()  # before the CPU is counted: its one `check --all` is not the side's
            cpu = _children_cpu()
            if side == "fleet":
                seconds = run_fleet(args.root, fleet_out, True)
                note = ""
            else:
                seconds = run_each(args.root, each_out, True, sample)
                note = f" for {len(sample)} of {len(every)}, x{scale:g}: {seconds * scale:.1f} s" if args.sample else ""
            cpu = _children_cpu() - cpu
            print(f"run {run + 1} {side}: {seconds:.1f} s wall, {cpu:.1f} s CPU{note}"
                  f"{f' ({cpu * scale:.1f} s CPU scaled)' if note else ''} (peak child RSS so far "
                  f"{_children_rss_mb():.0f} MB; load {os.getloadavg()[0]:.1f})", flush=True)
    if args.compare and not args.fleet_only:
        fleet = {Path(d["path"]).name: d["result"] for d in json.loads(fleet_out.read_text())["repositories"]}
        each = {Path(d["path"]).name: d["result"] for d in json.loads(each_out.read_text())}
        differ = sorted(name for name in each if fleet.get(name) != each[name])
        print(f"same document in {len(each) - len(differ)} of {len(each)} repositories; differ: {differ[:10]}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
