"""Options shared by every test suite, and a private cache directory for the whole run."""

import os
import shutil
import tempfile

import pytest


def pytest_addoption(parser):
    """``--update-golden`` rewrites golden files from current behaviour (review the diff!)."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*/*/{stdout,exit} from the current output")


def pytest_configure(config):
    """Point $XDG_CACHE_HOME at a fresh directory for this run (inherited by the CLI
    subprocesses tests start), so tests never read or fill the developer's own caches."""
    if not os.environ.get("MEMORY_ANALYZER_TEST_KEEP_CACHE"):
        config._private_cache = tempfile.mkdtemp(prefix="memory-analyzer-test-cache-")
        os.environ["XDG_CACHE_HOME"] = config._private_cache


def pytest_unconfigure(config):
    """Remove the run's private cache directory."""
    private = getattr(config, "_private_cache", None)
    if private:
        shutil.rmtree(private, ignore_errors=True)


@pytest.fixture
def refuse_open(monkeypatch):
    """``refuse_open(path)``: from now on ``os.open`` of ``path`` raises PermissionError, as
    for a mode-000 file (simulated in process: a root test runner could read the real one)."""

    def install(path) -> None:
        target = os.fspath(path)
        real_open = os.open

        def refusing_open(name, flags, *args, **kwargs):
            if os.fspath(name) == target:
                raise PermissionError(13, "Permission denied")
            return real_open(name, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)

    return install
