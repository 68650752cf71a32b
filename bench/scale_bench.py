"""Inputs that once made extraction and diagnostics superlinear (issue 14), timed per command.

    python bench/scale_bench.py                      # this checkout
    python bench/scale_bench.py --python /work/base-4605ee3/.venv/bin/python   # another install

Cases, built from examples/acme-shop: ``dup-N``: constraints.md holds N copies of one entry
whose Evidence path is unsafe (one entry issue each); ``subjects-N``: subjects.md holds N
headings with an invalid Status. Each command (``facts``, ``read``) runs once per case in a
fresh process with ``--no-cache``; the table gives user+system CPU seconds of that process
(``os.wait4``), which a loaded machine disturbs less than wall time, and the wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENTRY = """## MC-CON-20260903-4e5f6071 — The same entry again

Status: active
Scope: project
Subject: MC-SUBJ-20260901-0a0a0a01
Facet: data-model
Evidence:
- repo:api/../../secrets.txt

Constraint:
Never.

"""
COMMANDS = {"facts": ["facts"], "read": ["read", "--task", "implementation", "--no-local"]}


def build(root: Path, case: str) -> Path:
    """The project of ``case`` (``dup-5000``, ``subjects-50000``) under ``root``."""
    kind, count = case.rsplit("-", 1)
    project = root / case
    shutil.copytree(REPO / "examples" / "acme-shop", project)
    memory = project / "docs" / "memory"
    if kind == "dup":
        (memory / "constraints.md").write_text("# Constraints\n\n" + ENTRY * int(count), encoding="utf-8")
    else:
        body = "".join(f"## MC-SUBJ-20260901-{n:08x} — s\n\nStatus: bogus\nKind: tool\n\n" for n in range(int(count)))
        (memory / "subjects.md").write_text("# Subject Registry\n\n" + body, encoding="utf-8")
    return project


def timed(argv, timeout: float, cwd: str):
    """(cpu seconds, wall seconds, exit status) of one process."""
    start = time.perf_counter()
    # cwd outside any source tree: ``-m analyzer`` must import the installed package of --python
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return usage.ru_utime + usage.ru_stime, time.perf_counter() - start, os.waitstatus_to_exitcode(status)
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return usage.ru_utime + usage.ru_stime, time.perf_counter() - start, "timeout"
        time.sleep(0.02)


def main(argv=None) -> int:
    """Print one Markdown row per case and command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--cases", nargs="*", default=["dup-1250", "dup-5000", "subjects-12500", "subjects-50000"])
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args(argv)
    print("| case | command | cpu s | wall s | exit |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        for case in args.cases:
            project = build(Path(tmp), case)
            for name, command in COMMANDS.items():
                cpu, wall, code = timed([args.python, "-m", "analyzer", *command, "--project-root", str(project),
                                         "--no-cache"], args.timeout, tmp)
                print(f"| {case} | {name} | {cpu:.2f} | {wall:.2f} | {code} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
