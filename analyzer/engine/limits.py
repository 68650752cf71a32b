"""Resource limits for one evaluation, and the watchdog that enforces them: the engine never
runs away.

Three limits: wall time, derived tuples and memory (the process's resident set). They are
enforced by :class:`Watchdog`, which checks them every :data:`TICK` seconds whatever Python
code is running (a join loop of any depth, a builtin, a regular expression, proof building,
output), and after every iteration.

The memory limit is on by default: :func:`default_max_memory`. ``analyze query`` also has a
default time limit, :data:`QUERY_TIMEOUT_S`; the library and ``analyze read`` have none.

A limit checked only between iterations, or every few thousand tuples of a rule's outer
loop, misses a single join that runs for minutes (``p(X,Y,Z) :- a(X), a(Y), a(Z).``), a
regular expression that backtracks, and proof building. So in the main thread a timer
signal (``SIGALRM``, every :data:`TICK` seconds) runs
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
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import List, Optional

from analyzer.engine.errors import EvaluationLimitError

#: numbers are 64-bit signed integers: literals, facts and arithmetic results that are kept
#: stay within -MAX_NUMBER - 1 .. MAX_NUMBER (DL019 for a literal, DL917 for a result)
MAX_NUMBER = (1 << 63) - 1
#: longest symbol a builtin (concat, concat3, replace) may build (DL931 beyond it)
MAX_SYMBOL_LENGTH = 1 << 24
#: deepest nesting of arithmetic in one term (DL020 beyond it); generated code needs one
#: parenthesis per level and CPython allows 200
MAX_EXPRESSION_DEPTH = 100
#: seconds between two checks of the limits while Python code runs
TICK = 0.05
#: outer-loop tuples between two inline limit checks (used where no timer signal can be had)
CHECK_EVERY = 8192
#: default ``--timeout`` of ``analyze query``
QUERY_TIMEOUT_S = 60.0
#: fraction of the machine's memory (physical, or the cgroup's limit) the default allows
MEMORY_FRACTION = 0.5
#: fraction of an address-space rlimit (``ulimit -v``) the default allows: Python maps more
#: address space than it keeps resident
ADDRESS_SPACE_FRACTION = 0.75


def _physical_memory() -> Optional[int]:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_memory() -> Optional[int]:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as handle:
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 60):  # "max" or a huge number: no limit
            return int(text)
    return None


def _address_space_limit() -> Optional[int]:
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def default_max_memory() -> Optional[int]:
    """Bytes of resident memory an evaluation may reach by default: half of the machine's
    memory (its cgroup limit when lower), and at most 3/4 of an address-space rlimit.
    None when none of these can be read (the limit is then off)."""
    candidates = []
    machine = [m for m in (_physical_memory(), _cgroup_memory()) if m]
    if machine:
        candidates.append(int(min(machine) * MEMORY_FRACTION))
    rlimit = _address_space_limit()
    if rlimit:
        candidates.append(int(rlimit * ADDRESS_SPACE_FRACTION))
    return min(candidates) if candidates else None


@dataclass(frozen=True)
class Limits:
    """``max_tuples``: derived tuples over all relations; ``timeout_s``: wall seconds;
    ``max_memory``: bytes of resident memory of the process (None = no limit)."""

    max_tuples: int = 50_000_000
    timeout_s: Optional[float] = None
    max_memory: Optional[int] = field(default_factory=default_max_memory)


_ACTIVE: List["Watchdog"] = []  # watchdogs whose limits the timer enforces (innermost last)
_PREVIOUS: list = []  # the SIGALRM handler and timer we replaced, restored when none is active
_HOOK: list = []  # the sys.unraisablehook we wrapped (see _keep_limit_errors), restored likewise
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


def _keep_limit_errors(unraisable) -> None:
    """``sys.unraisablehook`` while a watchdog is armed. A tick can land in code whose
    exceptions Python cannot propagate (a finalizer, a generator closed as it is freed, a
    garbage-collector callback :func:`_inside_gc_callback` did not see) and prints them as
    "Exception ignored". A limit error lost there is not lost: the watchdog remembered it
    (``_tripped``) and its next check raises it again where it can propagate. Anything else
    goes to the hook that was installed before."""
    if isinstance(unraisable.exc_value, EvaluationLimitError) and reached() is not None:
        return
    (_HOOK[0] if _HOOK else sys.__unraisablehook__)(unraisable)


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
        _HOOK[:] = [sys.unraisablehook]
        sys.unraisablehook = _keep_limit_errors
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
                if _HOOK:
                    sys.unraisablehook = _HOOK.pop()
                if delay:
                    signal.setitimer(signal.ITIMER_REAL, delay, interval)
            return
        except EvaluationLimitError:
            continue
