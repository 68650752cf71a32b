"""The analyzer's on-disk cache store: verified entries under one private directory.

**The store** (:class:`Area`) is the one way any part of the analyzer keeps data between
runs (facts, compiled rule programs, grammar tables; reuse it for anything else). It lives
under ``$XDG_CACHE_HOME/memory-analyzer/<area>`` (never inside the analyzed project) and
guarantees three things:

* *Only a private directory is used.* Every directory from ``memory-analyzer`` down is
  created with mode 0700 and used only when it is a real directory (no symlink), owned by
  the current user and writable by no one else (as the local overlay's permission checks);
  otherwise, or when it cannot be created, the run goes on without that cache after one
  warning line on stderr. Entries hold pickled and marshalled code: a directory others can
  write to would let them run code as the user.
* *Nothing unverified is decoded.* An entry file is ``MAGIC``, the SHA-256 of key and
  payload, then the payload. :meth:`Area.get` opens it without following symlinks or
  blocking (a FIFO never hangs), requires a regular file under :data:`MAX_ENTRY_BYTES`,
  checks the digest, and only then returns the payload to be unmarshalled or unpickled.
* *A bad entry heals.* A truncated, flipped, misplaced or non-file entry is removed, with
  one warning line on stderr (the first per area and process), and reads as a miss: the
  caller recomputes and :meth:`Area.put` replaces it atomically (temp file, then rename),
  so concurrent runs never see half an entry. A payload that verifies but cannot be
  decoded is reported by the caller through :meth:`Area.discard`, with the same effect.
* *It stays bounded.* A read sets an entry's time; after a console run that stored
  something, the least recently used entries go once the areas exceed a size limit
  (analyzer/core/cache_prune.py, ``MEMORY_ANALYZER_CACHE_MAX_MB``).

The facts cache built on it (one entry per project's memory files, or per file) is
analyzer/project/facts_cache.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import marshal
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Dict, Optional, Tuple

from analyzer.core import cache_prune

MAGIC = b"MA-CACHE\x01\n"
DIGEST_BYTES = 32
MAX_ENTRY_BYTES = 1 << 30  # a bigger entry is never read (a 10 MiB memory file's facts are ~60 MiB)
_WARNED: Dict[str, bool] = {}  # topic (area or directory) -> a warning was printed in this process


def cache_root() -> Path:
    """The analyzer's cache directory: ``$XDG_CACHE_HOME/memory-analyzer`` (or ~/.cache/...)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "memory-analyzer"


def warn_once(topic: str, message: str) -> None:
    """Print ``analyze: warning: <message>`` on stderr, once per topic (an area, a directory)
    and process."""
    if not _WARNED.get(topic):
        _WARNED[topic] = True
        print(f"analyze: warning: {message}", file=sys.stderr)


