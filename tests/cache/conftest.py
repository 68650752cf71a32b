"""Every cache test gets its own cache root and a fresh per-process cache state."""

import pytest

from analyzer.core import cache


@pytest.fixture(autouse=True)
def _fresh_cache(tmp_path, monkeypatch):
    root = tmp_path / "xdg"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    cache._forget()
    cache._WARNED.clear()
    yield
    cache._forget()
    cache._WARNED.clear()
