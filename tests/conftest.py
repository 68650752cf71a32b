"""Options shared by every test suite, and a private cache directory for the whole run."""

import os
import shutil
import tempfile


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
