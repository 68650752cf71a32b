"""``--no-cache`` leaves the cache directory as it found it: no compiled program, no Lark
table, no prune stamp (analyzer/core/cache.turned_off, entered by the CLI before its parser
is built, since some options' choices are read from a compiled rule program)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.core import cache

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"

pytestmark = pytest.mark.cli


def _run(args, xdg: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(REPO),
               # the programs and tables a checkout ships would hide what a run compiles
               MEMORY_ANALYZER_IGNORE_SHIPPED="1")
    return subprocess.run([sys.executable, "-m", "analyzer", *args], env=env, capture_output=True,
                          text=True, cwd=REPO, timeout=300)


@pytest.mark.parametrize("args", [
    ["check", "--all"],
    ["read", "--task", "implementation", "--path", "web/src/cart.ts"],
    ["query", "live_entry(I, T)"],
])
def test_a_no_cache_run_writes_no_cache_file(tmp_path, args):
    xdg = tmp_path / "cli-xdg"
    xdg.mkdir(mode=0o700)
    done = _run([*args, "--no-cache", "--project-root", str(EXAMPLE)], xdg)
    assert done.returncode in (0, 1, 2) and done.stdout, done.stderr  # the example holds INVALID memory on purpose
    assert sorted(p.relative_to(xdg).as_posix() for p in xdg.rglob("*")) == []
    # the same run with the cache on stores its compiled programs: the check above can fail
    done = _run([*args, "--project-root", str(EXAMPLE)], xdg)
    assert done.returncode in (0, 1, 2) and done.stdout, done.stderr  # the example holds INVALID memory on purpose
    assert list((xdg / "memory-analyzer" / "programs").iterdir())


def test_an_area_turned_off_reads_and_writes_nothing(tmp_path):
    area = cache.Area("off-test", ".bin")
    assert area.put("k", b"payload") and area.get("k") == b"payload"
    with cache.turned_off():
        assert area.get("k") is None and not area.has("k") and area.directory() is None
        assert area.put("k2", b"x") is False
    assert area.get("k") == b"payload" and not area.has("k2")


def test_the_switch_ends_with_the_command(capsys):
    # a library caller (or a test) runs a --no-cache command, then a cached one
    from analyzer.commands.cli import main

    assert main(["check", "--no-cache", "--project-root", str(EXAMPLE)]) in (0, 1)
    assert not cache.caches_off()


def test_the_vocabulary_store_honours_the_switch(tmp_path, monkeypatch):
    # the library path, not the CLI: the vocabularies read (and their store entry written,
    # analyzer/project/vocab.py) under the switch a library caller enters itself
    from analyzer.core.resources import IGNORE_SHIPPED_ENV
    from analyzer.project import vocab

    xdg = tmp_path / "lib-xdg"
    xdg.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    monkeypatch.setenv(IGNORE_SHIPPED_ENV, "1")  # a shipped program is read, not stored
    monkeypatch.setattr(vocab, "_program", vocab._program.__wrapped__)  # no value of this process
    cache._forget()
    try:
        with cache.turned_off():
            assert vocab._program()["status_rank"]
        assert sorted(p.relative_to(xdg).as_posix() for p in xdg.rglob("*")) == []
        vocab._program()  # the same read with the switch off stores the entry: the check above can fail
        assert list((xdg / "memory-analyzer" / "programs").iterdir())
    finally:
        cache._forget()  # the directories memoized for this XDG_CACHE_HOME
