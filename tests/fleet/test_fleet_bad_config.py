"""A repository of the fleet whose configuration file cannot be used: `analyze fleet check`
refuses with the file's path:line:col and its MA-CONFIG code, exit 2, with and without
worker processes. Before, the worker's ConfigError could not be unpickled in the main
process: the pool's result thread died and `fleet check --jobs 2` waited forever (with
--jobs 1 an internal error)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

from analyzer.commands.fleet_check import WorkerError, carried
from analyzer.project.config import ConfigError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_repository_with_an_unusable_configuration_is_refused_not_waited_on(tmp_path, jobs):
    good, bad = tmp_path / "good", tmp_path / "bad"
    shutil.copytree(EXAMPLE, good)
    shutil.copytree(EXAMPLE, bad)
    (bad / ".memory-analyzer.toml").write_text("agents = 5\n", encoding="utf-8")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "analyzer", "fleet", "check", "good", "bad", "--jobs", jobs,
                           "--format", "json"], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.strip() == ("analyze fleet: error: bad/.memory-analyzer.toml:1:1: MA-CONFIG-VALUE "
                                   "agents must be a list of strings")


class _TwoArguments(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code} {message}")


def _raise(exc):
    raise exc


def test_an_error_that_cannot_travel_comes_back_as_a_worker_error():
    with pytest.raises(WorkerError, match="_TwoArguments: X1 broken"):
        carried(_raise, _TwoArguments("X1", "broken"))
    with pytest.raises(ValueError, match="plain"):  # one that travels stays itself
        carried(_raise, ValueError("plain"))
    assert carried(len, "abc") == 3


def test_a_configuration_error_pickles_whole():
    exc = pickle.loads(pickle.dumps(ConfigError("MA-CONFIG-VALUE", "why", "a/b.toml", 3, 4)))
    assert (exc.code, exc.message, exc.path, exc.line, exc.col, str(exc)) == \
        ("MA-CONFIG-VALUE", "why", "a/b.toml", 3, 4, "a/b.toml:3:4: MA-CONFIG-VALUE why")
