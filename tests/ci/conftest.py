"""Make cihelp (and the corpus's project builder) importable by plain name (pytest runs with
--import-mode=importlib)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "corpus"))
