"""The tests' RAM folders of a run killed outright are removed by the next run
(tests/ram_folders.py: sweep_dead_runs, called by tests/conftest.py), and a live run's are left alone."""

import os
import subprocess
import sys

from ram_folders import sweep_dead_runs  # tests/ is on the path (tests/conftest.py)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_dead_runs_folders_go_and_a_live_runs_stay(tmp_path):
    dead, live = _dead_pid(), os.getpid()
    names = [f"memory-analyzer-pytest-{dead}-ab", f"memory-analyzer-tmpdir-{dead}-cd",
             f"memory-analyzer-test-cache-{dead}-ef", f"memory-analyzer-pytest-{live}-gh",
             "memory-analyzer-pytest-abc", f"someone-else-{dead}-x"]
    for name in names:
        (tmp_path / name / "inner").mkdir(parents=True)
    sweep_dead_runs(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[3:])
