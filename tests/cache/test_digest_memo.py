"""The digests of our own files kept between runs (analyzer/core/digest_memo.py): used only
while every file read and directory listed has the status it had, so any change to a rule
file is seen, an edit that keeps the size and sets the modification time back included."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from analyzer.core import digest_memo, fingerprint
from analyzer.core.resources import data_dir


@pytest.fixture
def settled_now(monkeypatch):
    """Files count as settled at once (the test cannot wait 2 s per write); the ctime of every
    rewrite below is made to differ from the one recorded before it."""
    monkeypatch.setattr(digest_memo, "SETTLED_NS", 0)


@pytest.fixture
def rule_set(tmp_path):
    """A copy of the shipped grammar/, facts/ and rules/ and the locate function finding it."""
    root = tmp_path / "data"
    for kind in fingerprint.SHIPPED:
        shutil.copytree(data_dir(kind), root / kind)
    return root, lambda kind: root / kind


def _memo(root: Path, locate, calls=None):
    def compute():
        if calls is not None:
            calls.append(1)
        return fingerprint._compute(locate)

    return digest_memo.memoized("ruleset", [str(root)], compute)


def _rewrite_keeping_size_and_mtime(path: Path, text: str) -> None:
    """Write ``text`` (the same length as the content) over ``path`` and set its access and
    modification times back; wait for the clock tick to pass first, so the change time moves."""
    before = os.stat(path)
    deadline = time.monotonic() + 5
    while True:
        time.sleep(0.02)
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns or time.monotonic() > deadline:
            break
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns, "the file system keeps no change time"


def test_the_memo_gives_the_fingerprint_and_is_used(settled_now, rule_set):
    root, locate = rule_set
    calls = []
    assert _memo(root, locate, calls) == fingerprint.compute(locate)
    assert _memo(root, locate, calls) == fingerprint.compute(locate)
    assert len(calls) == 1  # the second run read the memo


def test_an_edit_keeping_size_and_mtime_is_seen(settled_now, rule_set):
    root, locate = rule_set
    before = _memo(root, locate)
    rule = root / "rules" / "entries" / sorted(p.name for p in (root / "rules" / "entries").glob("*.dl"))[0]
    text = rule.read_text(encoding="utf-8")
    edited = text[:-2] + ("x" if text[-2] != "x" else "y") + text[-1]
    _rewrite_keeping_size_and_mtime(rule, edited)
    after = _memo(root, locate)
    assert after != before
    assert after == fingerprint.compute(locate)


@pytest.mark.parametrize("change", ["add", "remove", "add-folder", "fill-empty-folder"])
def test_a_file_added_or_removed_is_seen(settled_now, rule_set, change):
    root, locate = rule_set
    (root / "rules" / "empty").mkdir()  # a folder the fingerprint lists but reads no file of
    before = _memo(root, locate)
    time.sleep(0.02)  # past the directory's clock tick
    if change == "add":
        (root / "rules" / "entries" / "zz_new.dl").write_text("% new\n", encoding="utf-8")
    elif change == "remove":
        next((root / "rules" / "entries").glob("*.dl")).unlink()
    elif change == "fill-empty-folder":
        (root / "rules" / "empty" / "new.dl").write_text("% new\n", encoding="utf-8")
    else:
        (root / "rules" / "zz_new").mkdir()
        (root / "rules" / "zz_new" / "new.dl").write_text("% new\n", encoding="utf-8")
    after = _memo(root, locate)
    assert after != before
    assert after == fingerprint.compute(locate)


def test_a_recently_changed_file_is_not_memoized(rule_set):
    """Within the settling time a rewrite could keep every time as recorded: no entry then."""
    root, locate = rule_set  # just copied: every file is new
    calls = []
    _memo(root, locate, calls)
    _memo(root, locate, calls)
    assert len(calls) == 2
    assert not list(digest_memo.DIGESTS.directory().iterdir())


def test_no_cache_reads_and_writes_no_memo(settled_now, rule_set):
    from analyzer.core import cache

    root, locate = rule_set
    calls = []
    with cache.turned_off():
        _memo(root, locate, calls)
        _memo(root, locate, calls)
    assert len(calls) == 2
    assert not (cache.cache_root() / "digests").exists()


def test_a_damaged_entry_is_recomputed(settled_now, rule_set):
    root, locate = rule_set
    expected = _memo(root, locate)
    (entry,) = digest_memo.DIGESTS.directory().iterdir()
    entry.write_bytes(entry.read_bytes()[:-3] + b"zzz")
    calls = []
    assert _memo(root, locate, calls) == expected
    assert calls == [1]


def test_the_process_digests_match_their_computation(settled_now):
    """The three digests the analyzer memoizes are those the files give (memo written, then
    read: settled at once, as a fresh checkout's files are younger than SETTLED_NS)."""
    from analyzer.engine import keys as program_cache
    from analyzer.project import facts_cache

    for memoized, computed in ((fingerprint.ruleset_fingerprint, fingerprint.compute),
                               (program_cache.engine_digest, lambda: program_cache._engine_digest(
                                   os.path.dirname(os.path.realpath(program_cache.__file__)),
                                   str(program_cache.data_file("grammar", "datalog.lark")))[0]),
                               (facts_cache.extractor_version, lambda: facts_cache._extractor_version(
                                   os.path.dirname(os.path.dirname(os.path.realpath(facts_cache.__file__))))[0])):
        for _ in range(2):
            memoized.cache_clear()
            assert memoized() == computed()
        memoized.cache_clear()


def test_the_code_that_computes_a_digest_is_covered(settled_now, rule_set, monkeypatch):
    """A change to the memo's own logic or to the fingerprint's (what it hashes, how) is a
    change of the entry's inputs: a checkout changing only analyzer/core/fingerprint.py must
    not keep the old fingerprint."""
    root, locate = rule_set
    calls = []
    _memo(root, locate, calls)
    _memo(root, locate, calls)
    assert calls == [1]
    for code in (os.path.realpath(fingerprint.__file__), digest_memo._SELF):
        real = digest_memo.status
        monkeypatch.setattr(digest_memo, "status",
                            lambda path, real=real, code=code: (0, 1, 0, 0, 0) if path == code else real(path))
        _memo(root, locate, calls)
        monkeypatch.setattr(digest_memo, "status", real)
        _memo(root, locate, calls)  # the entry stored with the changed status no longer matches
    assert calls == [1, 1, 1, 1, 1]


def test_on_windows_the_memo_is_neither_read_nor_written(settled_now, rule_set, monkeypatch):
    """Windows's st_ctime is the creation time (Python < 3.12): an edit restoring the mtime
    would keep every recorded time, so there the digest is computed on every run, and an
    entry another platform stored beside it is not read either."""
    root, locate = rule_set
    calls = []
    _memo(root, locate, calls)  # stored here (POSIX)
    monkeypatch.setattr(digest_memo, "PLATFORM", "nt")
    assert _memo(root, locate, calls) == fingerprint.compute(locate)
    _memo(root, locate, calls)
    assert calls == [1, 1, 1]
    entries = list(digest_memo.DIGESTS.directory().iterdir())
    assert len(entries) == 1  # the POSIX run's, not rewritten
    monkeypatch.setattr(digest_memo, "PLATFORM", "posix")
    _memo(root, locate, calls)
    assert calls == [1, 1, 1]  # read again where the status vouches


def test_a_path_without_an_inode_is_never_memoized(settled_now, rule_set, monkeypatch):
    """A file system that gives no file identity (inode 0: some FAT, exFAT or network mounts)
    keeps no change time to trust either: an entry covering such a path is not stored."""
    root, locate = rule_set
    rule = str(next((root / "rules" / "entries").glob("*.dl")))
    real = digest_memo.status

    def without_inode(path):
        known = real(path)
        return known if known is None or path != rule else (known[0], 0, *known[2:])

    monkeypatch.setattr(digest_memo, "status", without_inode)
    calls = []
    _memo(root, locate, calls)
    _memo(root, locate, calls)
    assert calls == [1, 1]
    assert not list(digest_memo.DIGESTS.directory().iterdir())