def _private_dir(path: str) -> Optional[str]:
    """Create ``path`` (mode 0700) if missing; None when it is usable, else why not."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        try:
            os.mkdir(path, 0o700)
            info = os.lstat(path)
        except FileExistsError:  # made by a concurrent run meanwhile
            info = os.lstat(path)
        except OSError as exc:
            return f"cannot create it ({exc.strerror or exc})"
    except OSError as exc:
        return f"cannot inspect it ({exc.strerror or exc})"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory (a symlink or a file)"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return "it is owned by another user"
    if info.st_mode & 0o022:
        return "other users can write to it"
    if not os.access(path, os.W_OK | os.X_OK):
        return "it is not writable"
    return None


_CHECKED: Dict[str, Optional[str]] = {}  # directory -> problem (None: usable), per process
_AREAS: Dict[tuple, Optional[Path]] = {}  # (cache root, area) -> its directory or None, per process
_FILES: Dict[tuple, Optional[str]] = {}  # ($XDG_CACHE_HOME or ~/.cache, area) -> its directory or None, per process
_OFF: list = []  # non-empty while caches are turned off (turned_off(), nested)


@contextlib.contextmanager
def turned_off():
    """Use no cache while the block runs (``--no-cache``): every area reads nothing, writes
    nothing and creates no directory. Commands also pass ``use_cache`` down to say which
    facts to recompute; this switch covers the caches a run uses whatever it asked (compiled
    rule programs, Lark tables), so ``--no-cache`` leaves the cache directory as it found it.
    Scoped, not for the rest of the process: a library caller or a test may run a
    ``--no-cache`` command and then a cached one in the same process."""
    _OFF.append(True)
    try:
        yield
    finally:
        _OFF.pop()


def caches_off() -> bool:
    """Whether caches are turned off (:func:`turned_off`) in this process right now."""
    return bool(_OFF)


def _checked(path: str) -> Optional[str]:
    if path not in _CHECKED:
        _CHECKED[path] = _private_dir(path)
    return _CHECKED[path]


class Area:
    """One named part of the cache (``facts``, ``programs``, ``lark``...): verified entries
    stored under ``cache_root()/name``, optionally fanned out by the key's first two
    characters (for areas with many entries)."""

    def __init__(self, name: str, suffix: str, fanout: bool = False) -> None:
        self.name = name
        self.suffix = suffix
        self.fanout = fanout

    def directory(self) -> Optional[Path]:
        """The area's directory, created and checked; None (after one warning) when unusable,
        and None when caches are turned off."""
        if _OFF:
            return None
        root = cache_root()
        known = _AREAS.get((str(root), self.name), False)
        if known is not False:
            return known
        _AREAS[(str(root), self.name)] = found = self._directory(root)
        return found

    def _directory(self, root: Path) -> Optional[Path]:
        base = str(root.parent)
        try:
            os.makedirs(base, 0o700, exist_ok=True)
        except OSError as exc:
            # keyed by directory: one line per run, not one per area that lives there
            warn_once(base, f"cache directory {base} cannot be created ({exc.strerror or exc}); "
                            f"running without the cache")
            return None
        for path in (str(root), str(root / self.name)):
            problem = _checked(path)
            if problem is not None:
                warn_once(path, f"cache directory {path} is not used: {problem}; running without the "
                                f"{'cache' if path == str(root) else self.name + ' cache'}")
                return None
        return root / self.name

    def path(self, key: str) -> Optional[Path]:
        """The entry file of ``key`` (its directory checked and created), or None."""
        found = self._file(key)
        return None if found is None else Path(found)

    def _file(self, key: str) -> Optional[str]:
        """:meth:`path` as a string: a first history reading asks for 46,000 entries, and
        building each path with pathlib cost more than reading the entry."""
        if _OFF:
            return None
        # cache_root()'s base, as a string
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        memo = (base, self.name)
        area = _FILES.get(memo, False)
        if area is False:
            found = self.directory()
            _FILES[memo] = area = None if found is None else str(found)
        if area is None:
            return None
        if self.fanout:
            area = f"{area}{os.sep}{key[:2]}"
            problem = _checked(area)
            if problem is not None:
                warn_once(area, f"cache directory {area} is not used: {problem}; running without the {self.name} cache")
                return None
        return f"{area}{os.sep}{key}{self.suffix}"

    def has(self, key: str) -> bool:
        """Whether an entry for ``key`` is stored as a regular file (it is verified on get)."""
        path = self._file(key)
        try:
            return path is not None and stat.S_ISREG(os.lstat(path).st_mode)
        except OSError:
            return False

    def get(self, key: str) -> Optional[bytes]:
        """The verified payload stored for ``key``; None when missing or bad (a bad entry is
        removed, with a warning). Never follows a symlink, never blocks on a FIFO."""
        path = self._file(key)
        if path is None:
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:  # a symlink (ELOOP), a permission problem...
            self.discard(key, f"cannot be opened ({exc.strerror or exc})")
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                problem = "is not a regular file"
            elif info.st_size > MAX_ENTRY_BYTES:
                problem = f"is larger than {MAX_ENTRY_BYTES} bytes"
            else:
                data = _read_all(fd, info.st_size)
                problem = _verify(key, data)
                if problem is None:
                    _touch(fd)
                    return data[len(MAGIC) + DIGEST_BYTES:]  # the one copy of the payload
        except OSError as exc:
            problem = f"cannot be read ({exc.strerror or exc})"
        finally:
            os.close(fd)
        self.discard(key, problem)
        return None

    def get_marshal(self, key: str, valid):
        """The verified value stored for ``key``, unmarshalled, when ``valid(value)`` accepts
        its shape; else None (an entry that cannot be decoded or has the wrong shape is
        discarded, with a warning)."""
        payload = self.get(key)  # verified: the digest matched before anything is decoded
        if payload is None:
            return None
        try:
            value = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            value = None
        if value is None or not valid(value):
            self.discard(key, "holds data of the wrong shape")
            return None
        return value

    def discard(self, key: str, problem: str) -> None:
        """Remove the entry of ``key`` (it is bad: ``problem``), with one warning line."""
        path = self.path(key)
        if path is None:
            return
        warn_once(self.name, f"discarded {self.name} cache entry {path}: it {problem}; recomputed")
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass  # put() replaces it, or the next run tries again

    def put(self, key: str, payload: bytes) -> bool:
        """Store ``payload`` for ``key`` atomically; False when the cache cannot be written."""
        path = self._file(key)
        if path is None:
            return False
        tmp = None
        try:
            try:
                fd, tmp = _temporary(path)
            except FileNotFoundError:  # the directory was removed since it was checked
                _forget()
                path = self._file(key)
                if path is None:
                    return False
                fd, tmp = _temporary(path)
            with os.fdopen(fd, "wb") as handle:
                handle.write(MAGIC + _digest(key, payload) + payload)
            os.replace(tmp, path)  # atomic: concurrent readers see the old entry or the new one
            cache_prune.note_write()
            return True
        except OSError:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            return False


_WRITES = itertools.count()


def _temporary(path: str) -> Tuple[int, str]:
    """A new private file (mode 0600, never a symlink followed) beside ``path``: (fd, its
    name). Named after the entry, this process and a counter (cheaper than
    ``tempfile.mkstemp``'s random names, 22,000 times in a first history reading); a name
    taken (a file left by a process that had the same id) falls back to mkstemp. The
    leading dot and ``.tmp`` let pruning remove what an interrupted write leaves."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{next(_WRITES)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        return os.open(tmp, flags, 0o600), tmp
    except FileExistsError:
        return tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")


def _touch(fd: int) -> None:
    # the entry's time says when it was last used: pruning removes the least recently used
    # (analyzer/core/cache_prune.py); a cache we may read but not change is simply not touched
    try:
        os.utime(fd)
    except OSError:
        pass


def _forget() -> None:
    """Forget which directories were checked (one was removed while this process ran)."""
    _CHECKED.clear()
    _AREAS.clear()
    _FILES.clear()


def _digest(key: str, payload) -> bytes:
    # the key is hashed too: an entry copied or renamed to another key does not verify
    h = hashlib.sha256(key.encode("utf-8") + b"\0")
    h.update(payload)
    return h.digest()


def _read_all(fd: int, size: int) -> bytes:
    # one byte more than fstat said: a file that grew meanwhile reads as too long
    chunks = [os.read(fd, size + 1)]
    total = len(chunks[0])
    while total <= size:  # a short read (a signal, a file system that splits reads)
        more = os.read(fd, size + 1 - total)
        if not more:
            break
        chunks.append(more)
        total += len(more)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _verify(key: str, data: bytes) -> Optional[str]:
    """None when ``data`` is a complete entry for ``key``, else what is wrong with it."""
    head = len(MAGIC) + DIGEST_BYTES
    if len(data) < head or not data.startswith(MAGIC):
        return "is truncated or not a cache entry"
    if data[len(MAGIC):head] != _digest(key, memoryview(data)[head:]):
        return "does not match its digest (corrupt or truncated)"
    return None
