"""Keeping the cache bounded: least recently used entries are removed past a size limit.

Every area of the cache (analyzer/core/cache.py) adds entries and none removed them: each edit
of a memory file adds a facts entry, each state of a project a materialized-strata entry
(about 1.4 MB for a 10,000-entry project), each check a result, each commit a history
entry. Left alone, a cache used for months grows without end. So, after a run that wrote
to the cache, at most once per :data:`INTERVAL` (a stamp file's time says when the last
pass ran), the console script sums the sizes of every area's entries and, when they exceed
the limit, removes the least recently used ones until a quarter of the limit is free.

*Least recently used*: :meth:`analyzer.core.cache.Area.get` sets an entry's modification time
when it reads it, so the time says when an entry was last written or read.
*The limit*: ``MEMORY_ANALYZER_CACHE_MAX_MB`` (MiB, a positive integer), default
:data:`DEFAULT_MAX_MB`; any other value is reported once on stderr and the default used.
*Safety*: only regular files directly in an area's directory or in its two-character
fan-out subdirectories are removed; symlinks and anything else are never followed or
touched, and a temporary file of an unfinished write is removed only when it is an hour
old. A concurrent run that finds an entry gone computes it again (a miss is always
correct), and an error while pruning only ends the pass: it never changes a command's
output or exit status.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import List, Optional, Tuple

DEFAULT_MAX_MB = 1024
INTERVAL = 3600.0  # seconds between two passes over the cache
STALE_TMP = 3600.0  # age after which a temporary file of an unfinished write is removed
ENV = "MEMORY_ANALYZER_CACHE_MAX_MB"
STAMP = "prune-stamp"
_AREAS = ("facts", "strata", "results", "programs", "lark", "history", "units", "parts", "digests")

_wrote = False  # set by analyzer.core.cache.Area.put: this process stored an entry


def note_write() -> None:
    """Record that this process stored a cache entry (a pass may then be due at exit)."""
    global _wrote
    _wrote = True


def limit_bytes() -> int:
    """The cache's size limit in bytes (``MEMORY_ANALYZER_CACHE_MAX_MB``, else the default)."""
    from analyzer.core.cache import warn_once

    raw = os.environ.get(ENV)
    if raw is None or raw == "":
        return DEFAULT_MAX_MB << 20
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        warn_once(ENV, f"{ENV}={raw!r} is not a positive number of MiB; using {DEFAULT_MAX_MB}")
        return DEFAULT_MAX_MB << 20
    return value << 20


def after_run(now: Optional[float] = None) -> None:
    """At the end of a console run: prune the cache if this run wrote to it and the last
    pass is older than :data:`INTERVAL`. Never raises."""
    if not _wrote:
        return
    from analyzer.core.cache import cache_root

    try:
        prune(cache_root(), limit_bytes(), now=now)
    except Exception:  # noqa: BLE001 - pruning is housekeeping: a command's result stands
        pass


def prune(root: Path, limit: int, now: Optional[float] = None, force: bool = False) -> List[Path]:
    """One pass over the cache at ``root`` (when due, or ``force``): the removed files."""
    now = time.time() if now is None else now
    if not force and not _due(root, now):
        return []
    entries, stale = _entries(root, now)
    removed = []
    for path in stale:
        if _remove(path):
            removed.append(path)
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return removed
    target = limit - limit // 4
    for _mtime, size, path in sorted(entries):
        if total <= target:
            break
        if _remove(path):
            removed.append(path)
            total -= size
    return removed


def _due(root: Path, now: float) -> bool:
    """Whether a pass is due; if so, the stamp is set now (a concurrent run then skips)."""
    stamp = root / STAMP
    try:
        info = os.lstat(stamp)
        if not stat.S_ISREG(info.st_mode):
            return False  # not ours: leave it alone and never prune
        if 0 <= now - info.st_mtime < INTERVAL:
            return False
        os.utime(stamp, (now, now), follow_symlinks=False)
    except FileNotFoundError:
        try:
            fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                os.utime(fd, (now, now))
            finally:
                os.close(fd)
        except OSError:
            return False
    except OSError:
        return False
    return True


def _entries(root: Path, now: float) -> Tuple[List[Tuple[float, int, Path]], List[Path]]:
    """``([(mtime, size, path)] of every entry, [stale temporary files])``."""
    entries: List[Tuple[float, int, Path]] = []
    stale: List[Path] = []

    def scan(directory: Path, depth: int) -> None:
        try:
            listing = list(os.scandir(directory))
        except OSError:
            return
        for item in listing:
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if depth == 0 and len(item.name) == 2:  # a fan-out subdirectory
                    scan(Path(item.path), 1)
            elif stat.S_ISREG(info.st_mode):
                if item.name.startswith(".") and item.name.endswith(".tmp"):
                    if now - info.st_mtime > STALE_TMP:
                        stale.append(Path(item.path))
                else:
                    entries.append((info.st_mtime, info.st_size, Path(item.path)))

    for name in _AREAS:
        area = root / name
        try:
            if not stat.S_ISDIR(os.lstat(area).st_mode):
                continue  # a symlink or a file: never followed
        except OSError:
            continue
        scan(area, 0)
    return entries, stale


def _remove(path: Path) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False
