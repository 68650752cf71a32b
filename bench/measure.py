"""Whole-process measurements shared by run_tc.py and run_programs.py.

Each run is a fresh interpreter (start-up and imports included, as a user pays them). Wall
time is ``perf_counter`` around spawn-to-exit; peak RSS is the child's own ``ru_maxrss``
from ``os.wait4`` (the per-child form of ``getrusage(RUSAGE_CHILDREN)``, which would report
the maximum over every child so far). A run that exceeds its timeout is killed with its whole
process group.
"""

from __future__ import annotations

import os
import platform
import re
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Run:
    """One process: wall seconds, peak RSS in MiB, its stdout, and how it ended."""

    wall: float
    rss_mib: float
    stdout: str
    status: str  # "ok" | "timeout" | "error: ..."
    stderr: str = ""


@dataclass
class Series:
    """Repeated runs of one command; ``note`` says why fewer runs than asked were made."""

    runs: list = field(default_factory=list)
    note: str = ""

    @property
    def ok_runs(self) -> list:
        """The runs that finished cleanly."""
        return [r for r in self.runs if r.status == "ok"]

    @property
    def median_wall(self) -> float | None:
        """Median wall time of the clean runs (None when none finished)."""
        ok = self.ok_runs
        return statistics.median(r.wall for r in ok) if ok else None

    @property
    def peak_rss(self) -> float | None:
        """Largest peak RSS over the clean runs."""
        ok = self.ok_runs
        return max(r.rss_mib for r in ok) if ok else None


def run_once(argv: list, timeout: float, cwd: str | None = None, memory: int | None = None,
             env: dict | None = None) -> Run:
    """Run ``argv`` to completion (or kill it at ``timeout`` seconds) and measure it;
    ``memory`` caps its address space (bytes)."""
    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryFile(mode="w+", errors="replace") as out, \
            tempfile.TemporaryFile(mode="w+", errors="replace") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd, start_new_session=True, env=env,
                                preexec_fn=cap if memory else None)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, wait_status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(wait_status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    rss = usage.ru_maxrss / 1024  # Linux reports KiB
    if killed.is_set():
        return Run(wall, rss, stdout, "timeout", stderr)
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or ["exit status %d" % proc.returncode])[-1]
        return Run(wall, rss, stdout, "error: " + last[:160], stderr)
    return Run(wall, rss, stdout, "ok", stderr)


def run_series(argv: list, reps: int, timeout: float, slow_after: float = 60.0) -> Series:
    """Up to ``reps`` runs; stop early after a failure or a run slower than ``slow_after``."""
    series = Series()
    for _ in range(reps):
        run = run_once(argv, timeout)
        series.runs.append(run)
        if run.status == "timeout":
            series.note = f"killed at the {timeout:.0f} s timeout"
            break
        if run.status != "ok":
            series.note = run.status
            break
        if run.wall > slow_after and len(series.runs) < reps:
            series.note = f"{len(series.runs)} run(s): a run took over {slow_after:.0f} s"
            break
    return series


def source_commit(python: str) -> str:
    """The commit bench/setup_venv.sh installed into ``python``'s venv ("+dirty": uncommitted
    engine changes were installed too)."""
    record = os.path.join(os.path.dirname(os.path.dirname(python)), "installed-commit.txt")
    try:
        with open(record, encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return "unknown (not installed by bench/setup_venv.sh)"


def versions(python: str) -> str:
    """Versions of the interpreter and the engines inside ``python``'s environment."""
    code = (
        "import sys, importlib.metadata as m\n"
        "vs = [f'CPython {sys.version.split()[0]}']\n"
        "for d in ('memory-analyzer', 'clingo', 'pyDatalog', 'networkx', 'lark'):\n"
        "    try: vs.append(f'{d} {m.version(d)}')\n"
        "    except m.PackageNotFoundError: vs.append(f'{d} (not installed)')\n"
        "print(', '.join(vs))\n"
    )
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def machine() -> str:
    """One line about the machine the figures come from."""
    return f"{platform.machine()}, {os.cpu_count()} CPUs (nproc), {platform.system()} {platform.release()}"


def header(python: str, how: str) -> list:
    """The report's opening lines: machine, versions and commit, load, how cells were measured."""
    return [f"Machine: {machine()}.  ",
            f"Versions: {versions(python)}; engine installed from commit {source_commit(python)}.  ",
            f"Load average (1/5/15 min) at the end: {load()}; other work shared the machine.  ",
            how, ""]


def finish(out: list, wrong: list, title: str) -> int:
    """Print the report (with any wrong counts under ``title``); exit status 1 if any."""
    if wrong:
        out += ["", f"**{title}:**", *[f"* {w}" for w in wrong]]
    print("\n".join(out))
    return 1 if wrong else 0


def load() -> str:
    """The 1/5/15-minute load averages: timings taken on a busy machine say so."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def count_in(stdout: str, key: str) -> int | None:
    """The integer printed as ``key=N`` by an engine script, if any."""
    match = re.search(rf"{re.escape(key)}=(\d+)", stdout)
    return int(match.group(1)) if match else None


def fmt_seconds(value: float | None) -> str:
    """Seconds with two decimals, or a dash."""
    return "—" if value is None else f"{value:.2f} s"


def fmt_mib(value: float | None) -> str:
    """MiB without decimals, or a dash."""
    return "—" if value is None else f"{value:.0f} MiB"
