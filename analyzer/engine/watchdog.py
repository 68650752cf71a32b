"""Enforcing :class:`~analyzer.engine.limits.Limits` wherever evaluation spends its time.

A limit checked only between iterations, or every few thousand tuples of a rule's outer
loop, misses a single join that runs for minutes (``p(X,Y,Z) :- a(X), a(Y), a(Z).``), a
regular expression that backtracks, and proof building. So in the main thread a timer
signal (``SIGALRM``, every :data:`~analyzer.engine.limits.TICK` seconds) runs
:meth:`Watchdog.check` between any two bytecodes of whatever runs, including inside ``re``,
which polls for signals; when a limit is exceeded the check raises
:class:`~analyzer.engine.errors.EvaluationLimitError` right there. Where no timer signal is
available (another thread, no ``setitimer``) the generated code's inline checks remain.

One watchdog covers evaluation, proof building and output of one request, so all of them
count against the same deadline. The error names the limit, the rule that was running
(``file:line``) and the largest relations so far.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import List, Optional

from analyzer.engine.errors import EvaluationLimitError
from analyzer.engine.limits import TICK, Limits

_ACTIVE: List["Watchdog"] = []  # watchdogs whose limits the timer enforces (innermost last)
_PREVIOUS: list = []  # the SIGALRM handler and timer we replaced, restored when none is active
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> Optional[int]:
    """The process's resident set size (Linux ``/proc``; the peak elsewhere), or None."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
    except (ImportError, AttributeError, OSError):
        return None


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


class Watchdog:
    """The limits of one request and the progress they are measured against."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.started = time.monotonic()
        self.deadline = None if limits.timeout_s is None else self.started + limits.timeout_s
        self.run = None  # the evaluation being watched (see evaluate._Run.progress)
        self.phase: Optional[str] = None  # what runs after evaluation, e.g. "building proofs"
        self._depth = 0
        self._memory_checked = float("-inf")
        self._tripped: Optional[EvaluationLimitError] = None  # the first limit error raised

    # -- the check ---------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`EvaluationLimitError` when a limit is exceeded. Once one was raised,
        later checks raise the same message again (a tick that lands while the first error
        unwinds replaces it: the message must keep the time and rule the limit was met at)."""
        if self._tripped is not None:
            raise EvaluationLimitError(self._tripped.message, self._tripped.span)
        limits = self.limits
        count = self.run.derived_count() if self.run is not None else 0
        if count > limits.max_tuples:
            raise self.error(f"limit max_tuples={limits.max_tuples} exceeded")
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise self.error(f"limit timeout={limits.timeout_s:g}s exceeded")
        # reading the resident size costs a file read: at most once per tick however often
        # the engine checks (it checks after every iteration)
        if limits.max_memory is not None and now - self._memory_checked >= TICK:
            self._memory_checked = now
            rss = resident_bytes()
            if rss is not None and rss > limits.max_memory:
                raise self.error(f"limit max_memory={_mib(limits.max_memory)} exceeded "
                                 f"(resident {_mib(rss)})")

    def out_of_memory(self) -> EvaluationLimitError:
        """The error for a ``MemoryError`` (an address-space limit reached between two checks)."""
        return self.error("out of memory (the process could not allocate more)")

    def error(self, what: str) -> EvaluationLimitError:
        """``what``, then where the time went: the running rule and the relation sizes (and
        remembered: :meth:`check` raises it again from now on)."""
        self._tripped = self._error(what)
        return self._tripped

    def _error(self, what: str) -> EvaluationLimitError:
        elapsed = time.monotonic() - self.started
        if self.run is None:
            where = f" while {self.phase}" if self.phase else ""
            return EvaluationLimitError(f"{what} after {elapsed:.1f} s{where}")
        count, rule, sizes = self.run.progress()
        where = f" while {self.phase}" if self.phase else ""
        span = None
        if rule is not None and not self.phase:
            span = rule.span
            where = f" in the rule at {span.path}:{span.line}, deriving relation {rule.head.rel!r}"
        top = ", ".join(f"{rel} {n:,}" for rel, n in sizes[:5])
        return EvaluationLimitError(
            f"{what} after {elapsed:.1f} s{where}; {count:,} tuples derived; "
            f"largest relations so far: {top or 'none'}", span)

    # -- the timer ---------------------------------------------------------------------
    @contextmanager
    def watching(self, phase: Optional[str] = None):
        """Enforce the limits while the body runs (re-entrant; nested watchdogs stack)."""
        saved_phase = self.phase
        if phase is not None:
            self.phase = phase
        self._depth += 1
        armed = self._depth == 1 and _arm(self)
        try:
            yield self
        finally:
            self._depth -= 1
            self.phase = saved_phase
            if armed:
                _disarm(self)


def reached() -> Optional[EvaluationLimitError]:
    """The limit error an active watchdog has raised, or None. Code that catches what a
    native library raised (DuckDB answers an interrupted statement with its own error, and
    py4j wraps what interrupted its socket read) asks this to keep the limit's own code,
    DL902, instead of reporting the library's failure."""
    for dog in reversed(_ACTIVE):
        if dog._tripped is not None:
            return EvaluationLimitError(dog._tripped.message, dog._tripped.span)
    return None


def _on_tick(_signum, frame) -> None:
    if _inside_gc_callback(frame):
        return  # an error raised here would be printed and dropped: the next tick checks again
    for dog in reversed(_ACTIVE):
        dog.check()


def _inside_gc_callback(frame) -> bool:
    """Whether the tick interrupted a garbage-collector callback (``gc.callbacks``, which
    Hypothesis and profilers install). The collector swallows an exception raised there
    ("Exception ignored in ..."), so a limit error raised in it would be lost."""
    if not gc.callbacks:
        return False
    codes = {getattr(getattr(cb, "__func__", cb), "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def _arm(dog: Watchdog) -> bool:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    if not _ACTIVE:
        try:
            handler = signal.signal(signal.SIGALRM, _on_tick)
        except (ValueError, OSError):
            return False
        # the first tick no later than the deadline: a bound shorter than a tick is met too
        first = TICK if dog.deadline is None else min(TICK, max(dog.deadline - time.monotonic(), 1e-4))
        _PREVIOUS[:] = [handler, signal.setitimer(signal.ITIMER_REAL, first, TICK)]
    _ACTIVE.append(dog)
    return True


def _disarm(dog: Watchdog) -> None:
    # the timer may fire (and raise) during this clean-up too: repeat until it is done; a
    # limit reached here, after the work finished, is ignored
    while True:
        try:
            if dog in _ACTIVE:
                _ACTIVE.remove(dog)
            if not _ACTIVE and _PREVIOUS:
                signal.setitimer(signal.ITIMER_REAL, 0)
                handler, (delay, interval) = _PREVIOUS
                signal.signal(signal.SIGALRM, handler)
                del _PREVIOUS[:]
                if delay:
                    signal.setitimer(signal.ITIMER_REAL, delay, interval)
            return
        except EvaluationLimitError:
            continue
