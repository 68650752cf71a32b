"""The tests' temporary folders in RAM (tests/conftest.py puts a run's tmp_path, $TMPDIR and
private caches in /dev/shm where there is room): their names, and the sweep of those a run
killed outright left behind."""

import os
import re
import shutil

#: Every RAM folder of a test run is named RAM_PREFIX + kind + "-" + the maker's pid + "-".
RAM_PREFIX = "memory-analyzer-"
_RAM_RUN = re.compile(re.escape(RAM_PREFIX) + r"(?:pytest|tmpdir|test-cache)-(\d+)-")


def sweep_dead_runs(ram: str) -> None:
    """Remove the RAM folders of earlier runs whose process is gone: a run killed outright
    (SIGKILL, a timeout, the OOM killer) never reaches pytest_unconfigure, and tmpfs pages
    are memory. Each folder's name holds the pid of the process that made it; a folder of a
    live process (another run beside this one) is left alone."""
    for name in os.listdir(ram):
        found = _RAM_RUN.match(name)
        if found is None:
            continue
        try:
            os.kill(int(found.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(ram, name), ignore_errors=True)
        except (PermissionError, OverflowError, ValueError):
            continue  # another user's live process, or not a pid: not ours to remove
