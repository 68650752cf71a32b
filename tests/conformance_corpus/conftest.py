"""Make the corpus builders importable by their plain names (pytest runs with --import-mode=importlib)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "corpus"))
