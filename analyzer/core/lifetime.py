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

While a command builds those objects, the cyclic collector is paused (:func:`gc_paused`):
they are acyclic, and each collection would walk them all again.
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from typing import List

_KEPT: List[object] = []
_ENABLED = False


def enable() -> None:
    """From now on :func:`keep` holds what it is given until the process exits."""
    global _ENABLED
    _ENABLED = True


def disable() -> None:
    """From now on :func:`keep` holds nothing (a long-running server, ``analyze mcp``)."""
    global _ENABLED
    _ENABLED = False


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


@contextmanager
def gc_paused(freeze: bool = False):
    """Pause the cyclic garbage collector for a block that allocates many acyclic objects
    (re-enabled afterwards only if it was on; reference counting still frees memory).

    With ``freeze``, what the block allocated is moved to the collector's permanent
    generation on exit (``gc.freeze``): otherwise the first collection after the pause scans
    every object made during it (0.05-0.1 s after a 10,000-entry read). Only for blocks that
    leave no cyclic garbage behind (frozen cycles are never collected); ``run_read`` is one.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    except BaseException:
        # interrupted (a limit reached, issue 32): the traceback still holds what the block
        # made, and a collector pass over it, which no timer can interrupt, delayed the error
        # by 5 s after a million tuples; frozen, it is freed by reference counting as usual
        if enabled:
            gc.freeze()
        raise
    finally:
        if enabled:
            if freeze:
                gc.freeze()
            gc.enable()
