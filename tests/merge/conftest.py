"""Make the scenario and corpus helpers (Git history, corpus projects) importable by name."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for folder in ("scenarios", "corpus"):
    sys.path.insert(0, str(TESTS / folder))
