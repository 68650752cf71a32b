"""``python -m analyzer ARGS`` run in the test's own process, answering as ``subprocess.run``.

A CLI subprocess costs about 0.18 s of CPU (start Python, import and load the analyzer) for
answers that take 0.02 s once the analyzer is imported; most tests ask what a command answers,
not how a process behaves. :func:`run` calls ``analyzer.commands.cli.main`` with the argv,
working directory, environment and standard input a subprocess would get, and gives back a
``subprocess.CompletedProcess`` with text stdout and stderr, so a test's helper can switch by
changing one call.

What a process has that this has not, so tests of it keep a real subprocess (each command
keeps some): the console script's stream setup and fast exit (analyzer/core/streams.py,
lifetime.py; output is still encoded as the console script encodes it, UTF-8 with backslash
escapes), PYTHONHASHSEED and other variables Python reads at start, the analyzer's
per-process memos (compiled programs, grammars: the on-disk caches are still read and
written), signals sent from outside, and a hard timeout (``timeout`` is accepted and ignored:
every command has its own time bound), and the cache pruning the console script does after a
run (analyzer/core/cache_prune.py). Runs are serialized: the environment, working
directory and standard streams are the process's own.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
import threading
from typing import Mapping, Optional, Sequence

_LOCK = threading.RLock()


def _text(buffer: io.BytesIO) -> str:
    """What ``subprocess.run(..., text=True)`` would read from the bytes written."""
    return io.TextIOWrapper(io.BytesIO(buffer.getvalue()), encoding="utf-8").read()


def run(argv: Sequence[str], *, cwd=None, env: Optional[Mapping[str, str]] = None, input: Optional[str] = None,
        timeout: Optional[float] = None, check: bool = False, capture_output: bool = True,
        text: bool = True) -> "subprocess.CompletedProcess[str]":
    """``analyze ARGV`` in this process, as ``subprocess.run([python, -m, analyzer, *ARGV],
    cwd=, env=, input=, capture_output=True, text=True)`` would run it (the last two are
    accepted so that a call changes by its function's name only; they cannot be False)."""
    from analyzer.commands import cli
    from analyzer.core import cache

    assert capture_output and text, "output is always captured as text"
    del timeout  # see the module's docstring
    argv = [os.fspath(a) for a in argv]
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
    with _LOCK:
        saved_env, saved_cwd, saved_in = dict(os.environ), os.getcwd(), sys.stdin
        try:
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin = io.StringIO(input or "")
            # what a process remembers of its cache directories and the warnings it printed
            cache._WARNED.clear()
            cache._forget()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = cli.main(argv)
                except SystemExit as stop:  # argparse's refusals and --help, as Python exits on them
                    code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
                    if not isinstance(stop.code, (int, type(None))):
                        print(stop.code, file=sys.stderr)
                out.flush(), err.flush()
        finally:
            sys.stdin = saved_in
            os.chdir(saved_cwd)
            if env is not None:
                os.environ.clear()
                os.environ.update(saved_env)
            gc.unfreeze()  # a read freezes what it built (project/loader.py): a process exits, we go on
    done = subprocess.CompletedProcess([sys.executable, "-m", "analyzer", *argv], code, _text(out_bytes),
                                       _text(err_bytes))
    if check:
        done.check_returncode()
    return done
