"""The bundled example plus N entries in one undeclared file (issue 30 item 7's workload):
``python bench/undeclared_project.py ROOT [N]`` copies examples/acme-shop to ROOT and writes
``docs/memory/notes.md`` with N active constraint entries (default 10,000), the same text
tests/ci/test_locations.py generates; ``check --all`` then reports three findings per entry
(MC-REACH-001, MC-CONFLICT-007, MC-FRESH-004), 30,000 findings for the default N.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "acme-shop"


def notes(n: int) -> str:
    """The undeclared file's text: N entries, each with its own ID and facet."""
    lines = ["# Notes", ""]
    for i in range(n):
        lines += [f"## MC-CON-20260902-{i:08x} \u2014 Note {i}", "", "Status: active", "Scope: project",
                  "Subject: MC-SUBJ-20260901-0a0a0a02", f"Facet: f{i}", "Evidence:", "- doc:docs/security.md", "",
                  "Constraint:", f"Rule {i}.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Copy the example and add the undeclared file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("n", type=int, nargs="?", default=10_000)
    args = parser.parse_args(argv)
    root = Path(args.root)
    if root.exists():
        print(f"{root} exists; give a new folder", file=sys.stderr)
        return 2
    shutil.copytree(EXAMPLE, root)
    (root / "docs" / "memory" / "notes.md").write_text(notes(args.n), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
