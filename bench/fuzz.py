"""Mutation fuzzer: mutated copies of real memory projects through every CLI command.

    python bench/fuzz.py --minutes 10                 # the documented long run (docs/reliability.md)
    python bench/fuzz.py --cases 20 --seed 7          # a fixed number of cases

Each case copies one seed project (examples/*, and ../shared/realworld/* when present),
applies 1-3 mutations to its memory files (bench/fuzz_mutate.py), and runs every command on
it (read, why, facts, query, list, show, explain, check, subject), each in its own process under a memory
limit (``RLIMIT_AS``) and a hard time limit, with a private ``XDG_CACHE_HOME`` that is warm,
cold, damaged or bypassed (``--no-cache``). A run is a failure when it

* exits outside docs/cli.md's table (0, 1, 2; 3 is "internal", a signal is a crash),
* prints ``internal error`` or a traceback,
* takes longer than ``--slow`` seconds (10), or
* changes the project tree (every file's bytes, kind and mode are compared).

Each distinct failure (command, kind, first line of the message without numbers) gets a
reproducer under ``--out``: the project with the mutated files reduced (files restored to the
seed when that keeps the failure, then lines removed while it persists), ``argv`` and
``README.txt``. The summary (cases, runs, failures per kind, distinct failures) is printed and
written to ``--out``/summary.json; the exit status is 1 when any failure was found.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_mutate import memory_files, mutate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
MEMORY = "docs/memory"
TASKS = ["implementation", "review", "general", "output", "planning", "debugging", "nonsense"]
PATHS = ["api/orders.py", "web/src/app.ts", "src/x.py", "../escape", "/abs", "a\\b", "docs/memory/brief.md"]
CODES = ["MC-CONFLICT-001", "MC-ROUTE-PATH", "MC-NOPE", "mc-conflict-007", "MA-FILE-UNREADABLE"]
ID_RE = re.compile(r"MC-(?:DEC|CON|DNU|PREF|AREA|INBOX|TOMB|SUBJ|REC)-\d{8}-[0-9a-f]{8}")
ALLOWED_EXITS = {0, 1, 2}


@dataclass
class Failure:
    """One failing run: what ran, how it failed, and where its reproducer is."""

    command: str
    kind: str
    detail: str
    argv: List[str]
    mutations: List[str]
    count: int = 1
    reproducer: str = ""

    @property
    def signature(self) -> Tuple[str, str, str]:
        return self.command, self.kind, self.detail


@dataclass
class Stats:
    """Counts for the summary."""

    cases: int = 0
    runs: int = 0
    per_command: Dict[str, int] = field(default_factory=dict)
    failures: Dict[Tuple[str, str, str], Failure] = field(default_factory=dict)


def tree_digest(root: Path) -> str:
    """A digest of every path under ``root``: kind, mode, bytes of regular files, link targets
    (never opens anything but regular files: a FIFO would block)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            h.update(f"{os.path.relpath(path, root)}\0{info.st_mode}\0".encode("utf-8", "surrogateescape"))
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    h.update(hashlib.sha256(handle.read()).digest())
            elif stat.S_ISLNK(info.st_mode):
                h.update(os.readlink(path).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def commands(rng: random.Random, project: Path) -> List[Tuple[str, List[str]]]:
    """One argv per CLI command for this project (options drawn at random)."""
    root = ["--project-root", str(project)]
    ids = sorted({m for p in memory_files(project / MEMORY) for m in ID_RE.findall(_text(p))}) or ["MC-DEC-20260101-00000000"]
    subjects = [i for i in ids if i.startswith("MC-SUBJ-")] + ["MC-SUBJ-20260101-00000000"] * 2
    local = ["--no-local"] if rng.random() < 0.7 else []
    read = ["read", *root, *local, "--task", rng.choice(TASKS)]
    for _ in range(rng.randint(0, 2)):
        read += ["--path", rng.choice(PATHS)]
    read += rng.choice([[], ["--format", "json"], ["--strict-routing"], ["--explain"], ["--names-only"]])
    source, target = rng.sample(subjects, 2)
    subject = rng.choice([["subject", "list"], ["subject", "merge", source, "--into", target]])
    goal = rng.choice(["memory_file(M)", "entry(E, S, K, T)", "diagnostic(C, P, L, M)", "p(X)", "memory_file("])
    return [
        ("read", read),
        ("why", ["why", rng.choice(["decisions.md", "brief.md", "areas/api.md", "nope.md"]), *root, *local,
                 "--task", rng.choice(TASKS)] + rng.choice([[], ["--format", "json"]])),
        ("facts", ["facts", *root] + rng.choice([[], ["--format", "json"]])),
        ("query", ["query", *root, *local, goal]),
        ("list", ["list", *root] + rng.choice([[], ["--include-archive"], ["--format", "json"]])),
        ("show", ["show", rng.choice(ids), *root] + rng.choice([[], ["--format", "json"]])),
        ("explain", ["explain", rng.choice(CODES)]),
        ("check", ["check", *root] + rng.choice([[], ["--all"], ["--freshness"], ["--conflicts"], ["--routing"],
                                                  ["--reachability"], ["--format", "json"]])),
        ("subject", [*subject, *root] + rng.choice([[], ["--format", "json"]])),
    ]


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _limits(memory_bytes: int):
    def apply():  # in the child, before exec
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        os.setsid()
    return apply


def run_one(argv: List[str], env: Dict[str, str], memory_bytes: int, kill_after: float) -> Tuple[int, str, float]:
    """Run ``analyze argv`` in a limited child; (exit status or -signal, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", *argv], env=env, cwd=str(REPO),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=_limits(memory_bytes))
    try:
        _, err = proc.communicate(timeout=kill_after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        _, err = proc.communicate()
    return proc.returncode, err.decode("utf-8", "replace"), time.monotonic() - start


def classify(code: int, err: str, seconds: float, slow: float, changed: bool) -> Optional[Tuple[str, str]]:
    """(kind, detail) of a failing run, or None when the run is within the contract."""
    internal = next((line for line in err.splitlines() if "internal error" in line or line.startswith("Traceback")), None)
    if internal is not None:
        last = err.strip().splitlines()[-1] if "Traceback" in internal else internal
        return "internal-error", _normalize(last)
    if code not in ALLOWED_EXITS:
        return ("killed" if code < 0 else f"exit-{code}"), _normalize(err.strip().splitlines()[-1] if err.strip() else "")
    if changed:
        return "tree-changed", ""
    if seconds > slow:
        return "slow", f"over {slow:g} s"
    return None


def _normalize(line: str) -> str:
    line = re.sub(r"/[^\s:'\"]*", "<path>", line)
    return re.sub(r"\d+", "N", line)[:120]


class Fuzzer:
    """Runs cases and keeps the statistics and the reproducers."""

    def __init__(self, args, work: Path) -> None:
        self.args = args
        self.work = work
        self.stats = Stats()
        self.memory_bytes = args.memory_mb * 1024 * 1024
        self.env = dict(os.environ, PYTHONHASHSEED=str(args.seed), XDG_STATE_HOME=str(work / "state"))
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        candidates = [*sorted((REPO / "examples").glob("*/")), *sorted((Path(args.shared) / "realworld").glob("*/"))]
        self.seeds = [s for s in candidates if (s / MEMORY).is_dir()]

    def check(self, argv, project: Path, cache: str) -> Tuple[Optional[Tuple[str, str]], float]:
        if cache == "damaged":  # every run starts from the same damaged state (reproducible)
            shutil.rmtree(self.work / "cache" / "damaged", ignore_errors=True)
            shutil.copytree(self.work / "damaged-cache", self.work / "cache" / "damaged", symlinks=True)
        env = dict(self.env, XDG_CACHE_HOME=str(self.work / "cache" / cache))
        before = tree_digest(project)
        code, err, seconds = run_one(argv, env, self.memory_bytes, self.args.kill)
        return classify(code, err, seconds, self.args.slow, tree_digest(project) != before), seconds

    def case(self, rng: random.Random, number: int) -> None:
        seed = rng.choice(self.seeds)
        project = self.work / f"case-{number}"
        shutil.copytree(seed, project, symlinks=True)
        mutations = mutate(rng, project / MEMORY)
        cache = rng.choice(["warm", "warm", "cold", "damaged", "off"])
        if cache == "cold":
            shutil.rmtree(self.work / "cache" / "cold", ignore_errors=True)
        if cache == "damaged":  # a copy of the warm cache with a few entries flipped or cut
            shutil.rmtree(self.work / "damaged-cache", ignore_errors=True)
            if (self.work / "cache" / "warm").is_dir():
                shutil.copytree(self.work / "cache" / "warm", self.work / "damaged-cache", symlinks=True)
            else:
                (self.work / "damaged-cache").mkdir(mode=0o700)
            _damage_cache(rng, self.work / "damaged-cache")
        self.stats.cases += 1
        for name, argv in commands(rng, project):
            argv = argv + (["--no-cache"] if cache == "off" and name != "explain" else [])
            self.stats.runs += 1
            self.stats.per_command[name] = self.stats.per_command.get(name, 0) + 1
            verdict, _ = self.check(argv, project, cache)
            if verdict is not None:
                self.record(name, verdict, argv, mutations, project, seed, cache)
        shutil.rmtree(project, ignore_errors=True)

    def record(self, name, verdict, argv, mutations, project: Path, seed: Path, cache: str) -> None:
        failure = Failure(name, verdict[0], verdict[1], argv, mutations)
        known = self.stats.failures.get(failure.signature)
        if known is not None:
            known.count += 1
            return
        print(f"  new failure: {name} {verdict[0]} {verdict[1]} ({'; '.join(mutations)})", file=sys.stderr, flush=True)
        self.stats.failures[failure.signature] = failure
        failure.reproducer = str(self.reproduce(failure, project, seed, cache))

    def reproduce(self, failure: Failure, project: Path, seed: Path, cache: str) -> Path:
        """Copy the case, shrink its mutated files while the failure persists, write it out."""
        slug = hashlib.sha256(repr(failure.signature).encode()).hexdigest()[:10]
        target = Path(self.args.out) / f"{failure.command}-{failure.kind}-{slug}"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(project, target / "project", symlinks=True)
        if cache == "damaged":
            shutil.copytree(self.work / "damaged-cache", target / "cache", symlinks=True)
        local = target / "project"
        argv = [str(local) if a == str(project) else a for a in failure.argv]
        same = lambda: self.check(argv, local, cache)[0] == (failure.kind, failure.detail)  # noqa: E731
        if same():
            budget = self.args.shrink_runs if failure.kind != "slow" else 4  # slow runs cost seconds each
            _shrink(local / MEMORY, seed / MEMORY, same, budget=budget)
        shown = [a if a != str(local) else "project" for a in argv]
        (target / "argv").write_text("\n".join(shown) + "\n", encoding="utf-8", errors="surrogateescape")
        (target / "README.txt").write_text(
            f"{failure.command}: {failure.kind} {failure.detail}\nmutations: {'; '.join(failure.mutations)}\n"
            f"cache: {cache}\nreproduce (from this folder): "
            f"{'XDG_CACHE_HOME=cache ' if cache == 'damaged' else ''}python -m analyzer {' '.join(map(repr, shown))}\n",
            encoding="utf-8", errors="surrogateescape")
        return target


def _shrink(memory: Path, original: Path, same, budget: int) -> None:
    """Restore files to the seed, then drop line chunks, while ``same()`` holds (at most
    ``budget`` runs)."""
    runs = 0
    changed = [p for p in memory_files(memory) if (original / p.relative_to(memory)).is_file()
               and p.read_bytes() != (original / p.relative_to(memory)).read_bytes()]
    for path in changed:
        if runs >= budget:
            return
        kept = path.read_bytes()
        path.write_bytes((original / path.relative_to(memory)).read_bytes())
        runs += 1
        if same():
            continue
        path.write_bytes(kept)
        lines = kept.split(b"\n")
        chunk = max(len(lines) // 2, 1)
        while chunk >= 1 and runs < budget:
            i = 0
            while i < len(lines) and runs < budget:
                trial = lines[:i] + lines[i + chunk:]
                path.write_bytes(b"\n".join(trial))
                runs += 1
                if same():
                    lines = trial
                else:
                    i += chunk
            chunk //= 2
        path.write_bytes(b"\n".join(lines))


def _damage_cache(rng: random.Random, root: Path) -> None:
    entries = [p for p in root.rglob("*") if p.is_file()] if root.is_dir() else []
    for path in rng.sample(entries, min(len(entries), 3)):
        data = bytearray(path.read_bytes())
        if data and rng.random() < 0.7:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            path.write_bytes(bytes(data))
        else:
            path.write_bytes(bytes(data[:len(data) // 2]))


def summary(stats: Stats, args, seconds: float) -> dict:
    """The run's counts as a JSON-ready dict."""
    kinds: Dict[str, int] = {}
    for f in stats.failures.values():
        kinds[f.kind] = kinds.get(f.kind, 0) + f.count
    return {
        "seed": args.seed, "seconds": round(seconds), "cases": stats.cases, "runs": stats.runs,
        "runs_per_command": dict(sorted(stats.per_command.items())), "failing_runs_per_kind": kinds,
        "distinct_failures": [{"command": f.command, "kind": f.kind, "detail": f.detail, "runs": f.count,
                               "reproducer": f.reproducer} for f in stats.failures.values()],
    }


def main(argv=None) -> int:
    """Fuzz for --minutes or --cases; print and write the summary; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=None, help="run for this long (default: 1 minute)")
    parser.add_argument("--cases", type=int, default=None, help="run exactly this many cases")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "fuzz"), help="reproducers and summary")
    parser.add_argument("--shared", default=str(SHARED), help="the shared folder whose realworld/ trees are seeds")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space limit of each run (MiB)")
    parser.add_argument("--slow", type=float, default=10.0, help="a run longer than this (s) is a failure")
    parser.add_argument("--kill", type=float, default=60.0, help="kill a run after this many seconds")
    parser.add_argument("--shrink-runs", type=int, default=60, help="runs spent shrinking each reproducer")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + 60 * (args.minutes if args.minutes is not None else (1 if args.cases is None else 1e9))
    rng = random.Random(args.seed)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="analyzer-fuzz-") as tmp:
        fuzzer = Fuzzer(args, Path(tmp))
        number = 0
        while time.monotonic() < deadline and (args.cases is None or number < args.cases):
            fuzzer.case(random.Random(rng.random()), number)
            number += 1
            if number % 10 == 0:
                print(f"  {number} cases, {fuzzer.stats.runs} runs, {len(fuzzer.stats.failures)} distinct failures",
                      file=sys.stderr, flush=True)
    result = summary(fuzzer.stats, args, time.monotonic() - start)
    (Path(args.out) / "summary.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 1 if fuzzer.stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
