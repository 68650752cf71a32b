"""Fixtures for read tests: a private copy of the bundled example and a CLI runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

import inprocess

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def acme(tmp_path) -> Path:
    """A copy of examples/acme-shop that tests may change."""
    root = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", root)
    return root


@pytest.fixture
def analyze(tmp_path):
    """Run ``analyze ARGS`` with a private cache; returns the CompletedProcess. In this process
    (tests/inprocess.py) unless the test asks for a ``process`` of its own or a hash ``seed``
    (which Python reads when a process starts)."""

    def run(*args: str, seed: Optional[str] = None, cache: str = "cache", process: bool = False):
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(XDG_CACHE_HOME=str(tmp_path / cache), XDG_STATE_HOME=str(tmp_path / "state"))
        if seed is None and not process:
            return inprocess.run(args, env=env)
        env.update(PYTHONHASHSEED=seed or "0", PYTHONPATH=str(REPO))
        return subprocess.run([sys.executable, "-m", "analyzer", *args], capture_output=True, text=True,
                              env=env, timeout=300)

    return run
