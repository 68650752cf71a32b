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
