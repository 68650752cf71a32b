"""The read tests' fixtures (a private copy of the bundled example, a CLI runner with a
private cache and a chosen hash seed), shared rather than copied."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("read_fixtures", Path(__file__).resolve().parents[1] / "read" / "conftest.py")
_read = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_read)

acme = _read.acme
analyze = _read.analyze
