"""Fixtures for read tests: a private copy of the bundled example and a CLI runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def acme(tmp_path) -> Path:
    """A copy of examples/acme-shop that tests may change."""
    root = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    return root


@pytest.fixture
def analyze(tmp_path):
    """Run ``python -m analyzer ARGS`` with a private cache; returns the CompletedProcess."""

    def run(*args: str, seed: str = "0", cache: str = "cache"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(PYTHONHASHSEED=seed, XDG_CACHE_HOME=str(tmp_path / cache), XDG_STATE_HOME=str(tmp_path / "state"),
                   PYTHONPATH=str(REPO))
        return subprocess.run([sys.executable, "-m", "analyzer", *args], capture_output=True, text=True,
                              env=env, timeout=300)

    return run
