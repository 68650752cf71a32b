"""A cold cache filled by two processes: a forked helper extracts part of the files.

On a cold facts cache, extraction is the largest part of ``load_project`` on a big project
(about 0.4 s of CPU for the 3.3 MB of the generated 10,000-entry project), and a ``read``
with a cold program cache also compiles the rules (about 0.3 s). Both are plain CPU work
that does not depend on the other, so on a POSIX machine with more than one core a forked
helper takes a share: it runs one *side task* (e.g. compiling the rule program into the
program cache), then takes files from a queue it shares with the parent and stores each
extraction in the facts cache, reporting each file it finished on a pipe. The parent takes
files from the same queue meanwhile, and loads each file the helper reported as soon as it
sees it, so that at the end only the helper's last file is left to load. The queue
balances the two processes without any cost estimate.

The helper may start before the parent knows the entry schema (it needs the manifest,
whose first extraction is not instantaneous): the queue then puts the files whose
extraction does not depend on the schema first (``Job.needs_schema`` False: subjects.md,
the reconciliations, largest first), and the parent sends the schema on a pipe
(:meth:`Helper.send_schema`) once the manifest is read; the helper waits for it before its
first entry file.

Output never depends on the helper: the parent merges every file, whoever extracted it, and
a file's cached extraction is the same data as a fresh one (the warm path relies on that
already); a file the helper did not store (crash, unwritable cache) is simply extracted by
the parent. Small projects never fork (below :data:`MIN_BYTES` of text): the helper's
start-up would cost more than it saves; nor does a load whose facts cache cannot be written
(the helper only stores there). A load that fails while a helper runs (a library caller's
internal error) stops it after its current file and reaps it (:func:`reaped`).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

# Text (characters) to extract below which extraction stays in one process. The generated
# 1,000-entry project has ~0.4 MB; a helper there would cost more than it saves.
MIN_BYTES = 1_000_000
_TOKEN = 4  # bytes per job index (or schema) in a pipe
MAX_JOBS = 65536 // _TOKEN  # the whole queue must fit in the pipe buffer before the fork
# Text (characters) the helper extracts before it flushes (stores) and reports them together: large
# enough that a batch's judgement costs one evaluation for several files, small enough that
# the parent, which merges the helper's files as they are reported, rarely waits for one.
BATCH_BYTES = 200_000


@dataclass
class Job:
    """One file to extract: its module path, text, file kind, whether its extraction
    depends on the entry schema, and its facts-cache key once that is known."""

    module: str
    text: str
    kind: str = "entries"
    needs_schema: bool = True
    key: Optional[str] = None


class Helper:
    """A running helper process and the pipes it shares with the parent."""

    def __init__(self, pid: int, queue: int, done: int, schema: Optional[int], jobs: Sequence[Job]) -> None:
        self.pid = pid
        self._queue = queue
        self._done = done  # the helper writes the index of every file it finished
        self._schema = schema  # the write end the schema goes to, None once sent
        self._jobs = jobs
        self._reaped = False

    def send_schema(self, schema: Optional[int]) -> None:
        """Tell the helper the entry schema (once; a no-op when it was known at the fork).
        None: it will not come, the helper stops before its first entry file."""
        if self._schema is None:
            return
        try:
            if schema is not None:
                os.write(self._schema, schema.to_bytes(_TOKEN, "little", signed=True))
        except OSError:
            pass  # the helper is gone: the parent extracts what it did not store
        os.close(self._schema)
        self._schema = None

    def claim(self) -> Iterator[Job]:
        """The jobs the parent takes from the queue (the helper takes the others)."""
        return (job for _, job in _claims(self._queue, self._jobs))

    def finished(self, block: bool) -> List[Job]:
        """The jobs the helper reported finished since the last call: those reported so far
        (``block`` False), or every one until the helper exits (``block`` True)."""
        if block:
            self.send_schema(None)  # a helper still waiting for the schema would never exit
        os.set_blocking(self._done, block)
        found = []
        while True:
            try:
                token = os.read(self._done, _TOKEN)
            except BlockingIOError:
                return found
            if len(token) != _TOKEN:  # end of file: the helper exited
                return found
            found.append(self._jobs[int.from_bytes(token, "little")])

    def wait(self) -> None:
        """Wait for the helper to exit (its results are in the cache, or missing); once."""
        if self._reaped:
            return
        self._reaped = True
        self.send_schema(None)  # a helper still waiting for the schema would never exit
        os.close(self._queue)
        os.close(self._done)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def abandon(self) -> None:
        """Stop the helper after the file it is on and reap it (the parent is failing and
        will merge nothing more): the files still queued are claimed and left undone."""
        if not self._reaped:
            for _job in self.claim():
                pass
        self.wait()


@contextmanager
def reaped(helper: Optional[Helper]) -> Iterator[None]:
    """A block after which ``helper`` (None: none) is reaped if the block raises; on success
    the block itself waits for it (:meth:`Helper.wait`). A library caller whose load fails
    then leaves no helper behind."""
    try:
        yield
    except BaseException:
        if helper is not None:
            helper.abandon()
        raise


def _claims(queue: int, jobs: Sequence[Job]) -> Iterator[Tuple[int, Job]]:
    # Both processes read one fixed-size index per read() from one pipe whose write end is
    # closed: each index goes to exactly one reader (a pipe read takes the pipe's lock, and
    # every token was written before the fork), and an empty pipe reads as end of file.
    while True:
        token = os.read(queue, _TOKEN)
        if len(token) != _TOKEN:
            return
        index = int.from_bytes(token, "little")
        yield index, jobs[index]


def _threaded() -> bool:
    """Whether other threads run: a fork could then copy a lock another thread holds (the
    import lock, say) and the helper would hang; library callers with threads stay serial."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


