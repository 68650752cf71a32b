"""The rule-set fingerprint: one sha256 over the shipped grammar/, facts/ and rules/ files.

Every JSON report carries it (``analyzer.ruleset_fingerprint``) so that two reports can be
compared honestly: same fingerprint and version, same semantics. Only the files that ship in
the wheel count (``*.lark`` in grammar/, ``*.dl`` in facts/ and rules/ and one folder below
rules/), so a source checkout and an installed wheel of the same commit agree.

Hash input, per file in sorted order of its relative path (``rules/routing.dl``): the path
as UTF-8, a NUL byte, the content length in decimal, a NUL byte, the raw content bytes.
Computed on first use and cached for the rest of the process, and between runs while no
hashed file or listed directory changed status (analyzer/core/digest_memo.py).
"""

from __future__ import annotations

import hashlib
import os
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

from analyzer.core import digest_memo
from analyzer.core.resources import data_dir

SHIPPED: Dict[str, Tuple[str, ...]] = {
    "grammar": ("*.lark",),
    "facts": ("*.dl",),
    "rules": ("*.dl", "*/*.dl"),
}


def shipped_files(locate: Callable[[str], Path] = data_dir) -> List[Tuple[str, Path]]:
    """Every shipped definition file as (relative path, absolute path), sorted by relative path."""
    return [(rel, Path(path)) for rel, path in _found(locate)]


def _found(locate: Callable[[str], Path]) -> List[Tuple[str, str]]:
    # what ``Path.glob`` of :data:`SHIPPED`'s patterns finds (hidden names too, case-sensitive),
    # walked with os.scandir and plain strings: pathlib's objects for 128 files cost a cold
    # read about as much as hashing their 0.9 MB (docs/performance.md)
    found = {}
    for kind, patterns in SHIPPED.items():
        base = str(locate(kind))
        if not os.path.isdir(base):
            continue
        for pattern in patterns:
            found.update(_matches(base, pattern.split("/"), f"{kind}/"))
    return sorted(found.items())


def matching(directory, pattern: str) -> List[str]:
    """The files directly in ``directory`` whose names match ``pattern`` (``*.py``), as
    ``Path.glob`` finds them, sorted: a source digest's inputs without pathlib's objects."""
    return sorted(path for _, path in _matches(str(directory), [pattern], ""))


def read(path: str) -> bytes:
    """The bytes of the file ``path``."""
    with open(path, "rb") as handle:
        return handle.read()


def _matches(directory: str, parts: List[str], prefix: str) -> Iterator[Tuple[str, str]]:
    """(relative path, path) of every file under ``directory`` whose path matches the glob
    pattern ``parts`` (one per level, ``*`` within a name only)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not fnmatchcase(entry.name, parts[0]):
            continue
        if len(parts) == 1:
            if entry.is_file():
                yield prefix + entry.name, entry.path
        elif entry.is_dir():
            yield from _matches(entry.path, parts[1:], f"{prefix}{entry.name}/")


@lru_cache(maxsize=None)
def covers(rel: str) -> bool:
    """Whether the file at ``rel`` (relative to the data root: ``rules/entries/fields.dl``)
    is one the fingerprint hashes, were it there (:data:`SHIPPED`)."""
    kind, _, rest = rel.partition("/")
    parts = rest.split("/")
    if any(part in ("", ".", "..") for part in parts):  # `*` would match them: a file outside the hashed set
        return False
    return any(len(parts) == len(pattern) and all(map(fnmatchcase, parts, pattern))
               for pattern in (p.split("/") for p in SHIPPED.get(kind, ())))


def compute(locate: Callable[[str], Path] = data_dir) -> str:
    """The sha256 hex digest over the shipped files found through ``locate``."""
    return _compute(locate)[0]


def _compute(locate: Callable[[str], Path]) -> Tuple[str, List[str]]:
    """:func:`compute`, and every path it read or listed (for the memo)."""
    digest = hashlib.sha256()
    found = _found(locate)
    for rel, path in found:
        content = read(path)
        digest.update(rel.encode("utf-8") + b"\0" + str(len(content)).encode("ascii") + b"\0")
        digest.update(content)
    # and this file: what it hashes and how (SHIPPED, the layout) decides the digest as the data does
    return digest.hexdigest(), [path for _, path in found] + _listed(locate) + [os.path.realpath(__file__)]


def _listed(locate: Callable[[str], Path]) -> List[str]:
    """The directories :func:`shipped_files` lists: each kind's, and those one below it where
    a pattern reaches there (a file added to any of them changes its times)."""
    listed = []
    for kind, patterns in SHIPPED.items():
        base = str(locate(kind))
        listed.append(base)
        if os.path.isdir(base) and any("/" in pattern for pattern in patterns):
            listed.extend(entry.path for entry in os.scandir(base) if entry.is_dir())
    return listed


@lru_cache(maxsize=None)
def ruleset_fingerprint() -> str:
    """The fingerprint of the rule set this process runs with (computed once per process,
    read from the memo while the files are unchanged)."""
    return digest_memo.memoized("ruleset", [str(data_dir(kind)) for kind in SHIPPED], lambda: _compute(data_dir))
