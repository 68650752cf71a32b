"""Standard output and error as the console script uses them: UTF-8 whatever the locale, and
a write that fails (a full disk, ``/dev/full``, an I/O error) named as such.

``LC_ALL=C`` or ``PYTHONIOENCODING=ascii`` would make Python encode stdout in ASCII, and the
first non-ASCII character of a memory file (a heading's em dash) ended the command with
``UnicodeEncodeError`` (exit 3). :func:`setup` re-encodes both streams as UTF-8; a character
UTF-8 cannot hold (a lone surrogate from a byte Git could not decode) is written as a
backslash escape instead of failing. A write that fails with ``OSError`` other than a closed
pipe raises :class:`StreamError`, which the command line reports as ``MA-OUTPUT`` with exit 2
(analyzer/cli.py): the output is incomplete, so the run must not look successful, but the
input was fine and nothing inside the analyzer broke.
"""

from __future__ import annotations

import sys
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
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, exc.strerror or str(exc)) from None

    def flush(self) -> None:
        """Flush; a failure other than a closed pipe is :class:`StreamError`."""
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, exc.strerror or str(exc)) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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
