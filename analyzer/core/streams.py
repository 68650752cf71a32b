"""Standard output and error as the console script uses them: UTF-8 whatever the locale, and
a write that fails (a full disk, ``/dev/full``, an I/O error) named as such.

``LC_ALL=C`` or ``PYTHONIOENCODING=ascii`` would make Python encode stdout in ASCII, and the
first non-ASCII character of a memory file (a heading's em dash) ended the command with
``UnicodeEncodeError`` (exit 3). :func:`setup` re-encodes both streams as UTF-8; a character
UTF-8 cannot hold (a lone surrogate from a byte Git could not decode) is written as a
backslash escape instead of failing. A write that fails with ``OSError`` other than a closed
pipe raises :class:`StreamError`, which the command line reports as ``MA-OUTPUT`` with exit 2
(analyzer/commands/cli.py): the output is incomplete, so the run must not look successful, but the
input was fine and nothing inside the analyzer broke.
"""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager
from typing import Any


class StreamError(Exception):
    """Standard output or error could not be written (``name``: ``stdout``/``stderr``)."""

    def __init__(self, name: str, strerror: str) -> None:
        super().__init__(f"cannot write standard {'output' if name == 'stdout' else 'error'}: {strerror}")
        self.name, self.strerror = name, strerror


class _Guarded:
    """A text stream whose failed ``write``/``flush`` raises :class:`StreamError`; every other
    attribute is the stream's own."""

    def __init__(self, stream: Any, name: str) -> None:
        self._stream, self._name = stream, name

    def write(self, text: str) -> int:
        """Write ``text``; a failure other than a closed pipe is :class:`StreamError`."""
        try:
            with _no_ticks():
                return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, exc.strerror or str(exc)) from None

    def flush(self) -> None:
        """Flush; a failure other than a closed pipe is :class:`StreamError`."""
        try:
            with _no_ticks():
                self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, exc.strerror or str(exc)) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def _no_ticks():
    """Hold the timer signal while a write runs, when a Python handler takes it (the
    watchdog's, analyzer/engine/limits.py, installs one while it watches).

    With every command under a time bound, SIGALRM arrives every 50 ms; a large write to a
    pipe interrupted by it lost what had not reached the pipe: `check --format json
    --with-proofs` through `subprocess.run` printed 131,072 of 253,756 bytes, exit 1, in
    two of three runs of tests/check/test_packs.py (none with the timer off). Held, the
    signal is delivered when the write returns, and the deadline is checked then. The
    handler is asked of ``signal``, not of the watchdog: this layer imports none above it."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or not callable(signal.getsignal(signal.SIGALRM)):
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


def setup() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` UTF-8 (escaping what UTF-8 cannot hold) and
    guarded. Only the console script calls this; library callers keep their streams."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(encoding="utf-8", errors="backslashreplace")
            except (ValueError, OSError):  # a stream already written to in another encoding: keep it
                pass
        setattr(sys, name, _Guarded(stream, name))
