"""Digests of the analyzer's own files, kept between runs and trusted while the files' status
is unchanged: the rule-set fingerprint (analyzer/core/fingerprint.py), the engine's digest
(analyzer/engine/cache.py) and the extractors' (analyzer/project/facts_cache.py).

Each of them reads and hashes a fixed set of our own files on every run that needs it: about
1 MB together, a tenth of the instructions of a ``check`` answered from its result cache.
An entry (area ``digests``) holds a digest with the status of every file it read and every
directory it listed; a run that finds each of them as recorded uses the digest, any
difference computes it again (and stores the new entry).

*Which status.* Device, inode, size, modification and change time (ns). Writing a file
changes its change time (ctime), which no one can set back (``touch -d`` and ``os.utime`` set
only the access and modification times), so an edit that keeps the size and restores the
mtime is still seen; adding, removing or renaming a file in a listed directory changes the
directory's times.

*Racy files.* File times have the resolution of a clock tick (coarser on some file systems),
so a file written again within the tick after it was hashed would look unchanged. An entry
is therefore stored only when every file and directory it covers is at least
:data:`SETTLED_NS` older than the moment hashing started (Git's rule for its index): a rule
set edited in the last seconds is hashed on every run until it settles.

*Where the status cannot vouch.* On Windows (``os.name == "nt"``) ``st_ctime`` is the
creation time (before Python 3.12; deprecated after), so an edit restoring the mtime would
go unseen: the memo is neither read nor written there, every run hashes. A file system that
gives no file identity (inode 0: some FAT, exFAT or network mounts) keeps no trustworthy
change time either: an entry covering such a path is never stored (and one stored before
cannot match it), so those runs hash too.

*Fail safe.* A missing, unreadable or wrong-shaped entry, or caches turned off
(``--no-cache``), computes the digest; the entry lives in the private, verified store
(analyzer/core/cache.py) like the compiled programs it stands beside.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from typing import Callable, Iterable, Optional, Sequence, Tuple, TypeVar

from analyzer.core.cache import Area

FORMAT = b"memory-analyzer-digest-memo-1\0"
DIGESTS = Area("digests", ".marshal")
_SELF = os.path.realpath(__file__)
SETTLED_NS = 2_000_000_000  # 2 s: FAT's time resolution, the coarsest we may meet
#: the operating system family whose file status is judged (os.name; a test sets another)
PLATFORM = os.name

D = TypeVar("D", str, bytes)
Status = Optional[Tuple[int, int, int, int, int]]


def status(path: str) -> Status:
    """What :mod:`digest_memo` compares of ``path``: (device, inode, size, mtime_ns, ctime_ns),
    None when it does not exist or cannot be inspected."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def memoized(name: str, anchors: Sequence[str], compute: Callable[[], Tuple[D, Iterable[str]]]) -> D:
    """The digest ``compute()`` returns, from the memo when every path it covered has the
    status it had then. ``compute`` returns the digest and every path it read or listed (a
    directory whose listing it globbed, a file it may have found absent); ``anchors`` name the
    inputs it starts from (its data directories), so another location is another entry.
    Where a file's status cannot vouch for it (:func:`status_vouches`), always ``compute()``."""
    if not status_vouches():
        return compute()[0]  # fail closed: not even read, an entry could not be checked
    key = hashlib.sha256(FORMAT + "\0".join([name, sys.version, *anchors]).encode("utf-8", "surrogateescape")
                         ).hexdigest()
    found = DIGESTS.get_marshal(key, _valid)
    if found is not None:
        digest, paths, statuses = found
        if all(status(path) == known for path, known in zip(paths, statuses)):
            return digest
    started = time.time_ns()
    digest, covered = compute()
    # each path's directory too: a covered file removed, added or renamed changes its times;
    # and this module's own file: the memo's logic is part of every entry it keeps
    paths = sorted({path for given in [*covered, _SELF] for path in (given, os.path.dirname(given))})
    statuses = [status(path) for path in paths]
    if all(_settled(known, started) and _identified(known) for known in statuses):
        DIGESTS.put(key, marshal.dumps((digest, paths, statuses)))
    return digest


def status_vouches() -> bool:
    """Whether a file's status can vouch for its content here: its change time is one that
    every write moves (not on Windows, whose ``st_ctime`` is the creation time)."""
    return PLATFORM != "nt"


def _identified(known: Status) -> bool:
    # inode 0: the file system names no file identity (some FAT, exFAT, network mounts),
    # and its change times are as little to be trusted: nothing covering it is stored
    return known is None or known[1] != 0


def _settled(known: Status, started: int) -> bool:
    # an absent path has no time to be racy about: its appearance changes its status
    return known is None or max(known[3], known[4]) <= started - SETTLED_NS


def _valid(value) -> bool:
    return (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], (str, bytes))
            and isinstance(value[1], list) and isinstance(value[2], list) and len(value[1]) == len(value[2])
            and all(isinstance(path, str) for path in value[1])
            and all(known is None or (isinstance(known, tuple) and len(known) == 5) for known in value[2]))
