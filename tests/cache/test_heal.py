"""End to end: a damaged facts, program or grammar cache changes neither output nor exit
status; it costs one warning line and is healed for the next run (issue 14, item 3)."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.core.cache import MAGIC

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
COMMANDS = {
    "facts": ["facts", "--project-root", str(EXAMPLE)],
    "read": ["read", "--project-root", str(EXAMPLE), "--task", "implementation", "--no-local", "--format", "json"],
}


def _run(argv, xdg):
    # the caches under test, not the compiled programs a checkout or wheel ships beside them
    env = dict(os.environ, XDG_CACHE_HOME=str(xdg), PYTHONHASHSEED="0", MEMORY_ANALYZER_IGNORE_SHIPPED="1")
    done = subprocess.run([sys.executable, "-m", "analyzer", *argv], env=env, capture_output=True, text=True,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


def _entries(xdg, area):
    return sorted(p for p in (xdg / "memory-analyzer" / area).rglob("*") if p.is_file())


def _forge(path: Path, payload: bytes) -> None:
    """Rewrite an entry with a valid digest over a payload of our choosing."""
    key = path.name.split(".")[0]
    path.write_bytes(MAGIC + hashlib.sha256(key.encode() + b"\0" + payload).digest() + payload)


DAMAGE = {
    "truncate": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "flip": lambda p: p.write_bytes(bytes(b ^ (0x10 if i == len(MAGIC) + 40 else 0)
                                          for i, b in enumerate(p.read_bytes()))),
    "empty": lambda p: p.write_bytes(b""),
    "raw-pickle": lambda p: p.write_bytes(pickle.dumps({"not": "ours"})),
    "wrong-shape": lambda p: _forge(p, pickle.dumps({"not": "ours"})),
    "wrong-shape-marshal": lambda p: _forge(p, __import__("marshal").dumps(("x", [1], [], [], 0, ()))),
    "fifo": lambda p: (p.unlink(), os.mkfifo(p)),
    "directory": lambda p: (p.unlink(), p.mkdir(), (p / "x").write_text("x")),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Per command, one first run on an empty cache directory: its output is the baseline
    every test compares with, and the cache it filled is the one each test damages a copy
    of (a second first run per command to fill one, as before, compiled the rules again)."""
    done = {}
    for name, argv in COMMANDS.items():
        xdg = tmp_path_factory.mktemp(f"filled-{name}")
        done[name] = _run(argv, xdg), xdg
    return done


@pytest.fixture(scope="module")
def baseline(runs):
    """Per command, (exit status, stdout, stderr) of its first run."""
    return {name: result for name, (result, _) in runs.items()}


@pytest.fixture(scope="module")
def filled(runs):
    """Per command, the cache directory its first run filled."""
    return {name: xdg for name, (_, xdg) in runs.items()}


@pytest.mark.parametrize("area", ["facts", "programs", "lark"])
@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_damaged_entries_heal(tmp_path, baseline, filled, area, damage, command):
    xdg = tmp_path / "xdg"
    argv = COMMANDS[command]
    shutil.copytree(filled[command], xdg, dirs_exist_ok=True)  # the autouse fixture made it
    entries = _entries(xdg, area)
    if not entries:
        pytest.skip(f"{command} keeps nothing in the {area} cache")
    for path in entries:
        DAMAGE[damage](path)
    if area == "lark":  # grammar tables are read only when something must be parsed again
        for other in ("facts", "programs"):
            shutil.rmtree(xdg / "memory-analyzer" / other)
    code, out, err = _run(argv, xdg)
    assert (code, out) == baseline[command][:2]
    warnings = [line for line in err.splitlines() if line.startswith("analyze: warning:")]
    assert len(warnings) == 1 and f"discarded {area} cache entry" in warnings[0], err
    assert "internal error" not in err
    assert _run(argv, xdg) == baseline[command]  # healed: no warning on the next run


def test_cache_others_can_write_is_not_used(tmp_path, baseline):
    xdg = tmp_path / "xdg"
    (xdg / "memory-analyzer").mkdir(parents=True)
    os.chmod(xdg / "memory-analyzer", 0o777)
    code, out, err = _run(COMMANDS["read"], xdg)
    assert (code, out) == baseline["read"][:2]
    assert "other users can write to it" in err and err.count("analyze: warning:") == 1
    assert os.listdir(xdg / "memory-analyzer") == []


def test_unwritable_cache_runs_uncached(tmp_path, baseline):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for command in COMMANDS:
        code, out, err = _run(COMMANDS[command], blocker)
        assert (code, out) == baseline[command][:2]
        warnings = [line for line in err.splitlines() if line.startswith("analyze: warning:")]
        assert len(warnings) == 1 and "running without the cache" in warnings[0], err  # one line per run
