"""Generate the hostile ``read`` workloads of docs/performance.md ("Hostile workloads").

usage: python bench/hostile_project.py ROOT KIND N

KIND ``owners``: one decisions.md with N active entries of one (Scope, Subject, Facet), so
every entry owns the same identity (MC-CONFLICT-IDENTITY lists all N of them).
KIND ``bare``: one decisions.md with N active entries lacking Subject and Facet (each one is
reported on its own, listing the file's IDs).

The base project is ../shared/bench/gen_project.py's template with one area and no entries
(run as a subprocess, never copied); only decisions.md and subjects.md are then written.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_project.py"
SUBJECT = "MC-SUBJ-20261201-00000000"


def entry(i: int, kind: str) -> str:
    """One decisions.md entry of the workload."""
    lines = [f"## MC-DEC-20261201-{i:08x} — Entry {i}", "", "Status: active", "Scope: project"]
    if kind == "owners":
        lines += [f"Subject: {SUBJECT}", "Facet: behavior"]
    lines += ["Evidence:", "- user-confirmed", "", "Decision:", f"Rule number {i}.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("kind", choices=("owners", "bare"))
    ap.add_argument("n", type=int)
    args = ap.parse_args(argv)
    subprocess.run([sys.executable, str(GENERATOR), args.root, "0", "--areas", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    mem = Path(args.root) / "docs" / "memory"
    body = "\n".join(entry(i, args.kind) for i in range(args.n))
    (mem / "decisions.md").write_text("# Decisions\n\n" + body, encoding="utf-8")
    if args.kind == "owners":
        with open(mem / "subjects.md", "a", encoding="utf-8") as fh:
            fh.write(f"\n## {SUBJECT} — Shared subject\n\nStatus: active\nKind: concept\n"
                     "Evidence:\n- user-confirmed\n\nAliases:\n- shared subject\n")
    print(f"{args.root}: {args.n} {args.kind} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