def start(jobs: List[Job], work: Callable[[Job, Optional[int]], None], side_task: Optional[Callable[[], None]] = None,
          schema: Optional[int] = None, flush: Optional[Callable[[], None]] = None) -> Optional[Helper]:
    """Fork a helper that runs the side task and then takes jobs from a queue shared with
    the parent, the jobs that need no schema first when ``schema`` is not known yet, largest
    file first, so the two processes finish together whatever the side task costs; the
    helper runs ``work(job, schema)`` on each (the schema None for a job that needs none
    before it is known) and ``flush()`` after each batch of them. None when it would not pay
    (small project, one core, no ``fork``)."""
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or len(jobs) > MAX_JOBS or _threaded():
        return None
    if sum(len(job.text) for job in jobs) < MIN_BYTES:
        return None
    order = sorted(range(len(jobs)), key=lambda i: (schema is None and jobs[i].needs_schema, -len(jobs[i].text),
                                                    jobs[i].module))
    opened: List[int] = []
    try:
        for _ in range(3):
            opened.extend(os.pipe())
        queue, feed, done_read, done_write, schema_read, schema_write = opened
        os.write(feed, b"".join(i.to_bytes(_TOKEN, "little") for i in order))
        os.close(feed)
        if schema is not None:
            os.write(schema_write, schema.to_bytes(_TOKEN, "little", signed=True))
        pid = os.fork()
    except OSError:
        for fd in opened:
            try:
                os.close(fd)
            except OSError:
                pass
        return None
    if pid == 0:  # the helper: never returns, never prints, never raises
        os._exit(_helper(jobs, work, flush, side_task, queue, done_write, schema_read, schema_write))
    os.close(done_write)
    os.close(schema_read)
    if schema is not None:
        os.close(schema_write)
        schema_write = None
    return Helper(pid, queue, done_read, schema_write, jobs)


def _helper(jobs, work, flush, side_task, queue: int, done: int, schema_read: int, schema_write: int) -> int:
    """The helper's whole life; its exit status. It runs ``work`` on each file it claims, and
    ``flush`` after about :data:`BATCH_BYTES` of text and at the end: extraction stores a
    batch's files there, their entries judged in one evaluation of the rules (whose fixed
    cost per file was a large part of a small file's extraction); each file is reported
    once its batch is flushed."""
    try:
        os.close(schema_write)  # else the schema pipe would never read as end of file
        if side_task is not None:
            side_task()
        schema = None
        batch: List[int] = []
        size = 0
        for index, job in _claims(queue, jobs):
            if job.needs_schema and schema is None:
                token = os.read(schema_read, _TOKEN)
                if len(token) != _TOKEN:  # the parent is gone or gave up
                    _finish(batch, flush, done)
                    return 1
                schema = int.from_bytes(token, "little", signed=True)
            work(job, schema)
            batch.append(index)
            size += len(job.text)
            if size >= BATCH_BYTES:
                _finish(batch, flush, done)
                batch, size = [], 0
        _finish(batch, flush, done)
    except BaseException:  # noqa: BLE001 - the parent redoes whatever is missing
        return 1
    return 0


def _finish(batch: List[int], flush, done: int) -> None:
    """Flush the helper's batch and report each of its files to the parent."""
    if batch:
        if flush is not None:
            flush()
        os.write(done, b"".join(index.to_bytes(_TOKEN, "little") for index in batch))
