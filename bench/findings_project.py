"""A generated project with thousands of findings, for measuring the CI formats
(docs/performance.md, issue 10): ``bench/findings_project.py ROOT N`` runs
``../shared/bench/gen_project.py ROOT N`` (or the path given by --gen) and points every
``user-confirmed`` Evidence item of decisions.md, constraints.md and the area files at a
missing source path, so ``check --all`` reports an MC-FRESH-001 (and related findings) for
each of those entries.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def main() -> int:
    """Generate the project, then rewrite its Evidence lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("n", type=int)
    parser.add_argument("--gen", default=str(Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_project.py"))
    args = parser.parse_args()
    if not os.path.isfile(args.gen):
        print(f"no project generator at {args.gen} (pass --gen)", file=sys.stderr)
        return 2
    subprocess.run([sys.executable, args.gen, args.root, str(args.n)], check=True)
    memory = Path(args.root) / "docs" / "memory"
    for path in [memory / "decisions.md", memory / "constraints.md", *sorted((memory / "areas").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\n- user-confirmed\n", "\n- repo:missing/gone.py\n"), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
