"""The verified store: damaged, misplaced or hostile entries are never decoded and heal."""

from __future__ import annotations

import os
import signal
import stat

import pytest

from analyzer.core import cache
from analyzer.core.cache import MAGIC, Area

AREA = Area("testarea", ".bin", fanout=True)
KEY = "ab" + "0" * 62
PAYLOAD = b"payload bytes \x00\xff" * 10


def _entry():
    assert AREA.put(KEY, PAYLOAD)
    return AREA.path(KEY)


@pytest.fixture
def alarm():
    """Fail instead of hanging forever (a FIFO read would block)."""
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("blocked"))
    signal.alarm(10)
    yield
    signal.alarm(0)


def test_round_trip_and_private_directories():
    path = _entry()
    assert AREA.get(KEY) == PAYLOAD
    assert AREA.has(KEY)
    for directory in (path.parent, path.parent.parent, cache.cache_root()):
        assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700
    assert path.read_bytes().startswith(MAGIC)


def _damaged(capsys, path):
    assert AREA.get(KEY) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("analyze: warning: discarded testarea cache entry")
    assert not os.path.lexists(path)  # discarded
    assert AREA.put(KEY, PAYLOAD) and AREA.get(KEY) == PAYLOAD  # and replaced
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]


@pytest.mark.parametrize("cut", [0, 3, len(MAGIC), len(MAGIC) + 31, len(MAGIC) + 32, -1])
def test_truncated_entry(capsys, cut):
    path = _entry()
    path.write_bytes(path.read_bytes()[:cut])
    _damaged(capsys, path)


@pytest.mark.parametrize("where", [0, len(MAGIC), len(MAGIC) + 31, len(MAGIC) + 32, -1])
def test_flipped_bit(capsys, where):
    path = _entry()
    data = bytearray(path.read_bytes())
    data[where] ^= 0x04
    path.write_bytes(bytes(data))
    _damaged(capsys, path)


def test_entry_of_another_key_does_not_verify(capsys):
    path = _entry()
    other = "ab" + "1" * 62
    os.replace(path, AREA.path(other))
    assert AREA.get(other) is None
    assert "discarded" in capsys.readouterr().err


def test_fifo_never_blocks(capsys, alarm):
    path = AREA.path(KEY)
    os.mkfifo(path)
    assert not AREA.has(KEY)
    _damaged(capsys, path)


def test_directory_in_place_of_an_entry(capsys):
    path = AREA.path(KEY)
    (path / "inside").mkdir(parents=True)
    _damaged(capsys, path)


def test_symlink_is_not_followed(capsys, tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"x")
    path = AREA.path(KEY)
    os.symlink(target, path)
    assert AREA.get(KEY) is None
    assert target.read_bytes() == b"x"
    assert "discarded" in capsys.readouterr().err


def test_oversized_entry_is_not_read(capsys, monkeypatch):
    _entry()
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 16)
    assert AREA.get(KEY) is None
    assert "larger than" in capsys.readouterr().err


def test_directory_others_can_write_is_not_used(capsys):
    root = cache.cache_root()
    root.mkdir(mode=0o700)
    os.chmod(root, 0o777)
    assert AREA.put(KEY, PAYLOAD) is False
    assert AREA.get(KEY) is None and not AREA.has(KEY)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other users can write to it" in err and "running without" in err
    assert os.listdir(root) == []


def test_symlinked_cache_directory_is_not_used(capsys, tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    os.symlink(real, cache.cache_root())
    assert AREA.put(KEY, PAYLOAD) is False
    assert "not a directory" in capsys.readouterr().err
    assert os.listdir(real) == []


def test_unwritable_cache_location_runs_without(capsys, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert AREA.put(KEY, PAYLOAD) is False
    assert AREA.get(KEY) is None
    assert "running without the cache" in capsys.readouterr().err


def test_one_warning_per_area_and_process(capsys):
    for n in range(3):
        key = f"{n:02d}" + "0" * 62
        path = AREA.path(key)
        path.write_bytes(b"junk")
        assert AREA.get(key) is None
    assert capsys.readouterr().err.count("\n") == 1


def test_removed_directory_is_recreated():
    _entry()
    import shutil

    shutil.rmtree(cache.cache_root())
    assert AREA.put(KEY, PAYLOAD) and AREA.get(KEY) == PAYLOAD


def test_entry_paths_follow_the_cache_home(tmp_path, monkeypatch):
    """The entry path kept per process (a string, not pathlib) is the one ``path`` gives,
    and follows a change of ``$XDG_CACHE_HOME`` within the process."""
    for area in (Area("flat", ".bin"), Area("fanned", ".bin", fanout=True)):
        key = "ab" + "0" * 62
        assert area._file(key) == str(area.path(key))
        assert area.put(key, b"one")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
        assert area._file(key).startswith(str(tmp_path / "elsewhere"))
        assert area.get(key) is None
        monkeypatch.undo()


def test_a_taken_temporary_name_falls_back(monkeypatch):
    """A temporary name already taken (left by a process that had this id) is not reused:
    the entry is written through another name, and the stray file is left alone."""
    import itertools

    area = Area("tmpnames", ".bin", fanout=True)
    key = "cd" + "1" * 62
    path = area._file(key)
    folder, name = os.path.split(path)
    stray = os.path.join(folder, f".{name}.{os.getpid()}-7.tmp")
    with open(stray, "wb") as handle:
        handle.write(b"left behind")
    monkeypatch.setattr(cache, "_WRITES", itertools.count(7))
    assert area.put(key, b"payload")
    assert area.get(key) == b"payload"
    with open(stray, "rb") as handle:
        assert handle.read() == b"left behind"
    assert [n for n in os.listdir(folder) if n.endswith(".tmp")] == [os.path.basename(stray)]
