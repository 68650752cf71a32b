"""How the ``analyze`` console script ends: without freeing what the command built.

A read or check of a 10,000-entry project builds about a million small objects (fact
tuples, the sets and hash indexes of the evaluation, extracted texts). When the command
returns, reference counting frees them one by one, and interpreter shutdown then tears
down modules and the compiled rule programs: CPU spent after the answer is printed, about
a tenth of a warm read. The operating system reclaims a process's memory at exit anyway,
so the console script keeps those objects alive (:func:`keep`), flushes its output and
leaves with ``os._exit`` (:func:`exit_now`), as compilers that skip freeing at exit do.

Only the console script enables this (:func:`enable`). Library callers and tests that run
:func:`analyzer.commands.cli.main` in a process of their own are unaffected: :func:`keep` holds
nothing unless enabled, so repeated in-process runs free their objects as before.
Nothing the analyzer writes depends on exit handlers: caches are written, renamed and
closed before a command returns, and the prefetch helper has been waited for.
"""

from __future__ import annotations

import os
import sys
from typing import List

_KEPT: List[object] = []
_ENABLED = False


def enable() -> None:
    """From now on :func:`keep` holds what it is given until the process exits."""
    global _ENABLED
    _ENABLED = True


def keep(*objects) -> None:
    """Keep ``objects`` alive until exit (a no-op unless :func:`enable` was called)."""
    if _ENABLED:
        _KEPT.extend(objects)


def exit_now(status: int, housekeeping=None) -> None:
    """Flush standard output and error, run ``housekeeping`` (work the user need not wait
    for, after the output is out, e.g. pruning the cache), then end the process with
    ``status`` at once.

    Output that cannot be flushed because the reader went away (a closed pipe, ``| head``)
    ends the process with ``status`` as well, as a broken pipe during the command does
    (analyzer/commands/cli.py). Output that cannot be flushed for another reason (a full disk,
    ``/dev/full``) is incomplete: one ``MA-OUTPUT`` line on stderr and status 2, as a failed
    write during the command gives (analyzer/core/streams.py)."""
    from analyzer.core.streams import StreamError

    for name in ("stdout", "stderr"):
        try:
            getattr(sys, name).flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError, StreamError) as exc:
            if status in (0, 1):  # an error status has already said why
                status = 2
                if name == "stdout":
                    _say(f"analyze: error: MA-OUTPUT {exc}")
    if housekeeping is not None:
        try:
            housekeeping()
        except Exception:  # noqa: BLE001 - housekeeping never changes a command's outcome
            pass
    os._exit(status)


def _say(line: str) -> None:
    # stderr may be the stream that failed too: write what we can, never raise here
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
