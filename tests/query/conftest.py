"""The query tests' CLI runner (a private cache and hash seed): the read tests' fixture."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("read_fixtures", Path(__file__).resolve().parents[1] / "read" / "conftest.py")
_read = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_read)

analyze = _read.analyze
