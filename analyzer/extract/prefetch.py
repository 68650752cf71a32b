"""A cold cache filled by two processes: a forked helper extracts part of the files.

On a cold facts cache, extraction is the largest part of ``load_project`` on a big project
(about 0.55 s of CPU for the 3.3 MB of the generated 10,000-entry project), and a ``read``
with a cold program cache also compiles the rules (about 0.3 s). Both are plain CPU work
that does not depend on the other, so on a POSIX machine with more than one core a forked
helper takes a share: it runs one *side task* (e.g. compiling the rule program into the
program cache), then takes files from a queue it shares with the parent, largest first,
and stores each extraction in the facts cache. The parent takes files from the same queue
meanwhile, waits for the helper, and reads the helper's files back from the cache. The
queue balances the two processes without any cost estimate.

Output never depends on the helper: the parent merges every file in the same order as
before, a file's cached extraction is the same data as a fresh one (the warm path relies
on that already), and a file the helper did not store (crash, unwritable cache) is simply
extracted by the parent. Small projects never fork (below :data:`MIN_BYTES` of uncached
text): the helper's start-up would cost more than it saves.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence

# Uncached text (characters) below which extraction stays in one process. The generated
# 1,000-entry project has ~0.4 MB; a helper there would cost more than it saves.
MIN_BYTES = 1_000_000
_TOKEN = 4  # bytes per job index in the queue pipe
MAX_JOBS = 65536 // _TOKEN  # the whole queue must fit in the pipe buffer before the fork


@dataclass
class Job:
    """One file to extract: its module path, text and facts-cache key."""

    module: str
    text: str
    key: str


class Helper:
    """A running helper process and the job queue it shares with the parent."""

    def __init__(self, pid: int, queue: int, jobs: Sequence[Job]) -> None:
        self.pid = pid
        self._queue = queue
        self._jobs = jobs

    def claim(self) -> Iterator[Job]:
        """The jobs the parent takes from the queue (the helper takes the others)."""
        return _claims(self._queue, self._jobs)

    def wait(self) -> None:
        """Wait for the helper to exit (its results are in the cache, or missing)."""
        os.close(self._queue)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _claims(queue: int, jobs: Sequence[Job]) -> Iterator[Job]:
    # Both processes read one fixed-size index per read() from one pipe whose write end is
    # closed: each index goes to exactly one reader (a pipe read takes the pipe's lock, and
    # every token was written before the fork), and an empty pipe reads as end of file.
    while True:
        token = os.read(queue, _TOKEN)
        if len(token) != _TOKEN:
            return
        yield jobs[int.from_bytes(token, "little")]


def _threaded() -> bool:
    """Whether other threads run: a fork could then copy a lock another thread holds (the
    import lock, say) and the helper would hang; library callers with threads stay serial."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


def start(missing: List[Job], extract_and_store: Callable[[Job], None],
          side_task: Optional[Callable[[], None]] = None) -> Optional[Helper]:
    """Fork a helper that runs the side task and then takes jobs from a queue shared with
    the parent, largest file first, so the two processes finish together whatever the side
    task costs. None when it would not pay (small project, one core, no ``fork``)."""
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or len(missing) > MAX_JOBS or _threaded():
        return None
    if sum(len(job.text) for job in missing) < MIN_BYTES:
        return None
    order = sorted(range(len(missing)), key=lambda i: (-len(missing[i].text), missing[i].module))
    try:
        queue, feed = os.pipe()
        os.write(feed, b"".join(i.to_bytes(_TOKEN, "little") for i in order))
        os.close(feed)
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the helper: never returns, never prints, never raises
        status = 0
        try:
            if side_task is not None:
                side_task()
            for job in _claims(queue, missing):
                extract_and_store(job)
        except BaseException:  # noqa: BLE001 - the parent redoes whatever is missing
            status = 1
        os._exit(status)
    return Helper(pid, queue, missing)
