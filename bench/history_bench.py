"""Generate a Git history for the history commands (`diff`, `readiness`, `check --autonomy`).

usage: python bench/history_bench.py ROOT [--entries 10000] [--commits 1000] [--per-commit 10]

ROOT gets a project from ../shared/bench/gen_project.py (run as a subprocess, never copied),
committed once; then ``--commits`` commits, 40 minutes apart (1,000 commits span 27.8 days,
all inside readiness's 30-day window), each rewriting the body of ``--per-commit`` entries
(commit k rewrites entries k*per .. k*per+per-1, wrapping), so 1,000 x 10 touch all 10,000
entries once. Every second commit carries a `Memory-Agent: bench` trailer. Git runs without
the user's configuration, with fixed authors and dates (the tag ``start`` names the first
commit).

Measure with e.g. (warm cache; the first run fills it):
    python -m analyzer diff --base start --head HEAD --project-root ROOT
    python -m analyzer readiness --project-root ROOT
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
GENERATOR = SHARED / "bench" / "gen_project.py"
T0 = 1790000000
STEP = 40 * 60
BODY = re.compile(r"^Rule number (\d+) with[^\n]*", re.M)


def git(root: Path, *args: str, when: int = T0) -> str:
    """Run Git in ``root`` without any user or system configuration, at time ``when``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Bench",
               GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="Bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid", GIT_AUTHOR_DATE=f"@{when} +0000",
               GIT_COMMITTER_DATE=f"@{when} +0000")
    return subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=root, env=env, check=True,
                          capture_output=True, text=True).stdout


def build(root: Path, entries: int, commits: int, per_commit: int) -> None:
    """Generate the project and its history in ``root`` (which must not exist)."""
    subprocess.run([sys.executable, str(GENERATOR), str(root), str(entries)], check=True, capture_output=True)
    memory = root / "docs" / "memory"
    texts = {p: p.read_text(encoding="utf-8") for p in sorted(memory.rglob("*.md"))}
    where = {int(m.group(1)): path for path, text in texts.items() for m in BODY.finditer(text)}
    numbers = sorted(where)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    git(root, "tag", "start")
    for k in range(commits):
        chosen = {numbers[(k * per_commit + i) % len(numbers)] for i in range(per_commit)}
        for path in sorted({where[n] for n in chosen}):
            texts[path] = BODY.sub(lambda m: (f"Rule number {m.group(1)} with revision {k}."
                                              if int(m.group(1)) in chosen else m.group(0)), texts[path])
            path.write_text(texts[path], encoding="utf-8")
        message = f"rewrite entries {min(chosen)}..{max(chosen)}" + ("\n\nMemory-Agent: bench" if k % 2 else "")
        git(root, "commit", "-qam", message, when=T0 + (k + 1) * STEP)


def main() -> int:
    """Parse the command line and build the history."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--entries", type=int, default=10000)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--per-commit", type=int, default=10)
    args = parser.parse_args()
    if args.root.exists():
        parser.error(f"{args.root} exists")
    build(args.root, args.entries, args.commits, args.per_commit)
    print(f"{args.root}: {args.commits} commits over {args.entries} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
