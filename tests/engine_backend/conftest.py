"""Helpers for the engine back-end tests: evaluate program text in one call."""

import pytest

from analyzer.engine.check import load_program
from analyzer.engine.evaluate import Engine


def run_program(text, facts=None, **kwargs):
    """Parse + check ``text``, evaluate over ``facts``; returns the Database."""
    limits = kwargs.pop("limits", None)
    builtins = kwargs.pop("builtins", None)
    engine = Engine(load_program(text=text, name="t.dl"), limits=limits, builtins=builtins)
    return engine.evaluate(facts or {}, **kwargs)


@pytest.fixture
def evaluate():
    """The :func:`run_program` helper as a fixture."""
    return run_program
