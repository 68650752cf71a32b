"""Every CI output against ``check --all --format json`` on one project, paired (issue 10).

usage: python bench/ci_formats_bench.py ROOT [--analyze BIN] [--repeat N]

For each row runs bench/pair_bench.py (A and B alternating, warm caches, the median of the
per-pair A/B ratios) with B = ``check --all --format json --project-root ROOT`` and A = one
of ``check --all --format text|sarif|junit|github|markdown``, ``report`` (Markdown) and
``report --format json``; then ``report`` against ``check --all`` (text), the warm report
against the warm check. Prints one Markdown table row per comparison and the load average
around it (docs/performance.md, "analyze check output formats and analyze report").
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(root: str):
    """(label, A's arguments, B's arguments) of every comparison."""
    json_b = f"check --all --format json --project-root {root}"
    for fmt in ("text", "sarif", "junit", "github", "markdown"):
        yield f"check --format {fmt} / json", ["check", "--all", "--format", fmt, "--project-root", root], json_b
    yield "report (markdown) / check json", ["report", "--project-root", root], json_b
    yield "report --format json / check json", ["report", "--format", "json", "--project-root", root], json_b
    yield "report (markdown) / check --all (text)", ["report", "--project-root", root], \
        f"check --all --project-root {root}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--analyze", default=str(HERE.parent / ".venv" / "bin" / "analyze"))
    ap.add_argument("--repeat", type=int, default=9)
    opts = ap.parse_args(argv)
    print("| comparison | CPU A/B | wall A/B | load before |")
    print("| --- | ---: | ---: | --- |")
    for label, a_args, b_args in rows(opts.root):
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        proc = subprocess.run([sys.executable, str(HERE / "pair_bench.py"), "--a", opts.analyze, "--b", opts.analyze,
                               "--repeat", str(opts.repeat), "--b-args", b_args, "--", *a_args],
                              capture_output=True, text=True)
        found = dict(re.findall(r"A/B (wall|user): median ([0-9.]+)", proc.stdout))
        print(f"| {label} | {found.get('user', '?')} | {found.get('wall', '?')} | {load} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
