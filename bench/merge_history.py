"""Generate a Git history for merge review benchmarks (`check --conflicts --merge-base`).

usage: python bench/merge_history.py ROOT [--entries 10000] [--changed 1000]

ROOT gets a project from ../shared/bench/gen_project.py (run as a subprocess, never copied),
committed as the merge base (tag ``base``). Branch ``right`` then changes the body of
``--changed`` entries (every k-th entry, k = entries / changed, starting at k/2) and the
default branch, checked out at the end, changes as many other entries (starting at 0). Git
runs without the user's configuration, with a fixed author and dates.

Measure with e.g. (warm cache; the first run fills it):
    python -m analyzer check --conflicts --project-root ROOT
    python -m analyzer check --conflicts --merge-base right --project-root ROOT
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
DATE = "2026-08-01T12:00:00+00:00"
BODY = re.compile(r"^Rule number (\d+) with", re.M)


def git(root: Path, *args: str) -> str:
    """Run Git in ``root`` without any user or system configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Bench",
               GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="Bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid", GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE)
    return subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=root, env=env, check=True,
                          capture_output=True, text=True).stdout


def change_entries(memory: Path, chosen: set, side: str) -> int:
    """Rewrite the body line of every chosen entry number; returns how many were changed."""
    count = 0
    for path in sorted(memory.rglob("*.md")):
        text = path.read_text(encoding="utf-8")

        def edit(m: re.Match) -> str:
            nonlocal count
            if int(m.group(1)) not in chosen:
                return m.group(0)
            count += 1
            return f"Rule number {m.group(1)} ({side} edit) with"

        new = BODY.sub(edit, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return count


def build(root: Path, entries: int, changed: int) -> None:
    """Generate the project and its three-commit history in ``root``."""
    subprocess.run([sys.executable, str(GENERATOR), str(root), str(entries)], check=True, capture_output=True)
    memory = root / "docs" / "memory"
    git(root, "init", "-q")
    default = git(root, "symbolic-ref", "--short", "HEAD").strip()
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "tag", "base")
    step = max(1, entries // changed)
    git(root, "checkout", "-qb", "right")
    right = change_entries(memory, set(range(step // 2, entries, step)[:changed]), "right")
    git(root, "commit", "-qam", "right")
    git(root, "checkout", "-q", default)
    left = change_entries(memory, set(range(0, entries, step)[:changed]), "left")
    git(root, "commit", "-qam", "left")
    print(f"{root}: {entries} entries; {left} changed on {default} (HEAD), {right} on right")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--entries", type=int, default=10000)
    ap.add_argument("--changed", type=int, default=1000)
    a = ap.parse_args()
    if not GENERATOR.is_file():
        sys.exit(f"{GENERATOR} is missing (needs ../shared)")
    build(Path(a.root).resolve(), a.entries, a.changed)


if __name__ == "__main__":
    main()
