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
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Callable, Dict, List, Tuple

from analyzer.core import digest_memo
from analyzer.core.resources import data_dir

SHIPPED: Dict[str, Tuple[str, ...]] = {
    "grammar": ("*.lark",),
    "facts": ("*.dl",),
    "rules": ("*.dl", "*/*.dl"),
}


def shipped_files(locate: Callable[[str], Path] = data_dir) -> List[Tuple[str, Path]]:
    """Every shipped definition file as (relative path, absolute path), sorted by relative path."""
    found = {}
    for kind, patterns in SHIPPED.items():
        base = locate(kind)
        if not base.is_dir():
            continue
        for pattern in patterns:
            for path in base.glob(pattern):
                if path.is_file():
                    found[f"{kind}/{path.relative_to(base).as_posix()}"] = path
    return sorted(found.items())


def covers(rel: str) -> bool:
    """Whether the file at ``rel`` (relative to the data root: ``rules/entries/fields.dl``)
    is one the fingerprint hashes, were it there (:data:`SHIPPED`)."""
    kind, _, rest = rel.partition("/")
    path = PurePosixPath(rest)
    if any(part in (".", "..") for part in path.parts):  # `*` would match them: a file outside the hashed set
        return False
    return any(len(path.parts) == len(PurePosixPath(pattern).parts) and path.match(pattern)
               for pattern in SHIPPED.get(kind, ()))


def compute(locate: Callable[[str], Path] = data_dir) -> str:
    """The sha256 hex digest over the shipped files found through ``locate``."""
    return _compute(locate)[0]


def _compute(locate: Callable[[str], Path]) -> Tuple[str, List[str]]:
    """:func:`compute`, and every path it read or listed (for the memo)."""
    digest = hashlib.sha256()
    found = shipped_files(locate)
    for rel, path in found:
        content = path.read_bytes()
        digest.update(rel.encode("utf-8") + b"\0" + str(len(content)).encode("ascii") + b"\0")
        digest.update(content)
    return digest.hexdigest(), [str(path) for _, path in found] + _listed(locate)


def _listed(locate: Callable[[str], Path]) -> List[str]:
    """The directories :func:`shipped_files` lists: each kind's, and those one below it where
    a pattern reaches there (a file added to any of them changes its times)."""
    listed = []
    for kind, patterns in SHIPPED.items():
        base = locate(kind)
        listed.append(str(base))
        if base.is_dir() and any("/" in pattern for pattern in patterns):
            listed.extend(str(child) for child in base.iterdir() if child.is_dir())
    return listed


@lru_cache(maxsize=None)
def ruleset_fingerprint() -> str:
    """The fingerprint of the rule set this process runs with (computed once per process,
    read from the memo while the files are unchanged)."""
    return digest_memo.memoized("ruleset", [str(data_dir(kind)) for kind in SHIPPED], lambda: _compute(data_dir))
