"""Make helpers.py importable by its plain name and offer its fixtures to this folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import acme, cli  # noqa: E402,F401  (fixtures)
