"""A limit reached while a garbage-collector callback runs is not lost.

Hypothesis (and other tools) install ``gc.callbacks``; an exception raised inside one is
printed as "Exception ignored in: <function gc_callback>" and dropped, so a watchdog tick
that raised there lost its limit error until a later tick, and the test suite warned."""

import gc
import sys
import time

import pytest

from analyzer.engine.check import load_program
from analyzer.engine.errors import EvaluationLimitError
from analyzer.engine.evaluate import Engine
from analyzer.engine.limits import Limits

CROSS = """.decl a(x: number)
.decl p(x: number, y: number, z: number)
p(X, Y, Z) :- a(X), a(Y), a(Z).
"""


def test_a_limit_reached_inside_a_gc_callback_is_raised_outside_it(monkeypatch):
    def slow_callback(_phase, _info):  # most of the run's time is spent in here
        end = time.monotonic() + 0.005
        while time.monotonic() < end:
            pass

    lost = []
    monkeypatch.setattr(sys, "unraisablehook", lost.append)
    gc.callbacks.append(slow_callback)
    try:
        engine = Engine(load_program(text=CROSS, name="t.dl"), limits=Limits(timeout_s=0.5))
        with pytest.raises(EvaluationLimitError, match="limit timeout=0.5s exceeded"):
            engine.evaluate({"a": [(i,) for i in range(1000)]})
    finally:
        gc.callbacks.remove(slow_callback)
    assert [type(u.exc_value).__name__ for u in lost] == []


def test_a_limit_error_a_finalizer_swallows_is_kept_for_the_next_check(monkeypatch):
    """A tick can land in a finalizer (a generator closed as it is freed), whose exception
    Python prints as "Exception ignored" and drops. While a watchdog is armed such a limit
    error goes nowhere (the watchdog raises it again at its next check); any other
    exception still reaches the hook installed before."""
    from analyzer.engine.limits import Watchdog

    class Raises:
        def __init__(self, exc):
            self.exc = exc

        def __del__(self):
            raise self.exc

    lost = []
    monkeypatch.setattr(sys, "unraisablehook", lost.append)
    dog = Watchdog(Limits(timeout_s=60))
    with dog.watching():
        limit = dog.error("limit timeout=60s exceeded")
        Raises(limit)  # freed at once: its __del__ raises into the unraisable hook
        Raises(ValueError("not ours"))
        with pytest.raises(EvaluationLimitError, match="timeout=60s"):
            dog.check()  # the remembered error, raised where it can propagate
    assert [type(u.exc_value).__name__ for u in lost] == ["ValueError"]
    assert sys.unraisablehook == lost.append  # restored when the watchdog is disarmed
