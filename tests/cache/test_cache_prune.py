"""The cache stays bounded (analyzer/core/cache_prune.py): least recently used entries go past
the limit, nothing outside the areas' entries is touched, a pass runs at most once per
interval, and a console run that wrote to the cache prunes it without changing its output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer.core import cache, cache_prune

REPO = Path(__file__).resolve().parents[2]
MiB = 1 << 20


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache._forget()
    yield cache.cache_root()
    cache._forget()


def _entry(area: cache.Area, key: str, size: int, age: float, now: float) -> Path:
    assert area.put(key, b"x" * size)
    path = area.path(key)
    os.utime(path, (now - age, now - age))
    return path


def test_least_recently_used_go_first_until_a_quarter_is_free(root):
    now = 1_900_000_000.0
    facts, strata = cache.Area("facts", ".marshal", fanout=True), cache.Area("strata", ".marshal")
    # ten entries of 1 MiB, the oldest first: key k0 is 10 hours old, k9 one hour
    paths = [_entry(facts if i % 2 else strata, f"{i:02d}" + "ab" * 31, MiB, (10 - i) * 3600, now)
             for i in range(10)]
    removed = cache_prune.prune(root, 8 * MiB + 4096, now=now, force=True)  # entries carry a 42-byte header
    # over 8 MiB: removed oldest first until at most 6 MiB (three quarters) remain
    assert removed == paths[:4]
    assert [p.exists() for p in paths] == [False] * 4 + [True] * 6


def test_under_the_limit_nothing_goes(root):
    now = 1_900_000_000.0
    area = cache.Area("facts", ".marshal", fanout=True)
    paths = [_entry(area, f"{i:02d}" + "cd" * 31, MiB, i * 60, now) for i in range(3)]
    assert cache_prune.prune(root, 3 * MiB + 4096, now=now, force=True) == []
    assert all(p.exists() for p in paths)


def test_reading_an_entry_makes_it_recent(root):
    now = time.time()  # a read sets the real time
    area = cache.Area("strata", ".marshal")
    old = _entry(area, "ab" * 32, MiB, 7200, now)
    new = _entry(area, "cd" * 32, MiB, 60, now)
    assert area.get("ab" * 32) == b"x" * MiB  # a hit: now the most recently used
    removed = cache_prune.prune(root, MiB + MiB // 2, now=os.stat(old).st_mtime + 1, force=True)
    assert removed == [new] and old.exists()


def test_only_entries_of_the_areas_are_touched(root, tmp_path):
    now = 1_900_000_000.0
    area = cache.Area("facts", ".marshal", fanout=True)
    entry = _entry(area, "ef" * 32, 2 * MiB, 7200, now)
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"y" * MiB)
    os.utime(outside, (now - 99999, now - 99999))
    stray = root / "notes.txt"  # in the cache root, but no area's entry
    stray.write_bytes(b"z" * MiB)
    os.utime(stray, (now - 99999, now - 99999))
    os.symlink(outside, root / "facts" / "ee")  # a link where a fan-out directory would be
    os.symlink(tmp_path, root / "history")  # an area that is a symlink is never followed
    young_tmp = root / "facts" / ".young.tmp"
    young_tmp.write_bytes(b"t")
    os.utime(young_tmp, (now - 60, now - 60))  # a write under way
    stale_tmp = root / "facts" / ".stale.tmp"
    stale_tmp.write_bytes(b"t")
    os.utime(stale_tmp, (now - 2 * cache_prune.STALE_TMP, now - 2 * cache_prune.STALE_TMP))
    removed = cache_prune.prune(root, MiB, now=now, force=True)
    assert set(removed) == {entry, stale_tmp}
    assert outside.exists() and stray.exists() and young_tmp.exists()


def test_a_pass_runs_at_most_once_per_interval(root):
    now = 1_900_000_000.0
    area = cache.Area("facts", ".marshal", fanout=True)
    _entry(area, "aa" * 32, 2 * MiB, 100, now)
    assert cache_prune.prune(root, 10 * MiB, now=now) == []  # due: stamps, nothing to remove
    _entry(area, "bb" * 32, 20 * MiB, 50, now)
    assert cache_prune.prune(root, 10 * MiB, now=now + 60) == []  # not due yet
    assert len(cache_prune.prune(root, 10 * MiB, now=now + cache_prune.INTERVAL + 1)) == 2


def test_the_limit_comes_from_the_environment(monkeypatch, capsys):
    monkeypatch.delenv(cache_prune.ENV, raising=False)
    assert cache_prune.limit_bytes() == cache_prune.DEFAULT_MAX_MB * MiB
    monkeypatch.setenv(cache_prune.ENV, "5")
    assert cache_prune.limit_bytes() == 5 * MiB
    cache._WARNED.pop(cache_prune.ENV, None)
    monkeypatch.setenv(cache_prune.ENV, "lots")
    assert cache_prune.limit_bytes() == cache_prune.DEFAULT_MAX_MB * MiB
    assert "MEMORY_ANALYZER_CACHE_MAX_MB='lots' is not a positive number" in capsys.readouterr().err


def test_every_area_of_the_source_is_pruned():
    names = set()
    for path in (REPO / "analyzer").rglob("*.py"):
        names.update(re.findall(r'\bArea\("([a-z]+)"', path.read_text(encoding="utf-8")))
    assert names and names == set(cache_prune._AREAS)


def test_a_console_run_that_writes_prunes(tmp_path):
    xdg = tmp_path / "xdg"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(REPO))
    env.pop(cache_prune.ENV, None)
    acme = str(REPO / "examples" / "acme-shop")
    read = [sys.executable, "-m", "analyzer", "read", "--project-root", acme, "--task", "implementation"]
    first = subprocess.run(read, capture_output=True, text=True, env=env, timeout=300)
    stamp = xdg / "memory-analyzer" / cache_prune.STAMP
    assert stamp.is_file()  # the run wrote entries, and a first pass ran (nothing to remove)
    old = 1_000_000_000
    os.utime(stamp, (old, old))  # the last pass long ago
    filler = xdg / "memory-analyzer" / "facts" / "ff" / ("ff" * 32 + ".marshal")
    filler.parent.mkdir(mode=0o700, exist_ok=True)
    filler.write_bytes(b"f" * (2 << 20))  # an entry long unused, over a 1 MiB limit
    os.utime(filler, (old, old))
    env[cache_prune.ENV] = "1"
    check = [sys.executable, "-m", "analyzer", "check", "--conflicts", "--project-root", acme]
    second = subprocess.run(check, capture_output=True, text=True, env=env, timeout=300)  # stores its result
    assert not filler.exists()
    assert "Traceback" not in second.stderr and second.stdout
    again = subprocess.run(read, capture_output=True, text=True, env=env, timeout=300)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
